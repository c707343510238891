import CCoreTestSupport
import Foundation
import Glibc
import Testing

/// What ends a command from outside — a closed, full or broken output, SIGHUP — ends it the
/// way Ctrl-C does: cleanly, with a documented exit status and a reason, never a trap.
@Suite(.serialized) struct OutputAndSignalTests {
    static let outputFailed: Int32 = 74

    /// A face-free 32x24 clip of `seconds` at 30 fps: a scan of it runs (and, with
    /// --realtime, takes) its whole duration, then fails with faceNotDetected.
    static func flatClip(seconds: Int) throws -> TemporaryFile {
        let frame = Y4M.flatFrame420(width: 32, height: 24, y: 120, cb: 128, cr: 128)
        let video = Y4M.file(width: 32, height: 24, frames: Array(repeating: frame, count: seconds * 30))
        return try TemporaryFile(named: "wall.y4m", contents: video)
    }

    static var photo: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures/faces/astronaut-320x240.jpg").path
    }

    @Test func scanResultToAFullDiskIsSaidOnStderr() async throws {
        let run = try await CLIProcess.shell(#""$CIRCADIFY" scan --json --input /nonexistent/clip.y4m >/dev/full"#)
        #expect(!run.signalled)
        #expect(run.status == 30, "a failed scan keeps its own code: \(run.stderr)")
        #expect(run.stderr.contains("could not be written to standard output: No space left on device"))
        #expect(run.stderr.contains("/nonexistent/clip.y4m"), "the failure itself is still said: \(run.stderr)")
    }

    @Test func scanWithStdoutClosedDoesNotStart() async throws {
        let clip = try Self.flatClip(seconds: 6)
        defer { clip.cleanUp() }
        let run = try await CLIProcess.shell(#""$CIRCADIFY" scan --json --input "\#(clip.path)" --duration 6 >&-"#)
        #expect(!run.signalled)
        #expect(run.status == Self.outputFailed)
        #expect(run.stderr.contains("standard output is closed"), "\(run.stderr)")
    }

    @Test func scanWithStderrClosedStillDeliversItsResult() async throws {
        let run = try await CLIProcess.shell(#""$CIRCADIFY" scan --json --input /nonexistent/clip.y4m 2>&-"#)
        #expect(!run.signalled)
        #expect(run.status == 30)
        #expect(try CLIProcess.jsonObject(run)["error"] as? String == "captureFailed")
    }

    /// `circadify scan | head -1` ending: the scan stops at once (it would otherwise run the
    /// whole minute of --realtime) and says why, exit 74.
    @Test func scanStopsWhenItsReaderGoes() async throws {
        let clip = try Self.flatClip(seconds: 62)
        defer { clip.cleanUp() }
        let run = try await CLIProcess.shell("""
            { "$CIRCADIFY" scan --input "\(clip.path)" --duration 60 --realtime; echo "status $?" >&2; } | true
            """, timeout: .seconds(40))
        #expect(run.stderr.contains("status 74"), "\(run.stderr)")
        #expect(run.stderr.contains("Standard output was closed"), "\(run.stderr)")
    }

    @Test func sighupStopsAScanLikeCtrlC() async throws {
        let clip = try Self.flatClip(seconds: 16)
        defer { clip.cleanUp() }
        let run = try await CLIProcess.run(["scan", "--json", "--input", clip.path, "--duration", "15", "--realtime"],
                                           timeout: .seconds(40)) { process in
            try await Task.sleep(for: .seconds(1))
            kill(process.processIdentifier, SIGHUP)
        }
        #expect(!run.signalled, "SIGHUP killed the process instead of stopping the scan")
        #expect(run.status == 130)
        let object = try CLIProcess.jsonObject(run)
        #expect(object["error"] as? String == "cancelled")
        #expect((object["message"] as? String)?.contains("SIGHUP") == true, "\(run.stdout)")
    }

    /// Ctrl-C twice, the second a millisecond or two after the first (a user's double tap, a
    /// supervisor's TERM then INT): the JSON object is written every time. The trap used to be
    /// released as the scan stopped, before the outcome was written, and a signal in that gap
    /// ended the process with nothing on stdout (11 runs in 15 at 1 ms).
    @Test func aSecondSignalJustAfterTheFirstStillGetsTheOutcome() async throws {
        let clip = try Self.flatClip(seconds: 16)
        defer { clip.cleanUp() }
        // Within 0.25 s the second is the same request (as `timeout` sends it, to the command
        // and then its group): a clean stop, said so. Later it is an "exit now", which may
        // race the outcome being written; either way the outcome is out and the exit is 130.
        for gap: useconds_t in [500, 1000, 3000, 260_000, 300_000, 350_000] {
            let run = try await CLIProcess.run(["scan", "--json", "--input", clip.path, "--duration", "15", "--realtime"],
                                               timeout: .seconds(40)) { process in
                try await Task.sleep(for: .seconds(1))
                kill(process.processIdentifier, SIGINT)
                usleep(gap)
                kill(process.processIdentifier, SIGINT)
            }
            #expect(!run.signalled, "a second SIGINT \(gap) µs after the first killed the scan")
            #expect(run.status == 130, "\(gap) µs: \(run.stderr)")
            let object = try CLIProcess.jsonObject(run)
            #expect(object["error"] as? String == "cancelled", "\(gap) µs: \(run.stdout)")
            if gap < 250_000 {
                #expect((object["message"] as? String)?.hasSuffix("Stopped by SIGINT (Ctrl-C)") == true,
                        "one request, a clean stop: \(run.stdout)")
            }
        }
    }

    /// `circadify monitor` in an ssh session that drops: SIGHUP stops it as SIGTERM does (the
    /// camera released, the stop line last, exit 0). It used to kill the process outright.
    @Test func sighupStopsMonitorLikeSIGTERM() async throws {
        let clip = try Self.flatClip(seconds: 4)
        defer { clip.cleanUp() }
        let run = try await CLIProcess.run(["monitor", "--input", clip.path, "--loop"], timeout: .seconds(40)) { process in
            try await Task.sleep(for: .seconds(1))
            kill(process.processIdentifier, SIGHUP)
        }
        #expect(!run.signalled, "SIGHUP killed the monitor instead of stopping it")
        #expect(run.status == 0, "\(run.stderr)")
        let last = run.stdout.split(separator: "\n").last.map(String.init) ?? ""
        let object = try #require(try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any], "\(run.stdout)")
        #expect(object["type"] as? String == "service" && object["state"] as? String == "stopped"
                && object["reason"] as? String == "shutdown", "the last line: \(last)")
    }

    @Test func facesOutputThatCannotBeWrittenIsNotSuccess() async throws {
        for redirect in [">/dev/full", ">&-"] {
            let run = try await CLIProcess.shell(#""$CIRCADIFY" faces "\#(Self.photo)" \#(redirect)"#)
            #expect(!run.signalled)
            #expect(run.status == Self.outputFailed, "\(redirect): \(run.stderr)")
            #expect(run.stderr.contains("could not be written to standard output"), "\(redirect): \(run.stderr)")
        }
    }

    @Test func samplesStopsWhenItsOutputFails() async throws {
        let clip = try Self.flatClip(seconds: 2)
        defer { clip.cleanUp() }
        let run = try await CLIProcess.shell(#""$CIRCADIFY" samples --input "\#(clip.path)" --fast >/dev/full"#)
        #expect(!run.signalled)
        #expect(run.status == Self.outputFailed)
        #expect(run.stderr.contains("No space left on device"), "\(run.stderr)")
    }
}
