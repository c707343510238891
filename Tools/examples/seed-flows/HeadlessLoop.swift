import Circadify
import Observation

/// SmartSpectra "Headless Mode": no UI, just the SDK's observable state —
/// followed here with `withObservationTracking`, re-armed after each change.
@MainActor
func headlessLoop(sdk: CircadifySDK, camera: CircadifyCamera) async -> Bool {
    let printer = HeadlessPrinter(sdk: sdk)
    printer.follow()
    defer { camera.stop() }
    do {
        try await sdk.startMonitoring(camera: camera)
    } catch {
        print("   could not start: \(error)")
        return false
    }
    // Watch for a few seconds of pulse.
    for _ in 0..<200 where (sdk.metrics?.cardio.pulseRate.count ?? 0) < 3 {
        try? await Task.sleep(for: .milliseconds(100))
    }
    await sdk.stopMonitoring()
    let gotPulse = sdk.metrics?.hasCardio == true
    return gotPulse && sdk.processingStatus == .idle && printer.changes > 0
}

/// Prints the headless state each time it changes, as a view would redraw.
@MainActor
final class HeadlessPrinter {
    let sdk: CircadifySDK
    var changes = 0
    private var lastLine = ""

    init(sdk: CircadifySDK) { self.sdk = sdk }

    func follow() {
        withObservationTracking {
            render()
        } onChange: { [weak self] in
            Task { @MainActor in self?.follow() }
        }
    }

    private func render() {
        var line = "   status: \(sdk.processingStatus.rawValue)"
        if let hint = sdk.validationStatus?.hint { line += ", \(hint)" }
        if let metrics = sdk.metrics, metrics.hasCardio, let pulse = metrics.cardio.pulseRate.last {
            line += ", pulse \(Int(pulse.value.rounded())) bpm"
        }
        if let metrics = sdk.metrics, metrics.hasBreathing, let rate = metrics.breathing.rate.last {
            line += ", breathing \(Int(rate.value.rounded())) /min"
        }
        if let error = sdk.error { line += ", error: \(error.errorDescription ?? "")" }
        guard line != lastLine else { return }
        lastLine = line
        changes += 1
        print(line)
    }
}
