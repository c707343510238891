/// Watches the capture for what spoils a measurement and says so: quality
/// warnings for the person (`QualityWarning`) and one validation status for
/// headless use (`ValidationStatus`).
///
/// Inputs: every frame's `FrameSample` (`add(_:)`), and a few times a second a
/// `FaceObservation` — a thumbnail with the face detector's and tracker's boxes
/// (`observe(_:)`). Time is the samples' timestamps, never the wall clock, so a
/// replayed file gives the same report as its live capture. Conditions are
/// debounced (`Hysteresis`): raised after holding `raiseAfter`, cleared after
/// being gone `clearAfter`. Thresholds and their reasons: `QualityThresholds`.
package struct QualityMonitor: Sendable {
    package struct Configuration: Sendable {
        /// Report `cameraTuning` while the camera's controls are not locked yet.
        /// Off for file replays, whose controls never lock.
        package var reportsCameraTuning = true
        package var raiseAfter: Duration = .seconds(1)
        package var clearAfter: Duration = .milliseconds(1500)
        package init(reportsCameraTuning: Bool = true) { self.reportsCameraTuning = reportsCameraTuning }
    }

    typealias Kind = QualityWarning.Kind
    private let configuration: Configuration
    private var states: [Kind: Hysteresis]
    private var frameRateLow: Hysteresis
    private var raised: [QualityWarning] = []
    private var controlsLocked = false
    private var now: Int64?

    /// Recent frames: (sequence, timestamp) to time thumbnails; luma for flicker.
    private var frames: [(sequence: UInt64, time: Int64, luma: Float, consecutive: Bool)] = []
    /// The latest face observation's findings, read by the per-frame checks:
    /// skin is judged only on a face in view, in light that keeps skin in the mask.
    private var faceInView = false
    private var lightUsable = false
    private var previous: (thumbnail: LumaThumbnail, face: NormalizedRect?, people: [NormalizedRect], time: Int64)?
    /// The last thumbnail's background profiles, for its next motion step.
    private var motionProfiles: GlobalMotion.Profiles?
    private var motion = MotionWindow()

    package init(configuration: Configuration = .init()) {
        self.configuration = configuration
        let raise = Self.nanoseconds(configuration.raiseAfter), clear = Self.nanoseconds(configuration.clearAfter)
        let h = Hysteresis(raiseAfterNanoseconds: raise, clearAfterNanoseconds: clear)
        states = Dictionary(uniqueKeysWithValues: Kind.allCases.map { ($0, h) })
        frameRateLow = h
    }

    /// Feeds one frame's sample (every frame, in order).
    package mutating func add(_ sample: FrameSample) {
        let t = sample.timestampNanoseconds
        now = t
        controlsLocked = sample.flags.contains(.controlsLocked)
        let consecutive = sample.droppedBefore == 0 && !sample.flags.contains(.gap)
        frames.append((sample.sequence, t, sample.meanLuma, consecutive))
        frames.removeAll { t - $0.time > 2_000_000_000 }
        update(.flicker, flickering(), at: t)
        update(.occluded, faceInView && lightUsable && occluded(sample.regions), at: t)
        _ = frameRateLow.update(frameRate().map { $0 < QualityThresholds.minimumFrameRate } ?? false, at: t)
    }

    /// Feeds what the face detector and tracker saw on a thumbnail.
    package mutating func observe(_ observation: FaceObservation) {
        let seq = observation.thumbnail.sequence
        guard let t = frames.last(where: { $0.sequence == seq })?.time ?? now else { return }
        let face = observation.measuredFace
        let thumbnail = observation.thumbnail
        let people = observation.detections.isEmpty ? (face.map { [$0] } ?? []) : observation.detections
        faceInView = face != nil
        update(.faceNotDetected, face == nil, at: t)
        update(.multipleFaces, Self.distinctFaces(observation.detections) >= 2, at: t)

        var light: FaceLight?
        if let face {
            let cx = face.x + face.width / 2, cy = face.y + face.height / 2
            update(.notCentered, abs(cx - 0.5) > QualityThresholds.centreOffset
                || abs(cy - 0.5) > QualityThresholds.centreOffset, at: t)
            update(.tooFar, face.height < QualityThresholds.tooFarHeight, at: t)
            update(.tooClose, face.height > QualityThresholds.tooCloseHeight, at: t)
            let aspect = Double(face.width) * Double(thumbnail.width) / max(Double(face.height) * Double(thumbnail.height), 1)
            update(.turnedAway, aspect < QualityThresholds.turnedAwayAspect, at: t)
            light = FaceLight(thumbnail: thumbnail, face: face)
        } else {
            for kind in [Kind.notCentered, .tooFar, .tooClose, .turnedAway] { update(kind, false, at: t) }
        }
        let dark = light.map { $0.meanLuma < QualityThresholds.tooDarkLuma } ?? false
        let bright = light.map { $0.clippedFraction > QualityThresholds.tooBrightClippedFraction } ?? false
        let uneven = !dark && !bright && (light.map { $0.sideRatio > QualityThresholds.unevenSideRatio } ?? false)
        update(.tooDark, dark, at: t)
        update(.tooBright, bright, at: t)
        update(.unevenLighting, uneven, at: t)
        lightUsable = !dark && !uneven
            && (light.map { $0.clippedFraction < QualityThresholds.occlusionClippedFraction } ?? false)

        trackMotion(thumbnail: thumbnail, face: face, people: people, at: t)
        previous = (thumbnail, face, people, t)
    }

    /// The active warnings, those raised since the last call, and the status.
    package mutating func report() -> QualityReport {
        // Most severe first; within a severity, in Kind's order (a deterministic order).
        let on = Kind.allCases.filter { states[$0]?.isActive == true }
        let active = [QualityWarning.Severity.high, .medium, .low].flatMap { level in
            on.filter { $0.severity == level }.map(QualityWarning.init)
        }
        defer { raised.removeAll() }
        return QualityReport(active: active, raised: raised, status: status())
    }

    /// The first code of the priority order (ValidationStatus.Code) that applies.
    private func status() -> ValidationStatus {
        func on(_ kinds: Kind...) -> Bool { kinds.contains { states[$0]?.isActive == true } }
        let code: ValidationStatus.Code =
            on(.faceNotDetected) ? .noFace
            : on(.multipleFaces) ? .multipleFaces
            : on(.tooFar, .tooClose) ? .faceSize
            : on(.notCentered, .turnedAway) ? .notCentered
            : on(.tooDark) ? .tooDark
            : on(.tooBright) ? .tooBright
            : on(.headMoving, .cameraShaking) ? .excessiveMotion
            : frameRateLow.isActive ? .frameRateTooLow
            : configuration.reportsCameraTuning && now != nil && !controlsLocked ? .cameraTuning
            : .ok
        return ValidationStatus(code)
    }

    private mutating func update(_ kind: Kind, _ condition: Bool, at time: Int64) {
        guard var state = states[kind] else { return }
        if state.update(condition, at: time) { raised.append(QualityWarning(kind)) }
        states[kind] = state
    }

    // MARK: per-frame checks

    /// Delivered frames per second over the last two seconds (nil before 1.5 s).
    private func frameRate() -> Double? {
        guard let first = frames.first, let last = frames.last, last.time - first.time >= 1_500_000_000 else {
            return nil
        }
        return Double(frames.count - 1) / (Double(last.time - first.time) / 1e9)
    }

    /// Aliased light flicker: the frame's mean luma (an MJPEG frame's top half) jumping from frame to frame
    /// (second difference) in a good share of the last second's frames.
    private func flickering() -> Bool {
        guard let last = frames.last else { return false }
        let recent = frames.filter { last.time - $0.time <= 1_000_000_000 }
        guard recent.count >= 5 else { return false }
        var jumps = 0, judged = 0
        for i in 1..<(recent.count - 1) where recent[i].consecutive && recent[i + 1].consecutive {
            let level = max(Double(recent[i].luma), 1)
            let d2 = Double(recent[i].luma) - 0.5 * Double(recent[i - 1].luma + recent[i + 1].luma)
            judged += 1
            if abs(d2) > QualityThresholds.flickerStep * level { jumps += 1 }
        }
        return judged >= 8 && Double(jumps) >= QualityThresholds.flickerShare * Double(judged)
    }

    /// One region lost its skin while another kept it (forehead, left, right cheek).
    private func occluded(_ regions: [RegionStats]) -> Bool {
        guard regions.count >= 2, let low = regions.map(\.skinFraction).min(),
              let high = regions.map(\.skinFraction).max() else { return false }
        return low < QualityThresholds.occludedSkin && high >= QualityThresholds.visibleSkin
    }

    // MARK: per-observation checks

    /// Faces the detector found that are big enough to matter and are not the
    /// main face again (an overlapping second box of the same face).
    private static func distinctFaces(_ detections: [NormalizedRect]) -> Int {
        guard let main = detections.max(by: { $0.height < $1.height }) else { return 0 }
        return 1 + detections.filter {
            $0 != main && $0.height >= QualityThresholds.secondFaceHeight * main.height && overlap($0, main) < 0.3
        }.count
    }

    /// Intersection over union.
    private static func overlap(_ a: NormalizedRect, _ b: NormalizedRect) -> Float {
        let w = max(0, min(a.x + a.width, b.x + b.width) - max(a.x, b.x))
        let h = max(0, min(a.y + a.height, b.y + b.height) - max(a.y, b.y))
        let inter = w * h, union = a.width * a.height + b.width * b.height - inter
        return union > 0 ? inter / union : 0
    }

    /// Head motion is the face moving against the background; camera shake is
    /// the background moving. Each step between thumbnails adds to a one-second
    /// path whose speed is compared with the thresholds.
    private mutating func trackMotion(thumbnail: LumaThumbnail, face: NormalizedRect?, people: [NormalizedRect],
                                      at t: Int64) {
        guard let previous, t > previous.time else { return }
        let global = GlobalMotion.shift(from: previous.thumbnail, to: thumbnail, people: previous.people + people,
                                        reusing: &motionProfiles)
        var head: Double?
        if let face, let before = previous.face {
            let w = Double(thumbnail.width), h = Double(thumbnail.height)
            var dx = Double((face.x + face.width / 2) - (before.x + before.width / 2)) * w
            var dy = Double((face.y + face.height / 2) - (before.y + before.height / 2)) * h
            if let global { dx -= global.dx; dy -= global.dy }
            let size = Double(face.height + before.height) / 2 * h
            head = size > 0 ? (dx * dx + dy * dy).squareRoot() / size : nil
        }
        let camera = global.map { ($0.dx * $0.dx + $0.dy * $0.dy).squareRoot() / Double(thumbnail.height) }
        motion.add(.init(time: t, span: t - previous.time, head: head, camera: camera))
        update(.headMoving, motion.speed(of: \.head).map { $0 > QualityThresholds.headSpeed } ?? false, at: t)
        update(.cameraShaking, motion.speed(of: \.camera).map { $0 > QualityThresholds.cameraSpeed } ?? false, at: t)
    }

    private static func nanoseconds(_ d: Duration) -> Int64 {
        d.components.seconds * 1_000_000_000 + d.components.attoseconds / 1_000_000_000
    }
}
