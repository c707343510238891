import CCoreTestSupport
import Foundation
import Glibc
import Testing

/// `circadify-latency` as a user runs it: its command-line errors, a camera or file
/// that cannot be opened, a file that breaks mid-run, and the JSON of a real replay.
@Suite struct LatencyCommandTests {
    static func run(_ arguments: [String]) async throws -> CLIProcess.Output {
        try await CLIProcess.run(arguments, product: "circadify-latency", timeout: .seconds(60))
    }

    static func clip(frames: Int, cutLast: Int = 0) throws -> TemporaryFile {
        let bytes = Y4M.file(width: 64, height: 48, frames: (0..<frames).map { i in
            Y4M.flatFrame420(width: 64, height: 48, y: UInt8(90 + i % 40), cb: 110, cr: 150)
        })
        return try TemporaryFile(named: "clip.y4m", contents: Array(bytes.dropLast(cutLast)))
    }

    @Test(arguments: [
        ([], "--device PATH or --input FILE"),
        (["--device", "/dev/video0", "--input", "clip.y4m"], "exclude each other"),
        (["--input", "clip.y4m", "--duration", "0"], "--duration must be"),
        (["--input", "clip.y4m", "--duration", "nan"], "--duration must be"),
        (["--input", "clip.y4m", "--duration", "0.05"], "--duration must be 0.1 to 86400"),
        (["--input", "clip.y4m", "--duration", "soon"], "--duration"),
        (["--input", "clip.y4m", "--fps", "0"], "--fps must be"),
        (["--input", "clip.y4m", "--warmup", "-1"], "--warmup"),
        (["--input", "clip.y4m", "--bogus"], "--bogus"),
    ])
    func aBadCommandLineIsUsageError(arguments: [String], message: String) async throws {
        let output = try await Self.run(arguments)
        #expect(output.status == 64, "\(arguments): \(output.stderr)")
        #expect(output.stderr.contains(message), "\(arguments): \(output.stderr)")
        #expect(output.stdout.isEmpty)
    }

    @Test func aMissingDeviceIsNamed() async throws {
        let output = try await Self.run(["--device", "/dev/video-circadify-none", "--duration", "1"])
        #expect(output.status == 1)
        #expect(output.stderr.contains("no V4L2 capture device at /dev/video-circadify-none"), "\(output.stderr)")
        #expect(output.stdout.isEmpty, "no report for a camera that never ran")
    }

    @Test func aMissingOrUnreadableFileIsNamed() async throws {
        let missing = try await Self.run(["--input", "/nonexistent/clip.y4m"])
        #expect(missing.status == 1 && missing.stderr.contains("/nonexistent/clip.y4m"), "\(missing.stderr)")
        let garbage = try TemporaryFile(named: "garbage.y4m", contents: Array("this is not a video\n".utf8))
        defer { garbage.cleanUp() }
        let bad = try await Self.run(["--input", garbage.path, "--json"])
        #expect(bad.status == 1, "\(bad.stderr)")
        #expect(bad.stderr.hasPrefix("circadify-latency: ") && bad.stderr.contains(garbage.path), "\(bad.stderr)")
        #expect(bad.stdout.isEmpty)
    }

    /// A file cut inside its last frame: the frames before it are measured and
    /// reported, and the run says why it ended and fails.
    @Test func aFileThatBreaksMidRunReportsWhatItMeasuredAndFails() async throws {
        let file = try Self.clip(frames: 20, cutLast: 100)
        defer { file.cleanUp() }
        let output = try await Self.run(["--input", file.path, "--json"])
        #expect(output.status == 1)
        #expect(output.stderr.contains("ended early"), "\(output.stderr)")
        let report = try CLIProcess.jsonObject(output)
        let frames = try #require(report["frames"] as? [String: Any])
        #expect(frames["timed"] as? Int == 19 && frames["received"] as? Int == 19)
        #expect((report["error"] as? String)?.contains("truncated") == true, "\(report["error"] ?? "none")")
    }

