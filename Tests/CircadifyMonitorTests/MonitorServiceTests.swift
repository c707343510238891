import Circadify
import CircadifyMonitor
import Foundation
import Glibc
import GroundTruthKit
import Logging
import ServiceLifecycle
import Synchronization
import Testing

/// The service on real replay cameras (files through the core's file source) and a
/// camera node that is not there: what it writes, what it counts, what it leaves open.
@Suite(.serialized) struct MonitorServiceTests {
    static let logger = Logger(label: "monitor-tests")

    /// The service over the file once, as fast as it is processed: what it wrote and counted.
    static func followToItsEnd(_ path: String) async throws -> (Lines, MonitorMetrics) {
        let lines = Lines()
        let metrics = MonitorMetrics()
        var configuration = MonitorService.Configuration(input: .file(path, fps: 30, loop: false))
        configuration.replayPace = .asFastAsProcessed
        let service = MonitorService(configuration: configuration, metrics: metrics, logger: logger, write: lines.write)
        try await service.run()
        return (lines, metrics)
    }

    @Test func aFileIsFollowedToItsEndAndReleased() async throws {
        let clip = try await Clip.render(seconds: 8, heartRate: 72)
        defer { clip.cleanUp() }
        let (lines, metrics) = try await Self.followToItsEnd(clip.path)
        let objects = try lines.objects()
        #expect(objects.first?["type"] as? String == "service" && objects.first?["state"] as? String == "started")
        #expect(objects.dropFirst().first?["state"] as? String == "opened")
        #expect(objects.last?["state"] as? String == "stopped" && objects.last?["reason"] as? String == "end of input")
        #expect(objects.contains { $0["type"] as? String == "validation" && $0["code"] as? String == "ok" })
        let pulses = objects.filter { $0["type"] as? String == "estimate" }.compactMap { $0["pulse"] as? [String: Any] }
        #expect(!pulses.isEmpty, "an 8 s face clip gives live pulse estimates")
        for pulse in pulses {
            let bpm = try #require(pulse["bpm"] as? Double)
            #expect(abs(bpm - 72) <= 5, "read \(bpm) against a 72 bpm truth")
        }
        #expect(openDescriptorCount(to: clip.path) == 0, "the file is closed when the service returns")
        // Every frame of the file counted (its final counters read once it ended), each one timed.
        #expect(MonitorMetricsTests.value("circadify_frames_total", in: metrics) == 240)
        #expect(MonitorMetricsTests.value("circadify_outcomes_total{outcome=\"measured\"}", in: metrics)
            == Double(pulses.count))
        let timed = try #require(MonitorMetricsTests.value(
            "circadify_stage_latency_seconds_count{stage=\"end_to_end\"}", in: metrics))
        #expect(timed > 200 && timed <= 240, "\(timed) frames timed")
    }

    /// A pulse-free face: the SDK retries four times a second and never gets a pulse. Each
    /// reading is counted (`qualityTooLow`), but a line of nulls is written once in a row,
    /// not four a second.
    @Test func anUnsureReadingIsWrittenOnceAndCountedEachTime() async throws {
        let clip = try await Clip.render(seconds: 12, heartRate: 70, scenario: "nopulse")
        defer { clip.cleanUp() }
        let (lines, metrics) = try await Self.followToItsEnd(clip.path)
        let estimates = try lines.objects().filter { $0["type"] as? String == "estimate" }
        let isEmpty = { (o: [String: Any]) in o["pulse"] is NSNull && o["breathing"] is NSNull && o["hrvMs"] is NSNull }
        #expect(estimates.contains(where: isEmpty), "the unsure reading is said")
        for (one, next) in zip(estimates, estimates.dropFirst()) {
            #expect(!(isEmpty(one) && isEmpty(next)), "two lines of nulls in a row: \(one), \(next)")
        }
        let withoutPulse = estimates.filter { $0["pulse"] is NSNull }.count
        let counted = try #require(MonitorMetricsTests.value("circadify_outcomes_total{outcome=\"qualityTooLow\"}",
                                                             in: metrics))
        #expect(counted > Double(withoutPulse), "every reading counted, \(counted), more than the \(withoutPulse) written")
        #expect(MonitorMetricsTests.value("circadify_outcomes_total{outcome=\"measured\"}", in: metrics) ?? 0 == 0)
    }

    /// SIGTERM's path: the group shuts down gracefully, the service stops monitoring,
    /// releases the file and says so last.
    @Test func aLoopedFileRunsUntilShutdownThenIsReleased() async throws {
        let clip = try await Clip.render(seconds: 2, heartRate: 70)
        defer { clip.cleanUp() }
        let lines = Lines()
        let metrics = MonitorMetrics()
        var configuration = MonitorService.Configuration(input: .file(clip.path, fps: 30, loop: true))
        configuration.replayPace = .asFastAsProcessed
        configuration.statisticsInterval = .milliseconds(50)
        let service = MonitorService(configuration: configuration, metrics: metrics, logger: Self.logger,
                                     write: lines.write)
        let group = ServiceGroup(services: [service], logger: Self.logger)
        let running = Task { try await group.run() }
        try await waitUntil { lines.count(of: "input") >= 3 }
        await group.triggerGracefulShutdown()
        try await running.value
        let objects = try lines.objects()
        #expect(objects.last?["state"] as? String == "stopped" && objects.last?["reason"] as? String == "shutdown")
        let loops = objects.filter { $0["type"] as? String == "input" }.compactMap { $0["loops"] as? Int }
        #expect(Array(loops.prefix(3)) == [1, 2, 3])
        #expect(objects.filter { $0["state"] as? String == "opened" }.count == 1, "a loop is not a new camera")
        #expect(openDescriptorCount(to: clip.path) == 0)
        let frames = try #require(MonitorMetricsTests.value("circadify_frames_total", in: metrics))
        #expect(frames >= 3 * 60, "three passes of 60 frames counted, got \(frames)")
        #expect(MonitorMetricsTests.value("circadify_camera_up", in: metrics) == 0, "stopped: down")
    }

    /// A camera that is not there (unplugged, not yet enumerated): an error line per
    /// attempt, the delay doubling to the cap, until the service is shut down.
    @Test func aMissingCameraIsRetriedWithBackoff() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("video-\(UUID())").path
        let lines = Lines()
        let metrics = MonitorMetrics()
        let configuration = MonitorService.Configuration(
            input: .device(path), backoff: Backoff(initial: .milliseconds(20), maximum: .milliseconds(80)))
        let service = MonitorService(configuration: configuration, metrics: metrics, logger: Self.logger,
                                     write: lines.write)
        let group = ServiceGroup(services: [service], logger: Self.logger)
        let running = Task { try await group.run() }
        try await waitUntil { lines.count(of: "error") >= 5 }
        await group.triggerGracefulShutdown()
        try await running.value
        let objects = try lines.objects()
        let errors = objects.filter { $0["type"] as? String == "error" }
        #expect(errors.prefix(5).map { $0["error"] as? String } == Array(repeating: "cameraNotAvailable", count: 5))
        #expect(errors.prefix(5).map { $0["attempt"] as? Int } == [1, 2, 3, 4, 5])
        #expect(errors.prefix(5).map { $0["retryInSeconds"] as? Double } == [0.02, 0.04, 0.08, 0.08, 0.08])
        #expect(!objects.contains { $0["type"] as? String == "camera" }, "never opened, never lost")
        #expect(objects.last?["reason"] as? String == "shutdown")
        let counted = try #require(MonitorMetricsTests.value(
            "circadify_outcomes_total{outcome=\"cameraNotAvailable\"}", in: metrics))
        #expect(counted == Double(errors.count))
        #expect(MonitorMetricsTests.value("circadify_camera_up", in: metrics) == 0)
    }

    /// A file is not waited for: one that cannot be read stops the service with its error.
    @Test func anUnreadableFileStopsTheService() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("missing-\(UUID()).y4m").path
        let lines = Lines()
        let service = MonitorService(configuration: .init(input: .file(path, fps: 30, loop: true)), metrics: nil,
                                     logger: Self.logger, write: lines.write)
        await #expect(throws: MonitorService.Failure.self) { try await service.run() }
        let objects = try lines.objects()
        #expect(objects.last?["state"] as? String == "stopped" && objects.last?["reason"] as? String == "failed")
        #expect(!objects.contains { $0["type"] as? String == "error" && $0["attempt"] != nil }, "no retries")
        let error = try #require(objects.dropLast().last)
        #expect(error["type"] as? String == "error" && error["error"] as? String == "captureFailed",
                "the reason is in the stream too")
        #expect((error["message"] as? String)?.contains(path) == true)
    }

    /// stdout gone (a closed pipe): the results would be lost, so the service stops with the errno.
    @Test func aBrokenOutputStopsTheService() async throws {
        let clip = try await Clip.render(seconds: 2, heartRate: 70)
        defer { clip.cleanUp() }
        var configuration = MonitorService.Configuration(input: .file(clip.path, fps: 30, loop: true))
        configuration.replayPace = .asFastAsProcessed
        let service = MonitorService(configuration: configuration, metrics: nil, logger: Self.logger,
                                     write: { _ in EPIPE })
        await #expect(throws: MonitorService.Failure.outputFailed(EPIPE)) { try await service.run() }
        #expect(openDescriptorCount(to: clip.path) == 0)
    }
}

