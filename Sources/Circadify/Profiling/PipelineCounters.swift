/// Frame counts of a camera's pipeline since it started (see
/// `CircadifyCamera.pipelineCounters()`), as the core's capture thread counts them.
public struct PipelineCounters: Sendable, Equatable, Codable {
    /// Frames taken from the driver or the file, corrupt ones included.
    public var framesReceived: UInt64
    /// Samples handed to the scan driver through the ring.
    public var samplesDelivered: UInt64
    /// Frames the driver dropped, counted from gaps in its sequence numbers.
    public var droppedBySequence: UInt64
    /// Frames missing by a timestamp gap of 2.5 frame intervals or more where
    /// the sequence showed none (drivers that do not count their drops).
    public var droppedByTimestampGap: UInt64
    /// Frames skipped as corrupt: flagged by the driver, or MJPEG that would not decode.
    public var corrupt: UInt64
    /// Samples lost because the ring was full (the scan driver fell behind).
    public var ringOverflows: UInt64
    /// MJPEG frames decoded from the rows they needed on, rather than from their top,
    /// because the camera sends restart markers (0 for other cameras: every MJPEG frame
    /// is then Huffman-decoded from its top down to the regions).
    public var decodedFromRestartMarkers: UInt64

    public init(framesReceived: UInt64 = 0, samplesDelivered: UInt64 = 0, droppedBySequence: UInt64 = 0,
                droppedByTimestampGap: UInt64 = 0, corrupt: UInt64 = 0, ringOverflows: UInt64 = 0,
                decodedFromRestartMarkers: UInt64 = 0) {
        self.framesReceived = framesReceived
        self.samplesDelivered = samplesDelivered
        self.droppedBySequence = droppedBySequence
        self.droppedByTimestampGap = droppedByTimestampGap
        self.corrupt = corrupt
        self.ringOverflows = ringOverflows
        self.decodedFromRestartMarkers = decodedFromRestartMarkers
    }

    /// The counts since `earlier` (a snapshot of the same pipeline).
    public func since(_ earlier: PipelineCounters) -> PipelineCounters {
        PipelineCounters(framesReceived: framesReceived - min(earlier.framesReceived, framesReceived),
                         samplesDelivered: samplesDelivered - min(earlier.samplesDelivered, samplesDelivered),
                         droppedBySequence: droppedBySequence - min(earlier.droppedBySequence, droppedBySequence),
                         droppedByTimestampGap: droppedByTimestampGap
                             - min(earlier.droppedByTimestampGap, droppedByTimestampGap),
                         corrupt: corrupt - min(earlier.corrupt, corrupt),
                         ringOverflows: ringOverflows - min(earlier.ringOverflows, ringOverflows),
                         decodedFromRestartMarkers: decodedFromRestartMarkers
                             - min(earlier.decodedFromRestartMarkers, decodedFromRestartMarkers))
    }

    /// Frames the driver dropped, both ways of counting.
    public var dropped: UInt64 { droppedBySequence + droppedByTimestampGap }

    init(_ s: SourceStatistics) {
        self.init(framesReceived: s.frames, samplesDelivered: s.samples,
                  droppedBySequence: s.dropped - min(s.droppedByTimestamp, s.dropped),
                  droppedByTimestampGap: s.droppedByTimestamp, corrupt: s.errorFrames, ringOverflows: s.ringOverflows,
                  decodedFromRestartMarkers: s.boxDecodes)
    }
}
