import Foundation

/// The outcome of one measurement, with the Circadify SDK's fields and meaning.
///
/// Nothing here is ever estimated or filled in: a value the measurement could not
/// support is `nil`. `spo2`, `systolicBp` and `diastolicBp` are always `nil` in this
/// SDK: blood oxygen needs light at two wavelengths (red and infrared) and blood
/// pressure a calibrated pulse-transit model, neither of which an RGB camera provides.
/// They stay in the type so code written against the Circadify API compiles unchanged.
public struct VitalSignsResult: Codable, Equatable, Sendable {
    /// Beats per minute.
    public let heartRate: Int
    /// Heart-rate variability, milliseconds; nil when the beats were not clean enough.
    public let hrv: Double?
    /// Breaths per minute; nil when no breathing reading was clear.
    public let respiratoryRate: Int?
    /// Blood oxygen saturation, percent. Always nil here: a camera cannot measure it.
    public let spo2: Double?
    /// Systolic blood pressure, mmHg. Always nil here: a camera cannot measure it.
    public let systolicBp: Int?
    /// Diastolic blood pressure, mmHg. Always nil here: a camera cannot measure it.
    public let diastolicBp: Int?
    /// 0...1: at least 0.7 is reliable, below 0.4 means retry under better conditions.
    public let confidence: Double
    public let sessionId: String
    public let timestamp: Date

    public init(heartRate: Int, hrv: Double?, respiratoryRate: Int?, spo2: Double?,
                systolicBp: Int?, diastolicBp: Int?, confidence: Double,
                sessionId: String, timestamp: Date) {
        self.heartRate = heartRate
        self.hrv = hrv
        self.respiratoryRate = respiratoryRate
        self.spo2 = spo2
        self.systolicBp = systolicBp
        self.diastolicBp = diastolicBp
        self.confidence = confidence
        self.sessionId = sessionId
        self.timestamp = timestamp
    }

    private enum CodingKeys: String, CodingKey {
        case heartRate, hrv, respiratoryRate, spo2, systolicBp, diastolicBp, confidence, sessionId, timestamp
    }

    /// Every key is written, unmeasured ones as `null`, so a reader can tell
    /// "not measured" from "field missing" (the synthesized encoder omits nil keys).
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(heartRate, forKey: .heartRate)
        try c.encode(hrv, forKey: .hrv)
        try c.encode(respiratoryRate, forKey: .respiratoryRate)
        try c.encode(spo2, forKey: .spo2)
        try c.encode(systolicBp, forKey: .systolicBp)
        try c.encode(diastolicBp, forKey: .diastolicBp)
        try c.encode(confidence, forKey: .confidence)
        try c.encode(sessionId, forKey: .sessionId)
        try c.encode(timestamp, forKey: .timestamp)
    }
}

extension VitalSignsResult {
    /// JSON as the command line prints it: every key, ISO 8601 timestamp, sorted keys.
    public func jsonData() throws -> Data {
        try Self.jsonEncoder.encode(self)
    }

    /// Reads what `jsonData()` wrote.
    public static func fromJSON(_ data: Data) throws -> VitalSignsResult {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(VitalSignsResult.self, from: data)
    }

    private static var jsonEncoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
