import Circadify

/// "Methods": one camera backs the guidance and the measurement; quality
/// warnings arrive on the main actor while framing and while measuring.
@MainActor
func scanWithGuidance(sdk: CircadifySDK, camera: CircadifyCamera) async -> VitalSignsResult? {
    var guidance: String?
    camera.onQualityWarning = { warning in
        if guidance != warning.message { print("   guidance: \(warning.message)") }
        guidance = warning.message
    }
    defer { camera.stop() }
    do {
        try await camera.start()
        let result = try await sdk.measureVitals(
            camera: camera,
            options: MeasurementOptions(duration: 10, demographics: Demographics(age: 35, sex: .male, fitzpatrick: 3))
        )
        let band = result.confidence >= 0.7 ? "reliable" : "re-scan recommended"
        print("   heart rate \(result.heartRate) bpm, HRV \(result.hrv.map { "\(Int($0)) ms" } ?? "not measured"), "
              + "breathing \(result.respiratoryRate.map { "\($0) /min" } ?? "not measured"), "
              + "confidence \(String(format: "%.2f", result.confidence)) (\(band))")
        return result
    } catch let error as CircadifyError {
        print("   Scan failed: \(error.errorDescription ?? "")")
    } catch {
        print("   Scan failed: \(error)")
    }
    return nil
}
