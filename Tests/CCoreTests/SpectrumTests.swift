import CCore
import CCoreTestSupport
import Foundation
import Testing

/// A spectrum handle's pointer, handed to other threads.
private struct SpectrumRef: @unchecked Sendable { let raw: OpaquePointer }

/// Results gathered from several threads.
private final class Collector<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [(Int, T)] = []
    func add(_ index: Int, _ item: T) { lock.withLock { items.append((index, item)) } }
    var sorted: [T] { lock.withLock { items.sorted { $0.0 < $1.0 }.map(\.1) } }
}

/// Runs `body(i)` for i in 0..<count, each on its own OS thread, all at once; returns the results in order.
private func onThreads<T>(_ count: Int, _ body: @escaping @Sendable (Int) -> T) -> [T] {
    let results = Collector<T>()
    let done = DispatchSemaphore(value: 0)
    let start = DispatchSemaphore(value: 0)
    for i in 0..<count {
        let thread = Thread {
            start.wait()
            results.add(i, body(i))
            done.signal()
        }
        thread.start()
    }
    for _ in 0..<count { start.signal() }
    for _ in 0..<count { done.wait() }
    return results.sorted
}

enum Spectrum {
    static func config(rate: Float, segment: UInt32, fft: UInt32 = 0, overlap: Float = 0.5) -> ccore_spectrum_config {
        ccore_spectrum_config(sample_rate_hz: rate, segment_length: segment, fft_length: fft, overlap: overlap)
    }

    static func create(_ config: ccore_spectrum_config) -> (Int32, OpaquePointer?) {
        var config = config
        var handle: OpaquePointer?
        let rc = ccore_spectrum_create(&config, &handle)
        return (rc, handle)
    }

    static func welch(_ handle: OpaquePointer, _ signal: [Float]) -> (Int32, [Float]) {
        var psd = [Float](repeating: .nan, count: Int(ccore_spectrum_bin_count(handle)))
        let rc = ccore_spectrum_welch(handle, signal, UInt32(signal.count), &psd, UInt32(psd.count))
        return (rc, psd)
    }

    static func peak(_ handle: OpaquePointer, _ psd: [Float], _ low: Float, _ high: Float)
        -> (Int32, ccore_spectral_peak)
    {
        var out = ccore_spectral_peak()
        let rc = ccore_spectrum_peak(handle, psd, low, high, &out)
        return (rc, out)
    }

    /// Sum of sinusoids (frequency Hz, amplitude, phase) sampled at `rate`.
    static func tones(_ tones: [(Double, Double, Double)], rate: Double, count: Int, offset: Double = 0) -> [Float] {
        (0..<count).map { i in
            let t = Double(i) / rate
            return Float(offset + tones.reduce(0) { $0 + $1.1 * sin(2 * .pi * $1.0 * t + $1.2) })
        }
    }

    /// Gaussian white noise (Box-Muller) from a seeded generator.
    static func noise(count: Int, sigma: Double, seed: UInt64) -> [Float] {
        var rng = SeededRandom(seed: seed)
        return (0..<count).map { _ in
            let u1 = Double.random(in: Double.ulpOfOne..<1, using: &rng)
            let u2 = Double.random(in: 0..<1, using: &rng)
            return Float(sigma * sqrt(-2 * log(u1)) * cos(2 * .pi * u2))
        }
    }

    /// Welch by the book in double precision: the periodic Hann, per-segment
    /// mean removal, an O(N^2) DFT of the zero-padded segment, the average of
    /// the periodograms and one-sided density scaling.
    static func referenceWelch(_ x: [Float], rate: Double, segment: Int, fft n: Int, overlap: Double) -> [Double] {
        let step = max(1, Int((Double(segment) * (1 - overlap)).rounded(.toNearestOrAwayFromZero)))
        let window = (0..<segment).map { 0.5 - 0.5 * cos(2 * .pi * Double($0) / Double(segment)) }
        let s2 = window.reduce(0) { $0 + $1 * $1 }
        let bins = n / 2 + 1
        var sum = [Double](repeating: 0, count: bins)
        var segments = 0
        var start = 0
        while start + segment <= x.count {
            let seg = x[start..<(start + segment)].map(Double.init)
            let mean = seg.reduce(0, +) / Double(segment)
            let y = (0..<segment).map { (seg[$0] - mean) * window[$0] }
            for k in 0..<bins {
                var re = 0.0, im = 0.0
                for i in 0..<segment {
                    let angle = 2 * .pi * Double((k * i) % n) / Double(n)
                    re += y[i] * cos(angle)
                    im -= y[i] * sin(angle)
                }
                sum[k] += re * re + im * im
            }
            segments += 1
            start += step
        }
        return (0..<bins).map { k in
            let twice = (k == 0 || k == bins - 1) ? 1.0 : 2.0
            return sum[k] * twice / (rate * s2 * Double(segments))
        }
    }
}

