import NIOConcurrencyHelpers

/// Counts a server's open connections against `ConnectionLimits.maximumConnections`. Each
/// connection is a file descriptor, and a board's process has 1024: without a cap, a
/// program that opens connections and never finishes a request would take them all, and
/// the camera could not be opened again.
public final class ConnectionGate: Sendable {
    private struct Counts {
        var open = 0
        var refused = 0
    }

    public let limits: ConnectionLimits
    private let counts = NIOLockedValueBox(Counts())

    public init(limits: ConnectionLimits) {
        self.limits = limits
    }

    /// Connections open now.
    public var openCount: Int { counts.withLockedValue { $0.open } }
    /// Connections closed unanswered because `maximumConnections` were open.
    public var refusedCount: Int { counts.withLockedValue { $0.refused } }

    /// Lets one more connection in, or counts it refused when the maximum are open.
    func enter() -> Bool {
        counts.withLockedValue { counts in
            guard counts.open < limits.maximumConnections else {
                counts.refused += 1
                return false
            }
            counts.open += 1
            return true
        }
    }

    /// A connection that `enter` let in has closed.
    func leave() {
        counts.withLockedValue { $0.open -= 1 }
    }
}
