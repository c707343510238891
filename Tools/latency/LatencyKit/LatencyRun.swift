import Circadify
import Synchronization

/// What to profile: a camera node, or a file replayed in real time.
public enum LatencyInput: Sendable, Equatable {
    case device(String)
    /// A Y4M or raw MJPEG file; `fps` is a raw MJPEG stream's rate (Y4M carries its own).
    case file(String, fps: Int)
}

/// Runs the real pipeline, the camera object and scan driver the SDK uses, with
/// live monitoring on (the analysis a monitoring board runs), for a while, and
/// records every frame's stage timings into `StageHistograms`.
@MainActor
public enum LatencyRun {
    /// Profiles `input` for `seconds` (a file: at most to its end), after
    /// `warmup` seconds whose frames and counts are left out (start-up: the first
    /// whole-frame face searches, caches, the analysis's first plans).
    /// - Throws: the camera's errors from `start()` (no such device or file,
    ///   permission, busy, a file that is not a video). Capture that fails
    ///   later ends the run early: the report says why in `error`.
    public static func run(_ input: LatencyInput, seconds: Double, warmup: Double = 0)
        async throws(CircadifyError) -> LatencyReport {
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
            // leaves out the same frames however long the start took. The counts are read
            // once it is over, when the scan driver answers (a busy one answers late: then
            // fewer frames are counted than timed).
            while camera.isRunning, recorder.windowStart.map({ StageTimingHub.now() < $0 }) ?? true {
                try? await Task.sleep(for: .milliseconds(20))
            }
            baseline = await camera.pipelineCounters() ?? baseline
        }
        let start = ProcessUsage.now(), started = ContinuousClock.now
        await runs(camera, for: seconds)
        let elapsed = ContinuousClock.now - started
        let end = ProcessUsage.now()
        await camera.release()
        // Every timing was handed out before the release returned; let the collector drain them.
        await recorder.waitUntilQuiet()
        collector.cancel()

        let wall = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let histograms = recorder.snapshot()
        let counters = (await camera.pipelineCounters() ?? PipelineCounters()).since(baseline)
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
        return LatencyReport(
            source: described, warmupSeconds: warmup, durationSeconds: wall,
            frames: .init(received: counters.framesReceived, samples: counters.samplesDelivered,
                          timed: UInt64(histograms.frames), droppedBySequence: counters.droppedBySequence,
                          droppedByTimestampGap: counters.droppedByTimestampGap, corrupt: counters.corrupt,
                          ringOverflows: counters.ringOverflows, backfilled: histograms.framesBackfilled,
                          fromRestartMarkers: counters.decodedFromRestartMarkers),
            achievedFps: histograms.achievedFramesPerSecond,
            cpuPercent: end.cpuPercent(since: start, wallSeconds: wall),
            peakRssMB: Double(end.peakResidentBytes) / 1_048_576,
            stages: stages, error: ending.failure?.errorDescription)
    }

    /// Returns after `seconds`, or earlier when the camera stops (a file ended, capture failed).
    private static func runs(_ camera: CircadifyCamera, for seconds: Double) async {
        let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
        while camera.isRunning, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    /// How the camera's session ended (set on the main actor).
    private final class EndWatch {
        var failure: CircadifyError?
    }

    /// The histograms, fed from the timing stream's task.
    private final class Recorder: Sendable {
        private let warmup: Int64
        private let state = Mutex((histograms: StageHistograms(), recorded: 0, from: Int64?.none))

        /// Frames captured in the first `warmup` nanoseconds after the first frame are left out.
        init(warmup: Int64) { self.warmup = warmup }

        func record(_ timing: StageTiming) {
            state.withLock {
                $0.recorded += 1
                let from = $0.from ?? timing.captureNanoseconds + warmup
                $0.from = from
                if timing.captureNanoseconds >= from { $0.histograms.record(timing) }
            }
        }

        /// The capture time from which frames count; nil until the first frame.
        var windowStart: Int64? { state.withLock { $0.from } }

        func snapshot() -> StageHistograms { state.withLock { $0.histograms } }

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
