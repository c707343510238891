@testable import Circadify
import Testing

/// Warnings neither flicker nor repeat: a condition must hold ~1 s to be raised
/// and be gone ~1.5 s to clear, and is delivered once per episode.
@Suite struct QualityDebounceTests {
    static let second: Int64 = 1_000_000_000

    @Test func briefBlipRaisesNothing() {
        var h = Hysteresis(raiseAfterNanoseconds: Self.second, clearAfterNanoseconds: 3 * Self.second / 2)
        var raised = 0
        for step in 0..<50 { // 5 Hz for 10 s, the condition true from 2.0 to 2.3 s
            let t = Int64(step) * Self.second / 5
            if h.update(t >= 2 * Self.second && t < 23 * Self.second / 10, at: t) { raised += 1 }
        }
        #expect(raised == 0 && !h.isActive)
    }

    @Test func sustainedConditionRaisesOnceAndClearsLate() {
        var h = Hysteresis(raiseAfterNanoseconds: Self.second, clearAfterNanoseconds: 3 * Self.second / 2)
        var raisedAt: [Int64] = [], clearedAt: Int64?
        for step in 0..<60 { // true from 1 s to 6 s, with one false reading at 4 s
            let t = Int64(step) * Self.second / 5
            let condition = t >= Self.second && t < 6 * Self.second && t != 4 * Self.second
            let wasActive = h.isActive
            if h.update(condition, at: t) { raisedAt.append(t) }
            if wasActive, !h.isActive { clearedAt = t }
        }
        #expect(raisedAt == [2 * Self.second], "raised once, after holding 1 s")
        // Gone from 6.0 s: cleared at the first reading 1.5 s later (7.6 s at 5 Hz), not at the 4 s gap.
        #expect(clearedAt == 38 * Self.second / 5)
    }
}

extension QualityOnClips {
    @Suite struct DebounceTests {
        /// The same through the whole path: the still clip with its face hidden from
        /// the "detector" for 0.3 s raises nothing; hidden for good, it raises
        /// faceNotDetected once and the status says noFace.
        @Test func faceLostBrieflyOrForGood() async throws {
            let blip = try await QualityReplay.run("still") { t, boxes in t >= 2.0 && t < 2.3 ? [] : boxes }
            #expect(blip.raised.isEmpty, "raised \(blip.raised)")
            #expect(blip.statuses.allSatisfy { $0.code == .ok })

            let lost = try await QualityReplay.run("still") { t, boxes in t >= 1.5 ? [] : boxes }
            #expect(lost.raised.map(\.kind) == [.faceNotDetected], "raised \(lost.raised)")
            let at = try #require(lost.raised.first?.time)
            #expect(at >= 2.5 && at <= 2.8, "raised \(at) s: ~1 s after the face went")
            #expect(lost.final?.status.code == .noFace)
            #expect(lost.final?.active.map(\.kind) == [.faceNotDetected])
        }
    }
}
