import Circadify

/// "Methods" → cancel(): a measurement started in one task, cancelled from
/// elsewhere (a button), throws `.cancelled`; the camera stays live.
@MainActor
func cancelFlow(sdk: CircadifySDK, camera: CircadifyCamera) async -> Bool {
    defer { camera.stop() }
    do {
        try await camera.start()
    } catch {
        print("   camera: \(error)")
        return false
    }
    let task = Task { try await sdk.measureVitals(camera: camera) }
    // Cancel once the measurement is under way, as a user pressing Stop would.
    while sdk.processingStatus != .running, sdk.processingStatus != .error {
        try? await Task.sleep(for: .milliseconds(20))
    }
    sdk.cancel()
    do {
        _ = try await task.value
        return false
    } catch let error as CircadifyError where error == .cancelled {
        print("   Scan cancelled by user; camera still running: \(camera.isRunning)")
        return camera.isRunning
    } catch {
        print("   unexpected: \(error)")
        return false
    }
}
