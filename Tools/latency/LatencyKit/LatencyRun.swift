import Circadify
import Synchronization

/// What to profile: a camera node, or a file replayed in real time.
public enum LatencyInput: Sendable, Equatable {
    case device(String)
    /// A Y4M or raw MJPEG file; `fps` is a raw MJPEG stream's rate (Y4M carries its own).
    case file(String, fps: Int)
}

/// Ends a `LatencyRun` before its duration (the command's SIGINT, SIGTERM or SIGHUP);
/// it reports what it measured until then.
public final class LatencyStop: Sendable {
    private let requested = Atomic<Bool>(false)

    public init() {}

    public func request() { requested.store(true, ordering: .relaxed) }

    public var isRequested: Bool { requested.load(ordering: .relaxed) }
}

/// Runs the real pipeline, the camera object and scan driver the SDK uses, with
/// live monitoring on (the analysis a monitoring board runs), for a while, and
/// records every frame's stage timings into `StageHistograms`.
@MainActor
public enum LatencyRun {
    /// Profiles `input` for `seconds` (a file: at most to its end), after
    /// `warmup` seconds whose frames and counts are left out (start-up: the first
    /// whole-frame face searches, caches, the analysis's first plans). `stop` ends it
    /// sooner, with what was measured so far (`interrupted`).
    /// - Throws: the camera's errors from `start()` (no such device or file,
    ///   permission, busy, a file that is not a video). Capture that fails
    ///   later ends the run early: the report says why in `error`, as it does when
    ///   no frame was measured at all.
    public static func run(_ input: LatencyInput, seconds: Double, warmup: Double = 0,
                           until stop: LatencyStop = LatencyStop()) async throws(CircadifyError) -> LatencyReport {
        let camera: CircadifyCamera
        switch input {
        case .device(let path): camera = CircadifyCamera(devicePath: path, position: .back)
        case .file(let path, let fps): camera = CircadifyCamera(replaying: path, fps: fps, pace: .realtime)
        }
        let recorder = Recorder(warmup: Int64((warmup * 1e9).rounded()))
        let timings = camera.stageTimings(bufferingNewest: 8192)
        let collector = Task.detached { for await timing in timings { recorder.record(timing) } }
        let ending = EndWatch()
        camera.addObserver(ending) { event in
            if case .ended(let failure) = event { ending.failure = failure }
        }
        defer { camera.removeObserver(ending) }

        do {
            try await camera.open()
        } catch {
            collector.cancel()
            throw error
        }
        let session = camera.session
        await session?.setMonitoring(true)
        let format = await session?.streamFormat
        var baseline = PipelineCounters()
        if warmup > 0 {
            // The warm-up is on the frames' clock, from the first frame's capture: a replay
            // leaves out the same frames however long the start took. The window's counts
            // are the final ones less what the warm-up's timings account for (`WarmupShare`);
            // the rest are read once the scan driver has handled a frame past it.
            while camera.isRunning, !stop.isRequested, !recorder.passedWarmup {
                try? await Task.sleep(for: .milliseconds(20))
            }
            baseline = await camera.pipelineCounters() ?? baseline
        }
        let endedInWarmup = warmup > 0 && !camera.isRunning
        let start = ProcessUsage.now(), started = ContinuousClock.now
        await runs(camera, for: seconds, until: stop)
        let interrupted = stop.isRequested, endedByItself = !camera.isRunning
        let elapsed = ContinuousClock.now - started
        let end = ProcessUsage.now()
        await camera.release()
        // Every timing was handed out before the release returned; let the collector drain them.
        await recorder.waitUntilQuiet()
        collector.cancel()

        let wall = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let (histograms, warmupShare) = recorder.snapshot()
        let counters = warmupShare.window(of: await camera.pipelineCounters() ?? PipelineCounters(), atWarmupEnd: baseline)
        var stages = [String: StageSummary]()
        for stage in PipelineStage.allCases { stages[stage.rawValue] = histograms.summary(of: stage) }
        let source: LatencyReport.Source
        switch input {
        case .device(let path):
            source = .init(input: path, kind: "device")
        case .file(let path, _):
            source = .init(input: path, kind: "file")
        }
        var described = source
        described.format = format?.fourcc
        described.width = format?.width
        described.height = format?.height
        described.nominalFps = (format?.framesPerSecond).flatMap { $0 > 0 ? $0 : nil }
        var error = ending.failure?.errorDescription
        if error == nil, histograms.frames == 0, !interrupted {
            error = endedInWarmup ? "the input ended during the \(LatencyTable.fixed(warmup, 1)) s warm-up: nothing was measured"
                : endedByItself ? "the input ended before a frame was measured"
                : "no frame was measured in \(LatencyTable.fixed(wall, 1)) s"
        }
        return LatencyReport(
            source: described, warmupSeconds: warmup, durationSeconds: wall,
            frames: .init(received: counters.framesReceived, samples: counters.samplesDelivered,
                          timed: UInt64(histograms.frames), droppedBySequence: counters.droppedBySequence,
                          droppedByTimestampGap: counters.droppedByTimestampGap, corrupt: counters.corrupt,
                          ringOverflows: counters.ringOverflows, backfilled: histograms.framesBackfilled,
                          fromRestartMarkers: counters.decodedFromRestartMarkers),
            achievedFps: histograms.achievedFramesPerSecond,
            cpuPercent: wall >= 0.1 ? end.cpuPercent(since: start, wallSeconds: wall) : nil,
            peakRssMB: Double(end.peakResidentBytes) / 1_048_576,
            stages: stages, interrupted: interrupted, error: error)
    }

    /// Returns after `seconds`, or earlier when the camera stops (a file ended, capture
    /// failed) or `stop` is requested (the command's Ctrl-C).
    private static func runs(_ camera: CircadifyCamera, for seconds: Double, until stop: LatencyStop) async {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while camera.isRunning, !stop.isRequested, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    /// How the camera's session ended (set on the main actor).
    private final class EndWatch {
        var failure: CircadifyError?
    }

    /// The histograms, fed from the timing stream's task, and the warm-up's share of the counts.
    private final class Recorder: Sendable {
        private struct State {
            var histograms = StageHistograms()
            var warmupShare = WarmupShare()
            /// Timings received, warm-up's included.
            var recorded = 0
            var from: Int64?
            var passedWarmup = false
        }

        private let warmup: Int64
        private let state = Mutex(State())

        /// Frames captured in the first `warmup` nanoseconds after the first frame are left out.
        init(warmup: Int64) { self.warmup = warmup }

        func record(_ timing: StageTiming) {
            state.withLock {
                $0.recorded += 1
                let from = $0.from ?? timing.captureNanoseconds + warmup
                $0.from = from
                guard timing.captureNanoseconds >= from else { return $0.warmupShare.add(timing) }
                $0.passedWarmup = true
                $0.histograms.record(timing)
            }
        }

        /// Whether a frame captured after the warm-up has been timed.
        var passedWarmup: Bool { state.withLock { $0.passedWarmup } }

        func snapshot() -> (StageHistograms, WarmupShare) { state.withLock { ($0.histograms, $0.warmupShare) } }

        /// Returns once no timing has arrived for 100 ms.
        func waitUntilQuiet() async {
            var last = -1
            while true {
                let now = state.withLock { $0.recorded }
                if now == last { return }
                last = now
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
    }
}
