import CCoreTestSupport
import Foundation
import Synchronization
import Testing
@testable import Circadify
@testable import LatencyKit

/// The profiler's measurement on the real pipeline: a replay through
/// `LatencyRun`, and a stalled consumer that must show in the tail.
@Suite struct LatencyRunTests {
    static func clip(frames: Int) throws -> TemporaryFile {
        try TemporaryFile(named: "clip.y4m", contents: Y4M.file(width: 64, height: 48, frames: (0..<frames).map { i in
            Y4M.flatFrame420(width: 64, height: 48, y: UInt8(90 + i % 40), cb: 110, cr: 150)
        }))
    }

    @MainActor @Test func aReplayIsMeasuredStageByStage() async throws {
        let frames = 60
        let file = try Self.clip(frames: frames)
        defer { file.cleanUp() }
        let report = try await LatencyRun.run(.file(file.path, fps: 30), seconds: 30)
        #expect(report.error == nil)
        #expect(report.frames.received == UInt64(frames) && report.frames.samples == UInt64(frames))
        #expect(report.frames.timed == UInt64(frames))
        #expect(report.frames.droppedBySequence == 0 && report.frames.corrupt == 0 && report.frames.backfilled == 0)
        #expect(report.source.format == "YUV420" && report.source.width == 64 && report.source.nominalFps == 30)
        for stage in PipelineStage.allCases where stage.isEveryFrame {
            let summary = try #require(report[stage])
            #expect(summary.count == UInt64(frames), "\(stage)")
            let p = try #require(summary.percentiles, "\(stage)")
            #expect(p.ordered == p.ordered.sorted(), "\(stage): \(p.ordered)")
        }
        #expect(report[.thumbnail]?.count == UInt64(frames / 3))
        #expect(report[.decode]?.count == 0)
        // Plausible: a 64x48 frame's kernels take microseconds, not milliseconds, and
        // end to end spans the kernels.
        let kernels = try #require(report[.kernels]?.percentiles), e2e = try #require(report[.endToEnd]?.percentiles)
        #expect(kernels.p50 > 0 && kernels.p50 < 1000 && e2e.p50 >= kernels.p50)
        #expect(e2e.max < 1_000_000, "under a second end to end")
        #expect(abs((report.achievedFps ?? 0) - 30) < 0.5)
        #expect(report.durationSeconds > 1.5, "60 frames at 30 fps take two seconds")
        #expect(report.cpuPercent > 0 && report.peakRssMB > 1)
        // The JSON a --json run prints carries the same.
        let data = try JSONEncoder().encode(report)
        let back = try JSONDecoder().decode(LatencyReport.self, from: data)
        #expect(back[.endToEnd] == report[.endToEnd] && back.frames.timed == report.frames.timed)
    }

    /// A second of warm-up: its 30 frames are neither timed nor counted.
    @MainActor @Test func theWarmUpIsLeftOut() async throws {
        let file = try Self.clip(frames: 90)
        defer { file.cleanUp() }
        let report = try await LatencyRun.run(.file(file.path, fps: 30), seconds: 30, warmup: 1)
        #expect(report.error == nil && report.warmupSeconds == 1)
        let timed = report.frames.timed, received = report.frames.received
        #expect((50...62).contains(timed), "about the last two seconds' 60 frames, got \(timed)")
        #expect(max(timed, received) - min(timed, received) <= 2, "counted over the same window: \(received)")
        #expect(report[.endToEnd]?.count == timed)
        #expect(report.durationSeconds < 2.5, "the window is the clip after the warm-up")
    }

    @MainActor @Test func aCameraThatCannotOpenThrowsItsError() async {
        await #expect(throws: CircadifyError.cameraNotAvailable) {
            try await LatencyRun.run(.device("/dev/video-circadify-none"), seconds: 1)
        }
    }

    /// The detector blocks the scan driver for 400 ms on its 4th call: the frames
    /// that arrive meanwhile queue in the ring. They are 12 of 90, so the stall is
    /// the p90-p99 tail of ring residence and end to end, though the median stays low.
    @Test func aStalledConsumerShowsInTheTail() async throws {
        let file = try Self.clip(frames: 90)
        defer { file.cleanUp() }
        let calls = Atomic<Int>(0)
        let session = ScanSession(.replay(path: file.path, fps: 30, pace: .realtime), mirrored: false,
                                  pipeline: { quality in
            ScanPipeline(quality: quality) { _, _, _ in
                if calls.add(1, ordering: .relaxed).newValue == 4 { usleep(400_000) }
                return FaceFinder.Result(found: [], carried: [])
            }
        })
        let stream = session.stageTimings.stream(bufferingNewest: 1024)
        try await session.start()
        var histograms = StageHistograms()
        for await timing in stream {
            histograms.record(timing)
            if histograms.frames == 90 { break }
        }
        await session.stop()
        let stall = 400_000.0 // µs
        let ring = try #require(histograms.summary(of: .ringResidence).percentiles)
        let e2e = try #require(histograms.summary(of: .endToEnd).percentiles)
        #expect(ring.p99 >= stall * 0.75 && e2e.p99 >= stall * 0.75, "ring p99 \(ring.p99), e2e p99 \(e2e.p99) µs")
        #expect(e2e.max >= stall - 34_000, "the frame that came as the stall began waited all of it")
        #expect(ring.p50 < stall / 4, "most frames did not wait: p50 \(ring.p50) µs")
        let detector = try #require(histograms.summary(of: .detector).percentiles)
        #expect(detector.max >= stall, "and the detector's own time shows the culprit")
    }
}
