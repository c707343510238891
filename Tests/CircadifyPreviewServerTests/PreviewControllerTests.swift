import Circadify
@testable import CircadifyPreviewServer
import Foundation
import GroundTruthKit
import Testing

/// The controller on a replayed face clip, behind the real server: the overlay's frames
/// reach the video, the events carry the live state, a second Start while scanning is
/// refused with 409, and stopping releases everything.
@Suite(.serialized) @MainActor struct PreviewControllerTests {
    static func renderClip(seconds: Float) async throws -> (folder: URL, path: String) {
        try await withCheckedThrowingContinuation { continuation in
            // Seconds of C rendering go on a thread of their own, not the concurrency pool's.
            Thread {
                continuation.resume(with: Result {
                    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("circadify-web-\(UUID())")
                    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                    let clip = try ClipRenderer.render(scenario: "still", seed: 4, into: folder, name: "face") { options in
                        options.width = 320
                        options.height = 240
                        options.duration_s = seconds
                        options.heart_rate_bpm = 72
                    }
                    return (folder, clip.video.path)
                })
            }.start()
        }
    }

    @Test func aSecondStartIsRefusedWith409AndViewersShareEachEncode() async throws {
        let clip = try await Self.renderClip(seconds: 12)
        defer { try? FileManager.default.removeItem(at: clip.folder) }
        let video = VideoFanout(), events = EventFanout()
        let controller = PreviewController(
            sdk: try CircadifySDK(apiKey: "ck_test_PreviewServerTests000"),
            camera: CircadifyCamera(replaying: clip.path, pace: .realtime), video: video, events: events,
            options: MeasurementOptions(duration: 10), source: "face.y4m", loops: true)
        let server = try await PreviewServer(host: "127.0.0.1", port: 0,
                                             routes: PreviewRoutes(video: video, events: events) {
                                                 await controller.startScan()
                                             })
        try await controller.start()

        let first = try await Self.post(port: server.port)
        #expect(first.status == 202)
        let second = try await Self.post(port: server.port)
        #expect(second.status == 409)
        #expect(second.body.contains("A scan is already running"))

        let subscriber = try TestConnection(port: server.port)
        try subscriber.request("GET", "/events")
        let scanning = await subscriber.read { _ in subscriber.count("\"state\":\"scanning\"") > 0 }
        #expect(scanning, "the events say a scan runs")
        subscriber.close()

        // Three viewers of the overlay video (hot, mid-scan): each frame was encoded once for all.
        let viewers = try (0..<3).map { _ in try TestConnection(port: server.port) }
        for viewer in viewers { try viewer.request("GET", "/video.mjpg") }
        #expect(await eventually { video.viewerCount == 3 })
        for viewer in viewers {
            #expect(await viewer.read(timeout: .seconds(30)) { _ in viewer.count("Content-Type: image/jpeg") >= 5 },
                    "every viewer gets the overlay's JPEG frames")
        }
        // No more frames, then every viewer reads what it was sent until the server closes it.
        await controller.stop()
        try await Task.sleep(for: .milliseconds(300)) // a frame being encoded as it stopped goes out
        let encodes = video.encodeCount, skipped = video.skippedCount
        await server.stop()
        for viewer in viewers { await viewer.read(timeout: .seconds(10)) { _ in false } }
        let parts = viewers.map { $0.count("Content-Type: image/jpeg") }
        // Encoding per viewer would cost the sum of the parts; once per frame costs what the
        // viewer that came first received, plus the frames it skipped.
        #expect(encodes >= parts.max()! && encodes <= parts.max()! + skipped && encodes < parts.reduce(0, +),
                "\(encodes) encodes for \(parts) frames received by 3 viewers (\(skipped) skipped)")
        print("overlay fan-out: 3 viewers received \(parts) frames; \(encodes) encodes, \(skipped) skipped")

        #expect(await eventually { video.viewerCount == 0 && events.subscriberCount == 0 })
        #expect(!controller.cameraIsRunning, "stop() releases the camera")
    }

    private static func post(port: Int) async throws -> (status: Int, headers: String, body: String) {
        try await TestConnection.exchange(port: port, "POST", "/scan")
    }
}