@Suite struct SpectrumTests {
    @Test func createDerivesTheFFTSizeAndBins() throws {
        let (rc, raw) = Spectrum.create(Spectrum.config(rate: 30, segment: 50))
        #expect(rc == 0)
        let h = try #require(raw)
        defer { ccore_spectrum_destroy(h) }
        #expect(ccore_spectrum_bin_count(h) == 129, "default FFT: next power of two >= 4 * 50 = 256")
        #expect(ccore_spectrum_bin_hz(h) == Float(30) / 256)

        let (rc2, raw2) = Spectrum.create(Spectrum.config(rate: 32, segment: 64, fft: 64))
        #expect(rc2 == 0)
        let h2 = try #require(raw2)
        defer { ccore_spectrum_destroy(h2) }
        #expect(ccore_spectrum_bin_count(h2) == 33)
        #expect(ccore_spectrum_bin_hz(h2) == 0.5)
    }

    @Test(arguments: [
        Spectrum.config(rate: 0, segment: 64),
        Spectrum.config(rate: -30, segment: 64),
        Spectrum.config(rate: .nan, segment: 64),
        Spectrum.config(rate: .infinity, segment: 64),
        Spectrum.config(rate: 30, segment: 7),
        Spectrum.config(rate: 30, segment: 0),
        Spectrum.config(rate: 30, segment: 64, fft: 100),
        Spectrum.config(rate: 30, segment: 64, fft: 32),
        Spectrum.config(rate: 30, segment: 64, overlap: 1),
        Spectrum.config(rate: 30, segment: 64, overlap: -0.1),
        Spectrum.config(rate: 30, segment: 64, overlap: .nan),
        Spectrum.config(rate: 30, segment: 0x4000_0000),
    ])
    func createRejectsBadConfigs(_ config: ccore_spectrum_config) {
        let (rc, handle) = Spectrum.create(config)
        #expect(rc == -EINVAL)
        #expect(handle == nil)
        ccore_spectrum_destroy(handle)
    }

    @Test func createRejectsNullArguments() {
        var handle: OpaquePointer?
        #expect(ccore_spectrum_create(nil, &handle) == -EINVAL)
        #expect(handle == nil)
        var config = Spectrum.config(rate: 30, segment: 64)
        #expect(ccore_spectrum_create(&config, nil) == -EINVAL)
        ccore_spectrum_destroy(nil)
    }

    /// (segment, fft, overlap, count): padded and unpadded, odd segment
    /// lengths, no overlap, steps that round up (37 * 0.4 = 14.8, 10 * 0.25 =
    /// 2.5), an overlap so high the step clamps to one sample, and signals
    /// whose tail does not fill a last segment.
    @Test(arguments: [
        (50, 64, 0.3, 200),
        (37, 128, 0.6, 160),
        (10, 16, 0.75, 41),
        (64, 0, 0.5, 300),
        (64, 64, 0.0, 256),
        (37, 128, 0.75, 160),
        (8, 8, 0.99, 20),
        (100, 512, 0.5, 100),
    ] as [(Int, Int, Float, Int)])
    func welchMatchesADirectDFT(segment: Int, fft: Int, overlap: Float, count: Int) throws {
        let rate = 30.0
        let (rc, raw) = Spectrum.create(Spectrum.config(rate: Float(rate), segment: UInt32(segment), fft: UInt32(fft),
                                                        overlap: overlap))
        #expect(rc == 0)
        let h = try #require(raw)
        defer { ccore_spectrum_destroy(h) }
        let n = fft == 0 ? 256 : fft
        #expect(ccore_spectrum_bin_count(h) == UInt32(n / 2 + 1))

        // Tones, noise, an offset and a drift, so mean removal and every bin matter.
        let noise = Spectrum.noise(count: count, sigma: 0.3, seed: UInt64(segment * 1000 + count))
        let tones = Spectrum.tones([(1.3, 1.0, 0.2), (4.7, 0.4, 1.0)], rate: rate, count: count, offset: 5)
        let signal = (0..<count).map { tones[$0] + noise[$0] + Float($0) * 0.01 }

        let (wrc, psd) = Spectrum.welch(h, signal)
        #expect(wrc == 0)
        let reference = Spectrum.referenceWelch(signal, rate: rate, segment: segment, fft: n,
                                                overlap: Double(overlap))
        let peak = try #require(reference.max())
        var worst = 0.0
        for (a, b) in zip(psd, reference) { worst = max(worst, abs(Double(a) - b)) }
        #expect(worst <= 2e-5 * peak, "worst bin error \(worst) against a peak of \(peak)")
    }

