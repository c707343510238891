import Dispatch
import Foundation
import Synchronization
import Testing
@testable import Circadify

/// A reader's task cancelled while the capture side yields timings to it. The hub once
/// yielded under its lock: the yield waited for the reader task's status lock while the
/// cancel held that lock and waited, in the stream's `onTermination`, for the hub's.
/// The race runs on plain threads, and a `cancel()` that has not returned after 10 s
/// fails the test instead of hanging the suite. (`cancel()` needs no pool thread, so a
/// busy suite cannot slow it that much.) The old hub hung in each of five runs, after 1 to
/// 42 rounds.
@Suite struct StageTimingHubRaceTests {
    /// What the racing threads and the test share.
    final class Race: Sendable {
        let hub = StageTimingHub()
        let stop = Atomic<Bool>(false)
        /// From a reader's start to its cancel's return: the yielder spins only then,
        /// not for the whole test (its CPU would slow the suite's other tests).
        let racing = Atomic<Bool>(false)
        let yields = Atomic<Int>(0)
        let roundsDone = Atomic<Int>(0)
        /// When the canceller entered `cancel()` (monotonic ns), 0 while it is outside.
        let cancellingSince = Atomic<Int64>(0)
        let aReaderNeverEnded = Atomic<Bool>(false)
        let cancellerFinished = Atomic<Bool>(false)
    }

    @Test func cancellingAReaderWhileTimingsAreYieldedNeverHangs() async throws {
        let race = Race(), rounds = 300
        let yielder = Thread {
            var sequence: UInt64 = 0
            while !race.stop.load(ordering: .relaxed), !race.cancellerFinished.load(ordering: .relaxed) {
                guard race.racing.load(ordering: .relaxed) else {
                    usleep(50)
                    continue
                }
                sequence += 1
                race.hub.yield(StageTiming(sequence: sequence, captureNanoseconds: 1, frameIntervalNanoseconds: 0))
                race.yields.add(1, ordering: .relaxed)
            }
        }
        let canceller = Thread {
            defer { race.cancellerFinished.store(true, ordering: .releasing) }
            for round in 0..<rounds {
                race.racing.store(true, ordering: .relaxed)
                let stream = race.hub.stream(bufferingNewest: 1)
                let ended = DispatchSemaphore(value: 0)
                // High priority: ahead of the suite's queued work on a busy pool.
                let reader = Task.detached(priority: .high) {
                    for await _ in stream {}
                    ended.signal()
                }
                // Cancel at varied moments: as the reader starts, waits or takes a timing.
                if round % 4 != 0 { usleep(UInt32(round % 50)) }
                race.cancellingSince.store(StageTimingHub.now(), ordering: .releasing)
                reader.cancel()
                race.cancellingSince.store(0, ordering: .releasing)
                race.racing.store(false, ordering: .relaxed)
                // The reader's end needs a pool thread, which a busy suite can hold for a while.
                guard ended.wait(timeout: .now() + 60) == .success else {
                    return race.aReaderNeverEnded.store(true, ordering: .releasing)
                }
                race.roundsDone.add(1, ordering: .relaxed)
            }
        }
        yielder.start()
        canceller.start()
        var deadlocked = false
        while !race.cancellerFinished.load(ordering: .acquiring) {
            let since = race.cancellingSince.load(ordering: .acquiring)
            if since != 0, StageTimingHub.now() - since > 10_000_000_000 {
                deadlocked = true
                break
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        race.stop.store(true, ordering: .relaxed)
        let done = race.roundsDone.load(ordering: .relaxed)
        let readerNeverEnded = race.aReaderNeverEnded.load(ordering: .acquiring)
        #expect(!deadlocked, "cancel() has not returned for 10 s, after \(done) rounds: a deadlock")
        #expect(!readerNeverEnded, "a cancelled reader did not end within 60 s")
        #expect(done == rounds)
        #expect(race.yields.load(ordering: .relaxed) > 0, "the yielder ran")
        #expect(deadlocked || !race.hub.isObserved, "every cancelled stream left the hub")
    }
}
