@testable import Circadify
import Synchronization
import Testing

/// A replay whose frame times carry a driver's glitches is measured as if they were not
/// there: a lone frame stamped far ahead or behind neither ends the measurement early
/// nor throws its frames away, a time that is not a number is no crash, a real stall is
/// still followed, and a clock that steps back is carried on from where it was. One at a time:
/// each runs up to four replays, and the suites beside it include realtime ones.
@Suite(.serialized) struct GlitchedTimestampsTests {
    /// A clip long enough for a 6 s measurement and a frame or two after a 3 s stall.
    private static func render() async throws -> ReplayClip {
        try await ReplayClip.render("still", seconds: 8, heartRate: 72)
    }

    /// The frames a 6 s measurement of `clip` records with `times` as its frames' times
    /// (the face found from the first thumbnail on, or from the second one `missingFirst`;
    /// the times searched noted in `searches`).
    private func measured(_ clip: ReplayClip, _ times: [Double], missingFirst: Bool = false,
                          searches: Searches? = nil) async throws -> [SignalFrame] {
        let plain = !missingFirst && searches == nil
        let session = ScanSession(.replay(path: clip.path, fps: 30, pace: .asFastAsProcessed),
                                  mirrored: false, timestamps: times, pipeline: { quality throws(CircadifyError) in
            plain ? try ScanPipeline.withFaceDetector(quality: quality)
                : try Self.detector(quality, missingFirst: missingFirst, searches: searches)
        })
        try await session.start(forMeasurement: true)
        do {
            let frames = try await session.measure(duration: 6)
            await session.stop()
            return frames
        } catch {
            await session.stop()
            throw error
        }
    }

    private static let steady = (0..<240).map { Double($0) / 30 }

    /// The times the face detector was asked to search a thumbnail at.
    private final class Searches: Sendable {
        private let times = Mutex([Double]())
        func note(_ time: Double) { times.withLock { $0.append(time) } }
        var all: [Double] { times.withLock { $0 } }
    }

    /// The face detector, noting each search in `searches`; with `missingFirst`, the
    /// first thumbnail shows no face.
    private static func detector(_ quality: QualityMonitor.Configuration, missingFirst: Bool,
                                 searches: Searches?) throws(CircadifyError) -> ScanPipeline {
        let detector: FaceDetector
        do {
            detector = try FaceDetector(maxWidth: ScanPipeline.thumbnailSide, maxHeight: ScanPipeline.thumbnailSide)
        } catch {
            throw .processingFailed(error.message)
        }
        let finder = FaceFinder(detector: detector)
        var calls = 0
        return ScanPipeline(quality: quality) { thumbnail, tracked, time throws(CoreError) in
            calls += 1
            searches?.note(time)
            if missingFirst, calls == 1 { return FaceFinder.Result(found: [], carried: []) }
            return try finder.find(in: thumbnail, tracked: tracked, at: time)
        }
    }

    /// `times` less those of `frames` (a frame's time is whole nanoseconds).
    private func dropping(_ frames: Range<Int>, from times: [Double]) -> [Double] {
        times.filter { t in !frames.contains { abs(Self.steady[$0] - t) < 1e-6 } }
    }

