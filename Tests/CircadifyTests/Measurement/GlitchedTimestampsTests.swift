@testable import Circadify
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

    /// The frames a 6 s measurement of `clip` records with `times` as its frames' times.
    private func measured(_ clip: ReplayClip, _ times: [Double]) async throws -> [SignalFrame] {
        let session = ScanSession(.replay(path: clip.path, fps: 30, pace: .asFastAsProcessed),
                                  mirrored: false, timestamps: times)
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
