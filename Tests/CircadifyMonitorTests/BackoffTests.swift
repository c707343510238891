import CircadifyMonitor
import Testing

/// The delays between attempts to reopen a lost camera.
struct BackoffTests {
    @Test func delaysDoubleUpToTheCap() {
        var backoff = Backoff(initial: .milliseconds(500), maximum: .seconds(30))
        let delays = (0..<10).map { _ in backoff.next() }
        #expect(delays == [.milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(16),
                           .seconds(30), .seconds(30), .seconds(30), .seconds(30)])
        #expect(backoff.attempts == 10)
    }

    @Test func resetStartsOverFromTheInitialDelay() {
        var backoff = Backoff(initial: .milliseconds(100), maximum: .seconds(1))
        for _ in 0..<5 { _ = backoff.next() }
        backoff.reset()
        #expect(backoff.attempts == 0)
        #expect(backoff.next() == .milliseconds(100))
        #expect(backoff.next() == .milliseconds(200))
    }

    /// Days of a camera that never comes back: the delay stays at the cap, no overflow.
    @Test func aLongOutageStaysAtTheCap() {
        var backoff = Backoff(initial: .milliseconds(500), maximum: .seconds(30))
        var last = Duration.zero
        for _ in 0..<100_000 { last = backoff.next() }
        #expect(last == .seconds(30))
        #expect(backoff.attempts == 100_000)
    }

    @Test func aCapBelowTwiceTheInitialDelayIsReachedAtOnce() {
        var backoff = Backoff(initial: .seconds(1), maximum: .milliseconds(1500))
        #expect(backoff.next() == .seconds(1))
        #expect(backoff.next() == .milliseconds(1500))
    }
}
