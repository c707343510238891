import NIOCore
import NIOHTTP1

extension ConnectionGate {
    /// Sets up a connection an HTTP server accepted, under this gate's limits. When the
    /// maximum are open, the connection is closed as soon as it is, and this returns false.
    /// Otherwise the connection counts until it closes, the HTTP codec and the request's
    /// deadline are added, and this returns true: the server's own handler goes next.
    /// Call it in the child channel initializer, on the channel's event loop.
    public func admitHTTPConnection(_ channel: any Channel) throws -> Bool {
        let pipeline = channel.pipeline.syncOperations
        guard enter() else {
            try pipeline.addHandler(CloseAtOnce())
            return false
        }
        channel.closeFuture.whenComplete { _ in self.leave() }
        try pipeline.configureHTTPServerPipeline(withErrorHandling: true)
        try pipeline.addHandler(RequestDeadline(timeout: limits.requestTimeAmount))
        return true
    }
}

/// A connection over the limit: closed as soon as it is open, before it costs more.
private final class CloseAtOnce: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    func channelActive(context: ChannelHandlerContext) {
        context.close(promise: nil)
    }
}
