/// The last second of motion between thumbnails, as path speeds: how far the
/// face moved against the background (face heights) and the background itself
/// moved (frame heights), per second.
struct MotionWindow: Sendable {
    struct Step: Sendable {
        var time: Int64
        /// Nanoseconds since the previous thumbnail.
        var span: Int64
        /// Face displacement against the background, face heights; nil without a face in both.
        var head: Double?
        /// Background displacement, frame heights; nil when it could not be measured.
        var camera: Double?
    }

    private var steps: [Step] = []

    mutating func add(_ step: Step) {
        steps.append(step)
        steps.removeAll { step.time - $0.time >= 1_000_000_000 }
    }

    /// Path length per second over the last second's steps that measured it; nil
    /// with under half a second of them.
    func speed(of value: KeyPath<Step, Double?>) -> Double? {
        let known = steps.compactMap { s in s[keyPath: value].map { (distance: $0, span: s.span) } }
        let span = known.reduce(Int64(0)) { $0 + $1.span }
        guard known.count >= 2, span >= 500_000_000 else { return nil }
        return known.reduce(0) { $0 + $1.distance } / (Double(span) / 1e9)
    }
}
