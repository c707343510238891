import Circadify
import Foundation

/// A failed scan as the command reports it: the SDK's error plus, where the command
/// knows more (which camera, what to type instead), a hint for the person at the terminal.
struct ScanFailure: Error {
    var error: CircadifyError
    var hint: String?
    /// The exit status when it is not the error's own: 74 when the scan stopped because its
    /// output had gone (the error is then `cancelled`).
    var status: Int32?

    var message: String {
        let description = error.errorDescription ?? error.caseName
        guard let hint, !hint.isEmpty else { return description }
        return "\(description). \(hint)"
    }

    var exitCode: Int32 { status ?? ScanExitCode.code(for: error) }

    /// `{"error": "<case name>", "message": "…", "retryable": true|false}`.
    func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(Payload(error: error.caseName, message: message, retryable: error.isRetryable))
    }

    private struct Payload: Encodable {
        var error: String
        var message: String
        var retryable: Bool
    }
}
