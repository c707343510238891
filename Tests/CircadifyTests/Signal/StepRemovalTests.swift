@testable import Circadify
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
}
