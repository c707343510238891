import CCore
import Foundation
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

/// Turns the core's sample eventfd into an awaitable wake-up. A thread of its
/// own blocks in poll(2) on a duplicate of the fd and wakes the consumer: one
/// hop a frame (a dispatch source took two, its manager thread's and a worker's,
/// most of a paced scan's scheduling). `deinit` signals and closes one end of a
/// socket pair the thread polls, which ends it; the thread closes its descriptors.
final class SampleWakeup: Sendable {
    private final class Signal: Sendable {
        struct State {
            var waiter: CheckedContinuation<Void, Never>?
            var pending = false
            /// False once the thread has ended: waits fall back to napping.
            var watching = true
        }
        let state = Mutex(State())

        var isWatching: Bool { state.withLock { $0.watching } }

        /// The thread has ended (an unusable descriptor, or `deinit`): no signal comes
        /// any more, so a consumer waiting now is woken and the next ones nap instead.
        func stopWatching() {
            state.withLock { $0.watching = false }
            fire()
        }

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
    }

    private let signal = Signal()
    /// Our end of the socket pair that ends the thread, closed by `deinit`; -1 without a thread.
    private let quit: Int32

    init(fd: Int32) {
        let own = fd >= 0 ? fcntl(fd, F_DUPFD_CLOEXEC, 0) : -1
        // A socket pair, not a pipe: created close-on-exec in one call (pipe2 is not in
        // Glibc's Swift module), and `deinit`'s send cannot raise SIGPIPE.
        var ends: [Int32] = [-1, -1]
        let kind = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        guard own >= 0, socketpair(AF_UNIX, kind, 0, &ends) == 0 else {
            if own >= 0 { close(own) }
            quit = -1
            return
        }
        quit = ends[1]
        let ended = ends[0], signal = self.signal
        let thread = Thread {
            Self.nameThisThread("circadify-wake")
            Self.watch(own, quit: ended, signal: signal)
            signal.stopWatching()
            close(own)
            close(ended)
        }
        thread.start()
    }

    deinit {
        guard quit >= 0 else { return }
        // A byte, not only the hang-up, which a forked child still holding this end
        // would withhold; no SIGPIPE if the thread has already gone.
        var byte: UInt8 = 0
        _ = send(quit, &byte, 1, Int32(MSG_NOSIGNAL))
        close(quit)
    }

    /// Names the calling thread as `top -H`, `perf` and /proc show it. Foundation's
    /// `Thread.name` does not reach the OS thread on Linux, and Glibc's module has no
    /// `pthread_setname_np`; a thread may write its own name here (proc(5)), of which
    /// Linux keeps 15 bytes.
    private static func nameThisThread(_ name: String) {
        let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        let bytes = Array(name.utf8.prefix(15))
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    /// Until `quit` (the thread's end of the socket pair) is signalled or hangs up:
    /// each signal of `fd` drained and passed on.
    private static func watch(_ fd: Int32, quit: Int32, signal: Signal) {
        var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: quit, events: Int16(POLLIN), revents: 0)]
        while true {
            let ready = poll(&fds, 2, -1)
            if ready < 0 {
                if errno == EINTR { continue }
                return
            }
            if fds[1].revents != 0 { return }
            if fds[0].revents & Int16(POLLIN) != 0 {
                var count: UInt64 = 0
                _ = read(fd, &count, MemoryLayout<UInt64>.size)
                signal.fire()
            } else if fds[0].revents != 0 {
                return // POLLERR / POLLNVAL: the descriptor is unusable
            }
        }
    }

    /// Wakes the waiting consumer, or the next one to wait.
    func fire() { signal.fire() }

    /// Returns at the next signal (at once if one came since the last wait),
    /// or when the task is cancelled. Without a descriptor, or a thread watching
    /// it, it naps 1 ms.
    func wait() async {
        guard quit >= 0, signal.isWatching else {
            try? await Task.sleep(for: .milliseconds(1))
            return
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now: Bool = signal.state.withLock { state in
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
