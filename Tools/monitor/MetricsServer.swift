import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import Prometheus
import ServiceLifecycle

/// The Prometheus endpoint: `GET /metrics` answers the registry in the text
/// exposition format; anything else is 404 (405 for another method). A minimal
/// HTTP/1.1 server on SwiftNIO, one response per connection, run as a service so
/// it closes with the rest of the group.
public struct MetricsServer: Service {
    public let host: String
    public let port: Int
    private let registry: PrometheusCollectorRegistry
    private let logger: Logger
    private let onListening: @Sendable (Int) -> Void

    /// - Parameter onListening: called with the bound port once it accepts connections (port 0 picks one).
    public init(host: String, port: Int, registry: PrometheusCollectorRegistry, logger: Logger,
                onListening: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.host = host
        self.port = port
        self.registry = registry
        self.logger = logger
        self.onListening = onListening
    }

    /// Why the endpoint could not listen (address in use, not this machine's, no permission).
    public struct BindFailure: Error, CustomStringConvertible {
        public var description: String
    }

    public func run() async throws {
        let registry = registry
        let channel: any Channel
        do {
            channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(.backlog, value: 16)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                        try channel.pipeline.syncOperations.addHandler(MetricsHandler(registry: registry))
                    }
                }
                .bind(host: host, port: port)
                .get()
        } catch {
            throw BindFailure(description: "the metrics endpoint cannot listen on \(host):\(port): \(error)")
        }
        let bound = channel.localAddress?.port ?? port
        logger.info("metrics endpoint listening", metadata: ["address": "http://\(host):\(bound)/metrics"])
        onListening(bound)
        try await withGracefulShutdownHandler {
            try await channel.closeFuture.get()
        } onGracefulShutdown: {
            channel.close(promise: nil)
        }
    }
}

/// Answers one request per connection, then closes it.
private final class MetricsHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let registry: PrometheusCollectorRegistry
    private var request: HTTPRequestHead?

    init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            request = head
        case .body:
            break
        case .end:
            guard let head = request else { return }
            request = nil
            respond(to: head, context: context)
        }
    }

    private func respond(to head: HTTPRequestHead, context: ChannelHandlerContext) {
        let path = head.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? head.uri
        let status: HTTPResponseStatus
        var body: [UInt8]
        var headers = HTTPHeaders([("connection", "close")])
        switch (head.method, path) {
        case (.GET, "/metrics"), (.HEAD, "/metrics"):
            status = .ok
            body = registry.emitToBuffer()
            headers.add(name: "content-type", value: "text/plain; version=0.0.4; charset=utf-8")
        case (_, "/metrics"):
            status = .methodNotAllowed
            body = Array("only GET /metrics\n".utf8)
            headers.add(name: "allow", value: "GET, HEAD")
        default:
            status = .notFound
            body = Array("not found: the metrics are at /metrics\n".utf8)
        }
        headers.add(name: "content-length", value: String(body.count))
        if head.method == .HEAD { body = [] }
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))),
                      promise: nil)
        if !body.isEmpty {
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))),
                          promise: nil)
        }
        // Still on the channel's event loop when the write completes, so the context may be used there.
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }
}