    @Test func welchRejectsShortSignalsAndShortOutputs() throws {
        let (_, raw) = Spectrum.create(Spectrum.config(rate: 30, segment: 64))
        let h = try #require(raw)
        defer { ccore_spectrum_destroy(h) }
        let bins = Int(ccore_spectrum_bin_count(h))
        var psd = [Float](repeating: 0, count: bins)
        let short = [Float](repeating: 1, count: 63)
        #expect(ccore_spectrum_welch(h, short, 63, &psd, UInt32(bins)) == -EINVAL)
        #expect(ccore_spectrum_welch(h, short, 0, &psd, UInt32(bins)) == -EINVAL)
        let enough = Spectrum.tones([(1, 1, 0)], rate: 30, count: 64)
        #expect(ccore_spectrum_welch(h, enough, 64, &psd, UInt32(bins - 1)) == -EINVAL)
        #expect(ccore_spectrum_welch(h, nil, 64, &psd, UInt32(bins)) == -EINVAL)
        #expect(ccore_spectrum_welch(h, enough, 64, nil, UInt32(bins)) == -EINVAL)
        #expect(ccore_spectrum_welch(h, enough, 64, &psd, UInt32(bins)) == 0, "exactly one segment is enough")
        #expect(psd.allSatisfy { $0.isFinite && $0 >= 0 })
    }

    /// Pulse-like tones at 30 fps, on and between bins: the interpolated peak
    /// lands within 0.01 Hz even where the nearest bin is 0.029 Hz away.
    @Test(arguments: [1.2, 0.75, 1.37, 2.5, 3.3])
    func peakFindsASinusoidBetweenBins(frequency: Double) throws {
        let rate = 30.0
        let (_, raw) = Spectrum.create(Spectrum.config(rate: Float(rate), segment: 128))
        let h = try #require(raw)
        defer { ccore_spectrum_destroy(h) }
        let binHz = Double(ccore_spectrum_bin_hz(h))
        for f in [frequency, (frequency / binHz).rounded(.down) * binHz + binHz / 2] {
            let signal = Spectrum.tones([(f, 1.5, 0.4)], rate: rate, count: 600)
            let (_, psd) = Spectrum.welch(h, signal)
            let (rc, peak) = Spectrum.peak(h, psd, 0.7, 4.0)
            #expect(rc == 0)
            #expect(abs(Double(peak.frequency_hz) - f) < 0.01, "\(f) Hz found at \(peak.frequency_hz) Hz")
            #expect(abs(Double(peak.bin) * binHz - f) <= binHz / 2 + 1e-6, "the peak bin is the nearest one")
            #expect(peak.power == psd[Int(peak.bin)])
        }
    }

    @Test func seventyTwoBeatsPerMinuteAtThirtyFramesPerSecond() throws {
        // A typical 10 s window with a 256-sample (8.5 s) segment.
        let (_, raw) = Spectrum.create(Spectrum.config(rate: 30, segment: 256))
        let h = try #require(raw)
        defer { ccore_spectrum_destroy(h) }
        let signal = zip(Spectrum.tones([(72.0 / 60, 0.8, 1.1)], rate: 30, count: 300),
                         Spectrum.noise(count: 300, sigma: 0.05, seed: 72)).map(+)
        let (_, psd) = Spectrum.welch(h, signal)
        let (rc, peak) = Spectrum.peak(h, psd, 0.7, 4.0)
        #expect(rc == 0)
        #expect(abs(peak.frequency_hz * 60 - 72) < 0.6, "\(peak.frequency_hz * 60) bpm")
    }

