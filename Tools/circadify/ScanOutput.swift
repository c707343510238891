import Circadify
import Foundation

/// Writes the one final outcome of a scan — the result or the failure — exactly once,
/// even when a second Ctrl-C races the normal end. With `--json` stdout receives only
/// that one JSON object; otherwise the result goes to stdout and a failure to stderr.
final class ScanOutput: @unchecked Sendable {
    private let json: Bool
    private let display: ScanDisplay?
    private let lock = NSLock()
    private var written = false

    init(json: Bool, display: ScanDisplay?) {
        self.json = json
        self.display = display
    }

    func result(_ result: VitalSignsResult) {
        guard json else { return once { Terminal.writeOutput(ScanReport.text(result)) } }
        do {
            let data = try result.jsonData()
            once { Terminal.writeOutput(String(decoding: data, as: UTF8.self) + "\n") }
        } catch {
            // Only a non-finite number can fail to encode: a bug, reported as one.
            failure(ScanFailure(error: .unknown("the result could not be written as JSON: \(error)")))
        }
    }

    func failure(_ failure: ScanFailure) {
        once {
            if json, let data = try? failure.jsonData() {
                Terminal.writeOutput(String(decoding: data, as: UTF8.self) + "\n")
            } else {
                Terminal.writeError("circadify scan: \(failure.message)\n")
            }
        }
    }

    private func once(_ write: () -> Void) {
        lock.withLock {
            guard !written else { return }
            written = true
            display?.finish()
            write()
        }
    }
}
