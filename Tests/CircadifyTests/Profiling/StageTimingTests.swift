import CCoreTestSupport
import Foundation
import Synchronization
import Testing
@testable import Circadify

/// Stage timing through the real scan driver: a replay camera observed with
/// `stageTimings()`, and a session whose detector stalls once.
@Suite struct StageTimingTests {
    /// A paced 4:2:0 replay of `frames` flat frames at 30 fps.
    static func clip(frames: Int) throws -> TemporaryFile {
        try TemporaryFile(named: "clip.y4m", contents: Y4M.file(width: 64, height: 48, frames: (0..<frames).map { i in
            Y4M.flatFrame420(width: 64, height: 48, y: UInt8(90 + i % 40), cb: 110, cr: 150)
        }))
    }

    /// Every timing of `stream` until it has `count`, or 30 s have passed.
    static func collect(_ stream: AsyncStream<StageTiming>, count: Int) async -> [StageTiming] {
        await result(within: 30) {
            var timings = [StageTiming]()
            for await timing in stream {
                timings.append(timing)
                if timings.count == count { break }
            }
            return timings
        } ?? []
    }

    @MainActor @Test func aReplayCameraReportsEveryFrameThroughEveryStage() async throws {
        let frames = 45
        let file = try Self.clip(frames: frames)
        defer { file.cleanUp() }
        let camera = CircadifyCamera(replaying: file.path)
        #expect(await camera.pipelineCounters() == nil, "nothing counted before the camera ran")
        let stream = camera.stageTimings()
        try await camera.start()
        let timings = await Self.collect(stream, count: frames)
        #expect(timings.map(\.sequence) == (0..<UInt64(frames)).map { $0 }, "each frame once, in order")
        for t in timings {
            #expect(t.frameIntervalNanoseconds == 33_333_333)
            for stage in PipelineStage.allCases where stage.isEveryFrame {
                #expect(t[stage] != nil, "frame \(t.sequence): \(stage)")
            }
            #expect(t[.decode] == nil, "Y4M frames are not decoded")
            #expect((t[.thumbnail] != nil) == (t.sequence % 3 == 0), "a thumbnail every 3rd frame")
            // The stages tile the frame's trip: end to end is at least their sum.
            let parts = PipelineStage.allCases.filter { $0 != .endToEnd }.compactMap { t.nanoseconds($0) }
            #expect(try #require(t.nanoseconds(.endToEnd)) >= parts.reduce(0, +), "frame \(t.sequence)")
        }
        #expect(timings.contains { $0[.detector] != nil }, "the detector ran on some thumbnails")
        #expect(timings.allSatisfy { $0.framesLostBefore == 0 && $0.corruptBefore == 0 })
        // The replay ends by itself (given up to 20 s: a busy pool wakes it late); the
        // counters stay readable after.
        for _ in 0..<1000 where camera.isRunning { try await Task.sleep(for: .milliseconds(20)) }
        #expect(!camera.isRunning)
        let counters = try #require(await camera.pipelineCounters())
        #expect(counters == PipelineCounters(framesReceived: UInt64(frames), samplesDelivered: UInt64(frames)))
    }

    /// The counters are there all through a session's end: read while its source is being
    /// released (stopped, its last counts not yet kept), they once came back nil, and the
    /// profiler's warm-up, read just then on a loaded machine, counted from zero. The replay
    /// is paced, so it reaches its end on its own clock: a sanitized run whose tests crowd
    /// the thread pool for a minute or two delays its consumer, not its frames.
    @Test func theCountersAreReadableWhileTheSourceIsReleased() async throws {
        let frames = 30
        let file = try Self.clip(frames: frames)
        defer { file.cleanUp() }
        let session = ScanSession(.replay(path: file.path, fps: 30, pace: .realtime), mirrored: false)
        let midway = Mutex<[PipelineCounters?]>([])
        await session.setReleaseCheckpoint {
            let counters = await session.pipelineCounters()
            midway.withLock { $0.append(counters) }
        }
        try await session.start()
        let deadline = ContinuousClock.now + .seconds(600)
        while await !session.hasEnded, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        await session.stop()
        await session.setReleaseCheckpoint(nil) // it holds the session
        let seen = midway.withLock { $0 }
        #expect(seen.count == 1, "the replay's end released the source once")
        #expect(seen.first??.framesReceived == UInt64(frames), "read halfway through the release: \(seen)")
        #expect(await session.pipelineCounters() == seen.first ?? nil, "and kept as they were")
    }

    @Test func timingIsOffOnceNobodyObserves() async throws {
        let hub = StageTimingHub()
        #expect(!hub.isObserved)
        let first = hub.stream(bufferingNewest: 4), second = hub.stream(bufferingNewest: 4)
        #expect(hub.isObserved)
        hub.yield(StageTiming(sequence: 7, captureNanoseconds: 1, frameIntervalNanoseconds: 0))
        for stream in [first, second] {
            var iterator = stream.makeAsyncIterator()
            #expect(await iterator.next()?.sequence == 7)
        }
        _ = consume first
        #expect(hub.isObserved, "one stream is still open")
        _ = consume second
        #expect(!hub.isObserved)
    }

    @Test func stageTimesAreNilUntilSetAndNeverNegative() {
        var t = StageTiming(sequence: 1, captureNanoseconds: 0, frameIntervalNanoseconds: 33_333_333,
                            droppedBefore: 2, corruptBefore: 5, overflowBefore: 1)
        #expect(PipelineStage.allCases.allSatisfy { t[$0] == nil })
        t.set(.kernels, nanoseconds: 1500)
        t.set(.ringResidence, nanoseconds: -20) // a clock read out of order
        #expect(t[.kernels] == .nanoseconds(1500) && t.nanoseconds(.ringResidence) == 0)
        t.set(.kernels, nanoseconds: nil)
        #expect(t[.kernels] == nil)
        #expect(t.framesLostBefore == 3, "dropped and refused frames; corrupt ones arrived")
    }

    /// A detector that blocks its actor for 300 ms on its first call: the frames that
    /// arrive meanwhile wait in the ring, and the stall shows in their ring residence
    /// and end to end, not only in the detector's own time. The next frame was due at
    /// most an interval after the stalled one and is handled after the stall.
    @Test func aStalledConsumerShowsInRingResidenceAndEndToEnd() async throws {
        let file = try Self.clip(frames: 60)
        defer { file.cleanUp() }
        let calls = Atomic<Int>(0)
        let session = ScanSession(.replay(path: file.path, fps: 30, pace: .realtime), mirrored: false,
                                  pipeline: { quality in
            ScanPipeline(quality: quality) { _, _, _ in
                if calls.add(1, ordering: .relaxed).newValue == 1 { usleep(300_000) }
                return FaceFinder.Result(found: [], carried: [])
            }
        })
        let stream = session.stageTimings.stream(bufferingNewest: 1024)
        try await session.start()
        let timings = await Self.collect(stream, count: 60)
        await session.stop()
        #expect(timings.count == 60)
        let stall: Int64 = 300_000_000
        let stalled = try #require(timings.firstIndex { ($0.nanoseconds(.detector) ?? 0) >= stall },
                                   "the stalled call itself")
        let next = try #require(timings.indices.contains(stalled + 1) ? timings[stalled + 1] : nil)
        #expect(try #require(next.nanoseconds(.endToEnd)) >= stall - 33_333_333, "it waited for the stall's end")
        let waited = timings.filter { ($0.nanoseconds(.ringResidence) ?? 0) >= stall / 3 }
        #expect(waited.count >= 4, "frames queued behind the stall: \(waited.map(\.sequence))")
    }
}