    @Test func aLoneGlitchIsMeasuredAsIfItWereNotThere() async throws {
        let clip = try await Self.render()
        defer { clip.cleanUp() }
        let clean = try await measured(clip, Self.steady)
        #expect(clean.count >= 175, "a clean 6 s measurement: \(clean.count) frames")
        for glitch in [1e6, 1e12, -1000] {
            var times = Self.steady
            times[90] = glitch
            let frames = try await measured(clip, times)
            #expect(frames.count == clean.count - 1, "a frame at \(glitch) s: \(frames.count) frames")
            #expect(frames.map(\.time) == dropping(90..<91, from: clean.map(\.time)),
                    "only the glitched frame is missing")
        }
    }

    @Test func aTimeThatIsNotANumberLeavesItsFrameOut() async throws {
        let clip = try await Self.render()
        defer { clip.cleanUp() }
        let clean = try await measured(clip, Self.steady)
        var times = Self.steady
        times[60] = .nan
        times[61] = .infinity
        times[62] = 1e300
        let frames = try await measured(clip, times)
        #expect(frames.map(\.time) == dropping(60..<63, from: clean.map(\.time)))
    }

    @Test func aClockSteppedBackIsMeasuredThroughLosingOneFrame() async throws {
        let clip = try await Self.render()
        defer { clip.cleanUp() }
        let clean = try await measured(clip, Self.steady)
        // 5 s into the measurement the clock steps back and runs on from there: the
        // frames go on from where the session was, only the frame at the step lost.
        for step in [0.2, 3600] {
            let times = Self.steady.enumerated().map { $0.offset < 150 ? $0.element : $0.element - step }
            let frames = try await measured(clip, times)
            let expected = dropping(150..<151, from: clean.map(\.time))
            #expect(frames.count == expected.count, "a step back of \(step) s: \(frames.count) frames")
            #expect(zip(frames, expected).allSatisfy { abs($0.time - $1) < 1e-6 },
                    "a step back of \(step) s: the frames after it carry on the clean times")
        }
    }

    @Test func aFirstFrameStampedZeroDoesNotDelayTheLiveReadings() async throws {
        let clip = try await Self.render()
        defer { clip.cleanUp() }
        // A driver stamps its first buffer 0; the camera's clock reads 5000 s after it.
        let times = [0] + Self.steady.dropFirst().map { 5000 + $0 }
        let session = ScanSession(.replay(path: clip.path, fps: 30, pace: .asFastAsProcessed),
                                  mirrored: false, timestamps: times)
        let liveTimes = Task {
            var seen: [Double] = []
            for await event in session.events { if case .live(let reading) = event { seen.append(reading.time) } }
            return seen
        }
        try await session.start(forMeasurement: true)
        do {
            _ = try await session.measureVitals(duration: 6, progress: { _ in })
        } catch {
            await session.stop()
            throw error
        }
        await session.stop()
        let seen = await liveTimes.value
        #expect(!seen.isEmpty, "a followed measurement has live readings")
        // Timed from the stream's real start, the clip's 8 s; from the bogus 0, 5000 s more.
        #expect(seen.allSatisfy { $0 > 0 && $0 < 8 }, "live readings at \(seen) s")
    }

    @Test func aBogusFirstTimeIsMeasuredPast() async throws {
        let clip = try await Self.render()
        defer { clip.cleanUp() }
        let clean = try await measured(clip, Self.steady)
        // Far ahead: the face is found on that first frame, and the measurement begins
        // there and again at the frames after it. At 0 before the camera's clock, with
        // the face found only on the second thumbnail: the settling counts from the
        // frames after it, not from 0 (5000 s of it would be over the face's 10 s wait).
        for (first, offset, missing) in [(1e6, 0.0, false), (0, 5000, true)] {
            let times = [first] + Self.steady.dropFirst().map { $0 + offset }
            let frames = try await measured(clip, times, missingFirst: missing)
            let label = "first frame at \(first), then +\(offset) s"
            #expect(abs(frames.count - clean.count) <= 3, "\(label): \(frames.count) frames, clean \(clean.count)")
            #expect(frames.allSatisfy { $0.time > offset && $0.time < offset + 8 }, "\(label): \(frames.map(\.time))")
            #expect(zip(frames, frames.dropFirst()).allSatisfy { abs($1.time - $0.time - 1.0 / 30) < 1e-6 },
                    "\(label): in step")
        }
    }

    @Test func aHeldFrameIsNotSearchedForFaces() async throws {
        let clip = try await Self.render()
        defer { clip.cleanUp() }
        // The camera stops for 1.5 s after frame 89, whose time is 0.1 s after frame 87's
        // search: frame 90 brings a thumbnail due for a search, but its time is held.
        var times = Self.steady
        times[88] = times[87] + 0.05
        times[89] = times[87] + 0.1
        for i in 90..<times.count { times[i] += 1.5 }
        let searches = Searches()
        _ = try await measured(clip, times, searches: searches)
        let searched = searches.all
        #expect(searched.contains { abs($0 - times[87]) < 1e-6 }, "frame 87 was searched: \(searched)")
        #expect(!searched.contains { abs($0 - times[89]) < 1e-6 }, "nothing at the held frame's time: \(searched)")
        #expect(searched.contains { $0 > times[90] }, "searched again after the stall: \(searched)")
    }

    @Test func aRealStallIsFollowedLosingOneFrame() async throws {
        let clip = try await Self.render()
        defer { clip.cleanUp() }
        // The camera stops for 3 s after frame 89 and goes on from there.
        let times = Self.steady.enumerated().map { $0.offset < 90 ? $0.element : $0.element + 3 }
        let frames = try await measured(clip, times)
        let clean = try await measured(clip, Self.steady)
        // The measurement began where the clean one did, lost the frame at the leap, and
        // went on in the frames after the stall until 6 s after its first frame.
        let before = clean.map(\.time).filter { $0 < Self.steady[90] }
        let after = Array(frames.map(\.time).dropFirst(before.count))
        #expect(Array(frames.map(\.time).prefix(before.count)) == before)
        #expect(!after.isEmpty && after.enumerated().allSatisfy { abs($0.element - times[91 + $0.offset]) < 1e-6 },
                "from the frame after the leap on: \(after)")
        #expect((after.last ?? 0) - (before.first ?? 0) >= 6 - 1.0 / 60, "a whole 6 s measurement")
    }
}
