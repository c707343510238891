import Circadify

extension Scan {
    /// What the command can add to a camera error: the node it tried and why it failed there.
    static func hint(for error: CircadifyError, _ request: ScanRequest) -> String? {
        guard case .device(let path) = request.input else { return nil }
        return CameraDevice.explain(error, at: path)
    }
}
