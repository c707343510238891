import Dispatch
import Glibc

/// Turns SIGINT, SIGTERM and SIGHUP into calls while a scan runs, instead of killing the process
/// with the camera open. The first signal asks for a clean stop; a later one means the
/// clean stop is not happening (something hangs), so `again` runs and should exit at once.
/// One sent twice at once is one request: `timeout` signals the command and then its whole
/// process group, and a supervisor may do the same, a few microseconds apart.
/// (The `circadify` commands and `circadify-latency` share it.)
public final class SignalTrap: @unchecked Sendable {
    /// Repeats within this long of the first signal are the same request.
    static let sameRequest = Duration.milliseconds(250)

    private let queue = DispatchQueue(label: "circadify.signals")
    private let signals: [Int32]
    private var sources: [DispatchSourceSignal] = []
    private var first: Int32?   // only touched on `queue`
    private var firstAt = ContinuousClock.now   // only touched on `queue`

    public init(_ signals: [Int32], first onFirst: @escaping @Sendable (Int32) -> Void,
         again onAgain: @escaping @Sendable (Int32) -> Void) {
        self.signals = signals
        // A process started from a thread that blocks these (a test runner's pool thread, some
        // supervisors) starts with them blocked; this thread takes them, as every thread of a
        // program started from a shell would.
        var blocked = sigset_t()
        sigemptyset(&blocked)
        for number in signals { sigaddset(&blocked, number) }
        pthread_sigmask(SIG_UNBLOCK, &blocked, nil)
        for number in signals {
            // The default action would end the process before the source sees the signal.
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { [weak self] in
                guard let self else { return }
                if first == nil {
                    first = number
                    firstAt = .now
                    onFirst(number)
                } else if ContinuousClock.now - firstAt >= Self.sameRequest {
                    onAgain(number)
                }
            }
            source.resume()
            sources.append(source)
        }
    }

    /// The first signal that arrived, if any.
    public var received: Int32? { queue.sync { first } }

    /// Stops trapping: signals act as usual again.
    public func release() {
        queue.sync {
            for source in sources { source.cancel() }
            sources.removeAll()
        }
        for number in signals { signal(number, SIG_DFL) }
    }

    public static func name(_ number: Int32) -> String {
        switch number {
        case SIGINT: "SIGINT (Ctrl-C)"
        case SIGTERM: "SIGTERM"
        case SIGHUP: "SIGHUP (the terminal or session closed)"
        default: "signal \(number)"
        }
    }
}
