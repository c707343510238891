/// The time a scan session runs on: its frames' own times, except that a frame
/// leaping far from the one before is not believed until the frame after it agrees.
///
/// A driver's glitch can stamp one frame far ahead (or behind). Taken as it came,
/// that one time ended a measurement early, or counted the face as lost for the
/// whole leap. A real stall looks the same until the next frame: it goes on from
/// the leap, where a glitch's next frame goes on from before it. So a leap is held
/// for one frame; the session's time stays where it was meanwhile.
package struct SessionClock: Sendable, Equatable {
    /// A step between frames longer than this (seconds, either way) waits for the next frame.
    package static let leapLimit = 1.0

    /// The session's time, seconds; nil before the first frame.
    package private(set) var now: Double?
    /// A leap waiting for the next frame to confirm it.
    private var held: Double?

    /// Whether the last frame's time is a leap not yet believed: the frame is left out
    /// (a real leap loses that one frame; a glitch kept would shuffle the frames' order).
    package var holdsLeap: Bool { held != nil }

    package init() {}

    /// Takes the next frame's `time` (seconds) and returns the session's time after it.
    package mutating func advance(to time: Double) -> Double {
        guard let now else {
            self.now = time
            return time
        }
        if let leap = held {
            held = nil
            // The frames go on from the leap: it was real (a stall, a clock step).
            if abs(time - leap) <= Self.leapLimit { return follow(time) }
            // Otherwise the leap was one frame's glitch; this frame is judged on its own.
        }
        if abs(time - now) > Self.leapLimit {
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
