@testable import Circadify

/// Holds a camera's openings at its test checkpoint until `release()`: a test's window between
/// asking for the camera and having it, there for as long as the test needs, not for as long as
/// the machine takes.
@MainActor struct HeldOpening {
    private let reached: AsyncStream<Void>
    private let gate: AsyncStream<Void>.Continuation

    init(_ camera: CircadifyCamera) {
        let (reached, atCheckpoint) = AsyncStream<Void>.makeStream()
        let (gate, open) = AsyncStream<Void>.makeStream()
        camera.openCheckpoint = {
            atCheckpoint.yield()
            for await _ in gate { break }
        }
        self.reached = reached
        self.gate = open
    }

    /// True once an opening is held; false after 20 s without one (a failure, not a hang).
    func waitUntilHeld() async -> Bool {
        await result(within: 20) { [reached] in
            for await _ in reached { return true }
            return false
        } == true
    }

    /// Lets the held opening go on.
    func release() { gate.yield() }
}
