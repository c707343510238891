import ArgumentParser
import Circadify
import Foundation
import Glibc
import ProcessSignals

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

            Ctrl-C (SIGINT), SIGTERM or SIGHUP (a closed terminal or ssh session) stops the scan \
            cleanly, releases the camera and restores its controls, and exits 130 (cancelled); a \
            second one exits at once. A file must be a regular file (not a FIFO, device or \
            directory); frames up to 8192 pixels a side and 40 megapixels.

            Exit status: 0 measured; 64 bad arguments (with --json also as {"error": "usage", ...}); \
            74 the output could not be written (stdout closed, a broken pipe, a full disk: the scan \
            stops, the camera is released, the reason goes to stderr); otherwise one code per \
            CircadifyError case (the configuration, network, session and usage cases are never \
            raised on the device):
            \(ScanExitCode.helpTable)
            """)

    @OptionGroup var from: SourceOptions

    @Option(parsing: .unconditional, help: "Seconds of measurement, 5 (the analysis window) to 3600.",
            transform: Scan.seconds)
    var duration: Double = 30

    @Flag(help: "Replay a file at its own frame rate, as a camera delivers it (default: as fast as it can be read).")
    var realtime = false

    @Flag(help: "Print only one JSON object on stdout: the result or the error.")
    var json = false

    static let minimumDuration = ScanOutcome.minimumFaceSeconds
    /// A spot measurement, not a monitor: an hour bounds the frames a scan keeps.
    static let maximumDuration = 3600.0

    static func seconds(_ text: String) throws -> Double {
        guard let value = ArgumentValues.decimal(text), (minimumDuration...maximumDuration).contains(value) else {
            throw ValidationError("a duration is a number of seconds from \(Int(minimumDuration)) (the analysis "
                + "window) to \(Int(maximumDuration))")
        }
        return value
    }

    func validate() throws {
        if realtime, from.input == nil { throw ValidationError("--realtime paces a file (--input); a camera is always live") }
    }

    func run() async throws {
        if Terminal.closedAtStart.contains(STDOUT_FILENO) {
            Terminal.writeError("circadify scan: standard output is closed, so the result would be lost; not scanning\n")
            throw ExitCode(CommandExitCode.outputFailed)
        }
        let display = !json || Terminal.isInteractive(STDERR_FILENO) ? ScanDisplay() : nil
        let output = ScanOutput(json: json, display: display)
        let request: ScanRequest
        do throws(ScanFailure) { request = try makeRequest() } catch { return try Self.report(.failure(error), to: output) }
        let (outcome, trap) = await Self.measure(request, display: display, output: output)
        // Signals stay trapped until the process exits: a second Ctrl-C a moment after the
        // first would otherwise end it before or while the outcome is written; trapped, it
        // exits 130 once the outcome is out.
        try withExtendedLifetime(trap) { try Self.report(outcome, to: output) }
    }

    private static func report(_ outcome: Result<VitalSignsResult, ScanFailure>, to output: ScanOutput) throws {
        switch outcome {
        case .success(let result):
            if output.result(result) != 0 { throw ExitCode(CommandExitCode.outputFailed) }
        case .failure(let failure):
            output.failure(failure)
            throw ExitCode(failure.exitCode)
        }
    }

    /// The request from the options; the first camera when neither source is given.
    func makeRequest() throws(ScanFailure) -> ScanRequest {
        if let input = from.input {
            return ScanRequest(input: .file(path: input, fps: from.fileFrameRate), duration: duration, realtime: realtime)
        }
        if let device = from.device { return ScanRequest(input: .device(device), duration: duration) }
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

    /// Runs the engine in a task that SIGINT, SIGTERM and SIGHUP cancel, as does stdout going
    /// away (its reader closed): each stops the scan the same way, the camera released and its
    /// controls restored before the command reports. After a signal the outcome is
    /// `cancelled` whatever the engine returns; a second signal exits at once (after an
    /// outcome being written meanwhile, waiting for it half a second at most). The trap is
    /// returned to be kept while the caller writes the outcome.
    static func measure(_ request: ScanRequest, display: ScanDisplay?,
                        output: ScanOutput) async -> (Result<VitalSignsResult, ScanFailure>, SignalTrap) {
        // Without a display nobody reads the progress (--json to a pipe): no live estimate is made.
        var progress: (@Sendable (ScanProgress) -> Void)?
        if let display { progress = { display.update($0) } }
        let task = Task { try await ScanEngine.run(request, progress: progress) }
        let source = if case .device = request.input { "the camera to be released" } else { "the scan to stop" }
        let trap = SignalTrap([SIGINT, SIGTERM, SIGHUP], first: { _ in task.cancel() }, again: { number in
            output.failure(ScanFailure(error: .cancelled, hint: """
                \(SignalTrap.name(number)) received again; exited without waiting for \(source)
                """), patience: 0.5)
            _exit(ScanExitCode.code(for: .cancelled))
        })
        let watch = OutputWatch { task.cancel() }
        let outcome = await task.result
        let signal = trap.received
        let outputGone = watch.stop()
        let verdict = Result { () throws(ScanFailure) -> VitalSignsResult in
            if let signal {
                throw ScanFailure(error: .cancelled, hint: "Stopped by \(SignalTrap.name(signal))")
            }
            if outputGone {
                throw ScanFailure(error: .cancelled, hint: "Standard output was closed, so the result would be lost",
                                  status: CommandExitCode.outputFailed)
            }
            switch outcome {
            case .success(let result): return result
            case .failure(let error as CircadifyError): throw ScanFailure(error: error, hint: hint(for: error, request))
            case .failure(let error): throw ScanFailure(error: .unknown(String(describing: error)))
            }
        }
        return (verdict, trap)
    }
}
