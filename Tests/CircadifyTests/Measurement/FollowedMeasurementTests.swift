@testable import Circadify
import Synchronization
import Testing

/// The live estimate of a measurement (the whole analyzer on the newest 20 s, once a
/// second) is made only for someone who follows it: a measurement nobody follows
/// (`circadify scan --json` to a pipe) yields no live readings and the same result.
@Suite struct FollowedMeasurementTests {
    private struct Run {
        var result: VitalSignsResult
        var liveReadings: Int
        var progressHeartRates: [Double]
    }

    /// A lockstep replay of `path` measured for 10 s, with the progress followed or not.
    private func measure(_ path: String, followed: Bool) async throws -> Run {
        let session = ScanSession(.replay(path: path, fps: 30, pace: .asFastAsProcessed), mirrored: false)
        let events = Task {
            var live = 0
            for await event in session.events { if case .live = event { live += 1 } }
            return live
        }
        let rates = HeartRates()
        var progress: (@Sendable (ScanProgress) -> Void)?
        if followed { progress = { rates.note($0) } }
        try await session.start(forMeasurement: true)
        let result: VitalSignsResult
        do {
            result = try await session.measureVitals(duration: 10, progress: progress)
        } catch {
            await session.stop()
            throw error
        }
        await session.stop()
        return Run(result: result, liveReadings: await events.value, progressHeartRates: rates.all)
    }

    /// The live heart rates a progress callback saw, from any thread.
    private final class HeartRates: Sendable {
        private let seen = Mutex([Double]())
        func note(_ progress: ScanProgress) {
            if let rate = progress.heartRate { seen.withLock { $0.append(rate) } }
        }
        var all: [Double] { seen.withLock { $0 } }
    }

    @Test func aMeasurementNobodyFollowsMakesNoLiveEstimateAndTheSameResult() async throws {
        let clip = try await ReplayClip.render("still", seconds: 14, heartRate: 72)
        defer { clip.cleanUp() }
        let followed = try await measure(clip.path, followed: true)
        let alone = try await measure(clip.path, followed: false)

        #expect(followed.liveReadings > 0, "a followed measurement has live readings")
        #expect(!followed.progressHeartRates.isEmpty, "its progress shows a live heart rate")
        #expect(followed.progressHeartRates.allSatisfy { abs($0 - 72) <= 5 }, "\(followed.progressHeartRates)")
        #expect(alone.liveReadings == 0, "nobody follows: no live estimate is made")

        // The replay waits for its measurement (`start(forMeasurement:)`), so both measure
        // the same frames: the same result, bit for bit.
        #expect(alone.result.heartRate == followed.result.heartRate)
        #expect(alone.result.hrv == followed.result.hrv)
        #expect(alone.result.respiratoryRate == followed.result.respiratoryRate)
        #expect(alone.result.confidence == followed.result.confidence)
    }
}
