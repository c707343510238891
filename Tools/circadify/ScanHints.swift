import Circadify

extension Scan {
    /// What the command can add to a camera error: the node it tried and why it failed there.
    static func hint(for error: CircadifyError, _ request: ScanRequest) -> String? {
        guard case .device(let path) = request.input else { return nil }
        switch error {
        case .cameraNotAvailable, .cameraPermissionDenied:
            let (access, reason) = CameraDevice.access(path: path)
            if access != .authorized { return reason.isEmpty ? nil : reason }
            return "\(path) is not a video capture device; `circadify devices` lists the cameras"
        case .cameraInUse:
            return "Another process has \(path) open (`fuser -v \(path)` shows which)"
        default:
            return nil
        }
    }
}
