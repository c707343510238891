/// One measurement's moving parts between the capture thread and the signal
/// pipeline: faces found on thumbnails steer the tracker, the regions glide
/// after the tracked face, the skin mask is relearnt from the face's own
/// colour, every sample taken at a face's regions becomes a signal frame, and
/// the quality monitor watches samples and faces alike.
///
/// Shared by the live camera and the file replay, so both measure the same
/// way; the driver hands in samples and thumbnails and publishes the regions
/// they return. Not Sendable: one owner (the driving task) at a time.
package final class ScanPipeline {
    /// Faces on one thumbnail taken at a time (seconds), normalized, in any
    /// order, given the face being tracked (nil when none): see `FaceFinder`.
    package typealias Detect = (LumaThumbnail, NormalizedRect?, Double) throws(CoreError) -> FaceFinder.Result

    /// The detector's thumbnail fits a 320-pixel square at the frame's aspect
    /// (320x240 for 4:3; a portrait 480x640 clip gives 240x320): faces down to
    /// about a tenth of the frame height still span the cascade's 24-pixel
    /// window. Every 3rd frame: 10 detector calls a second at 30 fps.
    package static let thumbnailSide = 320
    package static let thumbnailEvery = 3

    private let detect: Detect
    private var tracker = FaceTracker()
    private var glide = RegionGlide()
    private let skinModel = SkinToneModel()
    private var skin = SkinToneModel.initial
    private var layout: FaceLayout?
    private var generation: UInt32 = 0
    /// Region generations placed on a face (samples at others are not kept).
    private var faceGenerations = Set<UInt32>()
    /// The face's fine vertical position, for the breathing motion (`FaceVerticalMotion`).
    private var motion = FaceVerticalMotion()
    private var faceCentreY: Double?
    private var lastSkinUpdate = -Double.infinity
    private var measuringFrom: Double?
    private var quality: QualityMonitor

    /// Frames measured at a tracked face, oldest first (bounded by `forget`).
    package private(set) var frames = [SignalFrame]()
    /// Faces found by the last detector call (the tracked one included), and those
    /// carried from the last whole-frame search.
    package private(set) var lastDetections = [NormalizedRect]()

    /// `quality` configures the monitor (files: no camera-tuning status, their controls never lock).
    package init(quality: QualityMonitor.Configuration = .init(), detect: @escaping Detect) {
        self.detect = detect
        self.quality = QualityMonitor(configuration: quality)
    }

    /// The face being measured, nil when none is tracked.
    package var trackedFace: FaceTracker.Track? { tracker.track }
    /// Where the regions are now.
    package var faceLayout: FaceLayout? { layout }

    /// The quality warnings in force, those raised since the last call, and the validation status.
    package func qualityReport() -> QualityReport { quality.report() }

    /// Frames from `time` on count towards the measurement (`measuredFrames`);
    /// earlier ones stay for the live readout until forgotten.
    package func beginMeasurement(at time: Double) {
        measuringFrom = time
    }

    /// The measurement is over.
    package func endMeasurement() {
        measuringFrom = nil
    }

    /// The frames of the measurement in progress (all frames when none is).
    package var measuredFrames: [SignalFrame] {
        guard let from = measuringFrom else { return frames }
        return Array(frames.drop { $0.time < from })
    }

    /// Adds `frame` in time order. Frames stamped after it were stamped ahead of their
    /// time (a driver's glitch: one frame far in the future; or a clock stepped back) and
    /// go; a frame at the time of the last one is a repeat and is not added. `forget` and
    /// the live readout go by the oldest and newest times: one frame a day ahead, kept,
    /// stopped `forget` for that day, and every live reading analysed all frames since.
    package static func append(_ frame: SignalFrame, to frames: inout [SignalFrame]) {
        guard frame.time.isFinite else { return }
        while let last = frames.last, last.time > frame.time { frames.removeLast() }
        if let last = frames.last, last.time == frame.time { return }
        frames.append(frame)
    }

    /// Drops frames older than `time` (seconds), to bound memory while no
    /// measurement runs; the skin model needs only the last second.
    package func forget(before time: Double) {
        guard let first = frames.first, first.time < time - 5 else { return }
        frames.removeAll { $0.time < time }
    }

    /// One sample from the capture thread; returns the regions to publish
    /// when they moved. Samples taken before any face was tracked, or at
    /// regions already replaced, are not kept.
    package func consume(_ sample: FrameSample) -> RegionSet? {
        let time = Double(sample.timestampNanoseconds) / 1e9
        quality.add(sample)
        if !sample.flags.contains(.noRegions), sample.regions.count == 3,
           faceGenerations.contains(sample.regionGeneration) {
            Self.append(SignalFrame(sample, faceCenterY: faceCentreY), to: &frames)
        }
        guard let moved = glide.advance(towards: tracker.track?.box, at: time) else { return nil }
        layout = moved.map(FaceLayout.init(face:))
        return publish()
    }

    /// A thumbnail of the frame at `time` seconds: runs the detector, updates
    /// the tracker and the quality monitor, and returns the regions to publish
    /// when the skin mask changed. A detector failure (a thumbnail larger than
    /// it was made for) is processingFailed.
    package func consume(thumbnail: LumaThumbnail, at time: Double) throws(CircadifyError) -> RegionSet? {
        let search: FaceFinder.Result
        do {
            search = try detect(thumbnail, tracker.track?.face, time)
        } catch {
            throw .processingFailed("face detection failed: \(error.message)")
        }
        lastDetections = search.all
        // A reused result is the same detection again: it confirms the face, it is
        // not a second look at it (fed again, it would pull the averages to it).
        let track = search.reused
            ? tracker.confirm(faceCount: search.found.count, at: time)
            : tracker.update(detections: search.found, at: time)
        if let track {
            faceCentreY = motion.update(thumbnail: thumbnail, box: track.box)
        } else {
            motion.reset()
            faceCentreY = nil
        }
        quality.observe(FaceObservation(thumbnail: thumbnail, detections: lastDetections,
                                        trackedFace: tracker.track?.face))
        return relearnSkin(at: time) && layout != nil ? publish() : nil
    }

    /// Stops following the face; returns the cleared regions to publish, or
    /// nil when no face was being measured.
    package func stopTracking() -> RegionSet? {
        tracker.reset()
        glide.reset()
        motion.reset()
        guard layout != nil else { return nil }
        layout = nil
        return publish()
    }

    private func publish() -> RegionSet {
        generation &+= 1
        faceGenerations = faceGenerations.filter { $0 &+ 16 > generation }
        guard let layout else { return RegionSet(rects: [], skin: skin, generation: generation) }
        faceGenerations.insert(generation)
        return RegionSet(rects: layout.regions, skin: skin, generation: generation)
    }

    /// Relearns the skin mask once a second from the last second of colour; it is
    /// replaced only when the skin's colour has clearly moved (`SkinToneModel`).
    private func relearnSkin(at time: Double) -> Bool {
        guard time - lastSkinUpdate >= 1, frames.count >= skinModel.framesToLearn else { return false }
        lastSkinUpdate = time
        let recent = frames.filter { $0.time > time - 1.0 }
        guard let learnt = skinModel.bounds(from: recent.count >= skinModel.framesToLearn ? recent
                                             : Array(frames.suffix(skinModel.framesToLearn))),
              skinModel.replaces(skin, with: learnt) else { return false }
        skin = learnt
        return true
    }
}
