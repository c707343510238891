@testable import Circadify
import CCore
import CCoreTestSupport
import Foundation
import Testing

/// The Swift wrapper over ccore_spectrum: sizes, errors as CoreError, and
/// results identical to the C calls.
@Suite struct SpectrumAnalyzerTests {
    static func tone(_ frequency: Double, amplitude: Double = 1, rate: Double = 30, count: Int) -> [Float] {
        (0..<count).map { Float(amplitude * sin(2 * .pi * frequency * Double($0) / rate + 0.3)) }
    }

    @Test func sizesFollowTheConfiguration() throws {
        let a = try SpectrumAnalyzer(sampleRate: 30, segmentLength: 256)
        #expect(a.sampleRate == 30 && a.segmentLength == 256)
        #expect(a.binCount == 513, "default FFT: 4 * 256 = 1024 points")
        #expect(a.binHz == 30.0 / 1024)
        #expect(a.frequency(ofBin: 41) == 41 * 30.0 / 1024)
        #expect(a.frequency(ofBin: a.binCount - 1) == 15, "the last bin is Nyquist")

        let b = try SpectrumAnalyzer(sampleRate: 32, segmentLength: 100, fftLength: 128, overlap: 0)
        #expect(b.binCount == 65 && b.binHz == 0.25)
    }

    @Test func badConfigurationsThrowEINVAL() {
        let bad: [(Double, Int, Int?, Double)] = [
            (0, 256, nil, 0.5), (-30, 256, nil, 0.5), (30, 4, nil, 0.5), (30, -1, nil, 0.5),
            (30, 256, 1000, 0.5), (30, 256, 128, 0.5), (30, 256, -2, 0.5), (30, 256, nil, 1),
            (30, Int(UInt32.max) + 1, nil, 0.5),
        ]
        for (rate, segment, fft, overlap) in bad {
            do {
                _ = try SpectrumAnalyzer(sampleRate: rate, segmentLength: segment, fftLength: fft, overlap: overlap)
                Issue.record("accepted rate \(rate), segment \(segment), fft \(String(describing: fft)), overlap \(overlap)")
            } catch {
                #expect(error.code == -EINVAL)
                #expect(error.name == "EINVAL")
            }
        }
    }

    @Test func welchThrowsForASignalShorterThanASegment() throws {
        let a = try SpectrumAnalyzer(sampleRate: 30, segmentLength: 256)
        #expect(throws: CoreError(code: -EINVAL, message: "a signal of 255 samples does not fit the 256-sample Welch segments")) {
            try a.welch(Self.tone(1.2, count: 255))
        }
        #expect(throws: CoreError.self) { try a.welch([]) }
        #expect(try a.welch(Self.tone(1.2, count: 256)).count == a.binCount)
    }

    @Test func findsSeventyTwoBeatsPerMinuteAndItsPower() throws {
        let a = try SpectrumAnalyzer(sampleRate: 30, segmentLength: 256)
        let psd = try a.welch(Self.tone(1.2, amplitude: 0.8, count: 900))
        let peak = try #require(a.peak(in: psd, band: 0.7...4))
        #expect(abs(peak.frequency - 1.2) < 0.01, "\(peak.frequency) Hz")
        #expect(peak.power == Double(psd[peak.bin]))
        let integrated = psd.reduce(0) { $0 + Double($1) } * a.binHz
        #expect(abs(integrated - 0.32) < 0.01, "A^2 / 2 = 0.32, got \(integrated)")
    }

    @Test func peakIsNilWithoutPowerOrBand() throws {
        let a = try SpectrumAnalyzer(sampleRate: 30, segmentLength: 128)
        let silent = try a.welch([Float](repeating: 0, count: 300))
        #expect(a.peak(in: silent, band: 0.7...4) == nil, "-ENODATA")
        let psd = try a.welch(Self.tone(2, count: 300))
        #expect(a.peak(in: psd, band: 0.7...4) != nil)
        #expect(a.peak(in: psd, band: 16...20) == nil, "above Nyquist: -EINVAL")
        #expect(a.peak(in: Array(psd.dropLast()), band: 0.7...4) == nil, "a PSD of the wrong size")
    }

    @Test func snrOfACleanPulseAndOfNoise() throws {
        let a = try SpectrumAnalyzer(sampleRate: 30, segmentLength: 512)
        let pulse = zip(Self.tone(1.3, count: 900), Self.tone(2.6, amplitude: 0.3, count: 900)).map(+)
        let clean = try a.welch(pulse)
        #expect(a.snr(of: clean, fundamental: 1.3, band: 0.7...4) > 20)
        #expect(a.snr(of: Array(clean.prefix(10)), fundamental: 1.3, band: 0.7...4).isNaN)
        #expect(a.snr(of: clean, fundamental: 0, band: 0.7...4).isNaN)

        var rng = SeededRandom(seed: 42)
        let noise = (0..<900).map { _ in Float.random(in: -1...1, using: &rng) }
        #expect(a.snr(of: try a.welch(noise), fundamental: 1.3, band: 0.7...4) < 0)
        #expect(a.snr(of: [Float](repeating: 0, count: a.binCount), fundamental: 1.3, band: 0.7...4) == -.infinity)
    }

    @Test func matchesTheCoreCalls() throws {
        let a = try SpectrumAnalyzer(sampleRate: 25, segmentLength: 100, fftLength: 512, overlap: 0.25)
        var rng = SeededRandom(seed: 7)
        let signal = (0..<400).map { i in Float(sin(Double(i) * 0.3)) + Float.random(in: -0.5...0.5, using: &rng) }
        let psd = try a.welch(signal)

        var config = ccore_spectrum_config(sample_rate_hz: 25, segment_length: 100, fft_length: 512, overlap: 0.25)
        var raw: OpaquePointer?
        #expect(ccore_spectrum_create(&config, &raw) == 0)
        let h = try #require(raw)
        defer { ccore_spectrum_destroy(h) }
        var direct = [Float](repeating: 0, count: 257)
        #expect(ccore_spectrum_welch(h, signal, 400, &direct, 257) == 0)
        #expect(psd == direct)

        var cPeak = ccore_spectral_peak()
        #expect(ccore_spectrum_peak(h, direct, 0.5, 3, &cPeak) == 0)
        #expect(a.peak(in: psd, band: 0.5...3)
            == SpectralPeak(frequency: Double(cPeak.frequency_hz), power: Double(cPeak.power), bin: Int(cPeak.bin)))
        #expect(a.snr(of: psd, fundamental: 1.2, band: 0.5...3)
            == Double(ccore_spectrum_snr_db(h, direct, 1.2, 0.5, 3)))
    }
}
