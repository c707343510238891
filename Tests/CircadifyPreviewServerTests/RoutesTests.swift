@testable import CircadifyPreviewServer
import Testing

/// The page and the small endpoints, over real HTTP.
@Suite(.serialized) struct RoutesTests {
    static func serve(_ startScan: @escaping @Sendable () async -> ScanStartReply = { .started }) async throws -> PreviewServer {
        try await PreviewServer(host: "127.0.0.1", port: 0,
                                routes: PreviewRoutes(video: VideoFanout(), events: EventFanout(), startScan: startScan))
    }

    @Test func thePageIsServedWholeWithNothingFromElsewhere() async throws {
        let server = try await Self.serve()
        defer { Task { await server.stop() } }
        let page = try await TestConnection.exchange(port: server.port, "GET", "/")
        #expect(page.status == 200)
        #expect(page.headers.contains("Content-Type: text/html; charset=utf-8"))
        for element in ["id=\"video\" src=\"/video.mjpg\"", "id=\"start\"", "id=\"heart-rate\"", "id=\"breathing\"",
                        "id=\"wave\"", "id=\"hint\"", "id=\"result-band\"", "new EventSource(\"/events\")"] {
            #expect(page.body.contains(element), "the page has \(element)")
        }
        #expect(!page.body.contains("http://") && !page.body.contains("https://"), "no CDN or other origin")
    }

    @Test func startAnswers202Then409WithTheMessage() async throws {
        let server = try await Self.serve { .busy("A scan is already running") }
        defer { Task { await server.stop() } }
        let busy = try await TestConnection.exchange(port: server.port, "POST", "/scan")
        #expect(busy.status == 409)
        #expect(busy.body == #"{"error":"busy","message":"A scan is already running"}"#)
        let started = try await Self.serve { .started }
        defer { Task { await started.stop() } }
        #expect(try await TestConnection.exchange(port: started.port, "POST", "/scan").status == 202)
        let closed = try await Self.serve { .unavailable("The camera is not running") }
        defer { Task { await closed.stop() } }
        let unavailable = try await TestConnection.exchange(port: closed.port, "POST", "/scan")
        #expect(unavailable.status == 503)
        #expect(unavailable.body.contains("The camera is not running"))
    }

    @Test func anotherSiteCannotStartAScan() async throws {
        let server = try await Self.serve()
        defer { Task { await server.stop() } }
        for (origin, status) in [("http://evil.example", 403), ("http://127.0.0.1:\(server.port)", 202)] {
            let connection = try TestConnection(port: server.port)
            try connection.send("POST /scan HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nOrigin: \(origin)\r\n"
                                + "Content-Length: 0\r\n\r\n")
            let response = await connection.response()
            #expect(response.status == status, "Origin \(origin): \(response.body)")
        }
    }

    /// A web page whose name was pointed at 127.0.0.1 (DNS rebinding) is its own origin
    /// there, so the origin check passes; it still names itself in Host, and a server bound
    /// to loopback answers nothing it names (it used to stream the camera and start scans).
    @Test func aPageNamedForAnotherHostIsRefused() async throws {
        let server = try await Self.serve()
        defer { Task { await server.stop() } }
        func status(_ method: String, _ path: String, host: String) async throws -> (Int, String) {
            let connection = try TestConnection(port: server.port)
            try connection.send("\(method) \(path) HTTP/1.1\r\nHost: \(host)\r\nOrigin: http://\(host)\r\n"
                                + "Content-Length: 0\r\n\r\n")
            let response = await connection.response()
            return (response.status, response.body)
        }
        let renamed = "attacker.example:\(server.port)"
        for (method, path) in [("GET", "/"), ("GET", "/video.mjpg"), ("GET", "/events"), ("POST", "/scan"), ("GET", "/stats")] {
            let (code, body) = try await status(method, path, host: renamed)
            #expect(code == 403 && body.contains("answers only to 127.0.0.1, localhost and [::1]"), "\(method) \(path): \(code) \(body)")
        }
        for host in ["127.0.0.1:\(server.port)", "localhost:\(server.port)", "LOCALHOST:\(server.port)", "[::1]:\(server.port)", "127.0.0.1"] {
            #expect(try await status("GET", "/stats", host: host).0 == 200, "Host: \(host)")
        }
        #expect(try await status("GET", "/stats", host: "127.0.0.1.attacker.example").0 == 403)
    }

    /// Bound to every network (`--bind 0.0.0.0`), the server is reached by this machine's
    /// addresses and names, whatever they are: any Host is answered.
    @Test func aServerOnEveryNetworkAnswersAnyName() async throws {
        let server = try await PreviewServer(host: "0.0.0.0", port: 0,
                                             routes: PreviewRoutes(video: VideoFanout(), events: EventFanout(),
                                                                   startScan: { .started }))
        defer { Task { await server.stop() } }
        let connection = try TestConnection(port: server.port)
        try connection.send("GET /stats HTTP/1.1\r\nHost: board.local:\(server.port)\r\n\r\n")
        #expect(await connection.response().status == 200)
    }

    @Test func loopbackAddressesAreTold() {
        for host in ["127.0.0.1", "127.1.2.3", "::1"] { #expect(PreviewServer.isLoopback(host), "\(host)") }
        for host in ["0.0.0.0", "::", "192.168.1.2", "localhost", "fe80::1"] { #expect(!PreviewServer.isLoopback(host), "\(host)") }
    }

    @Test func unknownPathsAndWrongMethodsAreRefused() async throws {
        let server = try await Self.serve()
        defer { Task { await server.stop() } }
        let missing = try await TestConnection.exchange(port: server.port, "GET", "/nope")
        #expect(missing.status == 404)
        #expect(missing.body.contains("no such page: /nope"))
        #expect(try await TestConnection.exchange(port: server.port, "GET", "/scan").status == 405)
        #expect(try await TestConnection.exchange(port: server.port, "DELETE", "/").status == 405)
        let stats = try await TestConnection.exchange(port: server.port, "GET", "/stats")
        #expect(stats.status == 200)
        #expect(stats.body.hasPrefix(#"{"videoViewers":0,"eventSubscribers":0,"encodes":0,"skippedFrames":0,"connections":"#))
        #expect(stats.body.hasSuffix(#","refusedConnections":0}"#))
    }

    @Test func anOversizedBodyIsRefused() async throws {
        let server = try await Self.serve()
        defer { Task { await server.stop() } }
        let connection = try TestConnection(port: server.port)
        let body = String(repeating: "x", count: 5000)
        try connection.send("POST /scan HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
        #expect(await connection.response().status == 413)
    }
}
