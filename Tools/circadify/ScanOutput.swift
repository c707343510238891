import Circadify
import Foundation

/// Writes the one final outcome of a scan — the result or the failure — exactly once,
/// even when a second signal races the normal end. With `--json` stdout receives only
/// that one JSON object; otherwise the result goes to stdout and a failure to stderr.
///
/// When stdout cannot take it (closed, a broken pipe, a full disk) the outcome is said on
/// stderr instead, and the call returns the errno, so the command exits 74 rather than 0.
final class ScanOutput: @unchecked Sendable {
    private let json: Bool
    private let display: ScanDisplay?
    private let lock = NSLock()
    private var written = false

    init(json: Bool, display: ScanDisplay?) {
        self.json = json
        self.display = display
    }

    /// 0, or the errno of the failed write to stdout.
    func result(_ result: VitalSignsResult) -> Int32 {
        guard json else { return once { Self.toStdout(ScanReport.text(result), else: "the result") } }
        do {
            let data = try result.jsonData()
            return once { Self.toStdout(String(decoding: data, as: UTF8.self) + "\n", else: "the result") }
        } catch {
            // Only a non-finite number can fail to encode: a bug, reported as one.
            return failure(ScanFailure(error: .unknown("the result could not be written as JSON: \(error)")))
        }
    }

    /// 0, or the errno of the failed write of the JSON object to stdout. `patience`: how
    /// long to wait for an outcome being written meanwhile (a second signal's exit must not
    /// wait for ever on a stdout that blocks); nil waits as long as it takes.
    @discardableResult
    func failure(_ failure: ScanFailure, patience: TimeInterval? = nil) -> Int32 {
        once(patience: patience) {
            guard json, let data = try? failure.jsonData() else {
                Terminal.writeError("circadify scan: \(failure.message)\n")
                return 0
            }
            let error = Self.toStdout(String(decoding: data, as: UTF8.self) + "\n", else: "the error object")
            if error != 0 { Terminal.writeError("circadify scan: \(failure.message)\n") }
            return error
        }
    }

    /// Writes `text` to stdout; when that fails, says on stderr what was lost and why.
    private static func toStdout(_ text: String, else what: String) -> Int32 {
        let error = Terminal.writeOutput(text)
        if error != 0 {
            Terminal.writeError("circadify scan: \(what) could not be written to standard output: "
                + "\(Terminal.reason(error))\n")
        }
        return error
    }

    private func once(patience: TimeInterval? = nil, _ write: () -> Int32) -> Int32 {
        if let patience {
            guard lock.lock(before: Date(timeIntervalSinceNow: patience)) else { return 0 }
        } else {
            lock.lock()
        }
        defer { lock.unlock() }
        guard !written else { return 0 }
        written = true
        display?.finish()
        return write()
    }
}