    /// Density scaling: each tone integrates to A^2 / 2, white noise to its variance.
    @Test func integratedPowerIsHalfTheSquaredAmplitude() throws {
        let rate: Float = 30
        let (_, raw) = Spectrum.create(Spectrum.config(rate: rate, segment: 256))
        let h = try #require(raw)
        defer { ccore_spectrum_destroy(h) }
        let binHz = ccore_spectrum_bin_hz(h)
        let signal = Spectrum.tones([(1.23, 2.0, 0.3), (2.71, 0.5, 2.0)], rate: Double(rate), count: 1800)
        let (_, psd) = Spectrum.welch(h, signal)
        func power(_ low: Float, _ high: Float) -> Double {
            psd.indices.filter { Float($0) * binHz >= low && Float($0) * binHz <= high }
                .reduce(0) { $0 + Double(psd[$1]) * Double(binHz) }
        }
        #expect(abs(power(0, rate / 2) - (4 + 0.25) / 2) < 0.01 * 2.125)
        #expect(abs(power(0.9, 1.6) - 2) < 0.02, "the 1.23 Hz tone of amplitude 2")
        #expect(abs(power(2.4, 3.0) - 0.125) < 0.002, "the 2.71 Hz tone of amplitude 0.5")

        let noise = Spectrum.noise(count: 20_000, sigma: 0.7, seed: 9)
        let (_, noisePSD) = Spectrum.welch(h, noise)
        let total = noisePSD.reduce(0) { $0 + Double($1) * Double(binHz) }
        #expect(abs(total - 0.49) < 0.03, "white noise of variance 0.49 integrates to \(total)")
    }

    @Test func allZeroSignalHasNoPeak() throws {
        let (_, raw) = Spectrum.create(Spectrum.config(rate: 30, segment: 64))
        let h = try #require(raw)
        defer { ccore_spectrum_destroy(h) }
        let (wrc, psd) = Spectrum.welch(h, [Float](repeating: 0, count: 200))
        #expect(wrc == 0)
        #expect(psd.allSatisfy { $0 == 0 })
        #expect(Spectrum.peak(h, psd, 0.7, 4).0 == -ENODATA)
        // A constant is removed with the mean: no power either.
        let (_, flat) = Spectrum.welch(h, [Float](repeating: 3.5, count: 200))
        #expect(Spectrum.peak(h, flat, 0.7, 4).0 == -ENODATA)
        #expect(ccore_spectrum_snr_db(h, psd, 1.2, 0.7, 4) == -Float.infinity)
    }

    @Test func peakRejectsEmptyBands() throws {
        // 32 Hz over 512 points: bins every 0.0625 Hz.
        let (_, raw) = Spectrum.create(Spectrum.config(rate: 32, segment: 128, fft: 512))
        let h = try #require(raw)
        defer { ccore_spectrum_destroy(h) }
        let (_, psd) = Spectrum.welch(h, Spectrum.tones([(1.25, 1, 0)], rate: 32, count: 512))
        #expect(Spectrum.peak(h, psd, 0.7, 4).0 == 0)
        #expect(Spectrum.peak(h, psd, 4, 0.7).0 == -EINVAL, "inverted band")
        #expect(Spectrum.peak(h, psd, 1.26, 1.31).0 == -EINVAL, "no bin between 1.25 and 1.3125 Hz")
        #expect(Spectrum.peak(h, psd, 16.5, 20).0 == -EINVAL, "above Nyquist")
        #expect(Spectrum.peak(h, psd, .nan, 4).0 == -EINVAL)
        #expect(Spectrum.peak(h, psd, -5, -1).0 == -EINVAL)
        var out = ccore_spectral_peak()
        #expect(ccore_spectrum_peak(h, nil, 0.7, 4, &out) == -EINVAL)
        #expect(ccore_spectrum_peak(h, psd, 0.7, 4, nil) == -EINVAL)
        // A one-bin band is not empty.
        let (rc, one) = Spectrum.peak(h, psd, 1.25, 1.25)
        #expect(rc == 0 && one.bin == 20)
    }

