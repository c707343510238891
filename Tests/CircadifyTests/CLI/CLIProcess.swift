import Foundation
import Glibc
import Testing

/// Runs the built `circadify` binary and collects what it printed.
///
/// The binary is found beside the test runner (`.build/<triple>/debug/`), where
/// `swift build` and `swift test` put every product of the package; set
/// `CIRCADIFY_BINARY` to test another build. A missing binary fails the test with the
/// command that builds it, never skips it.
struct CLIProcess {
    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
        /// The process ended by a signal rather than by exiting.
        var signalled: Bool
    }

    /// `product`'s binary: beside the test runner, or `CIRCADIFY_BINARY` for `circadify`.
    static func binary(_ product: String = "circadify") throws -> URL {
        if product == "circadify", let path = ProcessInfo.processInfo.environment["CIRCADIFY_BINARY"], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        let runner = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let candidate = runner.deletingLastPathComponent().appendingPathComponent(product)
        try #require(FileManager.default.isExecutableFile(atPath: candidate.path),
                     "no \(product) binary at \(candidate.path): run `swift build --product \(product)` first")
        return candidate
    }

    /// Runs `circadify arguments` (or another of the package's programs, `product`);
    /// `whileRunning` may signal the process. Kills it after `timeout`.
    static func run(_ arguments: [String], product: String = "circadify", timeout: Duration = .seconds(120),
                    whileRunning: (Process) async throws -> Void = { _ in }) async throws -> Output {
        try await launch(try binary(product), arguments, timeout: timeout, whileRunning: whileRunning)
    }

    /// Runs `script` with /bin/sh, the binary's path in `$CIRCADIFY`: for what `Process` cannot
    /// set up, such as a closed stdout (`>&-`), a full disk (`>/dev/full`) or a reader that quits.
    static func shell(_ script: String, timeout: Duration = .seconds(120)) async throws -> Output {
        var environment = ProcessInfo.processInfo.environment
        environment["CIRCADIFY"] = try binary().path
        return try await launch(URL(fileURLWithPath: "/bin/sh"), ["-c", script], environment: environment,
                                timeout: timeout)
    }

    private static func launch(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil,
                               timeout: Duration,
                               whileRunning: (Process) async throws -> Void = { _ in }) async throws -> Output {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Drain both pipes while it runs so a chatty process never blocks on a full pipe.
        let stdout = PipeReader(out.fileHandleForReading), stderr = PipeReader(err.fileHandleForReading)
        try await whileRunning(process)
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            if ContinuousClock.now > deadline {
                process.terminate()
                Issue.record("\(executable.lastPathComponent) \(arguments.joined(separator: " ")) still running after \(timeout); killed")
                break
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        process.waitUntilExit()
        return Output(status: process.terminationStatus,
                      stdout: String(decoding: await stdout.data(), as: UTF8.self),
                      stderr: String(decoding: await stderr.data(), as: UTF8.self),
                      signalled: process.terminationReason == .uncaughtSignal)
    }

    /// The one JSON object a `--json` run printed, with nothing else on stdout.
    /// Sends `signal` to process `pid` once `ready()` holds (checked every 20 ms, for up to
    /// `timeout`) and `settle` more has passed. It waits on a thread of its own: a loaded test
    /// run's pool wakes a sleeping task late, after the child may have finished.
    static func signal(_ pid: Int32, _ signal: Int32, once ready: @escaping @Sendable () -> Bool,
                       settle: Duration = .seconds(1), timeout: Duration = .seconds(120)) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread {
                let deadline = ContinuousClock.now + timeout
                while !ready(), ContinuousClock.now < deadline { usleep(20_000) }
                let (seconds, attoseconds) = settle.components
                usleep(useconds_t(seconds * 1_000_000 + attoseconds / 1_000_000_000_000))
                kill(pid, signal)
                done.resume()
            }.start()
        }
    }

    static func jsonObject(_ output: Output) throws -> [String: Any] {
        let text = output.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(!text.contains("\n"), "stdout holds more than one line: \(output.stdout)")
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8))
        return try #require(object as? [String: Any], "stdout is not one JSON object: \(output.stdout)")
    }

    /// Exit codes by error case name, read from `circadify scan --help`.
    static func exitCodeTable() async throws -> [String: Int32] {
        let help = try await run(["scan", "--help"])
        var table = [String: Int32]()
        for line in help.stdout.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count == 2, let code = Int32(fields[0]), fields[1].allSatisfy(\.isLetter) else { continue }
            table[String(fields[1])] = code
        }
        return table
    }
}

/// Reads a pipe to its end on a thread of its own (blocking reads must not sit on the
/// concurrency pool, which has one thread per core).
private final class PipeReader: @unchecked Sendable {
    private let done = DispatchGroup()
    private var contents = Data()

    init(_ handle: FileHandle) {
        done.enter()
        Thread {
            self.contents = handle.readDataToEndOfFile()
            self.done.leave()
        }.start()
    }

    func data() async -> Data {
        await withCheckedContinuation { continuation in
            done.notify(queue: .global()) { continuation.resume(returning: self.contents) }
        }
    }
}
