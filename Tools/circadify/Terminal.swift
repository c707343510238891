import Foundation
import Glibc

/// The standard streams, written so that a closed, full or broken output is an error the
/// command reports (exit 74), never a trap or a silent loss.
enum Terminal {
    /// The standard streams (0, 1, 2) that were closed when the process started. Each is
    /// reopened on /dev/null at once, so no file or camera the command opens later can take
    /// its number (a result written to "stdout" must never land in a video file or a camera).
    /// Also ignores SIGPIPE: a reader that went away is EPIPE from `write`, handled where
    /// the write is, instead of killing the process with its camera open. Read it first thing.
    static let closedAtStart: Set<Int32> = {
        signal(SIGPIPE, SIG_IGN)
        var closed = Set<Int32>()
        for fd in Int32(0)...2 where fcntl(fd, F_GETFD) == -1 && errno == EBADF {
            closed.insert(fd)
            let null = open("/dev/null", O_RDWR)
            if null >= 0, null != fd { dup2(null, fd); close(null) }
        }
        return closed
    }()

    /// Writes all of `text` to `fd`: 0, or the errno that stopped it (EPIPE, ENOSPC, EBADF, EIO).
    @discardableResult
    static func write(_ text: String, to fd: Int32) -> Int32 {
        if closedAtStart.contains(fd) { return EBADF }
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if written >= 0 {
                bytes = bytes.dropFirst(written)
                continue
            }
            switch errno {
            case EINTR: continue
            case EAGAIN: // a non-blocking descriptor inherited from the caller: wait until it drains
                var ready = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                if poll(&ready, 1, 5000) <= 0 { return EAGAIN }
            case let error: return error
            }
        }
        return 0
    }

    /// Diagnostics to stderr; a failure there has nowhere to be reported, so it is ignored.
    static func writeError(_ text: String) { write(text, to: STDERR_FILENO) }

    /// The result to stdout: 0 or the errno of the failed write.
    static func writeOutput(_ text: String) -> Int32 { write(text, to: STDOUT_FILENO) }

    /// "Broken pipe", "No space left on device", ...
    static func reason(_ error: Int32) -> String { String(cString: strerror(error)) }

    /// stdout's reader has gone (a closed pipe or socket, a hung-up terminal): any result
    /// written there would be lost, so a running scan stops.
    static func outputGone() -> Bool {
        if closedAtStart.contains(STDOUT_FILENO) { return true }
        var state = pollfd(fd: STDOUT_FILENO, events: 0, revents: 0)
        return poll(&state, 1, 0) == 1 && state.revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0
    }

    /// A person is watching this stream (so it can be redrawn in place).
    static func isInteractive(_ fd: Int32) -> Bool { isatty(fd) == 1 }

    /// Columns of the terminal on `fd`; 80 when it is not one or does not say.
    static func width(_ fd: Int32) -> Int {
        var size = winsize()
        guard ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
    }
}
