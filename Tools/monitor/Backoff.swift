/// How long to wait before each attempt to reopen a lost camera: doubling from
/// `initial` up to `maximum`, so a camera plugged back in is found within a
/// second or two while one gone for good costs a try every `maximum` at most.
public struct Backoff: Sendable, Equatable {
    public let initial: Duration
    public let maximum: Duration
    /// Attempts since the last `reset()`.
    public private(set) var attempts = 0

    public init(initial: Duration = .milliseconds(500), maximum: Duration = .seconds(30)) {
        precondition(initial > .zero && maximum >= initial, "a backoff grows from a positive initial delay")
        self.initial = initial
        self.maximum = maximum
    }

    /// The delay before the next attempt; each call counts one attempt.
    public mutating func next() -> Duration {
        // The exponent is capped too, so a long outage never overflows.
        let delay = initial * (1 << min(attempts, 30))
        attempts += 1
        return min(delay, maximum)
    }

    /// Starts over from `initial` (the camera came back).
    public mutating func reset() { attempts = 0 }
}
