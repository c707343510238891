@testable import CircadifyPreviewServer
import Foundation
import Testing

/// The video's fan-out through the real server and real sockets: one encode per frame
/// whatever the number of viewers, none without viewers, the same bytes to everyone.
@Suite(.serialized) struct VideoFanoutTests {
    static func server(_ video: VideoFanout = VideoFanout()) async throws -> PreviewServer {
        let routes = PreviewRoutes(video: video, events: EventFanout()) { .started }
        return try await PreviewServer(host: "127.0.0.1", port: 0, routes: routes)
    }

    /// A small stand-in for an encoded frame: what the fan-out sends is whatever the encode returned.
    static func frame(_ index: Int) -> Data {
        Data([0xFF, 0xD8] + Array("frame \(index)".utf8) + [0xFF, 0xD9])
    }

    @Test func threeViewersCostOneEncodePerFrame() async throws {
        let video = VideoFanout()
        let server = try await Self.server(video)
        defer { Task { await server.stop() } }
        let viewers = try (0..<3).map { _ in try TestConnection(port: server.port) }
        for viewer in viewers { try viewer.request("GET", "/video.mjpg") }
        #expect(await eventually { video.viewerCount == 3 })

        var encodes = 0
        let frames = 12
        for index in 0..<frames {
            video.publish {
                encodes += 1
                return Self.frame(index)
            }
            try await Task.sleep(for: .milliseconds(40))
        }
        #expect(encodes == frames, "one encode per frame for 3 viewers, not one each")
        #expect(video.encodeCount == frames)
        let delivered = 3 * frames - video.skippedCount
        var received = 0
        for viewer in viewers {
            await viewer.read(timeout: .seconds(5)) { _ in viewer.count("--\(VideoFanout.boundary)\r\n") >= frames - video.skippedCount }
            let parts = viewer.count("--\(VideoFanout.boundary)\r\n")
            received += parts
            #expect(parts >= 1, "every viewer sees frames")
            #expect(viewer.count("Content-Type: multipart/x-mixed-replace; boundary=\(VideoFanout.boundary)") == 1)
            #expect(viewer.count("frame \(frames - 1)") <= 1)
        }
        #expect(received == delivered, "each frame is sent to a viewer or skipped for it, nothing else")
        print("fan-out: \(frames) frames, 3 viewers, \(encodes) encodes, \(received) parts sent, \(video.skippedCount) skipped")
    }

    @Test func nobodyWatchingMeansNoEncode() async throws {
        let video = VideoFanout()
        let server = try await Self.server(video)
        defer { Task { await server.stop() } }
        var encodes = 0
        for index in 0..<5 {
            let encoded = video.publish {
                encodes += 1
                return Self.frame(index)
            }
            #expect(!encoded)
        }
        #expect(encodes == 0)
        #expect(video.encodeCount == 0)
    }

    @Test func aStalledViewerSkipsFramesInsteadOfQueueingThem() async throws {
        let video = VideoFanout()
        let server = try await Self.server(video)
        defer { Task { await server.stop() } }
        // This viewer never reads: its socket fills, and from then on it skips frames.
        let stalled = try TestConnection(port: server.port)
        try stalled.request("GET", "/video.mjpg")
        let reader = try TestConnection(port: server.port)
        try reader.request("GET", "/video.mjpg")
        #expect(await eventually { video.viewerCount == 2 })
        let big = Data(repeating: 0x55, count: 256 * 1024)
        for _ in 0..<40 {
            video.publish { big }
            await reader.read(timeout: .milliseconds(50)) { _ in false }
        }
        #expect(video.encodeCount == 40)
        #expect(video.skippedCount > 0, "the stalled viewer skipped frames")
        let parts = reader.count("--\(VideoFanout.boundary)\r\n")
        #expect(parts >= 20, "the reading viewer kept getting frames (\(parts) of 40)")
    }
}
