import Circadify
import Foundation
import Glibc

/// Shows a running scan on standard error. On a terminal the status line is redrawn in
/// place about ten times a second; elsewhere (a log, a pipe) a plain line is printed on
/// each phase change and every five seconds. Quality hints are printed when they change.
///
/// Called from the engine's progress callback on any thread, hence the lock.
final class ScanDisplay: @unchecked Sendable {
    private let lock = NSLock()
    private let interactive = Terminal.isInteractive(STDERR_FILENO)
    private var hints: [String] = []
    private var phase: ScanPhase?
    private var lastRedraw = ContinuousClock.now
    private var lastPlainElapsed = -Double.infinity
    private var lineShown = false

    func update(_ progress: ScanProgress) {
        lock.withLock {
            var out = ""
            if progress.hints != hints {
                out += clearLine()
                out += progress.hints.isEmpty && !hints.isEmpty ? "quality: ok\n"
                    : progress.hints.map { "hint: \($0)\n" }.joined()
                hints = progress.hints
            }
            let phaseChanged = progress.phase != phase
            phase = progress.phase
            if interactive {
                let now = ContinuousClock.now
                if phaseChanged || !out.isEmpty || now - lastRedraw >= .milliseconds(100) {
                    lastRedraw = now
                    out += "\r" + ProgressLine.text(progress, width: Terminal.width(STDERR_FILENO)) + "\u{1B}[K"
                    lineShown = true
                }
            } else if phaseChanged || progress.elapsed - lastPlainElapsed >= 5 {
                lastPlainElapsed = progress.elapsed
                out += ProgressLine.text(progress, width: 100) + "\n"
            }
            if !out.isEmpty { Terminal.writeError(out) }
        }
    }

    /// Clears the status line so what follows starts on a clean line.
    func finish() {
        lock.withLock {
            let out = clearLine()
            if !out.isEmpty { Terminal.writeError(out) }
        }
    }

    private func clearLine() -> String {
        guard lineShown else { return "" }
        lineShown = false
        return "\r\u{1B}[K"
    }
}
