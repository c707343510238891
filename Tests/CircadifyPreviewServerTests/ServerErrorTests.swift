@testable import CircadifyPreviewServer
import Testing

/// Addresses and ports that cannot be used get an error that says what to do.
struct ServerErrorTests {
    static var routes: PreviewRoutes { PreviewRoutes(video: VideoFanout(), events: EventFanout()) { .started } }

    @Test func aPortInUseIsNamed() async throws {
        let first = try await PreviewServer(host: "127.0.0.1", port: 0, routes: Self.routes)
        defer { Task { await first.stop() } }
        await #expect(throws: PreviewServerError.portInUse(host: "127.0.0.1", port: first.port)) {
            try await PreviewServer(host: "127.0.0.1", port: first.port, routes: Self.routes)
        }
        let message = PreviewServerError.portInUse(host: "127.0.0.1", port: first.port).description
        #expect(message.contains("port \(first.port) on 127.0.0.1 is already in use") && message.contains("--port"))
    }

    @Test(arguments: ["localhost", "not-an-address", "127.0.0.300", "", "1.2.3.4.5"])
    func aBindAddressMustBeAnIPAddress(_ text: String) async throws {
        #expect(throws: PreviewServerError.badBindAddress(text)) { try PreviewServer.checkBindAddress(text) }
        await #expect(throws: PreviewServerError.badBindAddress(text)) {
            try await PreviewServer(host: text, port: 0, routes: Self.routes)
        }
    }

    @Test func anAddressThatIsNotThisMachinesIsNamed() async throws {
        // 192.0.2.1 is TEST-NET-1 (RFC 5737): never a local address.
        await #expect(throws: PreviewServerError.addressNotAvailable("192.0.2.1")) {
            try await PreviewServer(host: "192.0.2.1", port: 0, routes: Self.routes)
        }
    }

    @Test func aStoppedServerFreesItsPort() async throws {
        let first = try await PreviewServer(host: "127.0.0.1", port: 0, routes: Self.routes)
        let port = first.port
        await first.stop()
        let again = try await PreviewServer(host: "127.0.0.1", port: port, routes: Self.routes)
        await again.stop()
    }
}
