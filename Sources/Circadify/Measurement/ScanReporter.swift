/// Hands a running scan's progress to its caller a few times a second of
/// media time: the phase, time done, the live heart rate and pulse wave, and
/// the active quality hints.
package final class ScanReporter {
    package var phase = ScanPhase.starting
    /// Messages of the quality warnings in force.
    package var hints = [String]()
    private let total: Double
    private let analyzer: VitalsAnalyzer
    private let progress: @Sendable (ScanProgress) -> Void
    private var readout = LiveReadout()
    private var lastReport = -Double.infinity
    /// Media seconds between two reports.
    private let interval = 0.25

    package init(total: Double, analyzer: VitalsAnalyzer, progress: @escaping @Sendable (ScanProgress) -> Void) {
        self.total = total
        self.analyzer = analyzer
        self.progress = progress
    }

    /// Whether a report is due at media time `time` (seconds).
    package func due(at time: Double) -> Bool {
        guard time - lastReport >= interval || time < lastReport else { return false }
        lastReport = time
        return true
    }

    /// Reports `elapsed` seconds of measurement; the live readout is taken from `pipeline`'s frames.
    package func send(elapsed: Double, pipeline: ScanPipeline) {
        if phase == .measuring { readout.update(frames: pipeline.frames, analyzer: analyzer) }
        progress(ScanProgress(phase: phase, elapsed: min(max(elapsed, 0), total), total: total,
                              pulseWave: phase == .measuring ? readout.pulseWave : [],
                              heartRate: phase == .measuring ? readout.heartRate : nil, hints: hints))
    }
}
