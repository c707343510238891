import Circadify
import Testing

/// CircadifyError against the seed's table (seeds/003): name, description, retry flag.
@Suite struct CircadifyErrorTests {
    /// The seed's table, one row per case: (case, name, description as the seed words it, retryable).
    static let seedTable: [(CircadifyError, String, String, Bool)] = [
        (.cameraNotAvailable, "cameraNotAvailable", "No camera on this device", false),
        (.cameraPermissionDenied, "cameraPermissionDenied", "User denied camera access", false),
        (.cameraInUse, "cameraInUse", "Camera is in use by another app", false),
        (.missingApiKey, "missingApiKey", "No API key provided", false),
        (.invalidApiKey, "invalidApiKey", "Key is malformed, revoked, or expired", false),
        (.captureFailed("x"), "captureFailed", "Frame capture failed", false),
        (.qualityTooLow, "qualityTooLow", "Capture quality too poor for analysis", false),
        (.faceNotDetected, "faceNotDetected", "No face found in camera feed", false),
        (.networkError("x"), "networkError", "Network request failed", true),
        (.uploadFailed("x"), "uploadFailed", "Secure upload failed", true),
        (.apiError("x"), "apiError", "API returned an error", false),
        (.sessionExpired, "sessionExpired", "Session timed out", false),
        (.sessionNotFound, "sessionNotFound", "Session ID doesn't exist", false),
        (.processingFailed("x"), "processingFailed", "Processing failed", false),
        (.timeout, "timeout", "Polling for results timed out", true),
        (.quotaExceeded, "quotaExceeded", "Monthly scan quota reached", false),
        (.rateLimited(retryAfter: 7), "rateLimited", "Request rate limit exceeded (sandbox)", true),
        (.cancelled, "cancelled", "Measurement cancelled via cancel()", false),
        (.unknown("x"), "unknown", "Unexpected error", false),
    ]

    @Test func everyCaseOfTheSeedIsThereOnce() {
        #expect(Self.seedTable.count == 19)
        #expect(Set(Self.seedTable.map(\.1)).count == 19)
    }

    @Test(arguments: seedTable.indices)
    func caseMatchesTheSeedTable(_ row: Int) throws {
        let (error, name, description, retryable) = Self.seedTable[row]
        #expect(error.caseName == name)
        #expect(error.isRetryable == retryable, "\(name)")
        let text = try #require(error.errorDescription)
        #expect(text.hasPrefix(description), "\(name): \(text)")
    }

    @Test func detailFollowsTheDescription() {
        #expect(CircadifyError.captureFailed("the file ended in frame 12").errorDescription
            == "Frame capture failed: the file ended in frame 12")
        #expect(CircadifyError.processingFailed("").errorDescription == "Processing failed")
        #expect(CircadifyError.rateLimited(retryAfter: 7).errorDescription?.contains("7 seconds") == true)
    }

    @Test func permissionDeniedNamesTheLinuxFix() throws {
        let text = try #require(CircadifyError.cameraPermissionDenied.errorDescription)
        #expect(text.contains("'video' group"))
        #expect(text.contains("udev rule"))
    }

    @Test func equalityComparesDetails() {
        #expect(CircadifyError.captureFailed("a") == .captureFailed("a"))
        #expect(CircadifyError.captureFailed("a") != .captureFailed("b"))
        #expect(CircadifyError.rateLimited(retryAfter: 1) != .rateLimited(retryAfter: 2))
        #expect(CircadifyError.timeout != .cancelled)
    }

    @Test func localizedDescriptionIsTheErrorDescription() {
        let error: any Error = CircadifyError.faceNotDetected
        #expect(error.localizedDescription == "No face found in camera feed")
    }
}
