import Testing
@testable import Circadify

/// The SDK's configuration checks: the API key's format, and measurement
/// options checked before anything is recorded.
@Suite struct APIKeyAndOptionsTests {
    @Test func anEmptyKeyIsMissing() {
        #expect(throws: CircadifyError.missingApiKey) { try CircadifySDK(apiKey: "") }
    }

    @Test(arguments: [
        "ck_live_short", "ck_live_", "ck_prod_0123456789abcdef", "CK_LIVE_0123456789abcdef",
        "ck_live_0123456789abcde!", "ck_live_0123456789 abcdef", " ck_live_0123456789abcdef",
        "ck_live_0123456789abcdéf", "0123456789abcdef0123", "ck_test_0123456789abcde",
        "ck_live_your_key_here", // the seeds' placeholder
    ])
    func malformedKeysAreInvalid(key: String) {
        #expect(throws: CircadifyError.invalidApiKey) { try CircadifySDK(apiKey: key) }
    }

    @Test(arguments: ["ck_live_0123456789abcdef", "ck_test_ABCDEFGHIJKLMNOPqrstuvwxyz0123456789"])
    func wellFormedKeysAreAccepted(key: String) throws {
        _ = try CircadifySDK(apiKey: key)
    }

    @Test func demographicsAreAPlainValueCheckedLater() throws {
        let seedExample = Demographics(age: 35, sex: .male, fitzpatrick: 3)  // no `try`, as the seed writes it
        try MeasurementOptions(demographics: seedExample).validate()
        try MeasurementOptions(duration: 5).validate()
        #expect(MeasurementOptions().duration == 30)
    }

    @Test(arguments: [
        (MeasurementOptions(demographics: Demographics(age: 121)), "Demographics.age"),
        (MeasurementOptions(demographics: Demographics(age: -1)), "Demographics.age"),
        (MeasurementOptions(demographics: Demographics(fitzpatrick: 0)), "Demographics.fitzpatrick"),
        (MeasurementOptions(demographics: Demographics(fitzpatrick: 7)), "Demographics.fitzpatrick"),
        (MeasurementOptions(duration: 4.9), "MeasurementOptions.duration"),
        (MeasurementOptions(duration: .nan), "MeasurementOptions.duration"),
        (MeasurementOptions(duration: .infinity), "MeasurementOptions.duration"),
        (MeasurementOptions(duration: 1e19), "MeasurementOptions.duration"),
    ])
    func outOfRangeOptionsNameTheField(options: MeasurementOptions, field: String) {
        do {
            try options.validate()
            Issue.record("\(options) must be refused")
        } catch {
            guard case .processingFailed(let message) = error else { Issue.record("\(error)"); return }
            #expect(message.contains(field), "\(message)")
            #expect(!error.isRetryable)
        }
    }

    /// Bad options are refused before the camera is even opened.
    @MainActor @Test func measureVitalsChecksOptionsBeforeRecording() async throws {
        let sdk = try CircadifySDK(apiKey: "ck_test_0123456789abcdef")
        let camera = CircadifyCamera(replaying: "/nonexistent/never-opened.y4m")
        await #expect(throws: CircadifyError.self) {
            _ = try await sdk.measureVitals(camera: camera,
                                            options: MeasurementOptions(demographics: Demographics(age: 200)))
        }
        #expect(!camera.isRunning)
        #expect(sdk.processingStatus == .idle, "nothing started")
    }
}
