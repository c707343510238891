/// Moves the measured face box towards the tracker's box a little every
/// frame instead of in one jump.
///
/// A region that jumps puts a step into its colour trace, and steps at every
/// tracker update have energy right across the pulse band; a region that
/// glides over a few hundred milliseconds only adds a slow drift, which the
/// band-pass filter removes. A change of a tiny share of the face is not
/// worth publishing and is held back until it grows.
package struct RegionGlide: Sendable {
    /// Time constant of the glide, seconds.
    package var timeConstant = 0.08
    /// Smallest move worth publishing, as a share of the face width.
    package var minimumStep: Float = 0.02
    package private(set) var box: NormalizedRect?
    private var lastTime: Double?

    package init() {}

    /// Moves towards `target` for the frame at `time`; returns the new box when
    /// it moved enough to publish, nil otherwise. A nil target clears the box.
    package mutating func advance(towards target: NormalizedRect?, at time: Double) -> NormalizedRect?? {
        guard let target else {
            guard box != nil else { return nil }
            reset()
            return .some(nil)
        }
        // Time since the last published step: a held-back move keeps growing until it is worth publishing.
        guard let current = box, let last = lastTime else {
            box = target
            lastTime = time
            return .some(target)
        }
        let weight = Float(min(1, max(0, time - last) / timeConstant))
        func m(_ a: Float, _ b: Float) -> Float { a + (b - a) * weight }
        let next = NormalizedRect(x: m(current.x, target.x), y: m(current.y, target.y),
                                  width: m(current.width, target.width), height: m(current.height, target.height))
        let step = max(abs(next.x - current.x), abs(next.y - current.y),
                       abs(next.width - current.width), abs(next.height - current.height)) / max(current.width, 1e-6)
        let remaining = max(abs(target.x - current.x), abs(target.y - current.y),
                            abs(target.width - current.width), abs(target.height - current.height))
        // Publish a real step, or the last bit that lands exactly on the target.
        guard step >= minimumStep || (remaining > 0 && remaining / max(current.width, 1e-6) < minimumStep) else {
            return nil
        }
        box = remaining / max(current.width, 1e-6) < minimumStep ? target : next
        lastTime = time
        return .some(box)
    }

    package mutating func reset() {
        box = nil
        lastTime = nil
    }
}
