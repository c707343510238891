import Foundation

/// Every way a measurement can fail, with the Circadify SDK's cases, descriptions
/// and retry advice. The SDK throws one of these instead of returning a made-up result.
///
/// On Linux the configuration, network, session and usage cases are never thrown by
/// the on-device pipeline (there is no upload); they exist so code written against the
/// Circadify API keeps compiling and its `switch`es stay exhaustive.
public enum CircadifyError: LocalizedError, Equatable {
    // Camera
    case cameraNotAvailable
    case cameraPermissionDenied
    case cameraInUse

    // Configuration
    case invalidApiKey
    case missingApiKey

    // Capture
    case captureFailed(String)
    case qualityTooLow
    case faceNotDetected

    // Network
    case networkError(String)
    case uploadFailed(String)
    case apiError(String)

    // Session
    case sessionExpired
    case sessionNotFound

    // Processing
    case processingFailed(String)
    case timeout

    // Usage
    case quotaExceeded
    case rateLimited(retryAfter: Int)

    // General
    case cancelled
    case unknown(String)

    /// The seed table's description, followed by the detail the case carries (and, for
    /// permission, the Linux fix).
    public var errorDescription: String? {
        switch self {
        case .cameraNotAvailable: "No camera on this device"
        case .cameraPermissionDenied:
            "User denied camera access: the camera node is not readable and writable by this user. "
                + "Add the user to the 'video' group (sudo usermod -aG video $USER, then log out and in) "
                + "or grant access with a udev rule"
        case .cameraInUse: "Camera is in use by another app"
        case .missingApiKey: "No API key provided"
        case .invalidApiKey: "Key is malformed, revoked, or expired"
        case .captureFailed(let detail): Self.join("Frame capture failed", detail)
        case .qualityTooLow: "Capture quality too poor for analysis"
        case .faceNotDetected: "No face found in camera feed"
        case .networkError(let detail): Self.join("Network request failed", detail)
        case .uploadFailed(let detail): Self.join("Secure upload failed", detail)
        case .apiError(let detail): Self.join("API returned an error", detail)
        case .sessionExpired: "Session timed out"
        case .sessionNotFound: "Session ID doesn't exist"
        case .processingFailed(let detail): Self.join("Processing failed", detail)
        case .timeout: "Polling for results timed out"
        case .quotaExceeded: "Monthly scan quota reached"
        case .rateLimited(let retryAfter): "Request rate limit exceeded (sandbox); retry after \(retryAfter) seconds"
        case .cancelled: "Measurement cancelled via cancel() or by stopping its task"
        case .unknown(let detail): Self.join("Unexpected error", detail)
        }
    }

    /// Whether the same call may succeed if simply tried again later (the seed's table).
    public var isRetryable: Bool {
        switch self {
        case .networkError, .uploadFailed, .timeout, .rateLimited: true
        case .cameraNotAvailable, .cameraPermissionDenied, .cameraInUse, .invalidApiKey, .missingApiKey,
             .captureFailed, .qualityTooLow, .faceNotDetected, .apiError, .sessionExpired, .sessionNotFound,
             .processingFailed, .quotaExceeded, .cancelled, .unknown:
            false
        }
    }

    /// The case's name as written in Swift ("captureFailed"), for machine-readable output.
    public var caseName: String {
        switch self {
        case .cameraNotAvailable: "cameraNotAvailable"
        case .cameraPermissionDenied: "cameraPermissionDenied"
        case .cameraInUse: "cameraInUse"
        case .invalidApiKey: "invalidApiKey"
        case .missingApiKey: "missingApiKey"
        case .captureFailed: "captureFailed"
        case .qualityTooLow: "qualityTooLow"
        case .faceNotDetected: "faceNotDetected"
        case .networkError: "networkError"
        case .uploadFailed: "uploadFailed"
        case .apiError: "apiError"
        case .sessionExpired: "sessionExpired"
        case .sessionNotFound: "sessionNotFound"
        case .processingFailed: "processingFailed"
        case .timeout: "timeout"
        case .quotaExceeded: "quotaExceeded"
        case .rateLimited: "rateLimited"
        case .cancelled: "cancelled"
        case .unknown: "unknown"
        }
    }

    private static func join(_ summary: String, _ detail: String) -> String {
        detail.isEmpty ? summary : "\(summary): \(detail)"
    }
}
