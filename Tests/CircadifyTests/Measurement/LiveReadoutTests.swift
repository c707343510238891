@testable import Circadify
import Testing

/// How often the live estimate reruns the analyzer: a few times a second while it
/// searches for a pulse, once a second after — never on every frame.
@Suite struct LiveReadoutTests {
    /// Feeds the frames one at a time, as the scan driver does; returns the media
    /// times of the estimates that were recomputed.
    private func updateTimes(_ frames: [SignalFrame]) -> [Double] {
        var readout = LiveReadout()
        let analyzer = VitalsAnalyzer()
        var times = [Double]()
        for end in frames.indices {
            if let reading = readout.update(frames: Array(frames[...end]), analyzer: analyzer) {
                times.append(reading.time)
            }
        }
        return times
    }

    @Test func withNoPulseItTriesFourTimesASecondNotEveryFrame() {
        var trace = SyntheticTrace()
        trace.duration = 12
        trace.pulsePresent = false
        trace.breathing = 0
        let times = updateTimes(trace.frames())
        #expect(!times.isEmpty, "a pulse-free face still gets (unconfident) readings")
        // 12 s at 30 fps is 360 frames; at most one try per 0.25 s of media.
        #expect(times.count <= Int(trace.duration / 0.25) + 1)
        for (earlier, later) in zip(times, times.dropFirst()) {
            #expect(later - earlier >= 0.25 - 1e-9)
        }
    }

    @Test func aConfidentPulseIsThenUpdatedOnceASecond() throws {
        var trace = SyntheticTrace()
        trace.duration = 25
        let times = updateTimes(trace.frames())
        let readout = try #require(times.last)
        #expect(readout > 100 + 20, "readings continue to the end of the clip")
        // After the first confident reading the gaps are a second of media.
        let gaps = zip(times, times.dropFirst()).map { $1 - $0 }
        #expect(gaps.suffix(10).allSatisfy { $0 >= 1 - 1e-9 && $0 < 1.1 })
    }
}
