@testable import Circadify
import CCoreTestSupport
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

    @Test func aRealStallOrClockStepAheadIsFollowedOneFrameLate() {
        let before = (0..<30).map { 100 + Double($0) / 30 }
        for step in [3.0, 3600] {
            let after = (0..<30).map { before[29] + step + Double($0) / 30 }
            var expected = before + after
            expected[30] = before[29]
            #expect(clocked(before + after) == expected, "a step of \(step) s")
        }
    }

    @Test func aClockSteppedBackGoesOnFromWhereItWasLosingOneFrame() {
        let before = (0..<30).map { 100 + Double($0) / 30 }
        for step in [-0.2, -1, -50, -3600] {
            let after = (0..<30).map { before[29] + step + Double($0) / 30 }
            // The first frame after the step is held; the next confirms it, and
            // they go on as if the held one had come one interval after the last.
            let expected = before + [before[29]] + (1..<30).map { before[29] + Double($0 + 1) / 30 }
            let clock = clocked(before + after)
            #expect(zip(clock, expected).allSatisfy { abs($0 - $1) < 1e-9 }, "a step of \(step) s: \(clock.suffix(31))")
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

    @Test func aCameraSlowerThanItSaysIsCarriedOnAfterAStepBack() {
        // 10 frames a second from a camera that says 30 (auto-exposure in the dark).
        let before = (0..<30).map { 100 + Double($0) / 10 }
        let after = (0..<30).map { before[29] - 3600 + Double($0) / 10 }
        let clock = clocked(before + after)
        #expect(zip(clock, clock.dropFirst()).allSatisfy { $0 <= $1 }, "never back")
        #expect(zip(clock, clock.dropFirst()).filter { $0 == $1 }.count == 1, "one frame lost: \(clock.suffix(31))")
        #expect(clock.last ?? 0 > before[29] + 2.5, "and the time goes on")
    }

    @Test func framesBehindOutOfStepAreBelievedAtTheThird() {
        // After the step the frames come 0.3-0.5 s apart, out of any cadence seen before.
        let before = (0..<30).map { 100 + Double($0) / 30 }
        var after = [before[29] - 50]
        for gap in [0.3, 0.5, 0.4, 0.3, 0.5, 0.4] { after.append((after.last ?? 0) + gap) }
        let clock = clocked(before + after)
        #expect(zip(clock, clock.dropFirst()).allSatisfy { $0 <= $1 }, "never back")
        #expect(Array(clock[30...31]) == [before[29], before[29]], "two held: \(clock.suffix(8))")
        // The second one held goes one interval after the last time, the third 0.5 s after it.
        #expect(abs(clock[32] - (before[29] + 1.0 / 30 + 0.5)) < 1e-9, "then followed: \(clock.suffix(8))")
        #expect(zip(clock[32...], clock[33...]).allSatisfy { $0 < $1 }, "and on: \(clock.suffix(8))")
    }

    @Test func twoFramesBehindOutOfStepAreGlitchesNotAStep() {
        var times = (0..<60).map { 100 + Double($0) / 30 }
        times[20] = 50
        times[21] = 50.5
        var expected = times
        expected[20] = times[19]
        expected[21] = times[19]
        #expect(clocked(times) == expected)
    }

    @Test func aLoneFrameStampedALittleBehindIsLeftOut() {
        #expect(clocked([10, 10.1, 9.95, 10.2]) == [10, 10.1, 10.1, 10.2], "0.15 s back, then on: a glitch")
        #expect(clocked([10, 10.1, 10.099, 10.133]) == [10, 10.1, 10.1, 10.133], "1 ms back, then on: a glitch")
        #expect(clocked([10, 10.1, 10.1, 10.133]) == [10, 10.1, 10.1, 10.133], "the same time again is no step back")
    }

    @Test func theSessionTimeGoesBackOnlyOverOneLoneFrame() {
        // Steps back and forth, glitches and resets: whatever the camera says.
        var generator = SeededRandom(seed: 7)
        // Two frames in step first: a lone first frame may be taken back by any amount.
        var camera = 50 + 1.0 / 30, times = [50, camera]
        for _ in 0..<2000 {
            switch generator.next() % 20 {
            case 0: camera -= Double(generator.next() % 1000) / 100 // a reset back, up to 10 s
            case 1: times.append(Double(generator.next() % 100_000) - 50_000) // a lone glitch
            case 2: camera += Double(generator.next() % 500) / 100 // a stall, up to 5 s
            default: camera += 1.0 / 30
            }
            times.append(camera)
        }
        let clock = clocked(times)
        let pairs = zip(clock, clock.dropFirst())
        // Back by less than a second (over a lone frame stamped ahead), never further.
        #expect(pairs.allSatisfy { $1 > $0 - 1 })
        let backs = pairs.filter { $1 < $0 }.count
        #expect(backs < 100, "seldom: \(backs)")
        let last: Double = clock.last ?? 0
        #expect(last > 100, "and it goes on: \(last)")
    }

    @Test func aLoneFrameStampedALittleAheadIsLeftOut() {
        // Frame 30 half a second ahead; the frames after it go on from frame 29.
        var times = (0..<60).map { 100 + Double($0) / 30 }
        times[30] += 0.5
        let clock = clocked(times)
        #expect(clock[30] == times[30], "a step under a second is followed")
        #expect(clock[31] == times[30], "the frame after it, behind, is held")
        #expect(Array(clock[32...]) == Array(times[32...]), "then the time goes back over it: \(clock.suffix(30))")
    }

    @Test func twoFramesStampedBehindInStepLeaveNoShift() {
        // A driver stamps two buffers from another clock, 5000 s behind, one interval apart.
        let steady = (0..<60).map { 100 + Double($0) / 30 }
        var times = steady
        times[30] -= 5000
        times[31] -= 5000
        let clock = clocked(times)
        #expect(clock[30] == steady[29], "the first is held")
        // The second is taken as a step back, and the frame after it takes the step back.
        #expect(zip(clock[31...], steady[31...]).allSatisfy { abs($0 - $1) < 1e-9 }, "\(clock.suffix(30))")
    }

    @Test func aStallRightAfterAStepBackIsNotHeldTwice() {
        let before = (0..<30).map { 100 + Double($0) / 30 }
        // Back 51 s, two frames out of step, then a 1 s stall, then frames in step.
        let after = [50, 50.1] + (0..<10).map { 51.1 + Double($0) / 30 }
        let clock = clocked(before + after)
        let pairs = zip(clock, clock.dropFirst())
        #expect(pairs.filter { $0 == $1 }.count == 2, "two frames lost: \(clock.suffix(13))")
        #expect(pairs.allSatisfy { $0 <= $1 })
    }

    /// A first frame stamped 0 (before the camera's clock) or far ahead of it.
    @Test(arguments: [0, 1e6]) func theClockGetsPastABogusFirstTime(first: Double) {
        let times = [first] + (1..<30).map { 100 + Double($0) / 30 }
        var clock = SessionClock()
        let clocked = times.map { clock.advance(to: $0) }
        #expect(clocked[1] == first, "the leap is held")
        #expect(Array(clocked[2...]) == Array(times[2...]), "then the frames are followed")
        #expect(clock.origin == times[1], "the stream starts at the leap the frames confirmed")
    }

    @Test func aStepBackOfAFewFramesLosesOneFrameOrTwo() {
        let before = (0..<30).map { 100 + Double($0) / 30 }
        let oneFrame: Double = 1.0 / 30
        for intervals in [1.0, 1.5, 2, 2.5, 3, 10] {
            let after = (0..<30).map { before[29] + (1 - intervals + Double($0)) / 30 }
            let clock = clocked(before + after)
            let pairs = zip(clock, clock.dropFirst())
            // Under three intervals back, the frames after the step come after the one
            // before the last: the time goes back over that last frame, as over a glitch.
            let lost = pairs.filter { $0 >= $1 }.count
            let allowed = intervals < 3 ? 2 : 1
            #expect(lost >= 1 && lost <= allowed, "\(intervals) intervals back: \(lost) lost, \(clock.suffix(32))")
            #expect(pairs.allSatisfy { $1 > $0 - oneFrame }, "\(intervals) intervals back: at most over one frame")
        }
    }

    @Test func aStallAfterTheFirstFramesKeepsTheirOrigin() {
        let times = [5, 5 + 1.0 / 30] + (0..<10).map { 9 + Double($0) / 30 }
        var clock = SessionClock()
        _ = times.map { clock.advance(to: $0) }
        #expect(clock.origin == 5)
    }
}
