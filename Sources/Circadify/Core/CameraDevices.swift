import CCore

/// Access to a camera node, in the four states of AVAuthorizationStatus.
package enum DeviceAccess: String, Sendable, Equatable {
    case notDetermined, restricted, denied, authorized

    init(_ status: ccore_access_status) {
        switch status {
        case CCORE_ACCESS_AUTHORIZED: self = .authorized
        case CCORE_ACCESS_DENIED: self = .denied
        case CCORE_ACCESS_RESTRICTED: self = .restricted
        default: self = .notDetermined
        }
    }
}

/// One (format, size, rate) a camera offers.
package struct CameraMode: Sendable, Equatable {
    package var fourcc: String
    package var formatName: String
    package var width: UInt32
    package var height: UInt32
    /// nil when the driver does not enumerate frame intervals.
    package var framesPerSecond: Double?
    /// The core can process this format.
    package var supported: Bool
}

/// A capture-capable V4L2 node.
package struct CameraDevice: Sendable, Equatable {
    package var path: String
    package var driver: String
    package var card: String
    package var busInfo: String
    package var access: DeviceAccess
    package var accessReason: String

    /// Capture-capable nodes in node order; inaccessible ones are listed with their access status.
    package static func list() throws(CoreError) -> [CameraDevice] {
        var infos = [ccore_device_info](repeating: ccore_device_info(), count: 64)
        var count: UInt32 = 0
        let rc = ccore_device_list(&infos, UInt32(infos.count), &count)
        if rc < 0 { throw CoreError(code: rc, message: "cannot scan /dev for cameras") }
        return infos.prefix(Int(min(count, 64))).map(CameraDevice.init)
    }

    /// Access status of one node (no streaming involved).
    package static func access(path: String) -> (DeviceAccess, String) {
        let a = ccore_device_access(path)
        return (DeviceAccess(a.status), stringFromCBuffer(a.reason))
    }

    /// What a camera error means at `path`, for the person at the terminal: the node's
    /// access status (missing, permission, not a capture device) or who holds it; nil
    /// for other errors. The SDK's errors are the seed's fixed messages and say neither.
    package static func explain(_ error: CircadifyError, at path: String) -> String? {
        switch error {
        case .cameraNotAvailable, .cameraPermissionDenied:
            let (access, reason) = access(path: path)
            if access != .authorized { return reason.isEmpty ? nil : reason }
            return "\(path) is not a video capture device; `circadify devices` lists the cameras"
        case .cameraInUse:
            return "Another process has \(path) open (`fuser -v \(path)` shows which)"
        default:
            return nil
        }
    }

    init(_ info: ccore_device_info) {
        path = stringFromCBuffer(info.path)
        driver = stringFromCBuffer(info.driver)
        card = stringFromCBuffer(info.card)
        busInfo = stringFromCBuffer(info.bus_info)
        access = DeviceAccess(info.access.status)
        accessReason = stringFromCBuffer(info.access.reason)
    }

    /// Formats, sizes and rates on offer.
    package func modes() throws(CoreError) -> [CameraMode] {
        var modes = [ccore_device_mode](repeating: ccore_device_mode(), count: 256)
        var count: UInt32 = 0
        let rc = ccore_device_modes(path, &modes, UInt32(modes.count), &count)
        if rc < 0 { throw CoreError(code: rc, message: "cannot list the formats of \(path)") }
        return modes.prefix(Int(min(count, 256))).map { m in
            var cc = [CChar](repeating: 0, count: 5)
            ccore_fourcc_string(m.fourcc, &cc)
            return CameraMode(
                fourcc: stringFromCChars(cc), formatName: stringFromCBuffer(m.format_name),
                width: m.width, height: m.height,
                framesPerSecond: m.interval_numerator == 0 ? nil
                    : Double(m.interval_denominator) / Double(m.interval_numerator),
                supported: m.supported != 0)
        }
    }
}
