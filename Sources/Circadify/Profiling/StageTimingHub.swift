import Glibc
import Synchronization

/// The observers of one camera's stage timings: each `stageTimings()` stream
/// registers here, and the scan driver hands every frame's `StageTiming` to
/// all of them. While nobody observes, `isObserved` is false and the pipeline
/// takes no clock readings for it.
package final class StageTimingHub: Sendable {
    private let observers = Mutex([Int: AsyncStream<StageTiming>.Continuation]())
    private let nextID = Atomic<Int>(0)
    private let count = Atomic<Int>(0)

    package init() {}

    /// True while at least one stream is open (one atomic load: asked every frame).
    package var isObserved: Bool { count.load(ordering: .relaxed) > 0 }

    /// A new stream of timings, keeping the newest `limit` for a slow reader;
    /// it ends when the reader stops iterating (or drops it).
    package func stream(bufferingNewest limit: Int) -> AsyncStream<StageTiming> {
        let (stream, continuation) = AsyncStream<StageTiming>.makeStream(bufferingPolicy: .bufferingNewest(max(limit, 1)))
        let id = nextID.add(1, ordering: .relaxed).newValue
        observers.withLock { $0[id] = continuation }
        count.add(1, ordering: .relaxed)
        continuation.onTermination = { [weak self] _ in self?.remove(id) }
        return stream
    }

    /// Yields outside the lock. A yield resumes the reader's task, which takes that task's
    /// status lock; cancelling the task holds that lock while its stream's `onTermination`
    /// calls `remove`, which takes this one. Yielding under this lock took the two in the
    /// opposite order and deadlocked (a monitor stopping its feed, seen in a sanitized CI run).
    package func yield(_ timing: StageTiming) {
        let continuations = observers.withLock { Array($0.values) }
        for continuation in continuations { continuation.yield(timing) }
    }

    private func remove(_ id: Int) {
        let removed = observers.withLock { $0.removeValue(forKey: id) != nil }
        if removed { count.subtract(1, ordering: .relaxed) }
    }

    /// CLOCK_MONOTONIC now, nanoseconds: the clock of buffer timestamps and the core's stage times.
    package static func now() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }
}
