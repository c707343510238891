@testable import Circadify
import Testing

/// An as-fast-as-processed replay opened for a measurement waits at its first frame
/// until the measurement attaches: where the measurement starts no longer depends on how
/// long the caller took to ask for it (a loaded machine once started one 0.6 s in).
@Suite struct HeldReplayTests {
    private static func fastReplay(_ path: String) -> ScanSession {
        ScanSession(.replay(path: path, fps: 30, pace: .asFastAsProcessed), mirrored: false)
    }

    /// The frames a 6 s measurement of `path` records when it is asked for `delay` after
    /// `start` (or, with `untilDelivered`, once the replay has handed over that many
    /// samples), and how many it had handed over by then.
    private func measure(_ path: String, forMeasurement: Bool, askingAfter delay: Duration,
                         untilDelivered wanted: UInt64 = 0)
        async throws -> (frames: [SignalFrame], deliveredBeforeAsking: UInt64) {
        let session = Self.fastReplay(path)
        try await session.start(forMeasurement: forMeasurement)
        try await Task.sleep(for: delay)
        var delivered = await session.pipelineCounters()?.samplesDelivered ?? 0
        let deadline = ContinuousClock.now + .seconds(30)
        while delivered < wanted, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(1))
            delivered = await session.pipelineCounters()?.samplesDelivered ?? 0
        }
        do {
            let frames = try await session.measure(duration: 6)
            await session.stop()
            return (frames, delivered)
        } catch {
            await session.stop()
            throw error
        }
    }

    @Test func aReplayOpenedForAMeasurementIsMeasuredFromItsStartHoweverLateItIsAsked() async throws {
        // 14 s: the unheld replay below runs on until the test notices 30 frames delivered,
        // which a loaded sanitized run noticed only 4.6 s in (a 10 s clip then held too
        // little for the 6 s measurement).
        let clip = try await ReplayClip.render("still", seconds: 14, heartRate: 72)
        defer { clip.cleanUp() }
        let prompt = try await measure(clip.path, forMeasurement: true, askingAfter: .zero)
        let late = try await measure(clip.path, forMeasurement: true, askingAfter: .milliseconds(700))
        #expect(late.deliveredBeforeAsking <= 1, "held at its first frame, not \(late.deliveredBeforeAsking) in")
        #expect(!prompt.frames.isEmpty)
        #expect(late.frames == prompt.frames, "the same frames, bit for bit, whenever it was asked")
        #expect((prompt.frames.first?.time ?? 99) < 0.5, "measured from the start")

        // Not held (a camera started for something else first), the replay runs on
        // meanwhile: asked 30 frames in, the measurement starts later in the file.
        let unheld = try await measure(clip.path, forMeasurement: false, askingAfter: .zero, untilDelivered: 30)
        #expect(unheld.deliveredBeforeAsking >= 30)
        #expect((unheld.frames.first?.time ?? 0) >= 0.9, "\(unheld.frames.first?.time ?? 0)")
    }

    /// Whether `session`'s events end (the replay ran to its end) within 60 s, and whether
    /// a face was among them: a replay held for good fails this rather than hanging it.
    private func runsToItsEnd(_ session: ScanSession) async -> (ended: Bool, sawFace: Bool) {
        let sawFace = await result(within: 60) {
            var face = false
            for await event in session.events { if case .face(.some) = event { face = true } }
            return face
        }
        return (sawFace != nil, sawFace ?? false)
    }

    /// A preview's face tracking, monitoring or image output, asked before the start or
    /// while held, does not let the replay go: the measurement that follows starts at the
    /// first frame however long it took to come (a preview turned on just before once
    /// started a loaded machine's measurement late). Given up on, or stopped, it goes on.
    @Test func aHeldReplayWaitsForItsMeasurementWhoeverElseWatches() async throws {
        let clip = try await ReplayClip.render("still", seconds: 3)
        defer { clip.cleanUp() }
        let watched = Self.fastReplay(clip.path)
        await watched.setTracking(true)
        try await watched.start(forMeasurement: true)
        await watched.setMonitoring(true)
        await watched.setImageOutput(true)
        try await Task.sleep(for: .milliseconds(300))
        #expect(await watched.pipelineCounters()?.samplesDelivered ?? 0 <= 1, "held at its first frame")
        // Given up on before it measured: the replay runs to its end, tracked.
        await watched.releaseHeldReplay()
        let run = await runsToItsEnd(watched)
        #expect(run.ended && run.sawFace, "released, it ran to its end with tracking")
        #expect(await watched.pipelineCounters()?.samplesDelivered == 90)
        await watched.stop()

        let stopped = Self.fastReplay(clip.path)
        await stopped.setTracking(true)
        try await stopped.start(forMeasurement: true)
        await stopped.stop() // returns once released: the held loop let go
        #expect(await stopped.hasEnded)
        await #expect(throws: CircadifyError.self) { try await stopped.measure(duration: 6) }
    }
}
