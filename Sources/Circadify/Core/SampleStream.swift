import CCore
import Dispatch
import Glibc
import Synchronization

/// The samples of a running source, pulled from the core's ring one at a time.
///
/// Nothing is buffered on the Swift side: a consumer that falls behind leaves
/// samples in the ring, and a camera then counts ring overflows instead of
/// this process growing. When the ring is empty `next()` sleeps until the
/// capture thread signals its eventfd (no polling). In a lockstep replay,
/// asking for the next sample tells the capture thread the previous one has
/// been handled, so regions published meanwhile apply from the next frame.
///
/// The sequence ends when a file is finished or the source is stopped, and
/// throws the core's error when capture fails. One consumer.
package struct SampleStream: AsyncSequence, Sendable {
    package typealias Element = FrameSample
    let handle: SourceHandle
    let wakeup: SampleWakeup

    package func makeAsyncIterator() -> Iterator { Iterator(handle: handle, wakeup: wakeup) }

    package struct Iterator: AsyncIteratorProtocol {
        let handle: SourceHandle
        let wakeup: SampleWakeup
        private var handedOut = false
        private var ended = false

        init(handle: SourceHandle, wakeup: SampleWakeup) {
            self.handle = handle
            self.wakeup = wakeup
        }

        package mutating func next() async throws -> FrameSample? {
            guard !ended else { return nil }
            if handedOut { ccore_source_ack(handle.raw) }
            handedOut = false
            guard let ring = ccore_source_ring(handle.raw) else { return finish() }
            var sample = ccore_frame_sample()
            while true {
                // A cancelled consumer ends the sequence even with samples waiting:
                // one that runs behind would otherwise read on to the end of a file.
                if Task.isCancelled { return finish() }
                if ccore_ring_pop(ring, &sample) {
                    handedOut = true
                    return FrameSample(sample)
                }
                // The state is read before the last pop: whatever the thread
                // pushed before it ended is in the ring by then.
                var stats = ccore_source_stats()
                ccore_source_get_stats(handle.raw, &stats)
                switch stats.state {
                case CCORE_SOURCE_FINISHED, CCORE_SOURCE_STOPPED, CCORE_SOURCE_FAILED:
                    if ccore_ring_pop(ring, &sample) {
                        handedOut = true
                        return FrameSample(sample)
                    }
                    if stats.state == CCORE_SOURCE_FAILED {
                        ended = true
                        throw CoreError(code: stats.error, message: handle.lastErrorMessage)
                    }
                    return finish()
                default:
                    break
                }
                await wakeup.wait()
            }
        }

        private mutating func finish() -> FrameSample? {
            ended = true
            return nil
        }
    }
}

/// Turns the core's sample eventfd into an awaitable wake-up. The fd is
/// duplicated so the dispatch source owns its own descriptor and closes it
/// in its cancel handler, whenever the C handle closes the original.
/// `@unchecked`: the dispatch source is set up in `init` and cancelled in
/// `deinit`, never touched in between; the rest of the state is in a Mutex.
final class SampleWakeup: @unchecked Sendable {
    private struct State {
        var waiter: CheckedContinuation<Void, Never>?
        var pending = false
    }
    private let state = Mutex(State())
    private let source: DispatchSourceRead?

    init(fd: Int32) {
        let own = fd >= 0 ? dup(fd) : -1
        guard own >= 0 else {
            source = nil
            return
        }
        let source = DispatchSource.makeReadSource(fileDescriptor: own, queue: .global(qos: .userInteractive))
        self.source = source
        source.setEventHandler { [weak self] in
            var count: UInt64 = 0
            _ = read(own, &count, MemoryLayout<UInt64>.size)
            self?.fire()
        }
        source.setCancelHandler { close(own) }
        source.resume()
    }

    deinit { source?.cancel() }

    /// Wakes the waiting consumer, or the next one to wait.
    func fire() {
        let waiting: CheckedContinuation<Void, Never>? = state.withLock { state in
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.pending = true
            return nil
        }
        waiting?.resume()
    }

    /// Returns at the next signal (at once if one came since the last wait),
    /// or when the task is cancelled. Without a descriptor it naps 1 ms.
    func wait() async {
        guard source != nil else {
            try? await Task.sleep(for: .milliseconds(1))
            return
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now: Bool = state.withLock { state in
                    if state.pending || Task.isCancelled {
                        state.pending = false
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            fire()
        }
    }
}
