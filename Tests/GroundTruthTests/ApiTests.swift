import CCore
import Foundation
import GroundTruth
import Testing

/// Determinism and the error paths of the C API and the CLI.
@Suite struct ApiTests {
    static func bytes(_ url: URL) throws -> Data { try Data(contentsOf: url) }

    @Test(arguments: [GT_FORMAT_Y4M, GT_FORMAT_MJPEG])
    func sameSeedSameBytesWhateverTheThreads(format: gt_format) throws {
        let a = try Clip(GT_HARD, seed: 21, width: 96, height: 72, duration: 1, format: format, threads: 1)
        let b = try Clip(GT_HARD, seed: 21, width: 96, height: 72, duration: 1, format: format, threads: 3)
        let c = try Clip(GT_HARD, seed: 22, width: 96, height: 72, duration: 1, format: format, threads: 1)
        defer { a.cleanUp(); b.cleanUp(); c.cleanUp() }
        #expect(try Self.bytes(a.video) == Self.bytes(b.video))
        #expect(try Self.bytes(a.truthURL) == Self.bytes(b.truthURL))
        #expect(try Self.bytes(a.video) != Self.bytes(c.video))
        #expect(a.beatTimes != c.beatTimes)
    }

    static func write(_ options: gt_options, video: String?, truth: String? = nil) -> (Int32, String) {
        var o = options
        var message = [CChar](repeating: 0, count: 256)
        let rc = gt_write_clip(&o, video, truth, &message, message.count)
        return (rc, cString(message))
    }

