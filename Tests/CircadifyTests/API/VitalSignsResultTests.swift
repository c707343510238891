import Circadify
import Foundation
import Testing

/// The JSON contract of VitalSignsResult: every seed key, JSON types, ISO 8601 time, nulls.
@Suite struct VitalSignsResultTests {
    static let keys: Set<String> = [
        "heartRate", "hrv", "respiratoryRate", "spo2", "systolicBp", "diastolicBp",
        "confidence", "sessionId", "timestamp",
    ]
    // 2026-11-23T10:44:42Z
    static let time = Date(timeIntervalSince1970: 1_795_430_682)

    static func object(_ result: VitalSignsResult) throws -> [String: Any] {
        let json = try JSONSerialization.jsonObject(with: try result.jsonData())
        return try #require(json as? [String: Any])
    }

    @Test func measuredResultHasEveryKeyWithItsType() throws {
        let result = VitalSignsResult(heartRate: 72, hrv: 41.5, respiratoryRate: 15, spo2: nil, systolicBp: nil,
                                      diastolicBp: nil, confidence: 0.83, sessionId: "s-1", timestamp: Self.time)
        let object = try Self.object(result)
        #expect(Set(object.keys) == Self.keys)
        #expect(object["heartRate"] as? Int == 72)
        #expect(object["hrv"] as? Double == 41.5)
        #expect(object["respiratoryRate"] as? Int == 15)
        #expect(object["confidence"] as? Double == 0.83)
        #expect(object["sessionId"] as? String == "s-1")
        #expect(object["timestamp"] as? String == "2026-11-23T10:44:42Z")
    }

    @Test func unmeasuredValuesAreNullNotMissing() throws {
        let result = VitalSignsResult(heartRate: 64, hrv: nil, respiratoryRate: nil, spo2: nil, systolicBp: nil,
                                      diastolicBp: nil, confidence: 0.5, sessionId: "s-2", timestamp: Self.time)
        let object = try Self.object(result)
        #expect(Set(object.keys) == Self.keys)
        for key in ["hrv", "respiratoryRate", "spo2", "systolicBp", "diastolicBp"] {
            #expect(object[key] is NSNull, "\(key) is \(String(describing: object[key]))")
        }
    }

    @Test func timestampIsISO8601InUTC() throws {
        let result = VitalSignsResult(heartRate: 60, hrv: nil, respiratoryRate: nil, spo2: nil, systolicBp: nil,
                                      diastolicBp: nil, confidence: 0.9, sessionId: "s", timestamp: Self.time)
        let text = try #require(try Self.object(result)["timestamp"] as? String)
        #expect(ISO8601DateFormatter().date(from: text) == Self.time)
    }

    @Test func jsonReadsBackEqual() throws {
        let result = VitalSignsResult(heartRate: 88, hrv: 12.25, respiratoryRate: nil, spo2: nil, systolicBp: nil,
                                      diastolicBp: nil, confidence: 0.71, sessionId: "abc", timestamp: Self.time)
        #expect(try VitalSignsResult.fromJSON(try result.jsonData()) == result)
    }

    @Test func nonFiniteConfidenceIsAnErrorNotBadJSON() {
        let result = VitalSignsResult(heartRate: 60, hrv: nil, respiratoryRate: nil, spo2: nil, systolicBp: nil,
                                      diastolicBp: nil, confidence: .nan, sessionId: "s", timestamp: Self.time)
        #expect(throws: EncodingError.self) { try result.jsonData() }
    }
}
