import Circadify
import Foundation

/// One line of `circadify monitor`'s output (JSON Lines): every object has a `type`
/// and a `time` (UTC, ISO 8601 with milliseconds), then the fields of its type.
/// The README's "Running a fleet" lists them.
public enum MonitorEvent: Sendable, Equatable {
    /// The service started on `source`, or stopped (`reason`: "shutdown", "end of input").
    case serviceStarted(source: String)
    case serviceStopped(reason: String)
    /// The camera streams (first open, or again after being lost).
    case cameraOpened(source: String)
    case cameraReopened(source: String, attempts: Int, downtime: Duration)
    /// The camera stopped streaming (unplugged, failed, hung); reopening starts after `retryIn`.
    case cameraLost(source: String, error: CircadifyError?, retryIn: Duration)
    /// A replayed file ended and starts again (`--loop`); `loops` counts the restarts.
    case inputRestarted(loops: Int)
    case estimate(Estimate)
    case validation(ValidationStatus)
    case warning(QualityWarning)
    /// A failed attempt to (re)open the camera, and when the next one is; `hint` says
    /// what the device node tells (missing, no permission, held by another process).
    case error(CircadifyError, attempt: Int? = nil, retryIn: Duration? = nil, hint: String? = nil)

    /// The `type` field.
    public var type: String {
        switch self {
        case .serviceStarted, .serviceStopped: "service"
        case .cameraOpened, .cameraReopened, .cameraLost: "camera"
        case .inputRestarted: "input"
        case .estimate: "estimate"
        case .validation: "validation"
        case .warning: "warning"
        case .error: "error"
        }
    }
}

/// A live reading of the headless state: the pulse and breathing estimates new
/// since the last one, each nil when the SDK had no confident value to add.
public struct Estimate: Sendable, Equatable {
    public struct Value: Sendable, Equatable {
        public var value: Double
        public var confidence: Double

        public init(value: Double, confidence: Double) {
            self.value = value
            self.confidence = confidence
        }
    }

    /// Seconds of video since the camera (or this pass of the file) started; nil when no rate is new.
    public var mediaTime: Double?
    /// Beats per minute (only estimates with confidence >= 0.4 reach the SDK's series).
    public var pulse: Value?
    /// Breaths per minute.
    public var breathing: Value?
    /// SDNN, ms, when the beats were clean enough.
    public var hrv: Double?

    public init(mediaTime: Double? = nil, pulse: Value? = nil, breathing: Value? = nil, hrv: Double? = nil) {
        self.mediaTime = mediaTime
        self.pulse = pulse
        self.breathing = breathing
        self.hrv = hrv
    }
}

extension MonitorEvent {
    /// The event as one JSON object, `type` and `time` first, no newline.
    public func jsonLine(at time: Date) -> String {
        var fields: [(String, JSONValue)] = [("type", .string(type)), ("time", .string(Self.timeFormat.format(time)))]
        switch self {
        case .serviceStarted(let source):
            fields += [("state", .string("started")), ("source", .string(source))]
        case .serviceStopped(let reason):
            fields += [("state", .string("stopped")), ("reason", .string(reason))]
        case .cameraOpened(let source):
            fields += [("state", .string("opened")), ("source", .string(source))]
        case .cameraReopened(let source, let attempts, let downtime):
            fields += [("state", .string("reopened")), ("source", .string(source)), ("attempts", .number(Double(attempts))),
                       ("downtimeSeconds", .number(downtime.seconds))]
        case .cameraLost(let source, let error, let retryIn):
            fields += [("state", .string("lost")), ("source", .string(source)),
                       ("error", error.map(Self.describe) ?? .null), ("retryInSeconds", .number(retryIn.seconds))]
        case .inputRestarted(let loops):
            fields += [("state", .string("restarted")), ("loops", .number(Double(loops)))]
        case .estimate(let estimate):
            fields += [
                ("mediaTime", estimate.mediaTime.map(JSONValue.number) ?? .null),
                ("pulse", estimate.pulse.map { .object([("bpm", .number($0.value)), ("confidence", .number($0.confidence))]) }
                    ?? .null),
                ("breathing", estimate.breathing.map {
                    .object([("perMinute", .number($0.value)), ("confidence", .number($0.confidence))])
                } ?? .null),
                ("hrvMs", estimate.hrv.map(JSONValue.number) ?? .null),
            ]
        case .validation(let status):
            fields += [("code", .string(status.code.rawValue)), ("hint", .string(status.hint))]
        case .warning(let warning):
            fields += [("kind", .string(warning.kind.rawValue)), ("category", .string(Self.name(warning.type))),
                       ("severity", .string(Self.name(warning.severity))), ("message", .string(warning.message))]
        case .error(let error, let attempt, let retryIn, let hint):
            if case .object(let described) = Self.describe(error) { fields += described }
            if let hint { fields.append(("hint", .string(hint))) }
            if let attempt { fields.append(("attempt", .number(Double(attempt)))) }
            if let retryIn { fields.append(("retryInSeconds", .number(retryIn.seconds))) }
        }
        return JSONValue.object(fields).text
    }

    /// `{"error": case, "message": text, "retryable": bool}`, as `circadify scan --json` reports errors.
    private static func describe(_ error: CircadifyError) -> JSONValue {
        .object([("error", .string(error.caseName)), ("message", .string(error.errorDescription ?? error.caseName)),
                 ("retryable", .bool(error.isRetryable))])
    }

    private static func name(_ type: QualityWarning.WarningType) -> String {
        switch type {
        case .lighting: "lighting"
        case .motion: "motion"
        case .facePosition: "facePosition"
        case .occlusion: "occlusion"
        }
    }

    private static func name(_ severity: QualityWarning.Severity) -> String {
        switch severity {
        case .low: "low"
        case .medium: "medium"
        case .high: "high"
        }
    }

    private static let timeFormat = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
}

extension Duration {
    /// The duration in seconds, as a JSON number.
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}

/// A JSON value with its keys in the order given (JSONEncoder's order is its own).
enum JSONValue: Sendable {
    case string(String)
    case number(Double)
    case bool(Bool)
    case null
    indirect case object([(String, JSONValue)])

    var text: String {
        switch self {
        case .string(let value): Self.quoted(value)
        case .number(let value): Self.number(value)
        case .bool(let value): value ? "true" : "false"
        case .null: "null"
        case .object(let fields): "{" + fields.map { Self.quoted($0.0) + ":" + $0.1.text }.joined(separator: ",") + "}"
        }
    }

    /// Whole numbers without a fraction, others to the microsecond; a non-finite number is null (JSON has none).
    private static func number(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String((value * 1e6).rounded() / 1e6)
    }

    private static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                out += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
                    + String(scalar.value, radix: 16)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
