import Foundation

/// The colour-space projections that turn a region's RGB trace into a pulse
/// wave, on temporally normalized colour (each channel divided by its mean, so
/// skin tone and light level cancel). All return the blood-volume pulse:
/// positive when there is more blood under the skin (which makes it darker,
/// green the most).
package enum PulseProjection: String, Sendable, CaseIterable {
    /// Plane-orthogonal-to-skin, Wang et al. 2017: project on the plane orthogonal
    /// to the skin tone and alpha-tune the two projections, per 1.6 s window, overlap-added.
    case pos
    /// Chrominance, de Haan & Jeanne 2013: two chrominance signals, band-passed, alpha-tuned
    /// per Hann window, overlap-added.
    case chrom
    /// The green channel alone (Verkruysse et al. 2008), where blood absorbs most. POS and
    /// CHROM cancel what moves all channels together (light, motion) at the price of the
    /// blue and red channels' noise, which on dark skin and in heavy JPEG (blue and red are
    /// dim, their chroma coarsely quantized) outweighs the pulse; green keeps only its own
    /// noise. The fusion weighs each wave by its SNR, so each input gets the method that
    /// reads it best.
    case green

    /// The pulse wave of one region (not yet band-passed for POS; CHROM band-passes inside).
    package func pulse(of rgb: [SIMD3<Double>], rate: Double, filter: BandPassFilter) -> [Double] {
        let window = max(Int((1.6 * rate).rounded()), 4)
        guard rgb.count >= window else { return [Double](repeating: 0, count: rgb.count) }
        switch self {
        case .pos: return Self.pos(rgb, window: window)
        case .chrom: return Self.chrom(rgb, window: window, filter: filter)
        case .green: return Self.green(rgb)
        }
    }

    /// One window per sample (hundreds in a 20 s trace, every second of a followed
    /// scan): each window's projections go into buffers made once per call, not
    /// arrays of their own, with the same arithmetic in the same order.
    private static func pos(_ rgb: [SIMD3<Double>], window: Int) -> [Double] {
        var h = [Double](repeating: 0, count: rgb.count)
        var s1 = [Double](repeating: 0, count: window), s2 = s1, p = s1
        for start in 0...(rgb.count - window) {
            // Temporally normalized colour: each channel over its mean in the window.
            let mean = rgb[start..<(start + window)].reduce(SIMD3<Double>(repeating: 0), +) / Double(window)
            let divisor = mean.asDivisor
            for k in 0..<window {
                let c = rgb[start + k] / divisor
                s1[k] = c.y - c.z
                s2[k] = c.y + c.z - 2 * c.x
            }
            let sd2 = SignalMath.standardDeviation(s2)
            let alpha = sd2 > 0 ? SignalMath.standardDeviation(s1) / sd2 : 0
            for k in 0..<window { p[k] = s1[k] + alpha * s2[k] }
            let m = SignalMath.mean(p)
            // POS's projection falls as blood volume rises: negate it.
            for k in 0..<window { h[start + k] -= p[k] - m }
        }
        return h
    }

    private static func chrom(_ rgb: [SIMD3<Double>], window: Int, filter: BandPassFilter) -> [Double] {
        // Half-overlapping Hann windows of even length sum to a constant.
        let length = window + window % 2, hop = length / 2
        let hann = (0..<length).map { 0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(length)) }
        let normalizedTrace = normalizedOverSlidingMean(rgb, window: length)
        let xs = filter.apply(normalizedTrace.map { 3 * $0.x - 2 * $0.y })
        let ys = filter.apply(normalizedTrace.map { 1.5 * $0.x + $0.y - 1.5 * $0.z })
        var out = [Double](repeating: 0, count: rgb.count)
        var s = [Double](repeating: 0, count: length)
        var start = 0
        while start + length <= rgb.count {
            let x = xs[start..<(start + length)], y = ys[start..<(start + length)]
            let sy = SignalMath.standardDeviation(y)
            let alpha = sy > 0 ? SignalMath.standardDeviation(x) / sy : 0
            for k in 0..<length { s[k] = xs[start + k] - alpha * ys[start + k] }
            let m = SignalMath.mean(s)
            for k in 0..<length { out[start + k] += hann[k] * (s[k] - m) }
            start += hop
        }
        return out
    }

    /// Minus the log of green, about its mean (the band-pass that follows removes the drift).
    private static func green(_ rgb: [SIMD3<Double>]) -> [Double] {
        let logs = rgb.map { -log(max($0.y, 1e-3)) }
        let m = SignalMath.mean(logs)
        return logs.map { $0 - m }
    }

    /// Each sample divided by the mean colour of the window centred on it.
    private static func normalizedOverSlidingMean(_ rgb: [SIMD3<Double>], window: Int) -> [SIMD3<Double>] {
        var prefix = [SIMD3<Double>](repeating: .zero, count: rgb.count + 1)
        for i in rgb.indices { prefix[i + 1] = prefix[i] + rgb[i] }
        return rgb.indices.map { i in
            let lo = max(0, i - window / 2), hi = min(rgb.count, lo + window)
            let m = (prefix[hi] - prefix[lo]) / Double(hi - lo)
            return rgb[i] / m.asDivisor
        }
    }
}

