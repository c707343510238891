/// The headless form of quality feedback (SmartSpectra's `validationStatus`):
/// the one thing most in the way of a measurement right now, with a hint.
public struct ValidationStatus: Sendable, Equatable {
    /// Most important first (after `ok`); `QualityMonitor` reports the first that applies.
    /// Without one face nothing else can be judged (noFace, multipleFaces); framing
    /// next, since the light and motion figures are measured on the face; then the
    /// light, which no amount of holding still fixes; then motion; the frame rate and
    /// the camera's settling are the system's to fix, not the person's.
    public enum Code: String, Sendable, Equatable, CaseIterable {
        case ok, noFace, multipleFaces, faceSize, notCentered, tooDark, tooBright, excessiveMotion,
             frameRateTooLow, cameraTuning
    }

    public let code: Code
    public let hint: String

    public init(_ code: Code) {
        self.code = code
        hint = code.hint
    }
}

extension ValidationStatus.Code {
    public var hint: String {
        switch self {
        case .ok: "Ready"
        case .noFace: "No face detected — look at the camera"
        case .multipleFaces: "More than one face in view — only one person, please"
        case .faceSize: "Adjust your distance so your face fills about half the frame height"
        case .notCentered: "Centre your face and look straight at the camera"
        case .tooDark: "Too dark — add light in front of you"
        case .tooBright: "Too bright — move out of direct light"
        case .excessiveMotion: "Hold still and keep the camera steady"
        case .frameRateTooLow: "The camera delivers too few frames per second"
        case .cameraTuning: "Adjusting the camera…"
        }
    }
}
