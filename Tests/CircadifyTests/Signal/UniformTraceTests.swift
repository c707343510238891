@testable import Circadify
import Foundation
import Testing

/// Frames with bad timestamps or values, as a driver's glitch or a corrupt sample gives
/// them: the trace stays the size of what was filmed, and the pulse is still read.
struct UniformTraceTests {
    private let clean = SyntheticTrace().frames()

    private func readsItsPulse(_ frames: [SignalFrame], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let estimate = try VitalsAnalyzer().analyze(frames)
        let heartRate = try #require(estimate.heartRate, sourceLocation: sourceLocation)
        #expect(abs(heartRate - 72) < 1.5, sourceLocation: sourceLocation)
        #expect(estimate.confidence.isFinite, sourceLocation: sourceLocation)
    }

    @Test func aSingleTimestampFarAheadIsLeftOut() throws {
        var frames = clean
        // 1000 s: before the fix this made a 30,000-sample grid (10^6 s ran for over 25 minutes).
        frames[200].time += 1000
        let trace = UniformTrace(frames: frames, rate: 30)
        let reference = UniformTrace(frames: clean, rate: 30)
        #expect(trace.count == reference.count)
        #expect(trace.frameCount == clean.count - 1)
        #expect(!trace.unreliable.contains(true))
        try readsItsPulse(frames)
        // The same glitch on the first frame, and on the last.
        frames = clean
        frames[0].time = 4e9
        #expect(UniformTrace(frames: frames, rate: 30).frameCount == clean.count - 1)
        try readsItsPulse(frames)
        frames = clean
        frames[frames.count - 1].time += 1000
        let lastAhead = UniformTrace(frames: frames, rate: 30)
        #expect(lastAhead.frameCount == clean.count - 1)
        #expect(lastAhead.count == reference.count - 1)
        #expect(!lastAhead.unreliable.contains(true))
    }

    @Test func aClockThatStepsForwardMakesAGapNotAGridOfTheJump() throws {
        var frames = clean
        for i in 450..<frames.count { frames[i].time += 3600 }
        let trace = UniformTrace(frames: frames, rate: 30)
        let reference = UniformTrace(frames: clean, rate: 30)
        // Shortened to the longest gap: 5 s more than the frames filmed, not an hour.
        #expect(trace.count <= reference.count + Int(UniformTrace.longestGap * 30) + 1)
        #expect(trace.count > reference.count + Int(UniformTrace.longestGap * 30) - 30)
        let gap = trace.unreliable.filter { $0 }.count
        #expect(gap >= Int((UniformTrace.longestGap - 0.1) * 30) && gap <= Int(UniformTrace.longestGap * 30) + 1)
        try readsItsPulse(frames)
    }

    @Test func aBogusFirstTimestampIsLeftOut() throws {
        var frames = clean
        frames[0].time = 0 // the others start at 100 s: a driver's zero on its first buffer
        let trace = UniformTrace(frames: frames, rate: 30)
        #expect(trace.frameCount == clean.count - 1)
        #expect(trace.count == UniformTrace(frames: clean, rate: 30).count - 1)
        #expect(!trace.unreliable.contains(true))
        try readsItsPulse(frames)
    }

    @Test func valuesThatAreNotFiniteAreMissingNotNaN() throws {
        var frames = clean
        frames[0].time = .nan
        frames[150].regions[0].green = .nan
        frames[151].regions[1].red = .infinity
        frames[152].regions[2].skinFraction = .nan
        frames[300].meanLuma = .nan
        frames[400].faceCenterY = .infinity
        let trace = UniformTrace(frames: frames, rate: 30)
        #expect(trace.frameCount == clean.count - 1)
        #expect(trace.colors.allSatisfy { $0.allSatisfy { $0.x.isFinite && $0.y.isFinite && $0.z.isFinite } })
        #expect(trace.skin.allSatisfy { $0.allSatisfy { $0.isFinite } })
        #expect(trace.luma.allSatisfy { $0.isFinite })
        let faceY = try #require(trace.faceCenterY)
        #expect(faceY.allSatisfy { $0.isFinite })
        try readsItsPulse(frames)
    }

    @Test func framesOutOfOrderAreStillSkipped() {
        var frames = clean
        frames[10].time = frames[5].time // repeated, behind: skipped
        let trace = UniformTrace(frames: frames, rate: 30)
        #expect(trace.frameCount == clean.count - 1)
        #expect(trace.count == UniformTrace(frames: clean, rate: 30).count)
    }

    @Test func ofTwoFramesAtOneTimeTheFirstIsKept() {
        var frames = clean
        frames[21].time = frames[20].time
        frames[21].regions[0].green = 10 // far from the skin's 130: it would show if kept
        let trace = UniformTrace(frames: frames, rate: 30)
        #expect(trace.frameCount == clean.count - 1)
        #expect(trace.colors[0].allSatisfy { $0.y > 100 })
    }
}
