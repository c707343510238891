import CCoreTestSupport
import Foundation
import Glibc
import Testing

/// The camera-or-file options that `scan`, `preview` and `monitor` share
/// (`SourceOptions`): each command refuses the same mistakes with the same
/// message and exit status 64, before it opens anything.
@Suite struct SourceOptionsTests {
    static let commands = ["scan", "preview", "monitor"]
    static let mistakes: [([String], String)] = [
        (["--device", "/dev/video0", "--input", "a.y4m"], "give --device or --input, not both"),
        (["--device", "/dev/video0", "--fps", "15"], "--fps sets the frame rate of an MJPEG file (--input)"),
        (["--input", "a.mjpeg", "--fps", "0"], "a frame rate is a whole number of frames per second from 1 to 999"),
        (["--input", "a.mjpeg", "--fps", "-1"], "a frame rate is a whole number of frames per second from 1 to 999"),
    ]

    @Test(arguments: commands, mistakes)
    func everyCommandRefusesTheSameMistakes(_ command: String, _ mistake: ([String], String)) async throws {
        let run = try await CLIProcess.run([command] + mistake.0)
        #expect(run.status == 64, "\(command) \(mistake.0): \(run.stderr)")
        #expect(run.stderr.contains(mistake.1), "\(command) \(mistake.0): \(run.stderr)")
    }

    /// A Y4M file carries its frame rate: `--fps` with another one would be ignored, so it is
    /// refused (it used to be ignored without a word); the same rate is harmless.
    @Test(arguments: commands)
    func fpsAgainstAY4MFilesOwnRateIsRefused(_ command: String) async throws {
        let frame = Y4M.flatFrame420(width: 32, height: 24, y: 120, cb: 128, cr: 128)
        let clip = try TemporaryFile(named: "rate.y4m", contents: Y4M.file(width: 32, height: 24, frames: [frame]))
        defer { clip.cleanUp() }
        let run = try await CLIProcess.run([command, "--input", clip.path, "--fps", "15"])
        #expect(run.status == 64, "\(command): \(run.stderr)")
        #expect(run.stderr.contains("--fps 15 sets the frame rate of a raw MJPEG file; \(clip.path) is Y4M at 30 fps "
                                    + "by its header"), "\(command): \(run.stderr)")
    }

    /// 30 for 30:1, and for NTSC's 30000:1001 (29.97): within half a percent, the same rate.
    @Test(arguments: ["30:1", "30000:1001"])
    func fpsThatAgreesWithAY4MFileIsTaken(_ rate: String) async throws {
        let frame = Y4M.flatFrame420(width: 32, height: 24, y: 120, cb: 128, cr: 128)
        let clip = try TemporaryFile(named: "rate.y4m",
                                     contents: Y4M.file(width: 32, height: 24, fps: rate, frames: [frame]))
        defer { clip.cleanUp() }
        let run = try await CLIProcess.run(["scan", "--input", clip.path, "--fps", "30", "--duration", "5"])
        #expect(run.status == 30 && run.stderr.contains("holds only"), "\(rate): read, then too short: \(run.stderr)")
    }

    /// The Y4M check never blocks: a FIFO with no writer given with `--fps` is refused by the
    /// reader as a FIFO at once, as without `--fps` (a blocking open hung here).
    @Test func fpsWithAFIFOIsNotAHang() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("fps-\(UUID()).fifo").path
        #expect(mkfifo(path, 0o600) == 0)
        defer { unlink(path) }
        let run = try await CLIProcess.run(["scan", "--input", path, "--fps", "15"], timeout: .seconds(20))
        #expect(!run.signalled, "killed at the timeout: the check blocked")
        #expect(run.status == 30 && run.stderr.contains("is a FIFO (named pipe)"), "\(run.status): \(run.stderr)")
    }

    /// Durations are plain decimals: what `Double(_:)` would also read (hex, exponents) is a
    /// typo, refused rather than taken as 16 s or 100 s.
    @Test(arguments: ["0x10", "1e2", "1.2.3", "", "12 "])
    func aDurationIsAPlainDecimal(_ text: String) async throws {
        let run = try await CLIProcess.run(["scan", "--input", "/nonexistent.y4m", "--duration", text])
        #expect(run.status == 64, "'\(text)': \(run.stderr)")
        #expect(run.stderr.contains("a duration is a number of seconds from 5"), "'\(text)': \(run.stderr)")
    }

    @Test(arguments: ["12", "12.5", "12."])
    func plainDecimalDurationsAreTaken(_ text: String) async throws {
        let run = try await CLIProcess.run(["scan", "--input", "/nonexistent.y4m", "--duration", text])
        #expect(run.status == 30, "taken, then the missing file: '\(text)': \(run.stderr)")
    }

    /// The monitor's own rules, checked after the shared ones.
    @Test(arguments: [
        (["--loop"], "--loop replays a file (--input); a camera runs until stopped"),
        (["--input", "a.y4m", "--export-vitals"], "--export-vitals adds to the metrics: give --metrics too"),
        (["--device", "/dev/video0", "--input", "a.y4m", "--loop"], "give --device or --input, not both"),
    ])
    func theMonitorsOwnRules(_ arguments: [String], _ message: String) async throws {
        let run = try await CLIProcess.run(["monitor"] + arguments)
        #expect(run.status == 64, "\(arguments): \(run.stderr)")
        #expect(run.stderr.contains(message), "\(arguments): \(run.stderr)")
    }
}
