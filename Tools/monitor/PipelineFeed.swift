import Circadify

/// Feeds a camera's pipeline into the metrics: its frame counters once an
/// `interval` while a session streams (and once more as it ends), and every
/// frame's stage timings as they come.
///
/// The counters are totals per session; a read that began in one session and
/// finished after the next one started is thrown away (`generation`), so no
/// frame is counted twice or against the wrong baseline.
@MainActor
final class PipelineFeed {
    private let camera: CircadifyCamera
    private let metrics: MonitorMetrics
    private var generation = 0
    private var streaming = false
    private var poller: Task<Void, Never>?
    private var timings: Task<Void, Never>?

    init(camera: CircadifyCamera, metrics: MonitorMetrics, interval: Duration) {
        self.camera = camera
        self.metrics = metrics
        // Observing switches the pipeline's stage timing on; the task's end switches it off.
        let stream = camera.stageTimings()
        timings = Task.detached { [metrics] in
            for await timing in stream { metrics.record(timing) }
        }
        poller = Task { [weak self] in
            while !Task.isCancelled {
                await self?.poll()
                try? await Task.sleep(for: interval)
            }
        }
    }

    /// A session started streaming: its counters start from zero.
    func sessionStarted() {
        metrics.countersRestarted()
        streaming = true
    }

    /// The session ended: its final counters, then nothing until the next one starts.
    func sessionEnded() async {
        guard streaming else { return }
        streaming = false
        generation += 1
        if let last = await camera.pipelineCounters() { metrics.record(last) }
    }

    func stop() async {
        await sessionEnded()
        poller?.cancel()
        timings?.cancel()
        await poller?.value
        await timings?.value
    }

    private func poll() async {
        guard streaming else { return }
        let asked = generation
        guard let counters = await camera.pipelineCounters(), asked == generation, streaming else { return }
        metrics.record(counters)
    }
}
