/// One frame's trip through the pipeline: how long each `PipelineStage` took
/// for it, read on CLOCK_MONOTONIC (the clock of V4L2 buffer timestamps).
///
/// A stage the frame did not go through, or that was not timed, is nil: the
/// capture thread's stages are missing on the first frame or two after timing
/// is switched on, `decode` on raw formats, `thumbnail` and `detector` on the
/// frames that make or use no thumbnail. See `CircadifyCamera.stageTimings()`.
public struct StageTiming: Sendable, Equatable {
    /// The frame's sequence number: the driver's, or the replay's frame index.
    public let sequence: UInt64
    /// The frame's buffer timestamp, CLOCK_MONOTONIC nanoseconds (a replay's
    /// frames are stamped with when they were due).
    public let captureNanoseconds: Int64
    /// The stream's nominal frame interval in nanoseconds (0 when unknown): the
    /// expected interval for coordinated-omission correction.
    public let frameIntervalNanoseconds: Int64
    /// Frames the driver dropped right before this one (sequence or timestamp gap).
    public let droppedBefore: UInt32
    /// Frames skipped right before this one as corrupt (flagged by the driver, undecodable).
    public let corruptBefore: UInt32
    /// Samples right before this one that the ring refused because it was full.
    public let overflowBefore: UInt32
    /// Nanoseconds per stage, by `PipelineStage.index`; -1 where not measured.
    private var nanoseconds = SIMD8<Int64>(repeating: -1)

    package init(sequence: UInt64, captureNanoseconds: Int64, frameIntervalNanoseconds: Int64,
                 droppedBefore: UInt32 = 0, corruptBefore: UInt32 = 0, overflowBefore: UInt32 = 0) {
        self.sequence = sequence
        self.captureNanoseconds = captureNanoseconds
        self.frameIntervalNanoseconds = frameIntervalNanoseconds
        self.droppedBefore = droppedBefore
        self.corruptBefore = corruptBefore
        self.overflowBefore = overflowBefore
    }

    /// The stage's time in nanoseconds, nil when the frame was not timed there.
    public func nanoseconds(_ stage: PipelineStage) -> Int64? {
        let value = nanoseconds[stage.index]
        return value < 0 ? nil : value
    }

    /// The stage's time, nil when the frame was not timed there.
    public subscript(stage: PipelineStage) -> Duration? {
        nanoseconds(stage).map { .nanoseconds($0) }
    }

    /// Sets a stage's time (negative readings, a clock step, count as 0); nil clears it.
    package mutating func set(_ stage: PipelineStage, nanoseconds value: Int64?) {
        nanoseconds[stage.index] = value.map { max($0, 0) } ?? -1
    }

    /// Frames that should have come before this one and never became a sample
    /// (dropped by the driver or refused by the ring): the frames coordinated-
    /// omission correction stands in for. Corrupt frames arrived and are not counted.
    public var framesLostBefore: UInt64 { UInt64(droppedBefore) + UInt64(overflowBefore) }
}
