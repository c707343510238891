@testable import CircadifyPreviewServer
import HTTPConnectionLimits
import Testing

/// What one client can hold of the server: a request must come whole within the timeout,
/// and connections beyond the limit are closed at once, so a program that opens
/// connections and trickles its headers cannot take the process's file descriptors.
@Suite(.serialized) struct ConnectionLimitTests {
    static func serve(_ limits: ConnectionLimits, events: EventFanout = EventFanout()) async throws -> PreviewServer {
        try await PreviewServer(host: "127.0.0.1", port: 0,
                                routes: PreviewRoutes(video: VideoFanout(), events: events) { .started },
                                limits: limits)
    }

    @Test func aRequestThatNeverCompletesIsClosed() async throws {
        let server = try await Self.serve(.init(requestTimeout: .milliseconds(300)))
        defer { Task { await server.stop() } }
        let trickle = try TestConnection(port: server.port)
        try trickle.send("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n") // the head's end never comes
        // Closed, where it used to stay open for ever (a loaded test run may take seconds to see it).
        #expect(await trickle.closes(within: .seconds(30)), "the unfinished request was closed")
        #expect(trickle.received.isEmpty, "nothing was answered to a request that never ended")
        #expect(await eventually { server.connectionCount == 0 })
    }

    @Test func aStreamOutlivesTheRequestTimeout() async throws {
        let events = EventFanout()
        let server = try await Self.serve(.init(requestTimeout: .seconds(1)), events: events)
        defer { Task { await server.stop() } }
        let subscriber = try TestConnection(port: server.port)
        try subscriber.request("GET", "/events")
        #expect(await subscriber.read { _ in subscriber.hasHead })
        try await Task.sleep(for: .seconds(2))
        events.publish(event: "state", data: "{\"late\":true}")
        #expect(await subscriber.read { _ in subscriber.count("data: {\"late\":true}") == 1 },
                "the event stream still runs after the request timeout")
        #expect(!subscriber.closedByServer)
    }

    @Test func connectionsOverTheLimitAreClosedAndTheirPlacesComeBack() async throws {
        let server = try await Self.serve(.init(maximumConnections: 3, requestTimeout: .seconds(30)))
        defer { Task { await server.stop() } }
        let idle = try (0..<3).map { _ in try TestConnection(port: server.port) }
        #expect(await eventually { server.connectionCount == 3 }, "open: \(server.connectionCount)")

        let overTheLimit = try TestConnection(port: server.port)
        #expect(await overTheLimit.closes(within: .seconds(5)), "the fourth connection was closed")
        #expect(overTheLimit.received.isEmpty)
        #expect(server.connectionCount == 3)

        idle[0].close()
        #expect(await eventually { server.connectionCount == 2 })
        let stats = try await TestConnection.exchange(port: server.port, "GET", "/stats")
        #expect(stats.status == 200, "a place freed is served again")
        #expect(stats.body.contains(#""connections":3,"refusedConnections":1}"#), "\(stats.body)")
        withExtendedLifetime(idle) {}
    }
}
