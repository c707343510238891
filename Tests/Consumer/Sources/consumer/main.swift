// A client of the Circadify package that uses only what `import Circadify` makes public,
// as an integrator would. Each check prints one line; the last line is
// `N passed, M failed` (what Tools/run-tests.sh counts) and a failure exits 1.
// A new public entry point gets a check here, in the section of its seed page.
import Circadify
import Foundation

var passed = 0
var failed = 0

@MainActor func check(_ condition: Bool, _ what: String) {
    if condition {
        passed += 1
        print("ok   \(what)")
    } else {
        failed += 1
        print("FAIL \(what)")
    }
}

// MARK: Errors (seed "Error Handling")

/// Every case of the seed, and whether its table says to retry it.
let seedErrors: [(CircadifyError, retryable: Bool)] = [
    (.cameraNotAvailable, false), (.cameraPermissionDenied, false), (.cameraInUse, false),
    (.invalidApiKey, false), (.missingApiKey, false),
    (.captureFailed("device gone"), false), (.qualityTooLow, false), (.faceNotDetected, false),
    (.networkError("offline"), true), (.uploadFailed("reset"), true), (.apiError("500"), false),
    (.sessionExpired, false), (.sessionNotFound, false),
    (.processingFailed("no pulse"), false), (.timeout, true),
    (.quotaExceeded, false), (.rateLimited(retryAfter: 7), true),
    (.cancelled, false), (.unknown("?"), false),
]

/// An exhaustive switch: a case added to or removed from the SDK breaks this build.
func seedCategory(_ error: CircadifyError) -> String {
    switch error {
    case .cameraNotAvailable, .cameraPermissionDenied, .cameraInUse: "camera"
    case .invalidApiKey, .missingApiKey: "configuration"
    case .captureFailed, .qualityTooLow, .faceNotDetected: "capture"
    case .networkError, .uploadFailed, .apiError: "network"
    case .sessionExpired, .sessionNotFound: "session"
    case .processingFailed, .timeout: "processing"
    case .quotaExceeded, .rateLimited: "usage"
    case .cancelled, .unknown: "general"
    }
}

check(seedErrors.count == 19, "the seed's 19 error cases")
for (error, retryable) in seedErrors {
    let description = error.errorDescription ?? ""
    check(!description.isEmpty && error.isRetryable == retryable,
          "\(seedCategory(error)) error \(error.caseName): described, isRetryable \(retryable)")
}
check(CircadifyError.captureFailed("a") != .captureFailed("b") && CircadifyError.timeout == .timeout,
      "CircadifyError is Equatable with its details")
check((CircadifyError.rateLimited(retryAfter: 7).errorDescription ?? "").contains("7"),
      "rateLimited(retryAfter:) tells how long to wait")
do {
    throw CircadifyError.cameraInUse
} catch let error as CircadifyError where error == .cameraInUse {
    check(error.localizedDescription == error.errorDescription, "a thrown CircadifyError is a LocalizedError")
} catch {
    check(false, "a thrown CircadifyError is caught as one (got \(error))")
}

// MARK: Result (seed "Methods")

let result = VitalSignsResult(heartRate: 72, hrv: 41.5, respiratoryRate: 15, spo2: nil, systolicBp: nil,
                              diastolicBp: nil, confidence: 0.83, sessionId: UUID().uuidString,
                              timestamp: Date(timeIntervalSince1970: 1_790_000_000))
do {
    let json = try result.jsonData()
    let object = try JSONSerialization.jsonObject(with: json) as? [String: Any]
    check(object?.keys.count == 9 && object?["spo2"] is NSNull, "VitalSignsResult writes every key, unmeasured as null")
    check(try VitalSignsResult.fromJSON(json) == result, "VitalSignsResult reads back what it wrote")
} catch {
    check(false, "VitalSignsResult JSON round trip (threw \(error))")
}
let sendable: any Sendable = result
check(sendable is VitalSignsResult, "VitalSignsResult is Sendable")

