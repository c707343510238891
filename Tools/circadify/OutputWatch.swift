import Dispatch

/// Watches stdout while a scan runs: when its reader goes away (a closed pipe, say
/// `circadify scan | head -1` ending), the result could only be lost, so `onGone` stops the
/// scan, as a signal would, instead of measuring on for nothing.
final class OutputWatch: @unchecked Sendable {
    private let queue = DispatchQueue(label: "circadify.output-watch")
    private let timer: DispatchSourceTimer
    private var gone = false // only touched on `queue`

    init(every interval: DispatchTimeInterval = .milliseconds(250), onGone: @escaping @Sendable () -> Void) {
        timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now(), repeating: interval)
        timer.setEventHandler { [unowned self] in
            guard !gone, Terminal.outputGone() else { return }
            gone = true
            onGone()
        }
        timer.resume()
    }

    /// Stops watching; true when stdout went away while it watched.
    func stop() -> Bool {
        queue.sync {
            timer.cancel()
            return gone
        }
    }
}
