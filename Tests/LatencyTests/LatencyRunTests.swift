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
        // End to end spans every frame's kernels, so its distribution lies above theirs.
        let kernels = try #require(report[.kernels]?.percentiles), e2e = try #require(report[.endToEnd]?.percentiles)
        #expect(kernels.p50 > 0 && e2e.p50 >= kernels.p50 && e2e.max >= kernels.max)
        // A 64x48 replay keeps its rate: about 30 fps (a loaded machine's late first frame
        // shortens the span a little).
        let fps = try #require(report.achievedFps)
        #expect(fps > 24 && fps < 36, "\(fps) fps")
        #expect(report.durationSeconds > 0 && (report.cpuPercent ?? 0) > 0 && report.peakRssMB > 1)
        #expect(!report.interrupted)
        // The JSON a --json run prints carries the same.
        let data = try JSONEncoder().encode(report)
        let back = try JSONDecoder().decode(LatencyReport.self, from: data)
        #expect(back[.endToEnd] == report[.endToEnd] && back.frames.timed == report.frames.timed)
    }

    /// A camera that sends restart markers shows in the counts: its frames that make no
    /// thumbnail (two in three) are decoded from the rows they need on; a camera that sends
    /// none has every frame decoded from the top.
    @MainActor @Test func framesDecodedFromRestartMarkersAreCounted() async throws {
        let frames = 30
        let plain = TestScenes.jpeg(rgb: TestScenes.faceRGB(width: 160, height: 120), width: 160, height: 120)
        // 160 pixels at 4:2:0: ten MCUs a row, two intervals across.
        let marked = TestScenes.withRestartMarkers(plain, every: 5)
        for (bytes, expectMarkers) in [(plain, false), (marked, true)] {
            let file = try TemporaryFile(named: "clip.mjpeg", contents: Array(repeating: bytes, count: frames).flatMap { $0 })
            defer { file.cleanUp() }
            let report = try await LatencyRun.run(.file(file.path, fps: 30), seconds: 30)
            #expect(report.error == nil && report.frames.received == UInt64(frames))
            let counted = report.frames.fromRestartMarkers
            if expectMarkers {
                #expect(counted >= UInt64(frames / 2) && counted < UInt64(frames), "\(counted) of \(frames)")
            } else {
                #expect(counted == 0)
            }
        }
    }

    /// A second of warm-up on the frames' clock: the replay's first 30 or 31 frames (frame
    /// 30 is due a hair before the second is up) are not timed, nor counted, however far
    /// the capture thread ran ahead of a busy scan driver: the timed frames are the
    /// window's samples, each of them received in it.
    @MainActor @Test func theWarmUpIsLeftOut() async throws {
        let file = try Self.clip(frames: 90)
        defer { file.cleanUp() }
        let report = try await LatencyRun.run(.file(file.path, fps: 30), seconds: 30, warmup: 1)
        #expect(report.error == nil && report.warmupSeconds == 1)
        let timed = report.frames.timed, received = report.frames.received
        #expect((59...60).contains(timed), "the warm-up's frames are left out: \(timed) timed")
        #expect(report.frames.samples == timed, "the counts cover the timed frames: \(report.frames.samples) samples")
        #expect(received == timed, "nothing lost or corrupt, so every frame received was timed: \(received)")
        #expect(report[.endToEnd]?.count == timed)
    }

    /// A stop asked for mid-run (the command's Ctrl-C) ends it with what was measured.
    @MainActor @Test func aStoppedRunReportsWhatItMeasured() async throws {
        let file = try Self.clip(frames: 300)
        defer { file.cleanUp() }
        let stop = LatencyStop()
        Task { try await Task.sleep(for: .seconds(3)); stop.request() }
        let report = try await LatencyRun.run(.file(file.path, fps: 30), seconds: 30, until: stop)
        #expect(report.interrupted && report.error == nil)
        #expect(report.durationSeconds < 8, "stopped after \(report.durationSeconds) s, not at the file's 10 s end")
        #expect(report.frames.timed >= 1 && report.frames.timed < 300, "\(report.frames.timed) timed")
        #expect(report[.endToEnd]?.count == report.frames.timed)
    }

    /// A file that ends before the warm-up does, or holds no frame, measured nothing:
    /// the report says so in `error` (the command exits 1). (Its window is too short for a
    /// CPU share, which is left out below 0.1 s; not asserted: a loaded machine may
    /// deschedule the run that long.)
    @MainActor @Test func aRunThatMeasuresNothingSaysSo() async throws {
        let short = try Self.clip(frames: 15)
        defer { short.cleanUp() }
        let warm = try await LatencyRun.run(.file(short.path, fps: 30), seconds: 5, warmup: 10)
        #expect(warm.frames.timed == 0 && warm.frames.received == 0)
        #expect(warm.error?.contains("the input ended during the 10.0 s warm-up") == true, "\(warm.error ?? "no error")")

        let empty = try TemporaryFile(named: "empty.y4m", contents: Array("YUV4MPEG2 W64 H48 F30:1 C420\n".utf8))
        defer { empty.cleanUp() }
        let none = try await LatencyRun.run(.file(empty.path, fps: 30), seconds: 5)
        #expect(none.frames.timed == 0)
        #expect(none.error?.contains("the input ended before a frame was measured") == true, "\(none.error ?? "no error")")
    }

    @MainActor @Test func aCameraThatCannotOpenThrowsItsError() async {
        await #expect(throws: CircadifyError.cameraNotAvailable) {
            try await LatencyRun.run(.device("/dev/video-circadify-none"), seconds: 1)
        }
    }

    /// The detector blocks the scan driver for 400 ms on its first call: the frames that
    /// arrive meanwhile queue in the ring, and the stall is in the tail of ring residence
    /// and end to end. The frame after the stalled one was due at most a frame interval
    /// after it and handled after the stall: at least the stall less an interval end to
    /// end, however loaded the machine.
    @Test func aStalledConsumerShowsInTheTail() async throws {
        let file = try Self.clip(frames: 90)
        defer { file.cleanUp() }
        let calls = Atomic<Int>(0)
        let session = ScanSession(.replay(path: file.path, fps: 30, pace: .realtime), mirrored: false,
                                  pipeline: { quality in
            ScanPipeline(quality: quality) { _, _, _ in
                if calls.add(1, ordering: .relaxed).newValue == 1 { usleep(400_000) }
                return FaceFinder.Result(found: [], carried: [])
            }
        })
        let stream = session.stageTimings.stream(bufferingNewest: 1024)
        try await session.start()
        var histograms = StageHistograms()
        var timings = [StageTiming]()
        for await timing in stream {
            histograms.record(timing)
            timings.append(timing)
            if timings.count == 90 { break }
        }
        await session.stop()
        let stall = 400_000.0 // µs
        let stalled = try #require(timings.firstIndex { ($0.nanoseconds(.detector) ?? 0) >= 400_000_000 },
                                   "the stalled call shows in the detector's own time")
        let next = try #require(timings.indices.contains(stalled + 1) ? timings[stalled + 1] : nil)
        #expect(try #require(next.nanoseconds(.endToEnd)) >= 400_000_000 - 33_333_333)
        let ring = try #require(histograms.summary(of: .ringResidence).percentiles)
        let e2e = try #require(histograms.summary(of: .endToEnd).percentiles)
        #expect(e2e.p99 >= stall - 33_334, "end to end p99 \(e2e.p99) µs")
        #expect(ring.p99 >= stall * 0.75, "ring residence p99 \(ring.p99) µs")
    }
}
