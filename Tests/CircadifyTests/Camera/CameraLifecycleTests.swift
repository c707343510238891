import Foundation
import Testing
@testable import Circadify

/// `CircadifyCamera.start()` and `stop()` called over each other, as a SwiftUI view's
/// `.task` and `.onDisappear` (or a button and a measurement) call them, on replay cameras.
@MainActor @Suite(.serialized) struct CameraLifecycleTests {
    /// start/stop/start in a tight loop: no `cameraInUse` race, no leaked descriptor.
    @Test func startStopLoopLeaksNothing() async throws {
        let clip = try await ReplayClip.render("still", seconds: 2)
        defer { clip.cleanUp() }
        let camera = CircadifyCamera(replaying: clip.path, pace: .realtime)
        try await camera.start()
        await camera.release()
        let before = openDescriptorCount()
        for _ in 0..<100 {
            try await camera.start()
            #expect(camera.isRunning)
            camera.stop()
        }
        await camera.release()
        try await Task.sleep(for: .milliseconds(100))
        // Other suites open and close files, pipes and sockets meanwhile (a parallel run under
        // the sanitizers overlaps many), so the process's total wobbles by tens; a leak here
        // would be hundreds (each of the 100 starts opens the file and three eventfds).
        #expect(openDescriptorCount() < before + 50, "descriptors before \(before), after \(openDescriptorCount())")
        #expect(openDescriptorCount(to: clip.path) == 0, "the clip is still open")
    }

