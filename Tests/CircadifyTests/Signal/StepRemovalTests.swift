@testable import Circadify
import CCoreTestSupport
import Foundation
import Testing

/// Camera steps (gain, exposure, white balance) taken out of the traces, not read as pulse.
@Suite struct StepRemovalTests {
    /// A camera that re-decides its gain four times and its white balance twice in a scan.
    static func steppedFrames(_ frames: [SignalFrame], gains: [(at: Int, by: SIMD3<Double>)]) -> [SignalFrame] {
        var out = frames
        for i in out.indices {
            var g = SIMD3<Double>(repeating: 1)
            for step in gains where i >= step.at { g *= step.by }
            out[i].regions = out[i].regions.map {
                RegionColor(red: $0.red * g.x, green: $0.green * g.y, blue: $0.blue * g.z, skinFraction: $0.skinFraction)
            }
        }
        return out
    }

    @Test func gainAndWhiteBalanceStepsAreAnsweredNotRefused() throws {
        var synthetic = SyntheticTrace()
        synthetic.heartRate = { _ in 76 }
        let frames = Self.steppedFrames(synthetic.frames(), gains: [
            (150, SIMD3(repeating: 1.2)), (330, SIMD3(repeating: 0.85)), (500, SIMD3(1.03, 1, 0.97)),
            (610, SIMD3(repeating: 1.15)), (720, SIMD3(0.97, 1, 1.03)), (800, SIMD3(repeating: 0.9)),
        ])
        let estimate = try VitalsAnalyzer().analyze(frames)
        #expect(abs((estimate.heartRate ?? 0) - 76) <= 0.5, "read \(estimate.heartRate ?? -1)")
        #expect(estimate.quality.stepsPerMinute >= 10, "\(estimate.quality.stepsPerMinute) steps a minute")
        #expect(estimate.confidence >= ConfidenceModel.reliable, "confidence \(estimate.confidence)")
    }

    @Test func aWhiteBalanceStepIsFoundThoughTheChannelsSumToNothing() {
        // Red up 2%, blue down 2%: the old sum-of-channels detector saw no step.
        let flat = (0..<300).map { _ in SIMD3<Double>(180, 130, 105) }
        let stepped = flat.enumerated().map { $0.offset >= 150 ? $0.element * SIMD3(1.02, 1, 0.98) : $0.element }
        let result = StepRemoval.apply(stepped)
        #expect(result.steps == [150])
        #expect(abs(result.trace[299].x - 180) < 0.01 && abs(result.trace[299].z - 105) < 0.01)
    }

    @Test func aStepSpreadOverTwoSamplesGoesWhole() {
        // A 15 fps camera resampled to 30 Hz: the jump is interpolated over two samples.
        let trace = (0..<300).map { i -> SIMD3<Double> in
            let g = i < 150 ? 1.0 : i == 150 ? 1.075 : 1.15
            return SIMD3(180, 130, 105) * g * (1 + 0.0005 * sin(Double(i)))
        }
        let result = StepRemoval.apply(trace)
        #expect(result.steps == [150, 151])
        #expect(abs(result.trace[299].y / result.trace[0].y - 1) < 0.002)
    }

    @Test func aPulseAloneHasNoSteps() throws {
        let frames = SyntheticTrace().frames()
        let trace = UniformTrace(frames: frames, rate: 30)
        #expect(StepRemoval.apply(trace.colors).steps.isEmpty)
    }

    @Test func regionMovesAreRemovedInEveryRegionThoughTheyCancelAcrossThem() {
        // The regions moved at sample 150: one region 1.5% brighter, the other 1.5% darker, so
        // the regions' mean change shows nothing; only the known move finds them.
        let base = (0..<300).map { i in SIMD3<Double>(180, 130, 105) * (1 + 0.001 * sin(Double(i) / 3)) }
        let up = base.enumerated().map { $0.offset >= 150 ? $0.element * 1.015 : $0.element }
        let down = base.enumerated().map { $0.offset >= 150 ? $0.element * 0.985 : $0.element }
        #expect(StepRemoval.apply([up, down]).traces[0][299] == up[299], "no step is found without the move")
        var known = [Bool](repeating: false, count: 300)
        known[150] = true
        let result = StepRemoval.apply([up, down], known: known)
        #expect(result.steps.isEmpty, "a known move is no camera step")
        for trace in result.traces {
            // Back on the unmoved trace, within the one sample's pulse change the removal drops.
            #expect(abs(trace[299].y / base[299].y - 1) < 0.0005, "\(trace[299].y) against \(base[299].y)")
        }
    }

    @Test func aMoveIsMarkedOnTheSamplesItSpans() {
        // 15 fps frames resampled to 30 Hz: the move between two frames spans two samples.
        var frames = SyntheticTrace().frames().enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
        for i in frames.indices where i >= 100 { frames[i].placement = 2 }
        let trace = UniformTrace(frames: frames, rate: 30)
        let marked = trace.placementChanged.indices.filter { trace.placementChanged[$0] }
        let move = (frames[100].time - trace.start) * 30
        #expect(marked.count == 2 && marked.allSatisfy { abs(Double($0) - move) < 2 }, "\(marked) around \(move)")
    }

    @Test func movedRegionsDoNotReadAsPulse() throws {
        // Regions republished twice a second, each time over skin 0.5-1.5% lighter or darker,
        // region by region: ticks at 2 Hz (120 bpm) and its harmonics, against a 64 bpm pulse.
        var synthetic = SyntheticTrace()
        synthetic.heartRate = { _ in 64 }
        synthetic.amplitude = 0.0015
        var frames = synthetic.frames()
        var rng = SeededRandom(seed: 7)
        var offsets = [SIMD3<Double>](repeating: SIMD3(repeating: 1), count: 3)
        for i in frames.indices {
            if i % 15 == 0 {
                offsets = offsets.map { _ in SIMD3(repeating: 1 + Double.random(in: -0.015...0.015, using: &rng)) }
            }
            frames[i].placement = UInt32(i / 15)
            frames[i].regions = frames[i].regions.enumerated().map { r, c in
                RegionColor(red: c.red * offsets[r].x, green: c.green * offsets[r].y, blue: c.blue * offsets[r].z,
                            skinFraction: c.skinFraction)
            }
        }
        let estimate = try VitalsAnalyzer().analyze(frames)
        #expect(abs((estimate.heartRate ?? 0) - 64) <= 1, "read \(estimate.heartRate ?? -1)")
        #expect(estimate.quality.stepsPerMinute == 0, "moves are not camera steps")
    }
}