    @Test func aReplayReportsEveryStageInJSON() async throws {
        let file = try Self.clip(frames: 45)
        defer { file.cleanUp() }
        let output = try await Self.run(["--input", file.path, "--duration", "20", "--json"])
        #expect(output.status == 0, "\(output.stderr)")
        let report = try CLIProcess.jsonObject(output)
        #expect(Set(report.keys) == ["source", "warmup_s", "duration_s", "frames", "achieved_fps", "cpu_percent", "peak_rss_mb",
                                     "stages", "interrupted"])
        #expect(report["interrupted"] as? Bool == false)
        let source = try #require(report["source"] as? [String: Any])
        #expect(source["kind"] as? String == "file" && source["width"] as? Int == 64 && source["nominal_fps"] as? Double == 30)
        let frames = try #require(report["frames"] as? [String: Any])
        #expect(Set(frames.keys) == ["received", "samples", "timed", "dropped_by_sequence", "dropped_by_timestamp_gap",
                                     "corrupt", "ring_overflows", "backfilled", "from_restart_markers"])
        #expect(frames["received"] as? Int == 45 && frames["timed"] as? Int == 45 && frames["corrupt"] as? Int == 0)
        #expect(frames["from_restart_markers"] as? Int == 0) // a Y4M clip: nothing to decode
        let stages = try #require(report["stages"] as? [String: [String: Any]])
        #expect(Set(stages.keys) == ["dequeue", "decode", "kernels", "thumbnail", "ring_residence", "detector",
                                     "analysis", "end_to_end"])
        for name in ["dequeue", "kernels", "ring_residence", "analysis", "end_to_end"] {
            let stage = try #require(stages[name])
            #expect(stage["count"] as? Int == 45, "\(name) is timed on every frame")
            let values = ["p50_us", "p90_us", "p99_us", "p99_9_us", "max_us"].compactMap { stage[$0] as? Double }
            #expect(values.count == 5 && values == values.sorted() && values[0] > 0, "\(name): \(values)")
        }
        #expect(stages["decode"]?["count"] as? Int == 0 && stages["decode"]?["p50_us"] == nil, "Y4M is not decoded")
        #expect(stages["thumbnail"]?["count"] as? Int == 15, "a thumbnail every 3rd frame")
        let fps = try #require(report["achieved_fps"] as? Double)
        #expect(fps > 24 && fps < 36, "a real-time replay runs at about its frame rate: \(fps)")
        #expect((report["peak_rss_mb"] as? Double ?? 0) > 1)
    }

    /// Ctrl-C ends the run: the camera is released, the report covers the time measured,
    /// and the exit status is the shell's 130.
    @Test func ctrlCPrintsWhatWasMeasured() async throws {
        // A minute of video: a loaded test run may take a while to send the signal.
        let file = try Self.clip(frames: 1800)
        defer { file.cleanUp() }
        let output = try await CLIProcess.run(["--input", file.path, "--duration", "120", "--json"],
                                              product: "circadify-latency", timeout: .seconds(120)) { process in
            // Once the clip is open the run is under way (and the command's trap set: a test
            // run in the background inherits SIGINT ignored, so an early one would be lost).
            let fds = "/proc/\(process.processIdentifier)/fd", clip = file.path
            await CLIProcess.signal(process.processIdentifier, SIGINT, once: {
                let entries = (try? FileManager.default.contentsOfDirectory(atPath: fds)) ?? []
                return entries.contains { (try? FileManager.default.destinationOfSymbolicLink(atPath: "\(fds)/\($0)")) == clip }
            })
        }
        #expect(!output.signalled && output.status == 130, "\(output.stderr)")
        #expect(output.stderr.contains("stopped by SIGINT (Ctrl-C) after"), "\(output.stderr)")
        let report = try CLIProcess.jsonObject(output)
        #expect(report["interrupted"] as? Bool == true)
        let frames = try #require(report["frames"] as? [String: Any])
        let timed = try #require(frames["timed"] as? Int)
        #expect(timed > 0 && timed < 1800, "\(timed) frames timed before the stop")
        #expect((report["duration_s"] as? Double ?? 99) < 60)
    }

    /// A file that ends in the warm-up measured nothing: the report says so and the run fails.
    @Test func aRunThatMeasuredNothingFails() async throws {
        let file = try Self.clip(frames: 15)
        defer { file.cleanUp() }
        let output = try await Self.run(["--input", file.path, "--warmup", "5", "--json"])
        #expect(output.status == 1)
        #expect(output.stderr.contains("the input ended during the 5.0 s warm-up"), "\(output.stderr)")
        let report = try CLIProcess.jsonObject(output)
        #expect((report["error"] as? String)?.contains("nothing was measured") == true)
    }

    @Test func theTableNamesEveryStage() async throws {
        let file = try Self.clip(frames: 15)
        defer { file.cleanUp() }
        let output = try await Self.run(["--input", file.path])
        #expect(output.status == 0, "\(output.stderr)")
        for line in ["dequeue *", "kernels", "ring_residence *", "end_to_end *", "frames: 15 received",
                     "fps achieved"] {
            #expect(output.stdout.contains(line), "\(line) in \(output.stdout)")
        }
    }
}
