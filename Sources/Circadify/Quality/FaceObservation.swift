/// What the face detector and tracker saw on one luma thumbnail: the quality
/// monitor's input a few times a second, beside the per-frame samples.
///
/// Plugging in the real detector and tracker: take a thumbnail from the source
/// (`FrameSource.takeThumbnail()`), run the
/// detector on it, update the tracker, then hand all three over — the thumbnail
/// as it was, the detector's raw boxes (every face it found, largest first) and
/// the box the tracker follows (the face the measurement regions sit on; nil
/// while it has lost the face). Boxes are normalized to [0, 1], origin top-left,
/// unmirrored, and the thumbnail must keep the frame's aspect ratio (face shape
/// is judged from it). The observation's time is that of the frame the
/// thumbnail was made from (matched by `thumbnail.sequence`).
package struct FaceObservation: Sendable {
    package var thumbnail: LumaThumbnail
    package var detections: [NormalizedRect]
    package var trackedFace: NormalizedRect?

    package init(thumbnail: LumaThumbnail, detections: [NormalizedRect], trackedFace: NormalizedRect?) {
        self.thumbnail = thumbnail
        self.detections = detections
        self.trackedFace = trackedFace
    }

    /// The face being measured: the tracked one, else the detector's largest.
    var measuredFace: NormalizedRect? { trackedFace ?? detections.first }
}
