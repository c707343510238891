import CCoreTestSupport
import Foundation
import GroundTruthKit
import Testing

/// Every error class's exit code and JSON, cancellation, and a generated clip end to end.
@Suite(.serialized) struct ScanProcessTests {
    /// A generated face clip (Tools/groundtruth) in a fresh folder; `cleanUp()` removes it.
    struct Clip: Sendable {
        var folder: URL
        var video: URL
        var truth: GroundTruthFile

        /// Renders on a thread of its own: seconds of C rendering must not hold one of the
        /// concurrency pool's threads (one per core), which would stall the other suites.
        static func render(_ scenario: String, seconds: Float, heartRate: Float = 0, width: UInt32 = 320,
                           height: UInt32 = 240) async throws -> Clip {
            try await withCheckedThrowingContinuation { continuation in
                Thread {
                    continuation.resume(with: Result {
                        try Clip(scenario, seconds: seconds, heartRate: heartRate, width: width, height: height)
                    })
                }.start()
            }
        }

        private init(_ scenario: String, seconds: Float, heartRate: Float, width: UInt32, height: UInt32) throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("circadify-scan-\(UUID())")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let clip = try ClipRenderer.render(scenario: scenario, seed: 1, into: folder, name: scenario) { options in
                options.width = width
                options.height = height
                options.duration_s = seconds
                options.heart_rate_bpm = heartRate
            }
            video = clip.video
            truth = try GroundTruthFile.load(clip.truth)
        }

