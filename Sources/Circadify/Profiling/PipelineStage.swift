/// A stage of the per-frame pipeline, from the camera's buffer to an updated
/// analysis, as `StageTiming` reports it (and the latency profiler,
/// `circadify-latency`, and the monitor's metrics after it).
///
/// The first four run on the core's capture thread, the rest in the scan
/// driver. The raw values are stable names for reports and metric labels.
public enum PipelineStage: String, CaseIterable, Sendable, Codable {
    /// Buffer timestamp to the capture thread taking the frame in: how long the
    /// frame waited in the driver (a replay: how late its thread woke for it).
    case dequeue
    /// MJPEG decode at the reduced scale; raw formats have none.
    case decode
    /// The per-frame kernels: mean luma, band luma and the skin-masked region means.
    case kernels
    /// The face detector's thumbnail and the preview picture, on the frames that make one.
    case thumbnail
    /// The finished sample waiting in the ring until the scan driver takes it.
    case ringResidence = "ring_residence"
    /// The face detector and tracker on a thumbnail, on the frames that run it.
    case detector
    /// The scan driver's update for the frame (regions, quality, live estimate,
    /// measurement), the detector's share excluded.
    case analysis
    /// Buffer timestamp to the frame's analysis update done.
    case endToEnd = "end_to_end"

    /// True for the stages a frame may queue in behind a stalled one (the
    /// driver's buffers, the ring) and that end-to-end spans: their time is a
    /// latency against the frame's arrival, so frames lost to a stall count
    /// there (coordinated-omission correction). The others are the service
    /// time of one call.
    public var includesQueueing: Bool {
        switch self {
        case .dequeue, .ringResidence, .endToEnd: true
        case .decode, .kernels, .thumbnail, .detector, .analysis: false
        }
    }

    /// True for the stages every frame goes through; decode only for MJPEG,
    /// thumbnail and detector only on the frames that make or use a thumbnail.
    public var isEveryFrame: Bool {
        switch self {
        case .dequeue, .kernels, .ringResidence, .analysis, .endToEnd: true
        case .decode, .thumbnail, .detector: false
        }
    }

    var index: Int {
        switch self {
        case .dequeue: 0
        case .decode: 1
        case .kernels: 2
        case .thumbnail: 3
        case .ringResidence: 4
        case .detector: 5
        case .analysis: 6
        case .endToEnd: 7
        }
    }
}
