import Circadify

/// "Camera & Permissions": check the status, let `start()` ask, and guide the
/// user when access is denied (on Linux: the `video` group or a udev rule).
@MainActor
func permissionFlow(camera: CircadifyCamera) async -> Bool {
    print("   authorizationStatus: \(camera.authorizationStatus)")
    if camera.authorizationStatus == .notDetermined {
        let granted = await camera.requestAccess()
        print("   requestAccess() -> \(granted)")
    }
    do {
        try await camera.start()   // checks access, then goes live
        defer { camera.stop() }
        print("   isRunning: \(camera.isRunning)")
        return camera.isRunning
    } catch CircadifyError.cameraPermissionDenied {
        print("   Camera access is required: add this user to the camera's group (usually `video`).")
    } catch {
        print("   Camera failed to start: \(error)")
    }
    return false
}
