/// The time a scan session runs on: its frames' own times, except that a frame
/// leaping far ahead of the session's time, or back behind it, is not believed
/// until the frame after it agrees; and a camera clock that stepped back is
/// carried on from where it was instead of followed back.
///
/// A driver's glitch can stamp one frame far ahead (or behind). Taken as it came,
/// that one time ended a measurement early or counted the face as lost for the
/// whole leap, and one stamped behind took with it every frame after its time
/// (`ScanPipeline.append` keeps the frames in time order). A real stall or clock
/// step looks the same until the next frame: that one goes on from the leap,
/// where a glitch's next frame goes on from before it. So a leap is held for one
/// frame, and the session's time stays where it was meanwhile.
///
/// A step back that the next frame confirms (behind as well, in the stream's
/// cadence after the first: a pair of glitches seldom keeps it; or a third frame
/// behind in a row) is a clock reset, not time running back (a camera's clock
/// never does). The frames from the step on are shifted to go on one frame
/// interval after the last one, so no frame already taken is lost and no
/// measurement has to start again: the session's time never goes back, but over
/// one lone frame stamped ahead (the first, or one within a second of the time).
package struct SessionClock: Sendable {
    /// A step ahead longer than this (seconds) waits for the next frame: a second
    /// of dropped frames (four intervals of a slower camera) is followed at once;
    /// the resampling bridges or marks it.
    private let aheadLimit: Double
    /// The stream's nominal seconds between frames: where a shifted frame goes.
    private let interval: Double

    /// The session's time, seconds; nil before the first frame.
    private var now: Double?
    /// A leap waiting for the next frame to confirm it, session seconds.
    private var held: Double?
    /// Added to the camera's times since its clock stepped back, seconds.
    package private(set) var shift = 0.0
    /// The last step between two frames followed in turn, seconds: the cadence a
    /// camera slower than it says (auto-exposure in the dark) really keeps.
    private var cadence = 0.0
    /// Frames held in a row behind the session's time, each after the one before.
    private var behind = 0
    /// The session's time before the last frame followed; nil while the first one
    /// followed stands alone.
    private var previous: Double?
    /// The shift the last frame added, undone when the next frame goes on from before it.
    private var lastStep: Double?

    /// The stream's first believed time, seconds: the session's readings count
    /// from it. A first frame that the frames after it contradict (a driver
    /// stamping its first buffer 0, or stale) gives way to the leap they confirm.
    package private(set) var origin: Double?

    /// Whether the last frame's time is a leap not yet believed: that frame is left
    /// out of the measurement (a real leap loses one frame, a glitch loses nothing).
    package var holdsLeap: Bool { held != nil }

    /// `frameInterval`: the stream's nominal seconds between frames.
    package init(frameInterval: Double = 1.0 / 30) {
        interval = frameInterval.isFinite && frameInterval > 0 ? frameInterval : 1.0 / 30
        aheadLimit = max(1, 4 * interval)
    }

    /// Takes the next frame's `time` (seconds, the camera's clock) and returns the
    /// session's time after it. It never goes back but over one lone frame the frames
    /// after it contradict: the first, or one stamped a little ahead.
    package mutating func advance(to time: Double) -> Double {
        var time = time + shift
        guard let now else {
            origin = time
            return follow(time)
        }
        // Frames stamped behind in step with each other (a driver using another clock
        // for two buffers) look like a step back; the frame after them, back on the
        // time before, shows they were not: the shift they made is taken back.
        if let step = lastStep {
            lastStep = nil
            if time - step > now, time - step <= now + aheadLimit {
                shift -= step
                time -= step
            }
        }
        if let leap = held {
            held = nil
            if leap > now {
                behind = 0
                // Nearer the leap than the time before it: the frames go on from the
                // leap, which was real (followed even when they come over a second apart).
                if abs(time - leap) < abs(time - now) {
                    if previous == nil { origin = leap }
                    return follow(time)
                }
            } else if time <= now, time > leap {
                // Behind too and on from the leap: the clock stepped back. Believed at
                // once when this frame comes in the stream's cadence after the leap, or
                // else at the third frame behind in a row (a pair of glitches seldom
                // does either; a camera slower than its cadence still gets there).
                if time - leap <= 2.5 * max(interval, cadence) || behind >= 2 {
                    behind = 0
                    // Past a lone first frame, that first time was the glitch: the stream
                    // starts again from the leap (the session's time goes back over that frame).
                    if previous == nil {
                        origin = leap
                        return follow(time)
                    }
                    // After the time before the last frame, followed as a step of under a
                    // second: that last one was the lone glitch (stamped a little ahead),
                    // and the time goes back over it alone.
                    if let previous, time > previous, now - previous <= aheadLimit { return follow(time) }
                    // The leap's frame (lost) would have been the next after `now`, and
                    // this one goes on from there (or goes on at once, when the camera
                    // stalled after the leap: it is not held a second time).
                    let anchor = time - leap + interval > aheadLimit ? time : leap
                    let step = now + interval - anchor
                    shift += step
                    time += step
                    lastStep = step
                }
            } else {
                behind = 0
            }
            // Otherwise the leap was one frame's glitch; this frame is judged on its own.
        }
        if time - now > aheadLimit || time < now {
            behind = time < now ? behind + 1 : 0
            held = time
            return now
        }
        return follow(time)
    }

    private mutating func follow(_ time: Double) -> Double {
        if let now, time > now, time - now <= aheadLimit { cadence = time - now }
        previous = now
        now = time
        behind = 0
        return time
    }
}
