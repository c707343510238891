import HTTPConnectionLimits
import NIOCore
import NIOHTTP1

/// What a request to start a scan got.
public enum ScanStartReply: Sendable, Equatable {
    case started
    /// A scan is already running (HTTP 409); the message says so.
    case busy(String)
    /// No scan can start now, e.g. the camera is not running (HTTP 503).
    case unavailable(String)
}

/// The page's endpoints and what serves them.
///
///     GET  /            the page
///     GET  /video.mjpg  the live video, multipart/x-mixed-replace JPEG parts
///     GET  /events      server-sent events: `state` (live vitals, hints, the scan)
///     POST /scan        starts a measurement: 202, or 409 while one runs (403 from another site)
///     GET  /stats       viewers, subscribers, encodes and connections as JSON (tests, diagnostics)
public struct PreviewRoutes: Sendable {
    public let video: VideoFanout
    public let events: EventFanout
    public let startScan: @Sendable () async -> ScanStartReply

    public init(video: VideoFanout, events: EventFanout, startScan: @escaping @Sendable () async -> ScanStartReply) {
        self.video = video
        self.events = events
        self.startScan = startScan
    }

    /// Viewers, subscribers, encodes and the server's connections, as GET /stats reports them.
    func statsJSON(connections: Int, refused: Int) -> String {
        "{\"videoViewers\":\(video.viewerCount),\"eventSubscribers\":\(events.subscriberCount),"
            + "\"encodes\":\(video.encodeCount),\"skippedFrames\":\(video.skippedCount),"
            + "\"connections\":\(connections),\"refusedConnections\":\(refused)}"
    }
}

/// One HTTP connection: reads a request and answers it, or hands the connection to the
/// video or the events fan-out, which keep it until the viewer goes.
final class PreviewHTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// A start request carries no body worth reading; anything larger is refused.
    private static let maximumBody = 4096

    private let routes: PreviewRoutes
    private let gate: ConnectionGate
    /// Bound to a loopback address: only requests named for this machine are answered.
    private let loopbackOnly: Bool
    private var head: HTTPRequestHead?
    private var bodySize = 0

    init(routes: PreviewRoutes, gate: ConnectionGate, loopbackOnly: Bool) {
        self.routes = routes
        self.gate = gate
        self.loopbackOnly = loopbackOnly
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            bodySize = 0
        case .body(let chunk):
            bodySize += chunk.readableBytes
        case .end:
            guard let head else { return }
            self.head = nil
            if bodySize > Self.maximumBody {
                return Self.respond(context.channel, .payloadTooLarge, json: Self.error("too-large", "a request body is at most 4 KB"))
            }
            route(head, channel: context.channel)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        // A malformed request or a reset connection: nothing to answer, just let it go.
        context.close(promise: nil)
    }

    private func route(_ head: HTTPRequestHead, channel: Channel) {
        let path = head.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? head.uri
        // A web page whose name was pointed at 127.0.0.1 (DNS rebinding) is its own origin
        // there, and would read the camera and start scans: it still names itself in Host.
        if loopbackOnly, !Self.isNamedForThisMachine(head) {
            return Self.respond(channel, .forbidden, json: Self.error(
                "host", "this preview answers only to 127.0.0.1, localhost and [::1]: open it by one of those names"))
        }
        switch (head.method, path) {
        case (.GET, "/"), (.GET, "/index.html"):
            Self.respond(channel, .ok, contentType: "text/html; charset=utf-8", body: PreviewPage.html)
        case (.GET, "/video.mjpg"):
            routes.video.add(channel)
        case (.GET, "/events"):
            routes.events.add(channel)
        case (.POST, "/scan") where !Self.isSameOrigin(head):
            // Another site open in the same browser must not start scans behind the page's back.
            Self.respond(channel, .forbidden, json: Self.error("origin", "scans are started from the preview page itself"))
        case (.POST, "/scan"):
            let startScan = routes.startScan
            let reply = channel.eventLoop.makeFutureWithTask { await startScan() }
            reply.whenSuccess { reply in
                switch reply {
                case .started:
                    Self.respond(channel, .accepted, json: "{\"status\":\"started\"}")
                case .busy(let message):
                    Self.respond(channel, .conflict, json: Self.error("busy", message))
                case .unavailable(let message):
                    Self.respond(channel, .serviceUnavailable, json: Self.error("unavailable", message))
                }
            }
        case (.GET, "/stats"):
            Self.respond(channel, .ok, json: routes.statsJSON(connections: gate.openCount, refused: gate.refusedCount))
        case (_, "/"), (_, "/index.html"), (_, "/video.mjpg"), (_, "/events"), (_, "/scan"), (_, "/stats"):
            Self.respond(channel, .methodNotAllowed, json: Self.error("method", "\(head.method) is not allowed on \(path)"))
        default:
            Self.respond(channel, .notFound, json: Self.error("not-found", "no such page: \(path)"))
        }
    }

    /// A request a browser sent from a page of another origin carries that origin; the
    /// preview page's own requests, and those of programs such as curl, pass.
    static func isSameOrigin(_ head: HTTPRequestHead) -> Bool {
        guard let origin = head.headers.first(name: "Origin") else { return true }
        guard let host = head.headers.first(name: "Host") else { return false }
        return origin == "http://\(host)"
    }

    /// Whether the request's Host names this machine's loopback: 127.0.0.1, localhost or
    /// [::1], with any port (the name is what a renamed page cannot fake). A request
    /// without a Host (HTTP/1.0 tools) passes: browsers always send one.
    static func isNamedForThisMachine(_ head: HTTPRequestHead) -> Bool {
        guard let host = head.headers.first(name: "Host")?.lowercased() else { return true }
        var name = Substring(host)
        if let colon = host.lastIndex(of: ":"), !host.hasSuffix("]") { name = host[..<colon] }
        return ["127.0.0.1", "localhost", "[::1]"].contains(String(name))
    }

    /// `{"error": CODE, "message": TEXT}`.
    static func error(_ code: String, _ message: String) -> String {
        "{\"error\":\(JSONText.string(code)),\"message\":\(JSONText.string(message))}"
    }

    static func respond(_ channel: Channel, _ status: HTTPResponseStatus, json: String) {
        respond(channel, status, contentType: "application/json; charset=utf-8", body: json)
    }

    /// A whole response, then the connection closes (the page's requests are few; streams keep theirs).
    static func respond(_ channel: Channel, _ status: HTTPResponseStatus, contentType: String, body: String) {
        var buffer = ByteBufferAllocator().buffer(capacity: body.utf8.count)
        buffer.writeString(body)
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: contentType)
        headers.add(name: "Content-Length", value: String(buffer.readableBytes))
        headers.add(name: "Cache-Control", value: "no-store")
        headers.add(name: "Connection", value: "close")
        channel.write(HTTPServerResponsePart.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers)),
                      promise: nil)
        channel.write(HTTPServerResponsePart.body(.byteBuffer(buffer)), promise: nil)
        channel.writeAndFlush(HTTPServerResponsePart.end(nil)).whenComplete { _ in channel.close(promise: nil) }
    }
}
