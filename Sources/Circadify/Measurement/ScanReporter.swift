/// Hands a running measurement's progress to its caller a few times a second
/// of media time: the phase, time done, the live heart rate and pulse wave,
/// and the active quality hints.
package final class ScanReporter {
    package var phase = ScanPhase.starting
    /// Messages of the quality warnings in force.
    package var hints = [String]()
    private let total: Double
    private let progress: @Sendable (ScanProgress) -> Void
    private var lastReport = -Double.infinity
    /// Media seconds between two reports.
    private let interval = 0.25

    package init(total: Double, progress: @escaping @Sendable (ScanProgress) -> Void) {
        self.total = total
        self.progress = progress
    }

    /// Whether a report is due at media time `time` (seconds).
    package func due(at time: Double) -> Bool {
        guard time - lastReport >= interval || time < lastReport else { return false }
        lastReport = time
        return true
    }

    /// Reports `elapsed` seconds of measurement with the latest live reading.
    package func send(elapsed: Double, reading: LiveReading?) {
        let measuring = phase == .measuring
        progress(ScanProgress(phase: phase, elapsed: min(max(elapsed, 0), total), total: total,
                              pulseWave: measuring ? reading?.pulseWave ?? [] : [],
                              heartRate: measuring ? reading?.heartRate : nil, hints: hints))
    }

    /// Reports a phase change at once (starting, analyzing).
    package func send(phase: ScanPhase, elapsed: Double) {
        self.phase = phase
        progress(ScanProgress(phase: phase, elapsed: min(max(elapsed, 0), total), total: total, hints: hints))
    }
}
