/// Follows the measured face between detector calls and steadies its box.
///
/// The detector runs a few times a second and its boxes wobble by a few
/// percent from call to call even on a still head; moving the regions with
/// that wobble would put colour steps into the pulse trace. So a detection
/// close to the tracked box (within `deadband` of the face's size) leaves the
/// box where it is, a small move is followed at least halfway, and a large one
/// (a real head move) is followed at once. A face the detector misses is held
/// for `gracePeriod` before it counts as lost.
package struct FaceTracker: Sendable {
    package struct Configuration: Sendable {
        /// Centre shift and size change below which the box stays put, as a share of the face width.
        package var deadband: Float = 0.04
        /// Share of the face width from which a move is followed completely.
        package var followAt: Float = 0.15
        /// How long a face the detector no longer finds is kept, seconds.
        package var gracePeriod: Double = 1.0
        package init() {}
    }

    /// The face being measured.
    package struct Track: Sendable, Equatable {
        package var box: NormalizedRect
        /// Faces the last detector call found (the measured one included).
        package var faceCount: Int
        /// Time of the last detection that confirmed the box, seconds.
        package var lastSeen: Double
    }

    package let configuration: Configuration
    package private(set) var track: Track?

    package init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Feeds one detector call's faces (any order) found at `time` seconds;
    /// returns the face being measured, nil once it has been lost.
    @discardableResult
    package mutating func update(detections: [NormalizedRect], at time: Double) -> Track? {
        guard let chosen = Self.choose(from: detections, current: track?.box) else {
            if let held = track, time - held.lastSeen > configuration.gracePeriod { track = nil }
            return track
        }
        let box = track.map { smooth(from: $0.box, to: chosen) } ?? chosen
        track = Track(box: box, faceCount: detections.count, lastSeen: time)
        return track
    }

    /// Forgets the face (tracking switched off).
    package mutating func reset() { track = nil }

    /// The largest, most central face; the tracked one keeps its place unless
    /// another clearly beats it, so two similar faces do not swap back and forth.
    static func choose(from detections: [NormalizedRect], current: NormalizedRect?) -> NormalizedRect? {
        func score(_ r: NormalizedRect) -> Float {
            let dx = r.centerX - 0.5, dy = r.centerY - 0.5
            let offCentre = (dx * dx + dy * dy).squareRoot() / 0.7071
            return r.area * (1 - 0.5 * offCentre)
        }
        guard let best = detections.max(by: { score($0) < score($1) }) else { return nil }
        if let current, let same = detections.max(by: {
            $0.intersectionOverUnion(current) < $1.intersectionOverUnion(current)
        }), same.intersectionOverUnion(current) > 0.3, score(same) >= 0.8 * score(best) {
            return same
        }
        return best
    }

    private func smooth(from old: NormalizedRect, to new: NormalizedRect) -> NormalizedRect {
        let size = max(old.width, 1e-6)
        let shift = max(abs(new.centerX - old.centerX), abs(new.centerY - old.centerY),
                        abs(new.width - old.width), abs(new.height - old.height)) / size
        if shift < configuration.deadband { return old }
        // At least halfway, so a small real move is caught up in two or three detections.
        let follow = max(0.5, min(1, (shift - configuration.deadband) / (configuration.followAt - configuration.deadband)))
        func mix(_ a: Float, _ b: Float) -> Float { a + (b - a) * follow }
        return NormalizedRect(x: mix(old.x, new.x), y: mix(old.y, new.y),
                              width: mix(old.width, new.width), height: mix(old.height, new.height))
    }
}
