/// Camera access, in the four states of AVFoundation's type of this name
/// (the seed's `authorizationStatus`). Linux has no permission dialog: the
/// state is read off the device node — missing or unreadable by this
/// process, or blocked by policy.
public enum AVAuthorizationStatus: Int, Sendable, Equatable {
    /// No camera node to ask about yet.
    case notDetermined
    /// Blocked by policy (a security module or a read-only mount), beyond the user's control.
    case restricted
    /// The node exists but this process may not open it (fix: the `video` group or a udev rule).
    case denied
    case authorized

    init(_ access: DeviceAccess) {
        switch access {
        case .notDetermined: self = .notDetermined
        case .restricted: self = .restricted
        case .denied: self = .denied
        case .authorized: self = .authorized
        }
    }
}
