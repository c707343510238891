import Foundation

/// Breathing rate from the four ways breathing shows in a face video: the head
/// rises and falls (motion), the skin's baseline brightness follows the venous
/// return (intensity), and respiratory sinus arrhythmia modulates the pulse's
/// amplitude and its beat intervals (amplitude, frequency). Each is read on its
/// own spectrum; the clear ones that agree are averaged by their quality.
package enum RespirationEstimator {
    /// 6-40 breaths per minute.
    package static let band: ClosedRange<Double> = 0.1...(40.0 / 60)
    /// Rate the breathing signals are analysed at after low-pass filtering.
    static let analysisRate = 5.0
    /// A source counts when at least this share of its band power sits at its peak.
    package static let minimumQuality = 0.7
    /// The most vertical face motion (standard deviation, share of the frame height) breathing explains.
    package static let maximumBreathingSway = 0.01

    package enum Source: String, Sendable, CaseIterable { case motion, intensity, amplitude, frequency }

    package struct Reading: Sendable, Equatable {
        package var source: Source
        package var breathsPerMinute: Double
        /// Share of the band's power within ±0.07 Hz of the peak (0-1).
        package var quality: Double
    }

    package struct Estimate: Sendable, Equatable {
        package var breathsPerMinute: Double?
        package var readings: [Reading]
    }

    /// `trace` gives the motion and intensity signals; `wave` (the band-passed pulse, at the
    /// trace's rate) and `beats` give amplitude and frequency modulation.
    package static func estimate(trace: UniformTrace, wave: [Double], beats: [Double]) -> Estimate {
        // Below two breaths at the slowest rate there is nothing to read.
        guard trace.duration >= 2 / band.lowerBound * 0.75 else { return Estimate(breathsPerMinute: nil, readings: []) }
        var signals = [(Source, [Double])]()
        // Breathing moves the head by well under a percent of the frame; a face that moves
        // more is moving on purpose, and its motion would be read as breathing.
        let headMoves = trace.faceCenterY.map { SignalMath.standardDeviation(SignalMath.detrended($0)) > maximumBreathingSway }
            ?? false
        if let y = trace.faceCenterY, !headMoves { signals.append((.motion, y)) }
        // Skin brightness follows the blood breathing pushes through the face, but also the
        // light: when the light changes (a drift, a step, a camera hunting for its exposure)
        // no correction separates the two well enough, and the drift's slow swings read as
        // slow breathing. Then it is left out. A head moving on purpose turns its skin through
        // the light's shading at the pace of its moves: left out too.
        let logLuma = trace.luma.map { log(max($0, 1e-3)) }
        let lightChanges = SignalMath.standardDeviation(logLuma) > 0.02
        if !headMoves && !lightChanges {
            let green = (0..<trace.count).map { i in
                log(max(trace.colors.reduce(0) { $0 + $1[i].y } / Double(max(trace.regionCount, 1)), 1e-3))
            }
            signals.append((.intensity, green))
        }
        if beats.count >= 8 {
            let peaks = beats.map { value(of: wave, at: $0 * trace.rate) }
            signals.append((.amplitude, interpolate(times: beats, values: peaks, count: trace.count, rate: trace.rate)))
            let mids = zip(beats.dropFirst(), beats).map { ($0 + $1) / 2 }
            let ibis = zip(beats.dropFirst(), beats).map { $0 - $1 }
            signals.append((.frequency, interpolate(times: mids, values: ibis, count: trace.count, rate: trace.rate)))
        }
        let readings = signals.compactMap { reading(of: $1, source: $0, rate: trace.rate) }
        return Estimate(breathsPerMinute: fuse(readings), readings: readings)
    }

    /// The clear readings that agree (within 2 /min), the group with the most quality winning,
    /// averaged by quality; nil when none is clear. Head motion, when present and clear,
    /// counts double: it is breathing itself, the others are its side effects. A side
    /// effect alone is not enough: the pulse's amplitude or rhythm can swing at a pace of
    /// their own (the Mayer wave, a camera hunting for its exposure), so without clear head
    /// motion a rate needs two side effects that agree and are independent: the skin's
    /// brightness and the pulse (its amplitude and its rhythm come from the same wave, and
    /// count as one).
    static func fuse(_ readings: [Reading]) -> Double? {
        let clear = readings.filter { $0.quality >= minimumQuality }
        func weight(_ r: Reading) -> Double { r.quality * r.quality * (r.source == .motion ? 2 : 1) }
        let groups = clear.map { centre in clear.filter { abs($0.breathsPerMinute - centre.breathsPerMinute) <= 2 } }
            .filter { group in
                group.contains { $0.source == .motion }
                    || (group.contains { $0.source == .intensity } && group.contains { $0.source != .intensity })
            }
        guard let best = groups.max(by: { $0.reduce(0) { $0 + weight($1) } < $1.reduce(0) { $0 + weight($1) } })
        else { return nil }
        return best.reduce(0) { $0 + $1.breathsPerMinute * weight($1) } / best.reduce(0) { $0 + weight($1) }
    }

    static func reading(of signal: [Double], source: Source, rate: Double) -> Reading? {
        let step = max(1, Int((rate / analysisRate).rounded()))
        let filtered = BandPassFilter(band: 0.07...0.8, rate: rate).apply(SignalMath.detrended(signal), padding: Int(rate * 5))
        let decimated = stride(from: 0, to: filtered.count, by: step).map { Float(filtered[$0]) }
        guard decimated.count >= 16,
              let analyzer = try? SpectrumAnalyzer(sampleRate: rate / Double(step), segmentLength: decimated.count,
                                                   fftLength: 2048, overlap: 0),
              let psd = try? analyzer.welch(decimated),
              let peak = analyzer.peak(in: psd, band: band) else { return nil }
        var inBand = 0.0, nearPeak = 0.0
        for (k, p) in psd.enumerated() {
            let f = analyzer.frequency(ofBin: k)
            guard band.contains(f) else { continue }
            inBand += Double(p)
            if abs(f - peak.frequency) <= 0.07 { nearPeak += Double(p) }
        }
        guard inBand > 0 else { return nil }
        // A peak on the band's lower edge is the slope of a trend (drift, slow movement), not a breath.
        let onEdge = peak.frequency <= band.lowerBound + 0.012
        return Reading(source: source, breathsPerMinute: peak.frequency * 60, quality: onEdge ? 0 : nearPeak / inBand)
    }

    /// Linear interpolation of a value at a fractional sample index.
    private static func value(of x: [Double], at index: Double) -> Double {
        guard !x.isEmpty else { return 0 }
        let i = min(max(Int(index), 0), x.count - 1), j = min(i + 1, x.count - 1), u = index - Double(i)
        return x[i] + (x[j] - x[i]) * min(max(u, 0), 1)
    }

    /// An irregularly sampled series (beat times) on the trace's uniform grid.
    private static func interpolate(times: [Double], values: [Double], count: Int, rate: Double) -> [Double] {
        guard let first = times.first, let last = times.last else { return [] }
        var j = 0
        return (0..<count).map { i in
            let t = Double(i) / rate
            if t <= first { return values[0] }
            if t >= last { return values[values.count - 1] }
            while j + 1 < times.count && times[j + 1] < t { j += 1 }
            let u = (t - times[j]) / (times[j + 1] - times[j])
            return values[j] + (values[j + 1] - values[j]) * u
        }
    }
}
