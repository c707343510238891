import CCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A peak of a power spectral density inside a band.
package struct SpectralPeak: Sendable, Equatable {
    /// Interpolated peak frequency, Hz.
    package var frequency: Double
    /// PSD value at the peak bin.
    package var power: Double
    /// Index of the peak bin.
    package var bin: Int

    package init(frequency: Double, power: Double, bin: Int) {
        self.frequency = frequency; self.power = power; self.bin = bin
    }
}

/// Welch PSD, peak and de Haan SNR of a trace: the one owner of a
/// `ccore_spectrum` handle (FFTW plan and buffers, made once, reused for every
/// window). One owner at a time: the handle's buffers are scratch space for
/// each call, so the analyzer is deliberately not `Sendable`. Different
/// analyzers may run on different threads at once.
package final class SpectrumAnalyzer {
    private let raw: OpaquePointer
    package let sampleRate: Double
    package let segmentLength: Int
    package let fftLength: Int
    package let binCount: Int

    /// - Parameters:
    ///   - fftLength: a power of two >= `segmentLength`; nil for the next power of two >= 4 * `segmentLength`.
    ///   - overlap: segment overlap in [0, 1).
    package init(sampleRate: Double, segmentLength: Int, fftLength: Int? = nil, overlap: Double = 0.5)
        throws(CoreError)
    {
        guard let segment = UInt32(exactly: segmentLength),
              let fft = UInt32(exactly: fftLength ?? 0)
        else {
            throw CoreError(code: -EINVAL, message: "segment length \(segmentLength) or FFT length "
                + "\(fftLength.map(String.init) ?? "default") is out of range")
        }
        var config = ccore_spectrum_config(sample_rate_hz: Float(sampleRate), segment_length: segment,
                                           fft_length: fft, overlap: Float(overlap))
        var handle: OpaquePointer?
        let rc = ccore_spectrum_create(&config, &handle)
        guard rc == 0, let handle else {
            throw CoreError(code: rc == 0 ? -ENOMEM : rc,
                            message: "cannot make a spectrum analyzer (rate \(sampleRate) Hz, segment "
                                + "\(segmentLength), FFT \(fftLength.map(String.init) ?? "default"), overlap \(overlap))")
        }
        raw = handle
        self.sampleRate = sampleRate
        self.segmentLength = segmentLength
        binCount = Int(ccore_spectrum_bin_count(handle))
        self.fftLength = (binCount - 1) * 2
    }

    deinit { ccore_spectrum_destroy(raw) }

    /// Frequency spacing of the PSD bins, Hz.
    package var binHz: Double { sampleRate / Double(fftLength) }

    package func frequency(ofBin bin: Int) -> Double { Double(bin) * binHz }

    /// Welch PSD (one-sided density, `binCount` values from 0 Hz to Nyquist);
    /// throws CoreError if the signal is shorter than one segment.
    package func welch(_ signal: [Float]) throws(CoreError) -> [Float] {
        guard signal.count >= segmentLength, let count = UInt32(exactly: signal.count) else {
            throw CoreError(code: -EINVAL, message: "a signal of \(signal.count) samples does not fit "
                + "the \(segmentLength)-sample Welch segments")
        }
        var psd = [Float](repeating: 0, count: binCount)
        let rc = signal.withUnsafeBufferPointer { input in
            psd.withUnsafeMutableBufferPointer { output in
                ccore_spectrum_welch(raw, input.baseAddress, count, output.baseAddress, UInt32(output.count))
            }
        }
        if rc < 0 { throw CoreError(code: rc, message: "Welch PSD failed") }
        return psd
    }

    /// The largest bin of `psd` inside `band` (Hz), interpolated; nil when the
    /// band is empty or holds no power, or `psd` is not one of this analyzer's.
    package func peak(in psd: [Float], band: ClosedRange<Double>) -> SpectralPeak? {
        guard psd.count >= binCount else { return nil }
        var out = ccore_spectral_peak()
        let rc = psd.withUnsafeBufferPointer { p in
            ccore_spectrum_peak(raw, p.baseAddress, Float(band.lowerBound), Float(band.upperBound), &out)
        }
        guard rc == 0 else { return nil }
        return SpectralPeak(frequency: Double(out.frequency_hz), power: Double(out.power), bin: Int(out.bin))
    }

    /// de Haan & Jeanne's SNR in dB for a pulse at `fundamental` Hz: ±0.1 Hz
    /// around it and ±0.2 Hz around its first harmonic against the rest of
    /// `band`. -infinity with no signal power, +infinity with no other power,
    /// NaN for an empty band, a non-positive fundamental or a foreign `psd`.
    package func snr(of psd: [Float], fundamental: Double, band: ClosedRange<Double>) -> Double {
        guard psd.count >= binCount else { return .nan }
        let db = psd.withUnsafeBufferPointer { p in
            ccore_spectrum_snr_db(raw, p.baseAddress, Float(fundamental), Float(band.lowerBound),
                                  Float(band.upperBound))
        }
        return Double(db)
    }
}

/// Not Sendable: one owner at a time (see the type's documentation).
@available(*, unavailable)
extension SpectrumAnalyzer: Sendable {}