    @Test func badOptionsAreRejectedWithAClearMessage() {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("gt-bad-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let video = dir.appendingPathComponent("x.y4m").path
        let base = Clip.options(GT_STILL, width: 32, height: 32, duration: 1)
        let cases: [(String, (inout gt_options) -> Void, String)] = [
            ("zero size", { $0.width = 0 }, "invalid size 0x32"),
            ("odd size", { $0.height = 31 }, "must be even"),
            ("huge size", { $0.width = 10000 }, "invalid size"),
            ("fps", { $0.fps = 1000 }, "frame rate"),
            ("duration", { $0.duration_s = -1 }, "duration"),
            ("heart rate", { $0.heart_rate_bpm = 500 }, "heart rate"),
            ("breathing", { $0.respiratory_rate = 100 }, "respiratory rate"),
            ("quality", { $0.jpeg_quality = 101 }, "JPEG quality"),
            ("restart interval", { $0.restart_interval = 70000 }, "restart interval 70000"),
            ("scenario", { $0.scenario = gt_scenario(rawValue: 99) }, "unknown scenario"),
        ]
        for (name, change, expected) in cases {
            var o = base
            change(&o)
            let (rc, message) = Self.write(o, video: video)
            #expect(rc == -EINVAL, "\(name)")
            #expect(message.contains(expected), "\(name): '\(message)'")
            #expect(!FileManager.default.fileExists(atPath: video), "\(name): nothing written")
        }
        var unknown = GT_STILL
        #expect(gt_scenario_from_name("bogus", &unknown) == -EINVAL)
        #expect(gt_scenario_from_name("Still", &unknown) == -EINVAL)
    }

    @Test func unwritablePathsNameThePathAndTheReason() {
        let base = Clip.options(GT_STILL, width: 32, height: 32, duration: 0.2)
        let (rc, message) = Self.write(base, video: "/nonexistent-dir/clip.y4m")
        #expect(rc == -ENOENT)
        #expect(message.contains("cannot write /nonexistent-dir/clip.y4m") && message.contains("No such file"))

        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("gt-truth-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        // A truth that cannot be written touches nothing: the older video stays.
        let older = dir.appendingPathComponent("ok.y4m")
        FileManager.default.createFile(atPath: older.path, contents: Data("older".utf8))
        let (rc2, message2) = Self.write(base, video: older.path, truth: "/nonexistent-dir/clip.json")
        #expect(rc2 == -ENOENT)
        #expect(message2.contains("/nonexistent-dir/clip.json") && !message2.contains(".part"), "\(message2)")
        #expect(FileManager.default.contents(atPath: older.path) == Data("older".utf8))
    }

    /// A render stopped midway (Ctrl-C, a kill) leaves no video under its name beside the new truth:
    /// the video is written as VIDEO.part, and an older video of that name is removed first,
    /// so the folder never holds a pair that looks whole but is not.
    @Test func aStoppedRenderLeavesNoPairThatLooksWhole() async throws {
        let bin = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("circadify-groundtruth")
        try #require(FileManager.default.isExecutableFile(atPath: bin.path),
                     "build the CLI first: swift build --product circadify-groundtruth")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("gt-stop-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let video = dir.appendingPathComponent("still.y4m")
        func render(seconds: String) throws -> Process {
            let p = Process()
            p.executableURL = bin
            p.arguments = ["--scenario", "still", "--size", "320x240", "--duration", seconds, "--quiet", "-o", video.path]
            try p.run()
            return p
        }
        // Waited for without holding a thread of the test run's pool.
        func exit(_ process: Process) async throws {
            while process.isRunning { try await Task.sleep(for: .milliseconds(20)) }
            process.waitUntilExit()
        }
        let first = try render(seconds: "1")
        try await exit(first)
        #expect(first.terminationStatus == 0 && FileManager.default.fileExists(atPath: video.path))

        let stopped = try render(seconds: "600") // killed long before its end, however slow the test run
        // Killed once the new video is under way: what no handler can clean up after. Waited
        // for on a thread of its own (a busy pool would wake a sleeping task late).
        let pid = stopped.processIdentifier, part = video.path + ".part"
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread {
                for _ in 0..<3000 where !FileManager.default.fileExists(atPath: part) { usleep(20_000) }
                kill(pid, SIGKILL)
                done.resume()
            }.start()
        }
        try await exit(stopped)
        #expect(stopped.terminationReason == .uncaughtSignal, "stopped midway: \(stopped.terminationStatus)")
        #expect(!FileManager.default.fileExists(atPath: video.path), "no video under its name (the old one is gone too)")
        #expect(FileManager.default.fileExists(atPath: video.path + ".part"), "the unfinished one is a .part file")
    }

    /// The command line: a bad scenario name exits 2 and says what went wrong;
    /// a good call writes the clip and the truth beside it.
    @Test func cliReportsBadArgumentsAndWritesBesideTheVideo() throws {
        let bin = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("circadify-groundtruth")
        try #require(FileManager.default.isExecutableFile(atPath: bin.path),
                     "build the CLI first: swift build --product circadify-groundtruth")
        func run(_ args: [String]) throws -> (Int32, String) {
            let p = Process()
            p.executableURL = bin
            p.arguments = args
            let err = Pipe()
            p.standardError = err
            p.standardOutput = Pipe()
            try p.run()
            let data = err.fileHandleForReading.readDataToEndOfFile()
            p.waitUntilExit()
            return (p.terminationStatus, String(decoding: data, as: UTF8.self))
        }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("gt-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("c.mjpeg").path

        let (s1, e1) = try run(["--scenario", "bogus", "-o", out])
        #expect(s1 == 2 && e1.contains("unknown scenario 'bogus'"))
        let (s2, e2) = try run(["--size", "0x0", "-o", out])
        #expect(s2 == 2 && e2.contains("invalid size"))
        let (s3, e3) = try run(["--scenario", "still"])
        #expect(s3 == 2 && e3.contains("-o"))
        let (s4, e4) = try run(["--fps", "abc", "-o", out])
        #expect(s4 == 2 && e4.contains("--fps"))
        let (s4b, e4b) = try run(["--restart", "70000", "-o", out])
        #expect(s4b == 2 && e4b.contains("invalid --restart '70000'"))

        // Written through /dev/stdout to a file: the link is left alone, the file holds the video.
        let redirected = dir.appendingPathComponent("redirected.y4m")
        FileManager.default.createFile(atPath: redirected.path, contents: nil)
        let piped = Process()
        piped.executableURL = bin
        piped.arguments = ["--size", "64x48", "--duration", "1", "--quiet", "--truth", dir.appendingPathComponent("r.json").path,
                           "-o", "/dev/stdout"]
        piped.standardOutput = try FileHandle(forWritingTo: redirected)
        try piped.run()
        piped.waitUntilExit()
        #expect(piped.terminationStatus == 0)
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: "/dev/stdout")) != nil, "/dev/stdout is still a link")
        #expect(String(decoding: (FileManager.default.contents(atPath: redirected.path) ?? Data()).prefix(9), as: UTF8.self)
                == "YUV4MPEG2")

        let (s5, e5) = try run(["--scenario", "lowfps", "--seed", "3", "--size", "64x48", "--duration", "2", "-o", out])
        #expect(s5 == 0, "\(e5)")
        let truth = try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("c.json")))
        let t = try #require(truth as? [String: Any])
        #expect(t["format"] as? String == "mjpeg" && t["scenario"] as? String == "lowfps")
        #expect((t["frameCount"] as? NSNumber)?.intValue == 30)
    }
}