// MARK: Camera and permissions (seed "Camera & Permissions")

/// A path with no device node: nothing to ask permission for, nothing to start.
let missing = CircadifyCamera(devicePath: "/dev/circadify-consumer-no-such-camera")
check(missing.authorizationStatus == .notDetermined, "no node: authorizationStatus is notDetermined")
check(await missing.requestAccess() == false, "no node: requestAccess() is false")
do {
    try await missing.start()
    check(false, "no node: start() throws cameraNotAvailable (it started)")
} catch let error as CircadifyError {
    check(error == .cameraNotAvailable, "no node: start() throws cameraNotAvailable (\(error.caseName))")
} catch {
    check(false, "no node: start() throws a CircadifyError (got \(error))")
}
check(!missing.isRunning && missing.scanFace == nil && missing.validationStatus == nil,
      "a camera that failed to start is not running and reports nothing")

/// A node anyone may open that is not a camera: the C core opens it and says so.
let notACamera = CircadifyCamera(devicePath: "/dev/null", position: .back)
check(notACamera.authorizationStatus == .authorized, "/dev/null: authorizationStatus is authorized")
do {
    try await notACamera.start()
    check(false, "/dev/null: start() refuses a node that is not a camera (it started)")
} catch let error as CircadifyError {
    check(error == .cameraNotAvailable, "/dev/null: start() throws cameraNotAvailable (\(error.caseName))")
} catch {
    check(false, "/dev/null: start() throws a CircadifyError (got \(error))")
}
notACamera.stop()  // stopping a camera that never started is harmless

let statuses: [AVAuthorizationStatus] = [.notDetermined, .restricted, .denied, .authorized]
check(Set(statuses.map(\.rawValue)).count == 4, "AVAuthorizationStatus has its four states")

// MARK: Quality guidance (seed "Methods", QualityWarning; headless validationStatus)

let warning = QualityWarning(.tooDark)
check(warning.type == .lighting && !warning.message.isEmpty, "QualityWarning carries a type and a message")
check(ValidationStatus.Code.allCases.allSatisfy { !ValidationStatus($0).hint.isEmpty },
      "every ValidationStatus code has a hint")

// MARK: The SDK (seed "Methods", "Error Handling")

func keyError(_ key: String) -> CircadifyError? {
    do {
        _ = try CircadifySDK(apiKey: key)
        return nil
    } catch let error as CircadifyError {
        return error
    } catch {
        return .unknown("\(error)")
    }
}
check(keyError("") == .missingApiKey, "CircadifySDK(apiKey: \"\") throws missingApiKey")
check(keyError("ck_live_short") == .invalidApiKey, "a malformed key throws invalidApiKey")
check(keyError("ck_live_0123456789abcdef") == nil, "a well-formed key is accepted")

let demographics = Demographics(age: 35, sex: .male, fitzpatrick: 3)  // as the seed writes it: no `try`
let options = MeasurementOptions(demographics: demographics)
check(options.duration == 30 && options.demographics == demographics, "MeasurementOptions defaults to 30 s")

/// Options out of range are refused before the camera is even opened.
if let sdk = try? CircadifySDK(apiKey: "ck_test_0123456789abcdef") {
    check(sdk.processingStatus == .idle && sdk.metrics == nil, "a new SDK is idle with no metrics")
    let never = CircadifyCamera(replaying: "/nonexistent/consumer.y4m")
    do {
        _ = try await sdk.measureVitals(camera: never, options: MeasurementOptions(duration: 1))
        check(false, "a 1 s measurement is refused")
    } catch let error as CircadifyError {
        check(error.caseName == "processingFailed" && !never.isRunning,
              "a 1 s measurement is refused before recording (\(error.errorDescription ?? ""))")
    } catch {
        check(false, "measureVitals throws a CircadifyError (got \(error))")
    }
}

print("\(passed) passed, \(failed) failed")
exit(failed == 0 ? 0 : 1)
