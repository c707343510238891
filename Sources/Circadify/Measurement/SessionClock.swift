/// The time a scan session runs on: its frames' own times, except that a frame
/// leaping far from the session's time is not believed until the frame after it agrees.
///
/// A driver's glitch can stamp one frame far ahead (or behind). Taken as it came,
/// that one time ended a measurement early or counted the face as lost for the
/// whole leap, and one stamped behind took with it every frame after its time
/// (`ScanPipeline.append` keeps the frames in time order). A real stall or clock
/// step looks the same until the next frame: that one goes on from the leap,
/// where a glitch's next frame goes on from before it. So a leap is held for one
/// frame, and the session's time stays where it was meanwhile.
package struct SessionClock: Sendable {
    /// A step ahead longer than this (seconds) waits for the next frame: a second
    /// of dropped frames (four intervals of a slower camera) is followed at once;
    /// the resampling bridges or marks it.
    private let aheadLimit: Double
    /// A step back longer than this (seconds) waits too: a camera's clock never runs
    /// back, and a frame stamped behind takes the frames after its time with it.
    private let behindLimit: Double

    /// The session's time, seconds; nil before the first frame.
    private var now: Double?
    /// A leap waiting for the next frame to confirm it.
    private var held: Double?

    /// Whether the last frame's time is a leap not yet believed: that frame is left
    /// out of the measurement (a real leap loses one frame, a glitch loses nothing).
    package var holdsLeap: Bool { held != nil }

    /// `frameInterval`: the stream's nominal seconds between frames.
    package init(frameInterval: Double = 1.0 / 30) {
        let interval = frameInterval.isFinite && frameInterval > 0 ? frameInterval : 1.0 / 30
        aheadLimit = max(1, 4 * interval)
        behindLimit = max(0.25, 2 * interval)
    }

    /// Takes the next frame's `time` (seconds) and returns the session's time after it.
    package mutating func advance(to time: Double) -> Double {
        guard let now else { return follow(time) }
        if let leap = held {
            held = nil
            // Nearer the leap than the time before it: the frames go on from the
            // leap, which was real (followed even when they come over a second apart).
            if abs(time - leap) < abs(time - now) { return follow(time) }
            // Otherwise the leap was one frame's glitch; this frame is judged on its own.
        }
        if time - now > aheadLimit || now - time > behindLimit {
            held = time
            return now
        }
        return follow(time)
    }

    private mutating func follow(_ time: Double) -> Double {
        now = time
        return time
    }
}
