import Circadify
import Testing
@testable import LatencyKit

/// The window's counts are the run's final counts less what the warm-up's timings
/// account for: exact for samples, frames received, losses; the split of drops by cause
/// comes from the counts read as the warm-up ended, never above the drops left.
@Suite struct WarmupShareTests {
    static func timing(_ sequence: UInt64, dropped: UInt32 = 0, corrupt: UInt32 = 0, overflow: UInt32 = 0) -> StageTiming {
        StageTiming(sequence: sequence, captureNanoseconds: Int64(sequence) * 33_333_333, frameIntervalNanoseconds: 33_333_333,
                    droppedBefore: dropped, corruptBefore: corrupt, overflowBefore: overflow)
    }

    @Test func theWarmUpsFramesAndLossesAreTakenOff() {
        var share = WarmupShare()
        // 30 warm-up samples; 3 frames dropped, 2 corrupt and 1 refused by the ring before some of them.
        for i in 0..<30 {
            share.add(Self.timing(UInt64(i), dropped: i == 5 ? 3 : 0, corrupt: i == 9 ? 2 : 0, overflow: i == 20 ? 1 : 0))
        }
        // The run's end: 100 samples, 4 corrupt, 1 overflow, 5 dropped (1 by a timestamp gap), 40 from restart markers.
        let end = PipelineCounters(framesReceived: 105, samplesDelivered: 100, droppedBySequence: 4, droppedByTimestampGap: 1,
                                   corrupt: 4, ringOverflows: 1, decodedFromRestartMarkers: 40)
        // Read as the warm-up ended, a busy driver's few frames late.
        let late = PipelineCounters(framesReceived: 60, samplesDelivered: 57, droppedBySequence: 3, droppedByTimestampGap: 0,
                                    corrupt: 2, ringOverflows: 1, decodedFromRestartMarkers: 20)
        let window = share.window(of: end, atWarmupEnd: late)
        #expect(window.samplesDelivered == 70 && window.framesReceived == 72)
        #expect(window.corrupt == 2 && window.ringOverflows == 0)
        #expect(window.droppedBySequence == 1 && window.droppedByTimestampGap == 1)
        #expect(window.decodedFromRestartMarkers == 20)
    }

    @Test func noWarmUpLeavesTheCountsWhole() {
        let end = PipelineCounters(framesReceived: 9, samplesDelivered: 8, droppedBySequence: 2, droppedByTimestampGap: 1,
                                   corrupt: 1, ringOverflows: 0, decodedFromRestartMarkers: 3)
        #expect(WarmupShare().window(of: end, atWarmupEnd: PipelineCounters()) == end)
    }
}
