@testable import Circadify
import Testing

/// A replay read to its end before anyone asked for a measurement (a file of a
/// few frames is, under load) says what the file holds, as a short file measured
/// from the start does — not a bare "has ended".
@Suite struct ReplayEndedFirstTests {
    @Test func aMeasurementAskedAfterTheReplayEndedNamesWhatTheFileHolds() async throws {
        let clip = try await ReplayClip.render("still", seconds: 1)
        defer { clip.cleanUp() }
        let session = ScanSession(.replay(path: clip.path, fps: 30, pace: .asFastAsProcessed), mirrored: false)
        try await session.start()
        for await _ in session.events {} // the events end when the replay has ended
        do {
            _ = try await session.measure(duration: 30)
            Issue.record("a replay that has ended cannot be measured")
        } catch {
            guard case .captureFailed(let message) = error else { Issue.record("\(error)"); return }
            #expect(message.contains(clip.path), "\(message)")
            #expect(message.contains("holds only 1.0 s of video"), "\(message)")
            #expect(message.contains("ended before the 30 s measurement began"), "\(message)")
        }
        await session.stop()
    }
}
