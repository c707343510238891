import Glibc
import HTTPConnectionLimits
import NIOCore
import NIOHTTP1
import NIOPosix

/// Why the server could not start, in words for the person who typed the command.
public enum PreviewServerError: Error, Equatable, CustomStringConvertible {
    /// `--bind` is not an IP address.
    case badBindAddress(String)
    /// The address is not one of this machine's (EADDRNOTAVAIL).
    case addressNotAvailable(String)
    /// Another program listens on the port.
    case portInUse(host: String, port: Int)
    /// Ports below 1024 need root or CAP_NET_BIND_SERVICE.
    case permissionDenied(host: String, port: Int)
    case bindFailed(String)

    public var description: String {
        switch self {
        case .badBindAddress(let text):
            "'\(text)' is not an IP address: --bind takes one such as 127.0.0.1 (this machine only), "
                + "0.0.0.0 (every network) or ::1"
        case .addressNotAvailable(let host):
            "\(host) is not an address of this machine; use 127.0.0.1, 0.0.0.0 or one of `ip -brief address`"
        case .portInUse(let host, let port):
            "port \(port) on \(host) is already in use (another circadify preview?); choose another with --port"
        case .permissionDenied(let host, let port):
            "not allowed to listen on port \(port) on \(host): ports below 1024 need root; choose --port 1024 or above"
        case .bindFailed(let message):
            "could not listen: \(message)"
        }
    }
}

/// The preview's HTTP server on one event-loop thread: the page, the video, the events and
/// the scan button's endpoint (see `PreviewRoutes`).
public final class PreviewServer: Sendable {
    private let group: MultiThreadedEventLoopGroup
    private let channel: Channel
    private let routes: PreviewRoutes
    private let gate: ConnectionGate

    /// The port it listens on (the one chosen by the system when asked for 0).
    public let port: Int
    public let host: String

    /// Starts listening on `host`:`port` (port 0: any free one), each client held to
    /// `limits` (by default 10 s to send a request, 64 connections at once).
    /// - Throws: `PreviewServerError`.
    public init(host: String, port: Int, routes: PreviewRoutes,
                limits: ConnectionLimits = ConnectionLimits()) async throws(PreviewServerError) {
        let address = try Self.address(host, port: port)
        let loopbackOnly = Self.isLoopback(host)
        let gate = ConnectionGate(limits: limits)
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 64)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    guard try gate.admitHTTPConnection(channel) else { return }
                    try channel.pipeline.syncOperations.addHandler(
                        PreviewHTTPHandler(routes: routes, gate: gate, loopbackOnly: loopbackOnly))
                }
            }
        let channel: Channel
        do {
            channel = try await bootstrap.bind(to: address).get()
        } catch {
            try? await group.shutdownGracefully()
            throw Self.explain(error, host: host, port: port)
        }
        self.group = group
        self.channel = channel
        self.routes = routes
        self.gate = gate
        self.host = host
        self.port = channel.localAddress?.port ?? port
    }

    /// Stops listening, closes every viewer and subscriber and ends the event loop.
    public func stop() async {
        try? await channel.close()
        routes.video.closeAll()
        routes.events.closeAll()
        try? await group.shutdownGracefully()
    }

    /// Connections open now (streams included).
    public var connectionCount: Int { gate.openCount }

    /// Checks that `host` is an IP address (the command's --bind), before anything is opened.
    public static func checkBindAddress(_ host: String) throws(PreviewServerError) {
        _ = try address(host, port: 0)
    }

    /// Whether `host` (an IP address) is this machine's loopback, 127.0.0.0/8 or ::1: a
    /// server bound there is reached by this machine's programs alone.
    public static func isLoopback(_ host: String) -> Bool {
        guard let address = try? SocketAddress(ipAddress: host, port: 0) else { return false }
        switch address {
        case .v4: return address.ipAddress?.hasPrefix("127.") == true
        case .v6: return address.ipAddress == "::1"
        default: return false
        }
    }

    private static func address(_ host: String, port: Int) throws(PreviewServerError) -> SocketAddress {
        do {
            return try SocketAddress(ipAddress: host, port: port)
        } catch {
            throw .badBindAddress(host)
        }
    }

    private static func explain(_ error: Error, host: String, port: Int) -> PreviewServerError {
        if let io = error as? IOError {
            switch io.errnoCode {
            case EADDRINUSE: return .portInUse(host: host, port: port)
            case EADDRNOTAVAIL: return .addressNotAvailable(host)
            case EACCES: return .permissionDenied(host: host, port: port)
            default: break
            }
        }
        return .bindFailed(String(describing: error))
    }
}
