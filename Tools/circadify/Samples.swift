import ArgumentParser
import Circadify
import Foundation
import ProcessSignals

/// `circadify samples`: run a camera or a file through the realtime core and
/// print what it measures per frame.
struct Samples: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Stream a camera or replay a video file through the core, printing per-frame samples.",
        discussion: """
            Regions are the forehead and both cheeks of a face centred in the frame (the guide oval) \
            until face tracking places them. SIGINT, SIGTERM or SIGHUP stops it cleanly (the camera \
            released, its controls restored). Exit status: 0 on success, 1 when the source fails \
            (missing, busy or unreadable camera, truncated or corrupt file), 64 on bad arguments, \
            74 when the output cannot be written, 130 when stopped by a signal.
            """)

    @Option(help: "A V4L2 capture node, e.g. /dev/video0.")
    var device: String?

    @Option(help: "A Y4M or raw MJPEG file to replay.")
    var input: String?

    // `.unconditional`: "--fps -1" is a bad value, not a missing one followed by an option.
    @Option(parsing: .unconditional, help: "Frame rate, 1-999: of an MJPEG file, or requested from the camera.",
            transform: SourceOptions.frameRate)
    var fps: UInt32 = 30

    @Option(help: "Camera frame size, WIDTHxHEIGHT.")
    var size: String = "640x480"

    @Option(parsing: .unconditional, help: "Stop after this many samples (default: the whole file, or 300 from a camera).")
    var frames: Int?

    @Option(parsing: .unconditional, help: "Print every N-th sample.")
    var every: Int = 1

    @Flag(help: "Replay a file as fast as possible instead of at its frame rate.")
    var fast = false

    func validate() throws {
        if (device == nil) == (input == nil) { throw ValidationError("give exactly one of --device or --input") }
        if every < 1 { throw ValidationError("--every must be at least 1") }
        if let frames, frames < 1 { throw ValidationError("--frames must be at least 1") }
        if parsedSize == nil { throw ValidationError("--size must look like 640x480") }
    }

    var parsedSize: (UInt32, UInt32)? {
        let parts = size.split(separator: "x").compactMap { UInt32($0) }
        return parts.count == 2 && parts[0] > 0 && parts[1] > 0 ? (parts[0], parts[1]) : nil
    }

    func run() async throws {
        var configuration = FrameSourceConfiguration()
        configuration.fps = fps
        configuration.realtime = !fast
        if let (w, h) = parsedSize { configuration.width = w; configuration.height = h }
        let input: FrameSourceInput = device.map { .device($0) } ?? .file(self.input ?? "")
        let limit = frames ?? (device != nil ? 300 : Int.max)
        let source: FrameSource
        do {
            source = try FrameSource(input, configuration: configuration)
        } catch {
            Terminal.writeError("circadify: \(error.message) [\(error.name)]\n")
            throw ExitCode(1)
        }
        // Signals stop the stream the way its end would: the source is stopped and reported on.
        let command = self
        let task = Task { try await command.run(source, limit: limit) }
        let trap = SignalTrap([SIGINT, SIGTERM, SIGHUP], first: { _ in task.cancel() }, again: { number in
            Terminal.writeError("circadify samples: \(SignalTrap.name(number)) received again; exited at once\n")
            _exit(130)
        })
        // Released once the outcome is reported: a signal meanwhile must not cut the report off.
        defer { trap.release() }
        let outcome = await task.result
        let signal = trap.received
        switch outcome {
        case .failure(let error as CoreError):
            Terminal.writeError("circadify: \(error.message) [\(error.name)]\n")
            throw ExitCode(1)
        case .failure(let error as OutputFailure):
            Terminal.writeError("circadify samples: standard output cannot be written: \(Terminal.reason(error.errno))\n")
            throw ExitCode(CommandExitCode.outputFailed)
        case .failure(let error):
            throw error
        case .success:
            if let signal {
                Terminal.writeError("circadify samples: stopped by \(SignalTrap.name(signal))\n")
                throw ExitCode(130)
            }
        }
    }

    /// stdout refused a line (closed, a broken pipe, a full disk).
    struct OutputFailure: Error { var errno: Int32 }

    private func print(_ line: String) throws(OutputFailure) {
        let error = Terminal.writeOutput(line + "\n")
        if error != 0 { throw OutputFailure(errno: error) }
    }

    private func run(_ source: FrameSource, limit: Int) async throws {
        let f = source.format
        let origin: String = switch source.input {
        case .device(let path): path
        case .file(let path): path
        }
        try print("source: \(origin)  \(f.fourcc) \(f.width)x\(f.height) @ \(String(format: "%.2f", f.framesPerSecond)) fps")
        let regions = RegionSet.centeredFace
        try await source.setRegions(regions)
        try print("regions: forehead, left cheek, right cheek (fixed, centred face); colours are mean R/G/B of skin pixels")
        try print("   seq      t(s)   luma   forehead R/G/B  skin   left cheek R/G/B  skin  right cheek R/G/B  skin  lost")

        var count = 0, firstTimestamp: Int64?
        var latencies = [Double]()
        let stream = try await source.samples()
        do {
            for try await sample in stream {
                count += 1
                firstTimestamp = firstTimestamp ?? sample.timestampNanoseconds
                latencies.append(Double(sample.processedNanoseconds - sample.timestampNanoseconds) / 1e6)
                if count % every == 0 || sample.flags.contains(.gap) {
                    try print(Self.line(sample, since: firstTimestamp ?? 0))
                }
                if count >= limit { break }
            }
        } catch let error as CoreError {
            await source.stop()
            try summarize(count: count, latencies: latencies, statistics: await source.statistics())
            throw error
        } catch {
            await source.stop()
            throw error
        }
        await source.stop()
        try summarize(count: count, latencies: latencies, statistics: await source.statistics())
    }

    static func line(_ s: FrameSample, since start: Int64) -> String {
        let t = Double(s.timestampNanoseconds - start) / 1e9
        var text = String(format: "%6llu %9.3f %6.1f", s.sequence, t, s.meanLuma)
        for r in s.regions.prefix(3) {
            text += String(format: "  %5.1f/%5.1f/%5.1f %4.0f%%", r.red, r.green, r.blue, r.skinFraction * 100)
        }
        let lost = Int(s.droppedBefore + s.errorsBefore + s.overflowBefore)
        if lost > 0 {
            text += "  \(s.droppedBefore) dropped, \(s.errorsBefore) bad, \(s.overflowBefore) overflow before this frame"
        }
        return text
    }

    func summarize(count: Int, latencies: [Double],
                   statistics: SourceStatistics) throws(OutputFailure) {
        let sorted = latencies.sorted()
        func pct(_ p: Double) -> Double { sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(p * Double(sorted.count)))] }
        try print("""
            summary: \(statistics.frames) frames in, \(count) samples out; \
            \(statistics.dropped) dropped by the driver, \(statistics.errorFrames) flagged or corrupt, \
            \(statistics.ringOverflows) lost to a full ring
            """)
        // A fast replay stamps frames with their nominal times, so only paced runs have a latency.
        if !(fast && input != nil) {
            try print("latency frame timestamp -> sample: p50 \(String(format: "%.3f", pct(0.5))) ms, "
                + "p99 \(String(format: "%.3f", pct(0.99))) ms")
        }
    }
}
