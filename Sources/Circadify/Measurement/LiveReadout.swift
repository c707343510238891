/// The running estimate shown while the camera measures or monitors: the
/// same analyzer as the final result, on the newest frames, about once a
/// second of media time (a few milliseconds each). Until the first confident
/// estimate it tries four times a second, so one arrives soon after the signal
/// allows without running the analyzer on every frame of a camera with no face.
package struct LiveReadout {
    /// Seconds of the newest frames analysed for each update: the heart rate
    /// is the newest 10 s window of the track, breathing needs the longer stretch.
    package var window = 20.0
    /// Seconds of pulse wave handed to the display.
    package var waveSeconds = 6.0
    /// Media seconds between tries: once a second after a confident pulse, four
    /// times a second before (every frame would cost a slow board its frame rate).
    package var interval = 1.0
    package var searchInterval = 0.25
    private var lastUpdate = -Double.infinity
    private var lastTry = -Double.infinity
    package private(set) var reading: LiveReading?

    package init() {}

    /// Updates from `frames` when a second has passed since the last estimate;
    /// returns the new reading, nil when nothing was recomputed.
    package mutating func update(frames: [SignalFrame], analyzer: VitalsAnalyzer) -> LiveReading? {
        guard let last = frames.last?.time else { return nil }
        let rewound = last < lastUpdate || last < lastTry
        guard rewound || (last - lastUpdate >= interval && last - lastTry >= searchInterval) else { return nil }
        lastTry = last
        let recent = Array(frames.suffix(while: { $0.time >= last - window }))
        guard let estimate = try? analyzer.analyze(recent) else { return nil }
        // Until the first confident pulse it tries again at the search interval, so
        // it arrives soon after the signal allows; then once a second.
        if estimate.confidence >= ConfidenceModel.retry || reading?.heartRate != nil { lastUpdate = last }
        let wave = estimate.pulseWave.suffix(Int(waveSeconds * estimate.sampleRate))
        let peak = wave.map(abs).max() ?? 0
        // Below the retry band the "heart rate" is noise: report none rather than a number.
        let usable = estimate.confidence >= ConfidenceModel.retry
        // Breathing's own confidence: the clearest reading that agrees with the rate chosen.
        let breathingQuality = estimate.respiratoryRate.map { rate in
            estimate.breathingReadings.filter { abs($0.breathsPerMinute - rate) <= 1.5 }.map(\.quality).max() ?? 0
        }
        let reading = LiveReading(
            time: last, heartRate: usable ? (estimate.heartRateTrack.last?.bpm ?? estimate.heartRate) : nil,
            confidence: estimate.confidence, respiratoryRate: estimate.respiratoryRate,
            respiratoryConfidence: breathingQuality, hrv: estimate.sdnn,
            pulseWave: peak > 0 ? wave.map { Float($0 / peak) } : [])
        self.reading = reading
        return reading
    }

    /// Forgets the last estimate (a new measurement starts).
    package mutating func reset() {
        lastUpdate = -.infinity
        lastTry = -.infinity
        reading = nil
    }
}

/// One live estimate from the newest stretch of signal.
package struct LiveReading: Sendable, Equatable {
    /// Media time of the newest frame analysed, seconds.
    package var time: Double
    /// Beats per minute; nil while the signal is too poor to say (confidence < 0.4).
    package var heartRate: Double?
    package var confidence: Double
    package var respiratoryRate: Double?
    /// 0-1: how clearly the breathing stands out (share of its band's power at the rate).
    package var respiratoryConfidence: Double?
    /// SDNN, ms, when the beats are clean enough.
    package var hrv: Double?
    /// The last seconds of pulse wave, newest last, scaled to -1...1.
    package var pulseWave: [Float]
}

extension Array {
    /// The longest tail whose elements all satisfy `keep`.
    fileprivate func suffix(while keep: (Element) -> Bool) -> ArraySlice<Element> {
        var start = endIndex
        while start > startIndex, keep(self[start - 1]) { start -= 1 }
        return self[start...]
    }
}
