/// Guidance for the person being measured: what is wrong with the picture and
/// how to fix it. The shape of the iOS SDK's `QualityWarning` (type, message,
/// severity), plus `kind`, which tells the conditions within a type apart.
public struct QualityWarning: Sendable, Equatable {
    public enum WarningType: Sendable, Equatable {
        case lighting, motion, facePosition, occlusion
    }

    public enum Severity: Sendable, Equatable, Comparable {
        case low, medium, high
    }

    /// The condition, one per thing the person can fix.
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        case tooDark, tooBright, unevenLighting, flicker
        case headMoving, cameraShaking
        case notCentered, tooFar, tooClose, turnedAway, multipleFaces, faceNotDetected
        case occluded
    }

    public let type: WarningType
    public let message: String
    public let severity: Severity
    public let kind: Kind

    public init(_ kind: Kind) {
        self.kind = kind
        type = kind.type
        message = kind.message
        severity = kind.severity
    }
}

extension QualityWarning.Kind {
    public var type: QualityWarning.WarningType {
        switch self {
        case .tooDark, .tooBright, .unevenLighting, .flicker: .lighting
        case .headMoving, .cameraShaking: .motion
        case .notCentered, .tooFar, .tooClose, .turnedAway, .multipleFaces, .faceNotDetected: .facePosition
        case .occluded: .occlusion
        }
    }

    /// High: no valid reading is possible; medium: readings degrade badly; low: a nudge.
    public var severity: QualityWarning.Severity {
        switch self {
        case .faceNotDetected, .multipleFaces, .tooDark, .tooBright, .occluded: .high
        case .unevenLighting, .flicker, .headMoving, .cameraShaking, .tooFar, .tooClose, .turnedAway: .medium
        case .notCentered: .low
        }
    }

    /// What to tell the person, as an instruction.
    public var message: String {
        switch self {
        case .tooDark: "Move into better lighting — your face is too dark"
        case .tooBright: "Too much light on your face — move out of direct light"
        case .unevenLighting: "Light your face evenly — one side is in shadow"
        case .flicker: "The light is flickering — use daylight or a steady lamp"
        case .headMoving: "Hold still"
        case .cameraShaking: "Keep the camera steady"
        case .notCentered: "Centre your face in the frame"
        case .tooFar: "Move closer to the camera"
        case .tooClose: "Move a little further from the camera"
        case .turnedAway: "Face the camera directly"
        case .multipleFaces: "Only one person should be in view"
        case .faceNotDetected: "No face detected — look at the camera"
        case .occluded: "Keep your face uncovered — something is in front of it"
        }
    }
}
