import ArgumentParser
import Circadify

/// The exit status of `circadify scan` for each error, grouped by tens like the SDK's
/// error table. 0 is success, 64 is a bad command line (ArgumentParser's usual code),
/// 130 is cancelled (the shell's code for a process stopped by Ctrl-C).
enum ScanExitCode {
    static func code(for error: CircadifyError) -> Int32 {
        switch error {
        case .cameraNotAvailable: 10
        case .cameraPermissionDenied: 11
        case .cameraInUse: 12
        case .missingApiKey: 20
        case .invalidApiKey: 21
        case .captureFailed: 30
        case .qualityTooLow: 31
        case .faceNotDetected: 32
        case .networkError: 40
        case .uploadFailed: 41
        case .apiError: 42
        case .sessionExpired: 50
        case .sessionNotFound: 51
        case .processingFailed: 60
        case .timeout: 61
        case .unknown: 70
        case .quotaExceeded: 80
        case .rateLimited: 81
        case .cancelled: 130
        }
    }

    /// One example of every case, in table order, for the help text and the tests.
    static let everyCase: [CircadifyError] = [
        .cameraNotAvailable, .cameraPermissionDenied, .cameraInUse,
        .missingApiKey, .invalidApiKey,
        .captureFailed(""), .qualityTooLow, .faceNotDetected,
        .networkError(""), .uploadFailed(""), .apiError(""),
        .sessionExpired, .sessionNotFound,
        .processingFailed(""), .timeout,
        .unknown(""),
        .quotaExceeded, .rateLimited(retryAfter: 0),
        .cancelled,
    ]

    /// The table as `--help` prints it: "  10  cameraNotAvailable" per line.
    static var helpTable: String {
        everyCase.map { error in
            let code = String(code(for: error))
            return String(repeating: " ", count: 5 - code.count) + code + "  " + error.caseName
        }.joined(separator: "\n")
    }
}

/// The statuses every command shares, beyond the scan's table (sysexits(3) numbers).
enum CommandExitCode {
    /// A bad command line: unknown option, bad value, conflicting options.
    static let usage: Int32 = 64
    /// The output could not be written (stdout closed, a broken pipe, a full disk): the
    /// result is lost, so the command must not report success.
    static let outputFailed: Int32 = 74
    /// A service the command needs could not start (`monitor --metrics` on an address in use).
    static let unavailable: Int32 = 69
}
