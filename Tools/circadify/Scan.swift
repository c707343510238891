import ArgumentParser
import Circadify
import Foundation
import Glibc

/// `circadify scan`: one whole measurement from a camera or a video file.
struct Scan: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure heart rate, HRV and breathing from a camera or a video file.",
        discussion: """
            Without --device or --input the first capture-capable camera is used. A file is a Y4M \
            video or raw MJPEG (--fps gives the MJPEG frame rate); it must hold --duration seconds \
            of video after the start. Progress, quality hints and a live pulse trace go to stderr, \
            the result to stdout. With --json stdout holds exactly one JSON object: the \
            VitalSignsResult (heartRate, hrv, respiratoryRate, spo2, systolicBp, diastolicBp, \
            confidence, sessionId, timestamp in ISO 8601; unmeasured values are null) or \
            {"error": CASE, "message": TEXT, "retryable": BOOL}.

            Ctrl-C (SIGINT) or SIGTERM stops the scan cleanly and releases the camera; a second \
            one exits at once.

            Exit status: 0 measured; 64 bad arguments; otherwise one code per CircadifyError case \
            (the configuration, network, session and usage cases are never raised on the device):
            \(ScanExitCode.helpTable)
            """)

    @Option(help: ArgumentHelp("A V4L2 capture node, e.g. /dev/video0.", valueName: "path"))
    var device: String?

    @Option(help: ArgumentHelp("A Y4M or raw MJPEG video file to measure.", valueName: "file"))
    var input: String?

    @Option(help: "Frame rate of a raw MJPEG file (default: 30).")
    var fps: UInt32?

    @Option(help: "Seconds of measurement; at least 5, the analysis window.")
    var duration: Double = 30

    @Flag(help: "Replay a file at its own frame rate, as a camera delivers it (default: as fast as it can be read).")
    var realtime = false

    @Flag(help: "Print only one JSON object on stdout: the result or the error.")
    var json = false

    static let minimumDuration = ScanOutcome.minimumFaceSeconds

    func validate() throws {
        if device != nil, input != nil { throw ValidationError("give --device or --input, not both") }
        if fps != nil, input == nil {
            throw ValidationError("--fps sets the frame rate of an MJPEG file (--input); a camera runs at its own")
        }
        if realtime, input == nil { throw ValidationError("--realtime paces a file (--input); a camera is always live") }
        if let fps, fps == 0 { throw ValidationError("--fps must be at least 1") }
        guard duration.isFinite, duration >= Self.minimumDuration else {
            throw ValidationError("--duration must be at least \(Int(Self.minimumDuration)) seconds, the analysis window")
        }
    }

    func run() async throws {
        let display = !json || Terminal.isInteractive(STDERR_FILENO) ? ScanDisplay() : nil
        let output = ScanOutput(json: json, display: display)
        switch await outcome(display: display, output: output) {
        case .success(let result):
            output.result(result)
        case .failure(let failure):
            output.failure(failure)
            throw ExitCode(failure.exitCode)
        }
    }

    private func outcome(display: ScanDisplay?, output: ScanOutput) async -> Result<VitalSignsResult, ScanFailure> {
        do throws(ScanFailure) {
            return .success(try await Self.measure(try makeRequest(), display: display, output: output))
        } catch {
            return .failure(error)
        }
    }

    /// The request from the options; the first camera when neither source is given.
    func makeRequest() throws(ScanFailure) -> ScanRequest {
        if let input { return ScanRequest(input: .file(path: input, fps: fps ?? 30), duration: duration,
                                                    realtime: realtime) }
        if let device { return ScanRequest(input: .device(device), duration: duration) }
        let cameras: [CameraDevice]
        do {
            cameras = try CameraDevice.list()
        } catch {
            throw ScanFailure(error: CircadifyError(error, reading: .device("/dev")))
        }
        guard let first = cameras.first else {
            throw ScanFailure(error: .cameraNotAvailable, hint: """
                No capture-capable camera was found (no usable /dev/video* node); \
                pass --input FILE to measure a Y4M or MJPEG video instead
                """)
        }
        return ScanRequest(input: .device(first.path), duration: duration)
    }

    /// Runs the engine in a task that SIGINT/SIGTERM cancel. After a signal the outcome is
    /// `cancelled` whatever the engine returns; a second signal exits at once.
    static func measure(_ request: ScanRequest, display: ScanDisplay?,
                        output: ScanOutput) async throws(ScanFailure) -> VitalSignsResult {
        let task = Task { try await ScanEngine.run(request) { display?.update($0) } }
        let trap = SignalTrap([SIGINT, SIGTERM], first: { _ in task.cancel() }, again: { number in
            output.failure(ScanFailure(error: .cancelled, hint: """
                \(SignalTrap.name(number)) received again; exited without waiting for the camera to be released
                """))
            _exit(ScanExitCode.code(for: .cancelled))
        })
        let outcome = await task.result
        let signal = trap.received
        trap.release()
        if let signal {
            throw ScanFailure(error: .cancelled, hint: "Stopped by \(SignalTrap.name(signal))")
        }
        switch outcome {
        case .success(let result): return result
        case .failure(let error as CircadifyError): throw ScanFailure(error: error, hint: hint(for: error, request))
        case .failure(let error): throw ScanFailure(error: .unknown(String(describing: error)))
        }
    }
}