    /// A running camera let go without `stop()` (a view gone without its `onDisappear`):
    /// its replay stops and its file is closed (it used to run on to the end, a camera
    /// node staying busy for the next `CircadifyCamera` on it).
    @Test func aCameraLetGoWhileItRunsIsReleased() async throws {
        let clip = try await ReplayClip.render("still", seconds: 20)
        defer { clip.cleanUp() }
        weak var gone: CircadifyCamera?
        do {
            let camera = CircadifyCamera(replaying: clip.path, pace: .realtime)
            try await camera.start()
            gone = camera
            // Held to here: an optimized build may let it go right after its last use.
            withExtendedLifetime(camera) { #expect(openDescriptorCount(to: clip.path) == 1) }
        }
        for _ in 0..<250 where openDescriptorCount(to: clip.path) > 0 { try await Task.sleep(for: .milliseconds(20)) }
        #expect(gone == nil)
        #expect(openDescriptorCount(to: clip.path) == 0, "the camera let go still reads its file")
    }

    /// Observers (the SDK, the preview, the monitor) hear `.ended` once per session: on a
    /// `stop()`, whose session's own end comes later, and at a replay's end.
    @Test func observersHearTheEndOnce() async throws {
        let clip = try await ReplayClip.render("still", seconds: 1)
        defer { clip.cleanUp() }
        final class Ends { var failures: [CircadifyError?] = [] }
        let ends = Ends()
        let camera = CircadifyCamera(replaying: clip.path, pace: .realtime)
        camera.addObserver(ends) { event in if case .ended(let failure) = event { ends.failures.append(failure) } }
        try await camera.start()
        camera.stop()
        await camera.release()
        try await Task.sleep(for: .milliseconds(300)) // a late second word would land meanwhile
        #expect(ends.failures.count == 1 && ends.failures.first! == nil, "after stop(): \(ends.failures)")

        ends.failures.removeAll()
        try await camera.start()
        for _ in 0..<500 where camera.isRunning { try await Task.sleep(for: .milliseconds(20)) }
        #expect(!camera.isRunning, "the 1 s replay ended")
        camera.stop() // after its end: nothing more to say
        await camera.release()
        try await Task.sleep(for: .milliseconds(300))
        #expect(ends.failures.count == 1 && ends.failures.first! == nil, "at the end of the file: \(ends.failures)")
        camera.removeObserver(ends)
    }

    /// stop() while start() is under way is honoured: the camera ends up stopped.
    @Test func stopDuringStartIsHonoured() async throws {
        let clip = try await ReplayClip.render("still", seconds: 2)
        defer { clip.cleanUp() }
        let camera = CircadifyCamera(replaying: clip.path, pace: .realtime)
        let starting = Task { try await camera.start() }
        await Task.yield()
        camera.stop()
        _ = await starting.result  // cancelled, or started before the stop and then stopped
        await camera.release()
        #expect(!camera.isRunning)
    }

    /// A start() that waits for the last stop's release, then a stop(): the start throws
    /// `cancelled` and nothing streams. The stop used to find no session yet and do
    /// nothing, so the camera came up after the user had left (the same window as a
    /// `.front` camera's /dev lookup).
    @Test func stopWhileAStartWaitsForTheLastReleaseIsHonoured() async throws {
        let clip = try await ReplayClip.render("still", seconds: 4)
        defer { clip.cleanUp() }
        let camera = CircadifyCamera(replaying: clip.path, pace: .realtime)
        try await camera.start()
        camera.stop()
        let again = Task { try await camera.start() }
        await Task.yield() // it now waits for the release
        camera.stop()
        await #expect(throws: CircadifyError.cancelled) { try await again.value }
        try await Task.sleep(for: .milliseconds(300))
        #expect(!camera.isRunning)
        await camera.release()
        #expect(openDescriptorCount(to: clip.path) == 0, "a session the stop missed still reads the clip")
    }

    /// start, stop, start: the last word is a start, so the camera runs.
    @Test func aStartAfterAStopDuringStartRuns() async throws {
        let clip = try await ReplayClip.render("still", seconds: 4)
        defer { clip.cleanUp() }
        let camera = CircadifyCamera(replaying: clip.path, pace: .realtime)
        try await camera.start()
        camera.stop()
        let cancelled = Task { try await camera.start() }
        await Task.yield()
        camera.stop()
        try await camera.start()
        #expect(camera.isRunning)
        await #expect(throws: CircadifyError.cancelled) { try await cancelled.value }
        #expect(camera.isRunning)
        await camera.release()
    }

    /// start(), stop(), start() before the first opening has run a step: the first throws
    /// `cancelled`, the camera runs, on one session. The opening used to count the stops only
    /// when it first ran, so both openings went on and the first one's session streamed on
    /// with nothing able to stop it (on a device: holding it busy).
    @Test func startStopStartInOneTurnRunsOneSession() async throws {
        let clip = try await ReplayClip.render("still", seconds: 4)
        defer { clip.cleanUp() }
        let camera = CircadifyCamera(replaying: clip.path, pace: .realtime)
        let first = Task { try await camera.start() }
        let second = Task { camera.stop(); try await camera.start() }
        await #expect(throws: CircadifyError.cancelled) { try await first.value }
        try await second.value
        #expect(camera.isRunning)
        #expect(openDescriptorCount(to: clip.path) == 1, "more than one session reads the clip")
        await camera.release()
        #expect(openDescriptorCount(to: clip.path) == 0, "a session the camera forgot still reads the clip")
    }

    /// Two start()s at once (while the last stop's release is awaited, so both wait):
    /// both return once the camera runs, on one session.
    @Test func twoStartsAtOnceShareOneOpening() async throws {
        let clip = try await ReplayClip.render("still", seconds: 4)
        defer { clip.cleanUp() }
        let camera = CircadifyCamera(replaying: clip.path, pace: .realtime)
        try await camera.start()
        camera.stop()
        let first = Task { try await camera.start(); return camera.isRunning }
        let second = Task { try await camera.start(); return camera.isRunning }
        #expect(try await first.value, "the first start returned before the camera ran")
        #expect(try await second.value, "the second start returned before the camera ran")
        #expect(openDescriptorCount(to: clip.path) == 1, "one session reads the clip")
        await camera.release()
        #expect(openDescriptorCount(to: clip.path) == 0)
    }
}