/// The lines a service wrote, parsed.
final class Lines: Sendable {
    private let lines = Mutex<[String]>([])

    var write: @Sendable (String) -> Int32 {
        { [self] line in
            lines.withLock { $0.append(line) }
            return 0
        }
    }

    func objects() throws -> [[String: Any]] {
        try lines.withLock { $0 }.map { line in
            #expect(line.hasSuffix("\n") && line.dropLast().firstIndex(of: "\n") == nil, "one object per line")
            return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    func count(of type: String) -> Int {
        lines.withLock { $0.filter { $0.hasPrefix("{\"type\":\"\(type)\"") }.count }
    }
}

struct Timeout: Error {}

/// Polls `condition` every 20 ms for up to `seconds`.
func waitUntil(seconds: Double = 60, _ condition: () -> Bool) async throws {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while !condition() {
        guard ContinuousClock.now < deadline else { throw Timeout() }
        try await Task.sleep(for: .milliseconds(20))
    }
}

/// A generated face clip (Tools/groundtruth) in a fresh folder.
struct Clip: Sendable {
    var folder: URL
    var path: String

    static func render(seconds: Float, heartRate: Float, scenario: String = "still") async throws -> Clip {
        try await withCheckedThrowingContinuation { continuation in
            // Seconds of C rendering on a thread of its own, not one of the concurrency pool's.
            Thread {
                continuation.resume(with: Result {
                    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("circadify-monitor-\(UUID())")
                    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                    let clip = try ClipRenderer.render(scenario: scenario, seed: 1, into: folder, name: scenario) { options in
                        options.width = 320
                        options.height = 240
                        options.duration_s = seconds
                        options.heart_rate_bpm = heartRate
                    }
                    return Clip(folder: folder, path: clip.video.path)
                })
            }.start()
        }
    }

    func cleanUp() { try? FileManager.default.removeItem(at: folder) }
}

/// Descriptors this process has open on `path`.
func openDescriptorCount(to path: String) -> Int {
    let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    return fds.filter { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)")) == path }.count
}
