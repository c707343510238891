import Foundation
import Testing
@testable import Circadify

/// From a measurement's frames to the SDK's result, or to the error that says why there is none.
@Suite struct ScanOutcomeTests {
    @Test func aClearPulseBecomesTheSeedsResult() throws {
        let frames = SyntheticTrace(heartRate: { _ in 66 }).frames()
        let when = Date(timeIntervalSince1970: 1_800_000_000)
        let result = try ScanOutcome.result(frames: frames, analyzer: VitalsAnalyzer(), now: when)
        #expect(result.heartRate == 66)
        #expect(result.confidence >= 0.7)
        #expect(result.respiratoryRate == 15)
        #expect(result.spo2 == nil && result.systolicBp == nil && result.diastolicBp == nil)
        #expect(result.timestamp == when)
        #expect(UUID(uuidString: result.sessionId) != nil)
    }

    @Test func noPulseIsQualityTooLowNotANumber() {
        let frames = SyntheticTrace(noise: 0.3, pulsePresent: false).frames()
        #expect(throws: CircadifyError.qualityTooLow) {
            try ScanOutcome.result(frames: frames, analyzer: VitalsAnalyzer())
        }
    }

    @Test func tooLittleFaceIsFaceNotDetected() {
        let short = Array(SyntheticTrace().frames().prefix(120))  // 4 s
        #expect(throws: CircadifyError.faceNotDetected) {
            try ScanOutcome.result(frames: short, analyzer: VitalsAnalyzer())
        }
        #expect(throws: CircadifyError.faceNotDetected) {
            try ScanOutcome.result(frames: [], analyzer: VitalsAnalyzer())
        }
    }

    @Test func faceTimeLeavesOutTheGaps() {
        let frames = SyntheticTrace(duration: 10).frames()
        #expect(abs(ScanOutcome.faceSeconds(frames) - 10) < 0.1)  // 300 frames span 299 intervals
        // Three seconds without a face in the middle do not count.
        let gapped = frames.filter { $0.time < 103 || $0.time >= 106 }
        #expect(abs(ScanOutcome.faceSeconds(gapped) - 7) < 0.1)
    }
}
