import Foundation

/// Turns a finished measurement's frames into the SDK's result, or into the
/// error that says why there is none. Nothing is filled in that was not
/// measured: no face → faceNotDetected, no usable pulse → qualityTooLow.
package enum ScanOutcome {
    /// Seconds of tracked face a result needs (the analyzer's minimum).
    package static let minimumFaceSeconds = VitalsAnalyzer.Configuration().minimumDuration

    package static func result(frames: [SignalFrame], analyzer: VitalsAnalyzer,
                               now: Date = Date()) throws(CircadifyError) -> VitalSignsResult {
        guard faceSeconds(frames) >= minimumFaceSeconds else { throw .faceNotDetected }
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

    /// Time covered by frames measured at a face: gaps longer than half a
    /// second (face lost, frames missing) do not count.
    package static func faceSeconds(_ frames: [SignalFrame]) -> Double {
        zip(frames, frames.dropFirst()).reduce(0) { total, pair in
            let step = pair.1.time - pair.0.time
            return step > 0 && step <= 0.5 ? total + step : total
        }
    }
}
