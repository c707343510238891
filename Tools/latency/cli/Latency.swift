import ArgumentParser
import Circadify
import Foundation
import Glibc
import LatencyKit
import ProcessSignals

/// `circadify-latency`: where a board spends its frame budget, stage by stage.
@main
struct Latency: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "circadify-latency",
        abstract: "Profile the whole pipeline on a camera or a replayed file: per-stage latency percentiles.",
        discussion: """
            Runs the scan driver the SDK uses (face detection, regions, quality and the live \
            estimate on) and reports, per stage, HdrHistogram percentiles in milliseconds: \
            buffer timestamp to dequeue, decode, kernels, thumbnail, ring residence, detector, \
            analysis and end to end; frames received, dropped (by sequence and by timestamp gap) \
            and corrupt; the achieved frame rate, CPU and peak resident memory. A file is replayed \
            at its own frame rate, as a camera would deliver it. Stages marked * are corrected \
            for coordinated omission (frames lost to a stall count in the tail).
            Ctrl-C (SIGINT, SIGTERM, SIGHUP) ends the run early: the camera is released and \
            the report covers the time measured.
            Exit status: 0 measured, 1 the camera or file failed or nothing was measured, \
            64 a bad command line, 130 stopped by a signal (after its report).
            """)

    @Option(name: .long, help: ArgumentHelp("A V4L2 capture node to profile.", valueName: "path"))
    var device: String?

    @Option(name: .long, help: ArgumentHelp("A Y4M or raw MJPEG file to replay in real time.", valueName: "file"))
    var input: String?

    @Option(name: .long, help: ArgumentHelp("Seconds to measure (a file: at most to its end; Ctrl-C ends it sooner).", valueName: "s"))
    var duration: Double = 10

    @Option(name: .long, help: ArgumentHelp("Seconds to run before measuring (start-up left out).", valueName: "s"))
    var warmup: Double = 0

    @Option(name: .long, help: "Frame rate of a raw MJPEG file (a Y4M file carries its own).")
    var fps: Int = 30

    @Flag(name: .long, help: "Print one JSON object instead of the table.")
    var json = false

    func validate() throws {
        switch (device, input) {
        case (nil, nil): throw ValidationError("say what to profile: --device PATH or --input FILE")
        case (.some, .some): throw ValidationError("--device and --input exclude each other: profile one at a time")
        default: break
        }
        if device?.isEmpty == true || input?.isEmpty == true { throw ValidationError("the path is empty") }
        guard duration.isFinite, duration >= 0.1, duration <= 86_400 else {
            throw ValidationError("--duration must be 0.1 to 86400 seconds (a day), got \(duration)")
        }
        guard warmup.isFinite, warmup >= 0, warmup <= 3600 else {
            throw ValidationError("--warmup must be 0 or more seconds (at most an hour), got \(warmup)")
        }
        guard (1...1000).contains(fps) else { throw ValidationError("--fps must be 1 to 1000, got \(fps)") }
    }

    func run() async throws {
        let target: LatencyInput = device.map { .device($0) } ?? .file(input ?? "", fps: fps)
        // The first signal ends the run cleanly (the camera released, the report printed); a
        // second one means that is not happening, and exits at once.
        let stop = LatencyStop()
        let trap = SignalTrap([SIGINT, SIGTERM, SIGHUP], first: { _ in stop.request() }, again: { number in
            FileHandle.standardError.write(Data("circadify-latency: \(SignalTrap.name(number)) received again; exited at once\n".utf8))
            Foundation.exit(Self.interruptedStatus)
        })
        let report: LatencyReport
        do {
            report = try await LatencyRun.run(target, seconds: duration, warmup: warmup, until: stop)
        } catch {
            Self.fail(describe(error, target))
        }
        // The trap stays until the process exits: a second signal while the report is
        // printed must not kill it half-written.
        let signal = trap.received
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            print(LatencyTable.render(report))
        }
        if let error = report.error { Self.fail("the run ended early: \(error)") }
        if let signal, report.interrupted {
            Self.fail("stopped by \(SignalTrap.name(signal)) after \(LatencyTable.fixed(report.durationSeconds, 1)) s",
                      status: Self.interruptedStatus)
        }
        withExtendedLifetime(trap) {}
    }

    /// The shell's status for a command stopped by Ctrl-C.
    static let interruptedStatus: Int32 = 130

    /// What went wrong opening `target`, naming it.
    private func describe(_ error: CircadifyError, _ target: LatencyInput) -> String {
        let detail = error.errorDescription ?? "\(error)"
        switch (error, target) {
        case (.cameraNotAvailable, .device(let path)):
            return "no V4L2 capture device at \(path): \(detail) (`circadify devices` lists them)"
        case (.cameraNotAvailable, .file(let path, _)):
            return "\(path): no such file: \(detail)"
        default:
            return detail
        }
    }

    private static func fail(_ message: String, status: Int32 = 1) -> Never {
        FileHandle.standardError.write(Data("circadify-latency: \(message)\n".utf8))
        Foundation.exit(status)
    }
}
