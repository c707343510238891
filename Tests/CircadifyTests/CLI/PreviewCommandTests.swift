import CCoreTestSupport
import Foundation
import Glibc
import Testing

/// `circadify preview` as a person runs it: clear errors for what cannot work (exit status
/// and message), and a clean stop on SIGINT or SIGTERM that frees the port.
@Suite(.serialized) struct PreviewCommandTests {
    @Test func aMissingCameraIsNamed() async throws {
        let run = try await CLIProcess.run(["preview", "--device", "/dev/video99", "--port", "0"])
        #expect(!run.signalled)
        #expect(run.status == 10, "cameraNotAvailable: \(run.stderr)")
        #expect(run.stderr.contains("/dev/video99: No camera on this device"), "\(run.stderr)")
        #expect(run.stderr.contains("circadify devices"))
    }

    @Test func aMissingFileIsNamed() async throws {
        let run = try await CLIProcess.run(["preview", "--input", "/nonexistent/clip.y4m", "--port", "0"])
        #expect(run.status == 30, "captureFailed: \(run.stderr)")
        #expect(run.stderr.contains("cannot open /nonexistent/clip.y4m: No such file or directory"), "\(run.stderr)")
    }

    @Test(arguments: [
        (["--bind", "localhost"], "'localhost' is not an IP address"),
        (["--bind", "10.1.2.3.4"], "'10.1.2.3.4' is not an IP address"),
        (["--port", "70000"], "a port is a whole number from 1 to 65535"),
        (["--port", "-1"], "a port is a whole number from 1 to 65535"),
        (["--device", "/dev/video0", "--input", "a.y4m"], "give --device or --input, not both"),
        (["--duration", "2"], "a duration is a number of seconds from 5"),
    ])
    func badArgumentsAreUsageErrors(_ arguments: [String], _ message: String) async throws {
        let run = try await CLIProcess.run(["preview"] + arguments)
        #expect(run.status == 64)
        #expect(run.stderr.contains(message), "\(arguments): \(run.stderr)")
    }

    @Test func aPortInUseIsNamed() async throws {
        let listener = try Listener()
        // The port is taken before anything is opened: the file does not even need to exist.
        let run = try await CLIProcess.run(["preview", "--input", "/nonexistent.y4m", "--port", String(listener.port)])
        #expect(run.status == 69)
        #expect(run.stderr.contains("port \(listener.port) on 127.0.0.1 is already in use"), "\(run.stderr)")
    }

    /// Listening beyond this machine is the user's choice, and said so: anyone who can
    /// reach it can watch the camera and start scans.
    @Test func listeningOnEveryNetworkIsWarnedOf() async throws {
        let clip = try await ReplayClip.render("still", seconds: 4)
        defer { clip.cleanUp() }
        let port = try Listener().port
        var served = false
        let run = try await CLIProcess.run(["preview", "--input", clip.path, "--bind", "0.0.0.0", "--port", String(port)],
                                           timeout: .seconds(60)) { process in
            served = try await Self.waitUntilServed(port: port, by: process)
            kill(process.processIdentifier, SIGTERM)
        }
        #expect(served && run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("listening on every network of this machine: anyone who can reach it can watch the camera and start scans, with no password"), "\(run.stderr)")
        #expect(run.stderr.contains("http://ADDRESS:\(port)/"), "\(run.stderr)")
    }

    @Test func anAddressOfAnotherMachineIsNamed() async throws {
        let run = try await CLIProcess.run(["preview", "--bind", "192.0.2.1", "--port", "0"])
        #expect(run.status == 69)
        #expect(run.stderr.contains("192.0.2.1 is not an address of this machine"), "\(run.stderr)")
    }

    /// Also when the signal comes twice a millisecond apart, as `timeout` sends it (to the
    /// command, then to its process group): one request, a clean stop, not a forced exit.
    @Test(arguments: [(SIGTERM, false), (SIGINT, false), (SIGTERM, true)])
    func aSignalStopsTheServerCleanlyAndFreesThePort(_ signal: Int32, twice: Bool) async throws {
        let clip = try await ReplayClip.render("still", seconds: 6)
        defer { clip.cleanUp() }
        let port = try Listener().port // free again once the listener is gone
        var served = false
        let run = try await CLIProcess.run(["preview", "--input", clip.path, "--port", String(port)],
                                           timeout: .seconds(60)) { process in
            served = try await Self.waitUntilServed(port: port, by: process)
            kill(process.processIdentifier, signal)
            if twice {
                usleep(1000)
                kill(process.processIdentifier, signal)
            }
        }
        #expect(served, "the page was served on port \(port): \(run.stderr)")
        #expect(!run.signalled)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("http://127.0.0.1:\(port)/"))
        #expect(run.stderr.contains("stopped, camera released"), "\(run.stderr)")
        #expect(throws: Never.self, "the port is free again") { _ = try Listener(port: port) }
    }

    /// A file whose last frame is cut short is played again from the start, as any file is,
    /// and says so once, not on every loop (it used to loop without a word).
    @Test func aTruncatedFileSaysSoOnceAndLoops() async throws {
        let frame = Y4M.flatFrame420(width: 32, height: 24, y: 120, cb: 128, cr: 128)
        let whole = Y4M.file(width: 32, height: 24, frames: Array(repeating: frame, count: 10))
        let clip = try TemporaryFile(named: "cut.y4m", contents: Array(whole.dropLast(500)))
        defer { clip.cleanUp() }
        let port = try Listener().port
        var served = false
        let run = try await CLIProcess.run(["preview", "--input", clip.path, "--port", String(port)],
                                           timeout: .seconds(60)) { process in
            served = try await Self.waitUntilServed(port: port, by: process)
            try await Task.sleep(for: .seconds(3)) // a third of a second a loop: several loops
            kill(process.processIdentifier, SIGTERM)
        }
        #expect(served && run.status == 0, "\(run.stderr)")
        let told = run.stderr.components(separatedBy: "frame 9 is truncated").count - 1
        #expect(told == 1, "said once: \(run.stderr)")
        #expect(run.stderr.contains("circadify preview: \(clip.path): frame 9 is truncated")
                || run.stderr.contains("Frame capture failed: \(clip.path): frame 9 is truncated"), "\(run.stderr)")
        #expect(run.stderr.components(separatedBy: clip.path).count - 1 == 1, "the file named once: \(run.stderr)")
        #expect(run.stderr.contains("playing it again from the start"), "\(run.stderr)")
    }

    /// Whether the page comes up on `port` within 30 s (false: the process ended or never served).
    private static func waitUntilServed(port: Int, by process: Process) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline, process.isRunning {
            if answers(port: port) { return true }
            try await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    /// Whether GET / on the port answers 200.
    private static func answers(port: Int) -> Bool {
        guard let listener = try? Listener.connect(port: port) else { return false }
        defer { close(listener) }
        var wait = timeval(tv_sec: 2, tv_usec: 0) // never hold a pool thread long on a server that hangs
        setsockopt(listener, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        let request = Array("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        _ = request.withUnsafeBytes { send(listener, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = buffer.withUnsafeMutableBytes { recv(listener, $0.baseAddress, $0.count, 0) }
        return count > 0 && String(decoding: buffer.prefix(count), as: UTF8.self).hasPrefix("HTTP/1.1 200")
    }
}