    @Test func peakInterpolatesOnlyAtALocalMaximum() throws {
        let (_, raw) = Spectrum.create(Spectrum.config(rate: 32, segment: 128, fft: 512))
        let h = try #require(raw)
        defer { ccore_spectrum_destroy(h) }
        var psd = [Float](repeating: 0, count: 257)
        // A lone bin: zero neighbours, no log to fit.
        psd[30] = 4
        var (rc, peak) = Spectrum.peak(h, psd, 0.7, 4)
        #expect(rc == 0 && peak.bin == 30 && peak.frequency_hz == 30 * 0.0625 && peak.power == 4)
        // A Gaussian lobe centred at bin 30.3: the log-parabola recovers it exactly.
        for k in 20...40 { psd[k] = Float(exp(-pow(Double(k) - 30.3, 2) / 4)) }
        (rc, peak) = Spectrum.peak(h, psd, 0.7, 4)
        #expect(rc == 0 && peak.bin == 30)
        #expect(abs(Double(peak.frequency_hz) - 30.3 * 0.0625) < 1e-4)
        // Band edge on the lobe's flank: the edge bin, not a point outside the band.
        (rc, peak) = Spectrum.peak(h, psd, 0.7, 1.5)
        #expect(rc == 0 && peak.bin == 24 && peak.frequency_hz == 24 * 0.0625)
        // A maximum at DC has no left neighbour.
        psd[0] = 10
        (rc, peak) = Spectrum.peak(h, psd, 0, 0.5)
        #expect(rc == 0 && peak.bin == 0 && peak.frequency_hz == 0)
    }

    /// de Haan's rule on a hand-made PSD: 32 Hz over 512 points, bins every
    /// 0.0625 Hz; f0 = 1.25 Hz (bin 20), so ±0.1 Hz is bins 19...21 and
    /// ±0.2 Hz around 2.5 Hz is bins 37...43. Bins outside the band are huge
    /// and must not count on either side.
    @Test func snrCountsTheHarmonicAndOnlyTheBand() throws {
        let (_, raw) = Spectrum.create(Spectrum.config(rate: 32, segment: 128, fft: 512))
        let h = try #require(raw)
        defer { ccore_spectrum_destroy(h) }
        var psd = [Float](repeating: 1000, count: 257)
        for k in 12...64 { psd[k] = 1 }  // the band 0.75...4 Hz
        psd[20] = 101
        psd[40] = 51
        // Signal: 101 + 2 around f0, 51 + 6 around 2 f0; noise: the other 43 bins of 53.
        let snr = ccore_spectrum_snr_db(h, psd, 1.25, 0.75, 4)
        #expect(abs(Double(snr) - 10 * log10(160.0 / 43)) < 1e-4, "\(snr) dB")
        // Without the harmonic's windows as signal it would be 10 log10(103 / 100) ≈ 0.1 dB.
        #expect(snr > 5)
        // The harmonic above the band: 0.75...2 Hz is bins 12...32, signal 103, noise 18.
        let narrow = ccore_spectrum_snr_db(h, psd, 1.25, 0.75, 2)
        #expect(abs(Double(narrow) - 10 * log10(103.0 / 18)) < 1e-4, "\(narrow) dB")
    }

    @Test func snrEdgeCases() throws {
        let (_, raw) = Spectrum.create(Spectrum.config(rate: 32, segment: 128, fft: 512))
        let h = try #require(raw)
        defer { ccore_spectrum_destroy(h) }
        var psd = [Float](repeating: 0, count: 257)
        #expect(ccore_spectrum_snr_db(h, psd, 1.25, 0.75, 4) == -.infinity, "no power at all")
        psd[50] = 1
        #expect(ccore_spectrum_snr_db(h, psd, 1.25, 0.75, 4) == -.infinity, "power only off the pulse")
        psd[50] = 0
        psd[19] = 1; psd[21] = 2; psd[42] = 3
        #expect(ccore_spectrum_snr_db(h, psd, 1.25, 0.75, 4) == .infinity, "nothing but the pulse")
        #expect(ccore_spectrum_snr_db(h, psd, 1.25, 4, 0.75).isNaN, "inverted band")
        #expect(ccore_spectrum_snr_db(h, psd, 0, 0.75, 4).isNaN, "no fundamental")
        #expect(ccore_spectrum_snr_db(h, nil, 1.25, 0.75, 4).isNaN)
    }

