/// Follows the measured face between detector calls and steadies its box.
///
/// The detector's boxes wobble from call to call even on a still head: the
/// centre by a pixel or two (about 1% of the face width), the size by up to a
/// pyramid step (10%). Moving the regions with that wobble would put colour
/// changes into the pulse trace at every call. So the centre and the size are
/// averaged separately — the centre lightly, so the box keeps up with a
/// moving head, the size heavily — and the box moves only when an average has
/// drifted from it by more than a deadband; a detection far away (a quick
/// move, another face) is taken at once. The centre's deadband is wider than
/// a breath: breathing lifts a head by a few percent of its height, and a box
/// that chased it would step the regions back and forth at the breathing rate,
/// each step a jump in their colour and the steps together a wave at the
/// breath's harmonics, right in the pulse band; a head held still is measured
/// where it is and its breathing taken out by regression (`MotionRegression`).
/// Drifts are measured along each axis against the face's extent there (x
/// against its width, y against its height: the held box's for a deadband, the
/// averages' for a jump), so a deadband is the same share of the face whichever
/// way it moves and whatever the frame's aspect. What looks for the face (the
/// finder's window) and judges its motion (the quality monitor) follows
/// `Track.face`, held the same way with narrower deadbands: close behind a
/// moving head, but still through the detector's wobble. A face the detector
/// misses is held for `gracePeriod` before it counts as lost. (The regions then
/// glide to the box frame by frame: `RegionGlide`.)
package struct FaceTracker: Sendable {
    package struct Configuration: Sendable {
        /// Weight of a new detection in the centre and in the size averages.
        package var centreAveraging: Float = 0.8
        package var sizeAveraging: Float = 0.12
        /// Drift of the averaged centre / size from the box, as a share of the box's extent along
        /// the same axis, that moves it. (0.05 was chosen on the accuracy benchmark's tuning split
        /// among 0.025, 0.035, 0.05 and 0.08, per axis: the most clips read right, 73 of 84.)
        package var centreDeadband: Float = 0.05
        package var sizeDeadband: Float = 0.08
        /// The same for `Track.face`. Narrower, so the finder's window keeps up with a moving
        /// head; wide enough that a still face's wobble (a pixel or two a call) neither moves the
        /// window at every call, which voids the reuse of its search, nor adds up, call after
        /// call, to a head that seems to move.
        package var faceCentreDeadband: Float = 0.025
        package var faceSizeDeadband: Float = 0.08
        /// A detection this far from the averages (share of their extent along each axis) is
        /// taken at once. (0.25 of the width before drifts were measured per axis, which in a 4:3
        /// frame was 0.19 of the height vertically; 0.2 keeps a false hit's sudden growth a jump.)
        package var jump: Float = 0.2
        /// How long a face the detector no longer finds is kept, seconds.
        package var gracePeriod: Double = 1.0
        /// Detector calls in a row another face must win before the measurement moves to it, and
        /// how long the tracked face must be missing before another one takes its place: a
        /// detector's passing false hit (a large box around head and shoulders, say) must not
        /// pull the regions away.
        package var switchAfterWins = 3
        package var switchAfterMissing: Double = 0.3
        package init() {}
    }

    /// The face being measured.
    package struct Track: Sendable, Equatable {
        /// The steadied box: where the regions are placed.
        package var box: NormalizedRect
        /// Where the face is: the averaged centre and size, held through the detector's
        /// wobble only (`faceCentreDeadband`, `faceSizeDeadband`). What looks for the
        /// face or judges its motion follows this; the regions stay with `box`.
        package var face: NormalizedRect
        /// Faces the last detector call found (the measured one included).
        package var faceCount: Int
        /// Time of the last detection that confirmed the face, seconds.
        package var lastSeen: Double
    }

    package let configuration: Configuration
    package private(set) var track: Track?
    /// Running averages of the tracked face's detections.
    private var centre: SIMD2<Float>?
    private var size: SIMD2<Float>?
    /// Consecutive calls another face has beaten the tracked one.
    private var challengerWins = 0

    package init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Feeds one detector call's faces (any order) found at `time` seconds;
    /// returns the face being measured, nil once it has been lost.
    @discardableResult
    package mutating func update(detections: [NormalizedRect], at time: Double) -> Track? {
        guard let chosen = choose(from: detections, at: time) else {
            if let held = track, time - held.lastSeen > configuration.gracePeriod { reset() }
            if var held = track { held.faceCount = detections.count; track = held }
            return track
        }
        let seenCentre = SIMD2(chosen.centerX, chosen.centerY), seenSize = SIMD2(chosen.width, chosen.height)
        guard let oldCentre = centre, let oldSize = size, let held = track,
              max(Self.drift(seenCentre, from: oldCentre, extent: oldSize),
                  Self.drift(seenSize, from: oldSize, extent: oldSize)) < configuration.jump
        else {
            // A new face, or a quick move: start over from this detection.
            centre = seenCentre
            size = seenSize
            track = Track(box: chosen, face: chosen, faceCount: detections.count, lastSeen: time)
            return track
        }
        let newCentre = oldCentre + (seenCentre - oldCentre) * configuration.centreAveraging
        let newSize = oldSize + (seenSize - oldSize) * configuration.sizeAveraging
        centre = newCentre
        size = newSize
        let box = Self.hold(held.box, toward: newCentre, newSize,
                            deadbands: (configuration.centreDeadband, configuration.sizeDeadband))
        let face = Self.hold(held.face, toward: newCentre, newSize,
                             deadbands: (configuration.faceCentreDeadband, configuration.faceSizeDeadband))
        track = Track(box: box, face: face, faceCount: detections.count, lastSeen: time)
        return track
    }

    /// The tracked face is still where the last detection put it (its picture did
    /// not change): seen at `time`, its box and averages kept. Nil when none is tracked.
    package mutating func confirm(faceCount: Int, at time: Double) -> Track? {
        guard var held = track else { return nil }
        held.lastSeen = time
        held.faceCount = faceCount
        track = held
        return track
    }

    /// Forgets the face (tracking switched off, or the face lost).
    package mutating func reset() {
        track = nil
        centre = nil
        size = nil
        challengerWins = 0
    }

    /// The detection to follow: the tracked face while it is seen, unless another
    /// has beaten it `switchAfterWins` calls in a row; nil to hold the track.
    private mutating func choose(from detections: [NormalizedRect], at time: Double) -> NormalizedRect? {
        guard let best = Self.choose(from: detections, current: nil) else { return nil }
        guard let current = track else { return best }
        guard let same = Self.sameFace(as: current.box, in: detections) else {
            // The tracked face is not seen: hold it a moment before taking another.
            return time - current.lastSeen >= configuration.switchAfterMissing ? best : nil
        }
        challengerWins = Self.choose(from: detections, current: current.box) == same ? 0 : challengerWins + 1
        guard challengerWins >= configuration.switchAfterWins else { return same }
        challengerWins = 0
        return best
    }

    /// The detection overlapping `box` most, if it overlaps enough to be the same face.
    static func sameFace(as box: NormalizedRect, in detections: [NormalizedRect]) -> NormalizedRect? {
        detections.filter { $0.intersectionOverUnion(box) > 0.3 }
            .max { $0.intersectionOverUnion(box) < $1.intersectionOverUnion(box) }
    }

    /// The largest, most central face; the tracked one keeps its place unless
    /// another clearly beats it, so two similar faces do not swap back and forth.
    static func choose(from detections: [NormalizedRect], current: NormalizedRect?) -> NormalizedRect? {
        func score(_ r: NormalizedRect) -> Float {
            let dx = r.centerX - 0.5, dy = r.centerY - 0.5
            let offCentre = (dx * dx + dy * dy).squareRoot() / 0.7071
            return r.area * (1 - 0.5 * offCentre)
        }
        guard let best = detections.max(by: { score($0) < score($1) }) else { return nil }
        if let current, let same = sameFace(as: current, in: detections), score(same) >= 0.8 * score(best) {
            return same
        }
        return best
    }

    /// `held` where it is, but its centre (its size) moved to the averages' once they
    /// have drifted from it by more than the deadband.
    private static func hold(_ held: NormalizedRect, toward centre: SIMD2<Float>, _ size: SIMD2<Float>,
                             deadbands: (centre: Float, size: Float)) -> NormalizedRect {
        let heldCentre = SIMD2(held.centerX, held.centerY), heldSize = SIMD2(held.width, held.height)
        let move = drift(centre, from: heldCentre, extent: heldSize) > deadbands.centre
        let resize = drift(size, from: heldSize, extent: heldSize) > deadbands.size
        guard move || resize else { return held }
        let placeCentre = move ? centre : heldCentre, placeSize = resize ? size : heldSize
        return NormalizedRect(x: placeCentre.x - placeSize.x / 2, y: placeCentre.y - placeSize.y / 2,
                              width: placeSize.x, height: placeSize.y)
    }

    /// How far `a` is from `b` as a share of the face: the larger of the two axes'
    /// differences, each over the face's extent along that axis. (Normalized x and y
    /// are shares of the frame's width and height, so a y difference over the box's
    /// width would count a vertical move 4/3 times over in a 4:3 frame.)
    private static func drift(_ a: SIMD2<Float>, from b: SIMD2<Float>, extent: SIMD2<Float>) -> Float {
        max(abs(a.x - b.x) / max(extent.x, 1e-6), abs(a.y - b.y) / max(extent.y, 1e-6))
    }
}
