@testable import Circadify
import Foundation
import Testing

/// `circadify scan` as a process: its command line, its exit-code table and the shape
/// of its JSON error. None of these needs the scan engine to measure anything.
@Suite struct ScanCommandTests {
    static let usageStatus: Int32 = 64

    @Test func deviceAndInputTogetherIsAUsageError() async throws {
        let run = try await CLIProcess.run(["scan", "--device", "/dev/video0", "--input", "clip.y4m"])
        #expect(run.status == Self.usageStatus)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains("not both"))
    }

    static let badOptions: [([String], String)] = [
        (["--duration", "4.9"], "from 5 (the analysis window) to 3600"),
        (["--duration", "nan"], "from 5"), (["--duration", "inf"], "from 5"),
        (["--duration", "1e19"], "'1e19' is invalid for '--duration"), (["--duration", "3601"], "to 3600"),
        (["--duration", "-5"], "'-5' is invalid for '--duration"),
        (["--input", "x.mjpeg", "--fps", "0"], "from 1 to 999"),
        (["--input", "x.mjpeg", "--fps", "-1"], "'-1' is invalid for '--fps"),
        (["--input", "x.mjpeg", "--fps", "nan"], "'nan' is invalid for '--fps"),
        (["--input", "x.mjpeg", "--fps", "4294967296"], "from 1 to 999"),
        (["--device", "/dev/video0", "--fps", "15"], "a camera runs at its own"),
        (["--device", "/dev/video0", "--input", "clip.y4m"], "not both"),
        (["--realtime"], "a camera is always live"),
        (["--bogus"], "Unknown option '--bogus'"),
        (["--duration"], "Missing value for '--duration"),
    ]

    /// Every bad command line is exit 64 with a message that says what is wrong; with --json,
    /// stdout holds the one JSON object the contract promises (`"error": "usage"`).
    @Test(arguments: badOptions)
    func badOptionIsAUsageError(_ options: [String], _ fragment: String) async throws {
        let plain = try await CLIProcess.run(["scan"] + options)
        #expect(plain.status == Self.usageStatus, "\(options): \(plain.stderr)")
        #expect(plain.stderr.contains(fragment), "\(options): \(plain.stderr)")
        #expect(plain.stdout.isEmpty)
        let json = try await CLIProcess.run(["scan", "--json"] + options)
        #expect(json.status == Self.usageStatus)
        let object = try CLIProcess.jsonObject(json)
        #expect(object["error"] as? String == "usage", "\(options): \(json.stdout)")
        #expect((object["message"] as? String)?.contains(fragment) == true, "\(options): \(json.stdout)")
        #expect(object["retryable"] as? Bool == false)
    }

    /// `--json=true` asks for JSON the wrong way (a flag takes no value): the usage error still
    /// comes as the JSON object, not as text on stderr alone.
    @Test func jsonWithAValueIsAUsageErrorInJSON() async throws {
        let run = try await CLIProcess.run(["scan", "--json=true", "--input", "clip.y4m"])
        #expect(run.status == Self.usageStatus)
        let object = try CLIProcess.jsonObject(run)
        #expect(object["error"] as? String == "usage", "\(run.stdout)")
        #expect((object["message"] as? String)?.contains("--json") == true, "\(run.stdout)")
    }

    @Test(arguments: [(["--fps", "-1"], "'-1' is invalid for '--fps"), (["--every", "-1"], "--every must be at least 1"),
                      (["--frames", "0"], "--frames must be at least 1")])
    func samplesBadOptionSaysWhatIsWrong(_ options: [String], _ fragment: String) async throws {
        let run = try await CLIProcess.run(["samples", "--input", "x.mjpeg"] + options)
        #expect(run.status == Self.usageStatus)
        #expect(run.stderr.contains(fragment), "\(options): \(run.stderr)")
    }

    @Test func helpListsADistinctNonZeroCodeForEveryErrorCase() async throws {
        let table = try await CLIProcess.exitCodeTable()
        #expect(Set(table.keys) == Set(CircadifyErrorTests.seedTable.map(\.1)))
        #expect(Set(table.values).count == table.count, "codes repeat: \(table)")
        for (name, code) in table {
            #expect(code != 0 && code != 1 && code != Self.usageStatus && code < 256, "\(name): \(code)")
        }
        #expect(table["cancelled"] == 130)
    }

    /// Whatever the engine does with a missing file, the failure is one JSON object of
    /// the agreed shape and the exit status is the table's code for its case.
    @Test func failureIsOneJSONObjectAndTheTablesExitCode() async throws {
        let table = try await CLIProcess.exitCodeTable()
        let run = try await CLIProcess.run(["scan", "--input", "/nonexistent/clip.y4m", "--json"])
        let object = try CLIProcess.jsonObject(run)
        #expect(Set(object.keys) == ["error", "message", "retryable"])
        let name = try #require(object["error"] as? String)
        #expect(table[name] != nil, "unknown case \(name)")
        #expect(run.status == table[name])
        #expect((object["message"] as? String)?.isEmpty == false)
        #expect(object["retryable"] is Bool)
    }

    /// With no camera on the machine the command itself reports cameraNotAvailable and
    /// suggests --input; with one it must not (the engine opens that camera instead).
    @Test func noSourceUsesTheFirstCameraOrSaysThereIsNone() async throws {
        let cameras = try CameraDevice.list()
        let run = try await CLIProcess.run(["scan", "--json", "--duration", "5"], timeout: .seconds(60))
        let object = try CLIProcess.jsonObject(run)
        let message = object["message"] as? String ?? ""
        if cameras.isEmpty {
            #expect(object["error"] as? String == "cameraNotAvailable")
            #expect(run.status == 10)
            #expect(message.contains("--input"))
        } else {
            #expect(!message.contains("No capture-capable camera was found"), "\(cameras.map(\.path)): \(message)")
        }
    }

    @Test func humanFailureGoesToStderrOnly() async throws {
        let run = try await CLIProcess.run(["scan", "--input", "/nonexistent/clip.y4m"])
        #expect(run.status != 0)
        #expect(run.stdout.isEmpty)
        // Progress may come first; the failure is the last thing said.
        let lines = run.stderr.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(lines.last { !$0.isEmpty }?.hasPrefix("circadify scan: ") == true, "\(run.stderr)")
    }
}
