import Circadify
import Foundation
import Testing
@testable import LatencyKit

/// Recording timings into the histograms: counts, percentiles, and the
/// coordinated-omission correction for lost frames.
@Suite struct StageHistogramsTests {
    static let interval: Int64 = 33_333_333

    static func timing(_ sequence: UInt64, endToEnd: Int64, kernels: Int64 = 20_000, dropped: UInt32 = 0,
                       overflow: UInt32 = 0, corrupt: UInt32 = 0) -> StageTiming {
        var t = StageTiming(sequence: sequence, captureNanoseconds: Int64(sequence) * interval,
                            frameIntervalNanoseconds: interval, droppedBefore: dropped, corruptBefore: corrupt,
                            overflowBefore: overflow)
        t.set(.kernels, nanoseconds: kernels)
        t.set(.endToEnd, nanoseconds: endToEnd)
        return t
    }

    @Test func percentilesFollowTheRecordedValues() throws {
        var h = StageHistograms()
        // 1000 frames: end to end 1..1000 µs, so p50 ≈ 500 µs, p99 ≈ 990 µs, max 1000 µs.
        for i in 1...1000 { h.record(Self.timing(UInt64(i), endToEnd: Int64(i) * 1000)) }
        let e2e = h.summary(of: .endToEnd)
        #expect(e2e.count == 1000 && e2e.recorded == 1000)
        let p = try #require(e2e.percentiles)
        #expect(abs(p.p50 - 500) <= 1 && abs(p.p90 - 900) <= 1 && abs(p.p99 - 990) <= 1 && abs(p.p999 - 999) <= 1)
        #expect(abs(p.max - 1000) <= 1)
        #expect(p.ordered == p.ordered.sorted())
        #expect(e2e.uncorrected == p, "nothing lost, nothing added")
        #expect(h.summary(of: .kernels).percentiles?.p50 == 20)
        #expect(h.summary(of: .decode).count == 0 && h.summary(of: .decode).percentiles == nil)
        #expect(abs(try #require(h.achievedFramesPerSecond) - 30) < 0.01)
    }

    /// Frames due every 33.3 ms but each taken 10 ms later than the one before (a replay
    /// falling behind): the rate is the one kept, 1 / 43.3 ms, not the one they were due at.
    @Test func theRateIsWhenFramesWereTakenNotWhenTheyWereDue() throws {
        var h = StageHistograms()
        for i in 0..<100 {
            var t = Self.timing(UInt64(i), endToEnd: 1_000_000)
            t.set(.dequeue, nanoseconds: Int64(i) * 10_000_000)
            h.record(t)
        }
        #expect(abs(try #require(h.achievedFramesPerSecond) - 1e9 / Double(Self.interval + 10_000_000)) < 0.01)
    }

    /// Nine frames lost before one that took 2 ms end to end: they were due 1…9
    /// intervals earlier and never came, so they count as at least that late.
    @Test func framesLostBeforeAFrameAreBackfilledAtTheFrameInterval() throws {
        var h = StageHistograms()
        for i in 0..<90 { h.record(Self.timing(UInt64(i), endToEnd: 2_000_000)) }
        h.record(Self.timing(100, endToEnd: 2_000_000, dropped: 6, overflow: 3, corrupt: 4))
        #expect(h.framesBackfilled == 9, "dropped and refused frames; corrupt ones arrived")
        let e2e = h.summary(of: .endToEnd)
        #expect(e2e.count == 91 && e2e.recorded == 100)
        let corrected = try #require(e2e.percentiles), measured = try #require(e2e.uncorrected)
        #expect(abs(measured.max - 2000) < 2, "measured: every frame took 2 ms")
        #expect(abs(corrected.max - (2000 + 9 * 33_333.333)) / corrected.max < 0.001, "the earliest lost frame")
        #expect(corrected.p99 > 200_000, "the lost frames are in the tail: \(corrected.p99) µs")
        let kernels = h.summary(of: .kernels)
        #expect(kernels.recorded == 91 && kernels.uncorrected == nil, "service times are not corrected")
    }

    @Test func summariesEncodeTheDocumentedKeys() throws {
        var h = StageHistograms()
        for i in 0..<10 { h.record(Self.timing(UInt64(i), endToEnd: 1_000_000 + Int64(i))) }
        let data = try JSONEncoder().encode(h.summary(of: .endToEnd))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(Set(object.keys) == ["count", "recorded", "p50_us", "p90_us", "p99_us", "p99_9_us", "max_us",
                                     "uncorrected"])
        let empty = try JSONSerialization.jsonObject(with: try JSONEncoder().encode(h.summary(of: .decode)))
        #expect(Set((empty as? [String: Any] ?? [:]).keys) == ["count", "recorded"])
        let back = try JSONDecoder().decode(StageSummary.self, from: data)
        #expect(back == h.summary(of: .endToEnd))
    }
}
