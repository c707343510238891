@testable import Circadify
import Testing

/// The scan pipeline's frames stay in time order whatever the timestamps: `forget` and the
/// live readout go by the oldest and newest frame.
struct ScanPipelineFramesTests {
    private func frame(_ time: Double) -> SignalFrame {
        SignalFrame(time: time, regions: [RegionColor(red: 180, green: 130, blue: 105, skinFraction: 0.9)], meanLuma: 120)
    }

    private func appended(_ times: [Double]) -> [Double] {
        var frames = [SignalFrame]()
        for t in times { ScanPipeline.append(frame(t), to: &frames) }
        return frames.map(\.time)
    }

    @Test func framesInOrderAreAllKept() {
        let times = (0..<90).map { 100 + Double($0) / 30 }
        #expect(appended(times) == times)
    }

    @Test func aFrameStampedFarAheadGoesWhenTheNextOneComes() {
        var times = (0..<90).map { 100 + Double($0) / 30 }
        times[45] += 86_400
        var expected = times
        expected.remove(at: 45)
        #expect(appended(times) == expected)
        // Ordered again, the oldest frame is the oldest in time, so forgetting works.
        #expect(appended(times).first == 100)
    }

    @Test func aClockSteppedBackDropsTheFramesAheadOfIt() {
        let before = (0..<30).map { 100 + Double($0) / 30 }, after = (0..<30).map { 50 + Double($0) / 30 }
        #expect(appended(before + after) == after)
    }

    @Test func aRepeatedOrNonFiniteTimeIsNotAdded() {
        #expect(appended([1, 2, 2, 3]) == [1, 2, 3])
        #expect(appended([1, .nan, 2, .infinity]) == [1, 2])
    }
}
