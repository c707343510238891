import NIOCore

/// What one client can hold of an HTTP server that answers one request per connection
/// (the preview's, the monitor's metrics endpoint).
public struct ConnectionLimits: Sendable, Equatable {
    /// Connections open at once; beyond them a new connection is closed unanswered.
    public var maximumConnections: Int
    /// How long a connection has to send its whole request; then it is closed. What the
    /// request asked for (a stream, say) then runs for as long as it needs.
    public var requestTimeout: Duration

    public init(maximumConnections: Int = 64, requestTimeout: Duration = .seconds(10)) {
        self.maximumConnections = maximumConnections
        self.requestTimeout = requestTimeout
    }

    var requestTimeAmount: TimeAmount {
        let (seconds, attoseconds) = requestTimeout.components
        return .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
