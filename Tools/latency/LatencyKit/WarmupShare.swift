import Circadify

/// What the warm-up's frames account for in the pipeline's counts, summed from their
/// timings: a sample each, and the frames lost or skipped right before each one. The
/// window's counts are the run's final counts less this share, so they cover exactly the
/// frames the histograms do. A snapshot of the counts taken when the warm-up ends cannot:
/// the capture thread runs ahead of the scan driver by whatever the ring holds.
struct WarmupShare: Sendable, Equatable {
    var samples: UInt64 = 0
    var dropped: UInt64 = 0
    var corrupt: UInt64 = 0
    var overflows: UInt64 = 0

    mutating func add(_ timing: StageTiming) {
        samples += 1
        dropped += UInt64(timing.droppedBefore)
        corrupt += UInt64(timing.corruptBefore)
        overflows += UInt64(timing.overflowBefore)
    }

    /// The counts after the warm-up: `end` (the run's final counts) less this share. The
    /// split of drops by cause and the restart-marker decodes are not in the timings:
    /// those come from `atWarmupEnd`, the counts read as the warm-up ended (a busy scan
    /// driver reads them a few frames late).
    func window(of end: PipelineCounters, atWarmupEnd snapshot: PipelineCounters) -> PipelineCounters {
        var counts = end.since(snapshot)
        counts.samplesDelivered = end.samplesDelivered - min(samples, end.samplesDelivered)
        counts.corrupt = end.corrupt - min(corrupt, end.corrupt)
        counts.ringOverflows = end.ringOverflows - min(overflows, end.ringOverflows)
        let received = samples + corrupt + overflows
        counts.framesReceived = end.framesReceived - min(received, end.framesReceived)
        let allDropped = end.droppedBySequence + end.droppedByTimestampGap
        let droppedAfter = allDropped - min(dropped, allDropped)
        counts.droppedByTimestampGap = min(counts.droppedByTimestampGap, droppedAfter)
        counts.droppedBySequence = droppedAfter - counts.droppedByTimestampGap
        return counts
    }
}
