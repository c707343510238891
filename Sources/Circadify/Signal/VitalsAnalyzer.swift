import Foundation

/// Turns a stretch of frames into heart rate, HRV, breathing and a confidence:
/// resample → remove steps → POS, CHROM and green per region, the blood-volume-pulse
/// projection on the pooled regions → fuse by SNR → sliding
/// Welch spectra → harmonic-aware tracking → beats → breathing → confidence (a scan longer
/// than the confidence map was fitted on is judged by pieces of the length it knows).
///
/// Stateless between calls apart from its cached spectrum plans, so the same
/// analyzer serves the live updates (called about once a second on the latest
/// frames) and the final result. Not Sendable: one owner (an actor) at a time.
package final class VitalsAnalyzer {
    package struct Configuration: Sendable {
        /// The uniform rate traces are resampled to, Hz.
        package var rate = 30.0
        /// Sliding-window length and hop for the heart-rate track, seconds.
        package var window = 10.0
        package var hop = 1.0
        /// About how long the non-overlapping windows the consistency is counted over are, seconds
        /// (the stretch is split into equal windows near this length).
        package var independentWindow = 5.0
        /// The Welch segments of the whole stretch's spectrum, which gives the final heart rate
        /// and its SNR, seconds (the stretch itself when shorter). A 20 s Hann segment's main lobe
        /// spans ±0.1 Hz, the SNR's pulse band: a steady pulse's power falls inside it, where 10 s
        /// segments spread it over ±0.2 Hz and counted half of it as noise (a pure sinusoid read
        /// 10-11 dB). The fusion's weights and the methods' and waves' agreement keep `window`.
        package var stretchSegment = 20.0
        /// The shortest stretch a heart rate is read from, seconds.
        package var minimumDuration = 5.0
        package init() {}
    }

    package enum Failure: Error, Equatable {
        /// Less than `minimumDuration` of usable signal (seconds seen given).
        case notEnoughSignal(seconds: Double)
        /// The frames carry no region measurements.
        case noRegions
    }

    package let configuration: Configuration
    private let filter: BandPassFilter
    private var analyzers = [Int: SpectrumAnalyzer]()

    package init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        filter = BandPassFilter(band: HeartRateTracker.band, rate: configuration.rate)
    }

    package func analyze(_ frames: [SignalFrame]) throws(Failure) -> VitalsEstimate {
        let (estimate, origin) = try measure(frames)
        // A scan asked for 30 s may run a frame or two over: it is still one the map knows.
        guard estimate.duration > ConfidenceModel.fittedDuration * 1.05 else { return estimate }
        return judgedByPieces(estimate, frames: frames, origin: origin)
    }

    /// The map never saw a scan longer than `ConfidenceModel.fittedDuration`, and a steady
    /// artefact grows more convincing by every signal the longer the scan (a pulse-free face's
    /// breathing harmonic read 0.74 at 60 s, 0.19 at 30 s). So a longer scan is judged by scans
    /// the map knows: pieces of that length spread evenly over it (overlapping unless it is a
    /// whole multiple), each read alone, its probability the mean of theirs. A piece counts when
    /// it reads what the whole scan's track reads over the same seconds (a heart rate may change
    /// over a long scan); one that disputes it, or cannot be read, counts as wrong.
    private func judgedByPieces(_ whole: VitalsEstimate, frames: [SignalFrame], origin: Double) -> VitalsEstimate {
        guard let heartRate = whole.heartRate else { return whole }
        let length = ConfidenceModel.fittedDuration
        let pieces = Int((whole.duration / length).rounded(.up))
        let step = (whole.duration - length) / Double(pieces - 1)
        var probability = 0.0
        for index in 0..<pieces {
            let from = Double(index) * step, to = from + length
            let piece = frames.filter { $0.time - origin >= from && (index == pieces - 1 || $0.time - origin < to) }
            let track = whole.heartRateTrack.filter { $0.time - configuration.window >= from - 0.5 && $0.time <= to + 0.5 }
            let expected = track.isEmpty ? heartRate : SignalMath.median(track.map(\.bpm))
            guard let part = try? measure(piece).estimate, let rate = part.heartRate, abs(rate - expected) <= 3 else { continue }
            probability += ConfidenceModel.probability(ofConfidence: part.confidence) / Double(pieces)
        }
        var judged = whole
        judged.confidence = ConfidenceModel.confidence(probability: probability)
        // HRV is reported only with a reliable heart rate.
        if judged.confidence < ConfidenceModel.reliable { judged.sdnn = nil; judged.rmssd = nil }
        return judged
    }

    /// The estimate of `frames` as one scan, and the time its trace starts from.
    private func measure(_ frames: [SignalFrame]) throws(Failure) -> (estimate: VitalsEstimate, origin: Double) {
        let rate = configuration.rate
        let trace = UniformTrace(frames: frames, rate: rate)
        guard trace.regionCount > 0 else { throw .noRegions }
        let usable = trace.unreliable.filter { !$0 }.count
        guard trace.duration >= configuration.minimumDuration, Double(usable) / rate >= configuration.minimumDuration
        else { throw .notEnoughSignal(seconds: Double(usable) / rate) }

        // Each region, and all of them pooled, through both projections.
        let cleaned = StepRemoval.apply(trace.colors, known: trace.placementChanged)
        let steps = cleaned.steps
        var regionTraces = cleaned.traces
        if let faceY = trace.faceCenterY { regionTraces = MotionRegression.apply(regionTraces, faceY: faceY, filter: filter) }
        regionTraces.append(Self.pooled(regionTraces))
        let lightShare = pictureLightShare(trace, steps: steps, pooled: regionTraces[regionTraces.count - 1])
        let projections = lightShare < Self.steadyLightShare
            ? PulseProjection.allCases : PulseProjection.allCases.filter { $0 != .green }
        var waves = [(projection: PulseProjection, wave: [Double])]()
        // The blood-volume-pulse projection reads the pooled regions only. It passes whatever
        // moves a colour along the pulse's signature, and a region sliding over the skin's
        // texture does that too (melanin and blood vary skin colour in nearly that direction):
        // run on each region, one cheek's texture read as a 56 bpm pulse on a pulse-free face.
        // Pooled, one region's artefact is diluted and the pulse, in every region, is not.
        let pooledIndex = regionTraces.count - 1
        for (index, rgb) in regionTraces.enumerated() {
            for projection in projections where projection != .pbv || index == pooledIndex {
                waves.append((projection, filter.apply(projection.pulse(of: rgb, rate: rate, filter: filter))))
            }
        }

        // Fuse by each wave's SNR at the frequency all of them point to (window-long segments).
        let windowed = try spectrumFor(length: min(trace.count, Int(configuration.window * rate)))
        let spectra = waves.map { welch(windowed, $0.wave) }
        let reference = HeartRateTracker.candidates(psd: Self.normalizedSum(spectra, analyzer: windowed),
                                                    binHz: windowed.binHz).first?.frequency ?? 1.2
        let weights = spectra.map { psd -> Double in
            let snr = windowed.snr(of: psd, fundamental: reference, band: HeartRateTracker.band)
            return snr.isFinite ? pow(10, min(snr, 20) / 10) : (snr > 0 ? 100 : 0)
        }
        let fused = Self.weightedSum(waves.map(\.wave), weights: weights)

        // Sliding windows for the track, then the whole stretch for the final value.
        let windows = try slidingWindows(fused, trace: trace)
        let track = HeartRateTracker.track(windows)
        let stretch = try spectrumFor(length: min(trace.count, Int(configuration.stretchSegment * rate)))
        let stretchPSD = welch(stretch, fused)
        let final = Self.finalFrequency(stretchPSD, binHz: stretch.binHz, track: track.compactMap { $0 })
        let snr = stretch.snr(of: stretchPSD, fundamental: final, band: HeartRateTracker.band)
        // The HRV gate was set on the SNR over `window`-long segments (ConfidenceModel.hrvMinimumSNR).
        let windowSNR = windowed.snr(of: welch(windowed, fused), fundamental: final, band: HeartRateTracker.band)

        var heartRate = final * 60
        let beats = BeatIntervals(wave: fused, rate: rate, heartRate: heartRate)
        // Beat intervals define the mean heart rate; when they are clean and agree, prefer them.
        if beats.sdnn != nil, let fromBeats = beats.meanHeartRate, abs(fromBeats - heartRate) < 2 { heartRate = fromBeats }
        let breathing = RespirationEstimator.estimate(trace: trace, wave: fused, beats: beats.beats)

        let methodRates = projections.map { projection -> Double? in
            let members = waves.indices.filter { waves[$0].projection == projection }
            let wave = Self.weightedSum(members.map { waves[$0].wave }, weights: members.map { weights[$0] })
            return HeartRateTracker.candidates(psd: welch(windowed, wave), binHz: windowed.binHz).first
                .map { $0.frequency * 60 }
        }
        let agree = methodRates.allSatisfy { rate in rate.map { abs($0 - heartRate) <= 3 } ?? false }
        let waveRates = spectra.map {
            HeartRateTracker.candidates(psd: $0, binHz: windowed.binHz).first.map { $0.frequency * 60 }
        }
        let waveAgreement = Double(waveRates.filter { rate in rate.map { abs($0 - heartRate) <= 3 } ?? false }.count)
            / Double(max(waveRates.count, 1))
        let windowLength = independentLength(fused.count)
        let independent = try independentWindows(fused, length: windowLength, trace: trace)
        // Agreeing within 5 bpm, or within half the window's resolution (60 / 2L bpm) when that is coarser.
        let tolerance = max(5, 30 / (Double(windowLength) / rate))
        let consistent = independent.filter { w in
            w.candidates.first.map { abs($0.frequency * 60 - heartRate) <= tolerance } ?? false
        }
        let quality = SignalQuality(
            snr: snr, consistency: independent.isEmpty ? 0 : Double(consistent.count) / Double(independent.count),
            methodsAgree: agree,
            skinCoverage: SignalMath.mean(trace.skin.map { SignalMath.mean($0) }),
            gapFraction: Double(trace.count - usable) / Double(max(trace.count, 1)),
            droppedFraction: Double(trace.bridgedCount) / Double(max(trace.count, 1)),
            stepsPerMinute: Double(steps.count) / trace.duration * 60,
            waveAgreement: waveAgreement,
            motion: trace.faceCenterY.map { SignalMath.standardDeviation(SignalMath.detrended($0)) } ?? 0,
            lightShare: lightShare, windows: independent.count,
            swayHarmonics: trace.faceCenterY.map { MotionRegression.harmonicShare(fused, faceY: $0, filter: filter) } ?? 0)

        // Beat intervals are only as good as the pulse wave: a noisy wave jitters every beat
        // time and inflates HRV, so HRV is reported only with a reliable heart rate and a clean wave.
        let confidence = ConfidenceModel.confidence(quality)
        let hrvReliable = confidence >= ConfidenceModel.reliable && windowSNR >= ConfidenceModel.hrvMinimumSNR
        return (VitalsEstimate(
            heartRate: heartRate, confidence: confidence,
            sdnn: hrvReliable ? beats.sdnn : nil, rmssd: hrvReliable ? beats.rmssd : nil,
            respiratoryRate: breathing.breathsPerMinute,
            breathingReadings: breathing.readings,
            heartRateTrack: zip(windows, track).compactMap { w, f in f.map { HeartRateReading(time: w.time, bpm: $0 * 60) } },
            pulseWave: fused, sampleRate: rate, duration: trace.duration, quality: quality), trace.start)
    }

    /// The in-band movement of the picture's brightness as a share of the face's green
    /// (`SignalQuality.lightShare`). Green alone is used only below `steadyLightShare`: an
    /// exposure that hunts, a gain that breathes or a light that flickers slowly moves every
    /// channel alike; POS and CHROM cancel that, green takes it for a pulse. The brightness is
    /// the band luma, rows 0.3-0.5 (the face's middle and the picture beside it) on every
    /// format, so the share means the same on every camera; the frame's mean luma covers rows
    /// that depend on the format (frames measured before the band luma was kept use it).
    private func pictureLightShare(_ trace: UniformTrace, steps: [Int], pooled: [SIMD3<Double>]) -> Double {
        var known = [Bool](repeating: false, count: trace.count)
        for i in steps where i < known.count { known[i] = true }
        let luma = StepRemoval.apply([(trace.band ?? trace.luma).map { SIMD3(repeating: $0) }], known: known).traces[0]
        let picture = SignalMath.standardDeviation(filter.apply(luma.map { log(max($0.x, 1e-3)) }))
        let face = SignalMath.standardDeviation(filter.apply(pooled.map { log(max($0.y, 1e-3)) }))
        return face > 0 ? picture / face : .infinity
    }

    /// How much of the face's in-band green the picture's brightness may show on a steady camera.
    static let steadyLightShare = 0.5

    /// One reading per hop; the first windows grow from the minimum duration to the full length.
    private func slidingWindows(_ wave: [Double], trace: UniformTrace) throws(Failure) -> [PulseWindow] {
        let rate = configuration.rate
        let full = Int(configuration.window * rate), shortest = Int(configuration.minimumDuration * rate)
        let hop = max(1, Int(configuration.hop * rate))
        var windows = [PulseWindow]()
        var end = min(shortest, wave.count)
        while end <= wave.count {
            let start = max(0, end - full)
            // Windows mostly inside a long gap say nothing.
            let lost = trace.unreliable[start..<end].filter { $0 }.count
            if lost * 4 < end - start {
                let analyzer = try spectrumFor(length: end - start)
                let psd = welch(analyzer, Array(wave[start..<end]))
                windows.append(PulseWindow(time: Double(end) / rate,
                                           candidates: HeartRateTracker.candidates(psd: psd, binHz: analyzer.binHz)))
            }
            if end == wave.count { break }
            end = min(end + hop, wave.count)
        }
        return windows
    }

    /// Windows that share no sample, `length` samples each (`independentLength`, so even the
    /// shortest scan has two), tiled back from the end. Only these count for the consistency:
    /// overlapping windows agreeing are mostly the same samples agreeing with themselves, which
    /// a short pulse-free stretch does as readily as a pulse. How many agree is the evidence (a
    /// 30 s scan can show six, a 10 s scan two).
    private func independentWindows(_ wave: [Double], length: Int, trace: UniformTrace) throws(Failure) -> [PulseWindow] {
        guard length >= 2 else { return [] }
        var windows = [PulseWindow]()
        var end = wave.count
        while end - length >= 0 {
            let start = end - length
            // A window mostly inside a long gap says nothing, and is not counted.
            if trace.unreliable[start..<end].filter({ $0 }).count * 4 < length {
                let analyzer = try spectrumFor(length: length)
                windows.append(PulseWindow(time: Double(end) / configuration.rate,
                                           candidates: HeartRateTracker.candidates(psd: welch(analyzer, Array(wave[start..<end])),
                                                                                   binHz: analyzer.binHz)))
            }
            end = start
        }
        return windows
    }

    /// The length of the non-overlapping windows over `count` samples: the stretch split into
    /// as many equal windows as `independentWindow` goes into it, rounded (two at least), so
    /// every sample but a few is counted. Whole `independentWindow`s tiled from the end left
    /// nearly a window out whenever a scan fell a little short of a multiple of it, as a scan
    /// does (its trace starts when the face is found, and N frames span N - 1 intervals): a
    /// 30 s scan counted five windows, a 15 s scan two.
    private func independentLength(_ count: Int) -> Int {
        let nominal = configuration.independentWindow * configuration.rate
        return count / max(2, Int((Double(count) / nominal).rounded()))
    }

    /// The final frequency: the whole stretch's strongest harmonic-sum candidate near the
    /// track's median, so a peak the track never followed cannot take over at the end.
    private static func finalFrequency(_ psd: [Float], binHz: Double, track: [Double]) -> Double {
        let candidates = HeartRateTracker.candidates(psd: psd, binHz: binHz, limit: 8)
        guard let best = candidates.first else { return SignalMath.median(track) }
        guard !track.isEmpty else { return best.frequency }
        let centre = SignalMath.median(track)
        let near = candidates.filter { abs($0.frequency - centre) * 60 <= 6 && $0.score >= 0.25 * best.score }
        return near.first?.frequency ?? best.frequency
    }

    private func spectrumFor(length: Int) throws(Failure) -> SpectrumAnalyzer {
        if let cached = analyzers[length] { return cached }
        // The segment is the whole window; 4096 points give a 0.44 bpm grid at 30 Hz before interpolation.
        guard let made = try? SpectrumAnalyzer(sampleRate: configuration.rate, segmentLength: length,
                                               fftLength: max(4096, 1 << Int(log2(Double(length)).rounded(.up))),
                                               overlap: 0.5)
        else { throw .notEnoughSignal(seconds: Double(length) / configuration.rate) }
        analyzers[length] = made
        return made
    }

    /// Welch PSD of the whole wave in overlapping segments. Every caller passes at least one
    /// segment; a shorter wave would read as all zeros: no peak, and so no confidence.
    private func welch(_ analyzer: SpectrumAnalyzer, _ wave: [Double]) -> [Float] {
        (try? analyzer.welch(wave.map { Float($0) })) ?? [Float](repeating: 0, count: analyzer.binCount)
    }

    /// The regions' traces, each scaled by its mean colour, averaged: the most pixels, the least noise.
    private static func pooled(_ traces: [[SIMD3<Double>]]) -> [SIMD3<Double>] {
        guard let count = traces.map(\.count).min(), count > 0 else { return [] }
        let scaled = traces.map { t -> [SIMD3<Double>] in
            let m = t.reduce(SIMD3<Double>.zero, +) / Double(t.count)
            let divisor = m.asDivisor
            return t.map { $0 / divisor }
        }
        return (0..<count).map { i in scaled.reduce(SIMD3<Double>.zero) { $0 + $1[i] } / Double(scaled.count) * 128 }
    }

    /// Sum of the spectra, each scaled to unit power in the pulse band.
    private static func normalizedSum(_ spectra: [[Float]], analyzer: SpectrumAnalyzer) -> [Float] {
        var sum = [Float](repeating: 0, count: analyzer.binCount)
        for psd in spectra {
            var total: Float = 0
            for k in psd.indices where HeartRateTracker.band.contains(analyzer.frequency(ofBin: k)) { total += psd[k] }
            guard total > 0 else { continue }
            for k in psd.indices { sum[k] += psd[k] / total }
        }
        return sum
    }

    /// The waves, standardized, turned to agree in sign with the strongest one (a region
    /// lit from the side can flip its projection), and averaged by weight.
    private static func weightedSum(_ waves: [[Double]], weights: [Double]) -> [Double] {
        guard let count = waves.map(\.count).min(), let lead = weights.indices.max(by: { weights[$0] < weights[$1] })
        else { return [] }
        let total = weights.reduce(0, +)
        let w = total > 0 ? weights.map { $0 / total } : weights.map { _ in 1 / Double(weights.count) }
        let reference = SignalMath.standardized(waves[lead])
        var out = [Double](repeating: 0, count: count)
        for (wave, weight) in zip(waves, w) where weight > 0 {
            let s = SignalMath.standardized(wave)
            let sign = SignalMath.pearson(s, reference) < 0 ? -1.0 : 1.0
            for i in 0..<count { out[i] += sign * weight * s[i] }
        }
        return SignalMath.standardized(out)
    }
}
