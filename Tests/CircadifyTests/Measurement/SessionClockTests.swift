@testable import Circadify
import Testing

/// A session's time follows its frames, but a lone frame leaping far ahead or behind is a
/// glitch, believed only once the frame after it goes on from it.
struct SessionClockTests {
    private func clocked(_ times: [Double], frameInterval: Double = 1.0 / 30) -> [Double] {
        var clock = SessionClock(frameInterval: frameInterval)
        return times.map { clock.advance(to: $0) }
    }

    @Test func framesInStepAreFollowed() {
        let times = (0..<90).map { 100 + Double($0) / 30 }
        #expect(clocked(times) == times)
        #expect(clocked([5, 5.9, 6.1]) == [5, 5.9, 6.1], "steps ahead under a second are followed")
    }

    @Test func aLoneFrameFarAheadOrBehindLeavesTheTimeWhereItWas() {
        for glitch in [86_400.0, 1e12, -1000, 0] {
            var times = (0..<90).map { 100 + Double($0) / 30 }
            times[45] = glitch
            var expected = times
            expected[45] = times[44]
            #expect(clocked(times) == expected, "a frame at \(glitch)")
        }
    }

    @Test func aRealStallOrClockStepIsFollowedOneFrameLate() {
        let before = (0..<30).map { 100 + Double($0) / 30 }
        for step in [3.0, 3600, -50] {
            let after = (0..<30).map { before[29] + step + Double($0) / 30 }
            var expected = before + after
            expected[30] = before[29]
            #expect(clocked(before + after) == expected, "a step of \(step) s")
        }
    }

    @Test func twoGlitchesInARowAreTwoLeapsNotOneStall() {
        // Each glitch lands far from the other, so neither confirms the other.
        var times = (0..<30).map { Double($0) / 30 }
        times[10] = 5000
        times[11] = -5000
        var expected = times
        expected[10] = times[9]
        expected[11] = times[9]
        #expect(clocked(times) == expected)
    }

    @Test func framesOverASecondApartKeepTheClockGoing() {
        // Each leap is confirmed by the frame after it, which is held in turn: every
        // other frame of such a stream is lost, but its time goes on.
        let times = (0..<10).map { 1.5 * Double($0) }
        #expect(clocked(times) == [0, 0, 3, 3, 6, 6, 9, 9, 12, 12])
        // A stream that says it runs that slowly is followed frame by frame.
        #expect(clocked(times, frameInterval: 1.5) == times)
        #expect(clocked([0, 7, 7.5], frameInterval: 1.5) == [0, 0, 7.5], "four of its intervals are still a leap")
    }

    @Test func aSmallStepBackIsFollowedALargerOneHeld() {
        #expect(clocked([10, 10.1, 9.9, 10]) == [10, 10.1, 9.9, 10], "0.2 s back: followed")
        #expect(clocked([10, 10.1, 9.7, 10.2]) == [10, 10.1, 10.1, 10.2], "0.4 s back, then on: a glitch")
    }

    @Test func theClockGetsPastABogusFirstTime() {
        let times = [0] + (1..<30).map { 100 + Double($0) / 30 }
        let clock = clocked(times)
        #expect(clock[1] == 0, "the first leap is held")
        #expect(Array(clock[2...]) == Array(times[2...]), "then the frames are followed")
    }
}
