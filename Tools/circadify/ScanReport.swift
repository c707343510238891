import Circadify
import Foundation

/// The human-readable result of a scan. Unmeasured values say so; nothing is filled in.
enum ScanReport {
    static func text(_ result: VitalSignsResult) -> String {
        let rows: [(String, String)] = [
            ("Heart rate", "\(result.heartRate) bpm"),
            ("HRV", result.hrv.map { String(format: "%.1f ms", $0) } ?? notMeasured),
            ("Respiratory rate", result.respiratoryRate.map { "\($0) breaths/min" } ?? notMeasured),
            ("Confidence", String(format: "%.2f", result.confidence) + " (\(band(result.confidence)))"),
            ("SpO2", result.spo2.map { String(format: "%.1f %%", $0) } ?? notMeasured),
            ("Blood pressure", bloodPressure(result)),
            ("Session", "\(result.sessionId) at \(ISO8601DateFormatter().string(from: result.timestamp))"),
        ]
        return rows.map { label, value in
            label.padding(toLength: 18, withPad: " ", startingAt: 0) + value
        }.joined(separator: "\n") + "\n"
    }

    /// The seed's confidence bands, as the table words them.
    static func band(_ confidence: Double) -> String {
        switch ConfidenceBand(confidence) {
        case .reliable: "reliable"
        case .rescan: "fair: re-scan recommended"
        case .retry: "poor: retry under better conditions"
        }
    }

    private static let notMeasured = "not measured"

    private static func bloodPressure(_ result: VitalSignsResult) -> String {
        guard let systolic = result.systolicBp, let diastolic = result.diastolicBp else { return notMeasured }
        return "\(systolic)/\(diastolic) mmHg"
    }
}