    @Test func snrSeparatesACleanPulseFromWhiteNoise() throws {
        // 17 s segments: the Hann main lobe (±2 / 17 s) fits the ±0.1 Hz window. With 8.5 s
        // segments a quarter of a pure tone's lobe falls outside it and caps the SNR near 9 dB.
        let rate = 30.0
        let (_, raw) = Spectrum.create(Spectrum.config(rate: Float(rate), segment: 512))
        let h = try #require(raw)
        defer { ccore_spectrum_destroy(h) }
        let noise = Spectrum.noise(count: 900, sigma: 1, seed: 2013)

        let pulse = Spectrum.tones([(1.2, 1, 0), (2.4, 0.4, 0.5)], rate: rate, count: 900)
        let clean = zip(pulse, noise).map { $0 + 0.02 * $1 }
        let (_, cleanPSD) = Spectrum.welch(h, clean)
        let (_, peak) = Spectrum.peak(h, cleanPSD, 0.7, 4)
        let cleanSNR = ccore_spectrum_snr_db(h, cleanPSD, peak.frequency_hz, 0.7, 4)
        #expect(cleanSNR > 20, "clean pulse: \(cleanSNR) dB")

        // The harmonic (a sixth of the fundamental's power) inside the band is signal: counted as
        // noise it would pull the SNR down to about 8 dB.
        let harmonicOutside = ccore_spectrum_snr_db(h, cleanPSD, peak.frequency_hz, 0.7, 2.0)
        #expect(cleanSNR > harmonicOutside - 3, "\(cleanSNR) dB with the harmonic, \(harmonicOutside) dB without")

        let (_, noisePSD) = Spectrum.welch(h, noise)
        for f0 in [0.9, 1.2, 1.7, 2.3] as [Float] {
            let snr = ccore_spectrum_snr_db(h, noisePSD, f0, 0.7, 4)
            #expect(snr < 0, "white noise at \(f0) Hz: \(snr) dB")
        }
    }

    /// Two handles driven from two threads at once give bit-identical PSDs to one thread.
    @Test func twoHandlesOnTwoThreadsMatchOneThread() throws {
        let signals = [
            Spectrum.tones([(1.1, 1, 0)], rate: 30, count: 900),
            zip(Spectrum.tones([(2.2, 0.5, 1)], rate: 30, count: 900),
                Spectrum.noise(count: 900, sigma: 0.5, seed: 3)).map(+),
        ]
        let config = Spectrum.config(rate: 30, segment: 256)
        let (_, solo) = Spectrum.create(config)
        let soloHandle = try #require(solo)
        let expected = signals.map { Spectrum.welch(soloHandle, $0).1 }
        ccore_spectrum_destroy(soloHandle)
        #expect(expected[0] != expected[1])

        var refs = [SpectrumRef]()
        for _ in 0..<2 {
            let (_, raw) = Spectrum.create(config)
            refs.append(SpectrumRef(raw: try #require(raw)))
        }
        defer { refs.forEach { ccore_spectrum_destroy($0.raw) } }
        let handles = refs
        let mismatches = onThreads(2) { t in
            var bad = 0
            for _ in 0..<300 {
                let (rc, psd) = Spectrum.welch(handles[t].raw, signals[t])
                if rc != 0 || psd != expected[t] { bad += 1 }
            }
            return bad
        }
        #expect(mismatches == [0, 0])
    }

    /// Plans made and destroyed from several threads at once: the planner
    /// lock keeps FFTW's shared tables intact, and every handle still works.
    @Test func createAndDestroyFromManyThreads() {
        let sizes: [(UInt32, UInt32)] = [(64, 0), (100, 512), (128, 128), (256, 0), (50, 64), (300, 2048)]
        let failures = onThreads(6) { t in
            var failed = 0
            for i in 0..<150 {
                let (segment, fft) = sizes[(t + i) % sizes.count]
                let (rc, raw) = Spectrum.create(Spectrum.config(rate: 30, segment: segment, fft: fft))
                guard rc == 0, let h = raw else { failed += 1; continue }
                // A tone on a bin, at least five cycles per segment so its negative-frequency
                // image stays out of the way; the peak bin proves the plan computes a real transform.
                let n = (Int(ccore_spectrum_bin_count(h)) - 1) * 2
                let bin = 5 * n / Int(segment) + 1 + (t + i) % 7
                let f = Double(bin) * Double(ccore_spectrum_bin_hz(h))
                let (wrc, psd) = Spectrum.welch(h, Spectrum.tones([(f, 1, 0)], rate: 30, count: Int(segment) * 2))
                let (prc, peak) = Spectrum.peak(h, psd, 0.1, 15)
                if wrc != 0 || prc != 0 || peak.bin != UInt32(bin) { failed += 1 }
                ccore_spectrum_destroy(h)
            }
            return failed
        }
        #expect(failures == [0, 0, 0, 0, 0, 0])
    }
}
