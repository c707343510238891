@testable import Circadify
import Testing

/// A replay whose frame times carry a driver's glitches is measured as if they were not
/// there: a lone frame stamped far ahead or behind neither ends the measurement early
/// nor throws its frames away, and a time that is not a number is no crash.
@Suite struct GlitchedTimestampsTests {
    private static let clip = Task { try await ReplayClip.render("still", seconds: 12, heartRate: 72) }

    /// The frames a 6 s measurement of the clip records with `times` as its frames' times.
    private func measured(_ times: [Double]) async throws -> [SignalFrame] {
        let session = ScanSession(.replay(path: try await Self.clip.value.path, fps: 30, pace: .asFastAsProcessed),
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

    private static let steady = (0..<360).map { Double($0) / 30 }

    @Test func aLoneGlitchIsMeasuredAsIfItWereNotThere() async throws {
        let clean = try await measured(Self.steady)
        #expect(clean.count >= 175, "a clean 6 s measurement: \(clean.count) frames")
        for glitch in [1e6, 1e12, -1000] {
            var times = Self.steady
            times[90] = glitch
            let frames = try await measured(times)
            #expect(frames.count == clean.count - 1, "a frame at \(glitch) s: \(frames.count) frames")
            #expect(frames.map(\.time) == clean.map(\.time).filter { $0 != Self.steady[90] },
                    "only the glitched frame is missing")
        }
    }

    @Test func aTimeThatIsNotANumberLeavesItsFrameOut() async throws {
        var times = Self.steady
        times[60] = .nan
        times[61] = .infinity
        times[62] = 1e300
        let frames = try await measured(times)
        #expect(frames.count >= 172, "\(frames.count) frames")
        #expect(!frames.contains { !$0.time.isFinite || $0.time > 20 })
    }
}
