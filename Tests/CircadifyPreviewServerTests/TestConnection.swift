import Foundation
import Glibc

/// A plain TCP connection to the server under test, speaking HTTP/1.1 by hand, so the tests
/// see exactly what a browser gets (including a stream that never ends) and can drop the
/// connection at any moment. Reads give up after `timeout`. They block, so they run on a
/// thread of their own (`offPool`): the concurrency pool has one thread per core, and the
/// server's scan requests and the preview's frames need them meanwhile.
final class TestConnection: @unchecked Sendable { // one task uses a connection at a time
    struct Failure: Error, CustomStringConvertible { var description: String }

    private var fd: Int32
    private(set) var received: [UInt8] = []
    /// The server closed the connection (a read saw its end).
    private(set) var closedByServer = false

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard rc == 0 else {
            let message = String(cString: strerror(errno))
            Glibc.close(fd)
            throw Failure(description: "connect to port \(port): \(message)")
        }
    }

    deinit { close() }

    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        guard bytes.withUnsafeBytes({ Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == bytes.count else {
            throw Failure(description: "send: \(String(cString: strerror(errno)))")
        }
    }

    /// Sends a request with no body.
    func request(_ method: String, _ path: String) throws {
        try send("\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n")
    }

    /// Reads until `done(received)` holds, the peer closes, or `timeout` passes; returns whether `done` held.
    @discardableResult
    func read(timeout: Duration = .seconds(5), until done: @escaping @Sendable ([UInt8]) -> Bool) async -> Bool {
        await offPool { self.readBlocking(timeout: timeout, until: done) }
    }

    private func readBlocking(timeout: Duration, until done: ([UInt8]) -> Bool) -> Bool {
        let deadline = ContinuousClock.now + timeout
        var buffer = [UInt8](repeating: 0, count: 65536)
        while !done(received) {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return false }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000)
            guard poll(&poller, 1, max(milliseconds, 1)) > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 {
                closedByServer = true
                return done(received)
            }
            received += buffer.prefix(count)
        }
        return true
    }

    /// Reads a whole response (the server closes after it).
    func response(timeout: Duration = .seconds(10)) async -> (status: Int, headers: String, body: String) {
        await read(timeout: timeout) { _ in false }
        let text = String(decoding: received, as: UTF8.self)
        let parts = text.components(separatedBy: "\r\n\r\n")
        let head = parts.first ?? ""
        let status = head.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        return (status, head, parts.dropFirst().joined(separator: "\r\n\r\n"))
    }

    /// Waits up to `timeout` for the server to close the connection; whether it did.
    func closes(within timeout: Duration) async -> Bool {
        await read(timeout: timeout) { _ in false }
        return closedByServer
    }

    /// Whether the response head has arrived.
    var hasHead: Bool { received.firstRange(of: Array("\r\n\r\n".utf8)) != nil }

    /// How often `marker` occurs in what was received.
    func count(_ marker: String) -> Int {
        let needle = Array(marker.utf8)
        var found = 0, start = received.startIndex
        while let range = received[start...].firstRange(of: needle) {
            found += 1
            start = range.upperBound
        }
        return found
    }

    func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    /// One request and its whole response.
    static func exchange(port: Int, _ method: String, _ path: String) async throws
        -> (status: Int, headers: String, body: String) {
        let connection = try TestConnection(port: port)
        try connection.request(method, path)
        return await connection.response()
    }
}

/// Runs blocking work on a thread of its own, off the concurrency pool.
func offPool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: work()) }.start()
    }
}

/// Polls `condition` every 20 ms for up to `timeout`; whether it came true.
func eventually(isolation: isolated (any Actor)? = #isolation, timeout: Duration = .seconds(5),
                _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return condition()
}
