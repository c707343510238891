import Circadify
import Foundation

/// What the page shows, as the `state` event's JSON: the live readings and hint, and the
/// scan button's scan (running, its result with its confidence band, or its error).
struct PreviewState: Encodable, Equatable {
    /// The SDK's processing status (idle, starting, running, stopping, error).
    var status: String
    /// What most stands in the way of a measurement now, and its code.
    var hint: String?
    var hintCode: String?
    /// The live heart rate, bpm, and its confidence; nil until there is a confident one.
    var heartRate: Double?
    var heartRateConfidence: Double?
    /// The live breathing rate, breaths a minute; nil until one is clear.
    var breathingRate: Double?
    /// The last seconds of the pulse wave, newest last, -1...1.
    var pulseWave: [Float]
    /// Where the video comes from, e.g. "/dev/video0" or "clip.y4m (looped)".
    var source: String
    /// Why the camera is not running, while it is not.
    var cameraError: String?
    var scan: Scan

    struct Scan: Encodable, Equatable {
        /// idle, scanning, done or failed.
        var state: String
        var phase: String?
        var fraction: Double?
        var hints: [String] = []
        var result: Result?
        var error: Failure?
    }

    struct Result: Encodable, Equatable {
        var heartRate: Int
        var hrv: Double?
        var respiratoryRate: Int?
        var confidence: Double
        /// reliable, rescan or retry; `bandText` is the sentence for it.
        var band: String
        var bandText: String
        var sessionId: String

        init(_ result: VitalSignsResult) {
            heartRate = result.heartRate
            hrv = result.hrv.map { ($0 * 10).rounded() / 10 }
            respiratoryRate = result.respiratoryRate
            confidence = (result.confidence * 100).rounded() / 100
            let band = ConfidenceBand(result.confidence)
            self.band = band.rawValue
            bandText = band.text
            sessionId = result.sessionId
        }
    }

    struct Failure: Encodable, Equatable {
        var error: String
        var message: String
        var retryable: Bool

        init(_ error: CircadifyError) {
            self.error = error.caseName
            message = error.errorDescription ?? error.caseName
            retryable = error.isRetryable
        }
    }

    /// The state's JSON on one line.
    var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(self) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}

/// How the page words a result's confidence band.
extension ConfidenceBand {
    var text: String {
        switch self {
        case .reliable: "Reliable measurement"
        case .rescan: "Fair: a re-scan is recommended"
        case .retry: "Poor: retry under better conditions"
        }
    }
}
