import Circadify
import CircadifyMonitor
import Foundation
import Testing

/// The JSON Lines vocabulary: every line one object with `type` and `time` first.
struct MonitorEventTests {
    static let time = Date(timeIntervalSince1970: 1_764_000_000.25)

    static func object(_ event: MonitorEvent) throws -> [String: Any] {
        let line = event.jsonLine(at: time)
        #expect(!line.contains("\n"), "one line per event")
        let data = try #require(line.data(using: .utf8))
        return try #require(try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) as? [String: Any])
    }

    @Test func everyLineStartsWithItsTypeAndTime() throws {
        let events: [MonitorEvent] = [
            .serviceStarted(source: "/dev/video0"), .serviceStopped(reason: "shutdown"),
            .cameraOpened(source: "/dev/video0"),
            .cameraReopened(source: "/dev/video0", attempts: 3, downtime: .milliseconds(2500)),
            .cameraLost(source: "/dev/video0", error: .captureFailed("unplugged"), retryIn: .milliseconds(500)),
            .inputRestarted(loops: 2), .estimate(Estimate()), .validation(ValidationStatus(.noFace)),
            .warning(QualityWarning(.tooDark)), .error(.cameraNotAvailable, attempt: 1, retryIn: .seconds(1)),
        ]
        for event in events {
            let line = event.jsonLine(at: Self.time)
            #expect(line.hasPrefix("{\"type\":\"\(event.type)\",\"time\":\"2025-11-24T16:00:00.250Z\""), "\(line)")
            _ = try Self.object(event)
        }
        #expect(Set(events.map(\.type)) == ["service", "camera", "input", "estimate", "validation", "warning", "error"])
    }

    @Test func anEstimateCarriesPulseAndBreathingWithConfidence() throws {
        let estimate = Estimate(mediaTime: 12.5, pulse: .init(value: 72.25, confidence: 0.91),
                                breathing: .init(value: 14, confidence: 0.6), hrv: 41.5)
        let object = try Self.object(.estimate(estimate))
        #expect(object["mediaTime"] as? Double == 12.5)
        let pulse = try #require(object["pulse"] as? [String: Any])
        #expect(pulse["bpm"] as? Double == 72.25 && pulse["confidence"] as? Double == 0.91)
        let breathing = try #require(object["breathing"] as? [String: Any])
        #expect(breathing["perMinute"] as? Double == 14 && breathing["confidence"] as? Double == 0.6)
        #expect(object["hrvMs"] as? Double == 41.5)
    }

    /// Nothing measured is null, never a number: the keys stay, so every estimate has one shape.
    @Test func whatWasNotMeasuredIsNull() throws {
        let object = try Self.object(.estimate(Estimate()))
        for key in ["mediaTime", "pulse", "breathing", "hrvMs"] {
            #expect(object[key] is NSNull, "\(key) should be null")
        }
    }

    @Test func errorsAreReportedAsTheScanCommandReportsThem() throws {
        let object = try Self.object(.error(.cameraInUse, attempt: 4, retryIn: .seconds(4)))
        #expect(object["error"] as? String == "cameraInUse")
        #expect(object["message"] as? String == CircadifyError.cameraInUse.errorDescription)
        #expect(object["retryable"] as? Bool == false)
        #expect(object["attempt"] as? Int == 4 && object["retryInSeconds"] as? Double == 4)
        #expect(object["hint"] == nil, "no hint unless the node gave one")
        let hinted = try Self.object(.error(.cameraInUse, hint: "Another process has /dev/video0 open"))
        #expect(hinted["hint"] as? String == "Another process has /dev/video0 open")
        let lost = try Self.object(.cameraLost(source: "/dev/video2", error: .timeout, retryIn: .milliseconds(500)))
        #expect(lost["state"] as? String == "lost" && lost["retryInSeconds"] as? Double == 0.5)
        let error = try #require(lost["error"] as? [String: Any])
        #expect(error["error"] as? String == "timeout" && error["retryable"] as? Bool == true)
    }

    @Test func warningsAndValidationNameTheirCase() throws {
        let warning = try Self.object(.warning(QualityWarning(.headMoving)))
        #expect(warning["kind"] as? String == "headMoving" && warning["category"] as? String == "motion")
        #expect(warning["severity"] as? String == "medium" && warning["message"] as? String == "Hold still")
        let status = try Self.object(.validation(ValidationStatus(.tooBright)))
        #expect(status["code"] as? String == "tooBright" && status["hint"] as? String == ValidationStatus.Code.tooBright.hint)
    }

    /// Quotes, backslashes and control characters in a message stay one valid line.
    @Test func messagesAreEscaped() throws {
        let object = try Self.object(.error(.captureFailed("\"/dev/video0\"\n\tfailed\\ \u{1}")))
        #expect((object["message"] as? String)?.hasSuffix("\"/dev/video0\"\n\tfailed\\ \u{1}") == true)
    }
}
