#if canImport(Glibc)
import Glibc
#endif
import HTTPConnectionLimits
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import Prometheus
import ServiceLifecycle

/// The Prometheus endpoint: `GET /metrics` answers the registry in the text
/// exposition format; anything else is 404 (405 for another method). A minimal
/// HTTP/1.1 server on SwiftNIO, one response per connection, run as a service so
/// it closes with the rest of the group. It listens in `listen`, before the group
/// runs: an address that cannot be used stops the command before a camera opens.
/// A client gets `ConnectionLimits`' defaults: 10 s to send its request, 64 connections at
/// once (a monitor that ran out of file descriptors could not reopen its camera).
public struct MetricsServer: Service {
    public let host: String
    /// The port it listens on (the one picked, when 0 was asked for).
    public let port: Int
    private let channel: any Channel
    private let logger: Logger

    /// Why the endpoint could not listen (address in use, not this machine's, no permission).
    public struct BindFailure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Listens on `host:port` (0 picks a port); serving starts with `run()`. Follow it with
    /// `run()` or, when the service will not run after all, `close()`: the port is held until then.
    public static func listen(host: String, port: Int, registry: PrometheusCollectorRegistry, logger: Logger,
                              limits: ConnectionLimits = ConnectionLimits()) async throws(BindFailure) -> MetricsServer {
        let gate = ConnectionGate(limits: limits)
        do {
            let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(.backlog, value: 16)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        guard try gate.admitHTTPConnection(channel) else { return }
                        try channel.pipeline.syncOperations.addHandler(MetricsHandler(registry: registry))
                    }
                }
                .bind(host: host, port: port)
                .get()
            return MetricsServer(host: host, port: channel.localAddress?.port ?? port, channel: channel, logger: logger)
        } catch {
            throw BindFailure(description: "the metrics endpoint cannot listen on \(host):\(port): \(Self.reason(error))")
        }
    }

    /// The socket error in words a user acts on, not NIO's call site.
    private static func reason(_ error: any Error) -> String {
        guard let io = error as? IOError else { return "\(error)" }
        switch io.errnoCode {
        case EADDRINUSE: return "the port is already in use (another monitor?); choose another in --metrics"
        case EACCES: return "ports below 1024 need root; choose 1024 or above"
        case EADDRNOTAVAIL: return "not an address of this machine; use 127.0.0.1, 0.0.0.0 or one of `ip -brief address`"
        default: return String(cString: strerror(io.errnoCode))
        }
    }

    private init(host: String, port: Int, channel: any Channel, logger: Logger) {
        self.host = host
        self.port = port
        self.channel = channel
        self.logger = logger
    }

    /// Stops listening without having served (a `run()` that has started ends too).
    public func close() async {
        try? await channel.close()
    }

    /// Serves until the group shuts down gracefully.
    public func run() async throws {
        let channel = channel
        logger.info("metrics endpoint listening", metadata: ["address": "http://\(host):\(port)/metrics"])
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
