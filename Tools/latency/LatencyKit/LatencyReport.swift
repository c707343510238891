import Circadify

/// What `circadify-latency` measured, as its table and its `--json` object
/// (keys in snake case; times in microseconds; see the README's "Latency profiler").
public struct LatencyReport: Codable, Sendable {
    public struct Source: Codable, Sendable {
        /// The device node or file.
        public var input: String
        /// "device" or "file" (a file is replayed at its own frame rate, as a camera delivers).
        public var kind: String
        /// The negotiated (or the file's) pixel format, e.g. "YUYV", "I420", "MJPG".
        public var format: String?
        public var width: UInt32?
        public var height: UInt32?
        /// Frames a second the stream promises.
        public var nominalFps: Double?

        enum CodingKeys: String, CodingKey {
            case input, kind, format, width, height, nominalFps = "nominal_fps"
        }
    }

    public struct Frames: Codable, Sendable {
        /// Frames the capture thread took from the driver or file (corrupt ones included).
        public var received: UInt64
        /// Samples it handed to the scan driver.
        public var samples: UInt64
        /// Frames whose stage timings reached the profiler.
        public var timed: UInt64
        public var droppedBySequence: UInt64
        public var droppedByTimestampGap: UInt64
        public var corrupt: UInt64
        public var ringOverflows: UInt64
        /// Lost frames the coordinated-omission correction stood in for.
        public var backfilled: UInt64
        /// MJPEG frames decoded from the rows they needed on, by the camera's restart markers
        /// (`PipelineCounters.decodedFromRestartMarkers`).
        public var fromRestartMarkers: UInt64

        enum CodingKeys: String, CodingKey {
            case received, samples, timed, corrupt, backfilled
            case droppedBySequence = "dropped_by_sequence", droppedByTimestampGap = "dropped_by_timestamp_gap"
            case ringOverflows = "ring_overflows", fromRestartMarkers = "from_restart_markers"
        }
    }

    public var source: Source
    /// Seconds run before measuring; their frames and counts are not in the report.
    public var warmupSeconds: Double
    /// Wall-clock seconds measured (from the camera running, or the warm-up's end, to the end).
    public var durationSeconds: Double
    public var frames: Frames
    /// Frames a second by when the capture thread took the timed frames (a replay that
    /// falls behind shows the rate it kept, not the file's).
    public var achievedFps: Double?
    /// CPU (user + system) of the whole process over the run, percent of one core (nil
    /// for a window under 0.1 s, too short for getrusage's ticks to mean anything).
    public var cpuPercent: Double?
    /// Peak resident memory of the process, megabytes (2^20 bytes).
    public var peakRssMB: Double
    /// Every `PipelineStage` by its raw value ("dequeue", …, "end_to_end").
    public var stages: [String: StageSummary]
    /// Stopped before its duration by a signal (Ctrl-C): the report covers the time measured.
    public var interrupted: Bool
    /// Why the run ended early, when the camera or file failed, or why nothing was measured.
    public var error: String?

    enum CodingKeys: String, CodingKey {
        case source, frames, stages, interrupted, error
        case warmupSeconds = "warmup_s", durationSeconds = "duration_s", achievedFps = "achieved_fps", cpuPercent = "cpu_percent"
        case peakRssMB = "peak_rss_mb"
    }

    public subscript(stage: PipelineStage) -> StageSummary? { stages[stage.rawValue] }
}