        func cleanUp() { try? FileManager.default.removeItem(at: folder) }
    }

    /// Runs a `--json` scan and checks the error's case, exit status and JSON shape.
    static func expectFailure(_ arguments: [String], _ name: String, status: Int32,
                              timeout: Duration = .seconds(120)) async throws -> String {
        let run = try await CLIProcess.run(["scan", "--json"] + arguments, timeout: timeout)
        let object = try CLIProcess.jsonObject(run)
        #expect(Set(object.keys) == ["error", "message", "retryable"])
        #expect(object["error"] as? String == name, "\(arguments): \(run.stdout)")
        #expect(run.status == status, "\(arguments): exit \(run.status)")
        #expect(object["retryable"] as? Bool == false)
        return object["message"] as? String ?? ""
    }

    // MARK: files

    @Test func missingFileIsACaptureFailureNamingIt() async throws {
        let message = try await Self.expectFailure(["--input", "/nonexistent/clip.y4m"], "captureFailed", status: 30)
        #expect(message.contains("/nonexistent/clip.y4m"))
    }

    @Test func truncatedFileIsACaptureFailure() async throws {
        let clip = try await Clip.render("still", seconds: 6)
        defer { clip.cleanUp() }
        // Cut it 3 s in, in the middle of a frame.
        let data = try Data(contentsOf: clip.video)
        let frameBytes = clip.truth.width * clip.truth.height * 3 / 2
        try data.prefix(data.count / 2 + frameBytes / 2).write(to: clip.video)
        _ = try await Self.expectFailure(["--input", clip.video.path, "--duration", "5"], "captureFailed", status: 30)
    }

    @Test func fileShorterThanTheDurationSaysHowToShortenIt() async throws {
        // At the cameras' default size: 5 s of a 320x240 face is too little evidence for a
        // confident pulse, and the calibrated confidence says so (qualityTooLow). At 70 bpm, as
        // the SDK's minimum-duration test: 5 s of this face at its own 88 bpm reads 0.51 with a
        // map fitted on six tuning persons and is qualityTooLow with one fitted on ten.
        let clip = try await Clip.render("still", seconds: 6, heartRate: 70, width: 640, height: 480)
        defer { clip.cleanUp() }
        let run = try await CLIProcess.run(["scan", "--json", "--input", clip.video.path, "--duration", "30"])
        let object = try CLIProcess.jsonObject(run)
        #expect(object["error"] as? String == "captureFailed", "\(run.stdout)")
        #expect(run.status == 30)
        // A measurement starts once the face is found (the first frame here) and must fit in what follows.
        #expect((object["message"] as? String)?.contains("holds only 5.9 s of video after the face was found") == true,
                "\(run.stdout)")
        #expect((object["message"] as? String)?.contains("a measurement of 5 s or less fits") == true, "\(run.stdout)")
        // What it advises works: 5 s, the documented minimum, on a clip with a clear face.
        #expect(try await CLIProcess.run(["scan", "--json", "--input", clip.video.path, "--duration", "5"]).status == 0)
        // Too short for any scan: it says so instead of suggesting a duration under the minimum.
        let tiny = try await Clip.render("still", seconds: 3)
        defer { tiny.cleanUp() }
        let short = try CLIProcess.jsonObject(
            try await CLIProcess.run(["scan", "--json", "--input", tiny.video.path, "--duration", "10"]))
        #expect((short["message"] as? String)?.contains("a scan needs at least 5 s") == true, "\(short)")
    }

    @Test func faceFreeVideoIsFaceNotDetected() async throws {
        let frame = Y4M.flatFrame420(width: 320, height: 240, y: 120, cb: 128, cr: 128)
        let video = Y4M.file(width: 320, height: 240, frames: Array(repeating: frame, count: 240))
        let file = try TemporaryFile(named: "wall.y4m", contents: video)
        defer { file.cleanUp() }
        _ = try await Self.expectFailure(["--input", file.path, "--duration", "6"], "faceNotDetected", status: 32)
    }

    @Test func pulseFreeFaceIsQualityTooLow() async throws {
        let clip = try await Clip.render("nopulse", seconds: 10)
        defer { clip.cleanUp() }
        _ = try await Self.expectFailure(["--input", clip.video.path, "--duration", "8"], "qualityTooLow", status: 31)
    }

    // MARK: cameras

    @Test func missingNodeIsCameraNotAvailable() async throws {
        _ = try await Self.expectFailure(["--device", "/dev/video-circadify-none"], "cameraNotAvailable", status: 10)
    }

    @Test func nodeThatIsNotACameraIsCameraNotAvailable() async throws {
        let file = try TemporaryFile(named: "not-a-camera", contents: [0])
        defer { file.cleanUp() }
        _ = try await Self.expectFailure(["--device", file.path], "cameraNotAvailable", status: 10)
    }

    // MARK: cancellation (--realtime: the 15 s scan takes 15 s, so the signal lands mid-scan)

    @Test func sigintAndSigtermCancelWithTheCancelledCode() async throws {
        let clip = try await Clip.render("still", seconds: 20)
        defer { clip.cleanUp() }
        let arguments = ["scan", "--input", clip.video.path, "--duration", "15", "--realtime"]
        let interrupted = try await CLIProcess.run(arguments + ["--json"]) { process in
            try await Task.sleep(for: .seconds(1))
            process.interrupt()
        }
        let object = try CLIProcess.jsonObject(interrupted)
        #expect(object["error"] as? String == "cancelled")
        #expect(interrupted.status == 130)
        #expect(!interrupted.signalled)

        let terminated = try await CLIProcess.run(arguments) { process in
            try await Task.sleep(for: .seconds(1))
            process.terminate()
        }
        #expect(terminated.status == 130)
        #expect(terminated.stderr.contains("SIGTERM"))
        #expect(terminated.stdout.isEmpty)
    }

    // MARK: end to end

    @Test func generatedClipGivesItsHeartRate() async throws {
        let clip = try await Clip.render("still", seconds: 15, heartRate: 72)
        defer { clip.cleanUp() }
        let run = try await CLIProcess.run(["scan", "--json", "--input", clip.video.path, "--duration", "12"])
        #expect(run.status == 0, "\(run.stdout) \(run.stderr)")
        let object = try CLIProcess.jsonObject(run)
        #expect(Set(object.keys) == VitalSignsResultTests.keys)
        let rate = try #require(object["heartRate"] as? Int)
        let truth = try #require(clip.truth.meanHeartRate)
        #expect(abs(Double(rate) - truth) <= 3, "read \(rate), truth \(truth)")
        #expect((object["confidence"] as? Double ?? 0) >= 0.4)
        for key in ["spo2", "systolicBp", "diastolicBp"] { #expect(object[key] is NSNull) }
        let time = try #require(object["timestamp"] as? String)
        #expect(ISO8601DateFormatter().date(from: time) != nil, "\(time)")
    }

    @Test func humanReportOnStdoutProgressOnStderr() async throws {
        let clip = try await Clip.render("still", seconds: 10, heartRate: 66)
        defer { clip.cleanUp() }
        let run = try await CLIProcess.run(["scan", "--input", clip.video.path, "--duration", "7"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("Heart rate"))
        #expect(run.stdout.contains("Confidence"))
        #expect(run.stdout.contains("SpO2              not measured"))
        #expect(run.stderr.contains("measuring"), "no progress lines: \(run.stderr)")
    }
}
