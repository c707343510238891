import Foundation

/// Turns a finished measurement's frames into the SDK's result, or into the
/// error that says why there is none. Nothing is filled in that was not
/// measured: no face → faceNotDetected, no usable pulse → qualityTooLow.
package enum ScanOutcome {
    /// Seconds of tracked face a result needs (the analyzer's minimum).
    package static let minimumFaceSeconds = VitalsAnalyzer.Configuration().minimumDuration

    package static func result(frames: [SignalFrame], analyzer: VitalsAnalyzer,
                               now: Date = Date()) throws(CircadifyError) -> VitalSignsResult {
        // A millisecond's slack: 150 frame intervals of 1/30 s add up to a hair under 5.
        guard faceSeconds(frames) >= minimumFaceSeconds - 0.001 else { throw .faceNotDetected }
        let estimate: VitalsEstimate
        do {
            estimate = try analyzer.analyze(frames)
        } catch .noRegions {
            throw .faceNotDetected
        } catch {
            throw .qualityTooLow
        }
        guard let heartRate = estimate.heartRate, estimate.confidence >= ConfidenceModel.retry else {
            throw .qualityTooLow
        }
        return VitalSignsResult(
            heartRate: Int(heartRate.rounded()), hrv: estimate.sdnn,
            respiratoryRate: estimate.respiratoryRate.map { Int($0.rounded()) },
            spo2: nil, systolicBp: nil, diastolicBp: nil,
            confidence: estimate.confidence, sessionId: UUID().uuidString.lowercased(), timestamp: now)
    }

    /// Time covered by frames measured at a face, each frame covering one frame
    /// interval (the span to the next; the last one the typical step): gaps
    /// longer than half a second (face lost, frames missing) do not count.
    package static func faceSeconds(_ frames: [SignalFrame]) -> Double {
        let steps = zip(frames, frames.dropFirst()).map { $1.time - $0.time }.filter { $0 > 0 && $0 <= 0.5 }
        guard !steps.isEmpty else { return 0 }
        return steps.reduce(0, +) + SignalMath.median(steps)
    }
}
