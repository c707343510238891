/// The running heart rate and pulse wave shown while a scan is under way:
/// the same analyzer as the final result, on the latest frames, about once
/// a second of media time (a few milliseconds each).
package struct LiveReadout {
    /// Seconds of the newest frames analysed for each update.
    package var window = 10.0
    /// Seconds of pulse wave handed to the display.
    package var waveSeconds = 6.0
    private var lastUpdate = -Double.infinity
    package private(set) var heartRate: Double?
    package private(set) var pulseWave = [Float]()

    package init() {}

    /// Updates from `frames` when a second has passed since the last update;
    /// returns whether anything was recomputed.
    @discardableResult
    package mutating func update(frames: [SignalFrame], analyzer: VitalsAnalyzer) -> Bool {
        guard let last = frames.last?.time, last - lastUpdate >= 1 else { return false }
        lastUpdate = last
        let recent = Array(frames.suffix(while: { $0.time >= last - window }))
        guard let estimate = try? analyzer.analyze(recent) else { return false }
        // Below the retry band the "heart rate" is noise: show none rather than a number.
        heartRate = estimate.confidence >= ConfidenceModel.retry ? estimate.heartRate : nil
        let wave = estimate.pulseWave.suffix(Int(waveSeconds * estimate.sampleRate))
        let peak = wave.map(abs).max() ?? 0
        pulseWave = peak > 0 ? wave.map { Float($0 / peak) } : []
        return true
    }
}

extension Array {
    /// The longest tail whose elements all satisfy `keep`.
    fileprivate func suffix(while keep: (Element) -> Bool) -> ArraySlice<Element> {
        var start = endIndex
        while start > startIndex, keep(self[start - 1]) { start -= 1 }
        return self[start...]
    }
}
