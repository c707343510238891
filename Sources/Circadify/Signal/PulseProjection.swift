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
    /// The blood-volume-pulse signature, de Haan & van Leest 2014: per window, the mix of the
    /// normalized channels that passes the skin's pulse (its colour signature, R : G : B =
    /// 0.33 : 0.77 : 0.53 in the skin-reflection model) at unit gain with the least power of
    /// everything else (a minimum-variance beamformer). Under sensor noise alone that leans on
    /// green and adds what red and blue carry; when the light or the gain moves every channel
    /// alike, the window's covariance shows it and the mix cancels it, as POS does.
    case pbv

    /// The pulse wave of one region (not yet band-passed for POS; CHROM band-passes inside).
    package func pulse(of rgb: [SIMD3<Double>], rate: Double, filter: BandPassFilter) -> [Double] {
        let window = max(Int((1.6 * rate).rounded()), 4)
        guard rgb.count >= window else { return [Double](repeating: 0, count: rgb.count) }
        switch self {
        case .pos: return Self.pos(rgb, window: window)
        case .chrom: return Self.chrom(rgb, window: window, filter: filter)
        case .green: return Self.green(rgb)
        case .pbv: return Self.pbv(rgb, window: window, filter: filter)
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
        let length = window + window % 2
        let normalizedTrace = normalizedOverSlidingMean(rgb, window: length)
        let xs = filter.apply(normalizedTrace.map { 3 * $0.x - 2 * $0.y })
        let ys = filter.apply(normalizedTrace.map { 1.5 * $0.x + $0.y - 1.5 * $0.z })
        return hannOverlapAdd(count: rgb.count, length: length) { start, s in
            let x = xs[start..<(start + length)], y = ys[start..<(start + length)]
            let sy = SignalMath.standardDeviation(y)
            let alpha = sy > 0 ? SignalMath.standardDeviation(x) / sy : 0
            for k in 0..<length { s[k] = xs[start + k] - alpha * ys[start + k] }
            return true
        }
    }

    /// Half-overlapping Hann windows of even `length` (they sum to a constant) over `count`
    /// samples: `fill` writes each window's wave from sample `start` (false skips the window),
    /// which is added about its mean.
    private static func hannOverlapAdd(count: Int, length: Int, _ fill: (Int, inout [Double]) -> Bool) -> [Double] {
        let hop = length / 2
        let hann = (0..<length).map { 0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(length)) }
        var out = [Double](repeating: 0, count: count)
        var s = [Double](repeating: 0, count: length)
        var start = 0
        while start + length <= count {
            if fill(start, &s) {
                let m = SignalMath.mean(s)
                for k in 0..<length { out[start + k] += hann[k] * (s[k] - m) }
            }
            start += hop
        }
        return out
    }

    /// The skin's pulse signature in normalized colour, unit length.
    private static let signature: SIMD3<Double> = {
        let p = SIMD3<Double>(0.33, 0.77, 0.53)
        return p / (p * p).sum().squareRoot()
    }()

    private static func pbv(_ rgb: [SIMD3<Double>], window: Int, filter: BandPassFilter) -> [Double] {
        let length = window + window % 2
        let normalizedTrace = normalizedOverSlidingMean(rgb, window: length)
        let r = filter.apply(normalizedTrace.map(\.x)), g = filter.apply(normalizedTrace.map(\.y))
        let b = filter.apply(normalizedTrace.map(\.z))
        let p = signature
        return hannOverlapAdd(count: rgb.count, length: length) { start, s in
            // The window's covariance, lightly loaded so that a channel without noise cannot take all the weight.
            var rr = 0.0, gg = 0.0, bb = 0.0, rg = 0.0, rb = 0.0, gb = 0.0
            for i in start..<(start + length) {
                rr += r[i] * r[i]; gg += g[i] * g[i]; bb += b[i] * b[i]
                rg += r[i] * g[i]; rb += r[i] * b[i]; gb += g[i] * b[i]
            }
            let load = 1e-3 * (rr + gg + bb) / 3 + 1e-12
            rr += load; gg += load; bb += load
            // w = Q⁻¹ p by the adjugate, scaled so that w · p = 1.
            let c00 = gg * bb - gb * gb, c01 = rb * gb - rg * bb, c02 = rg * gb - rb * gg
            let c11 = rr * bb - rb * rb, c12 = rb * rg - rr * gb, c22 = rr * gg - rg * rg
            let w = SIMD3(c00 * p.x + c01 * p.y + c02 * p.z,
                          c01 * p.x + c11 * p.y + c12 * p.z,
                          c02 * p.x + c12 * p.y + c22 * p.z)
            let gain = (w * p).sum()
            guard gain.isFinite, gain != 0 else { return false }
            let unit = w / gain
            // More blood darkens the skin: the projection falls as blood volume rises, so negate it.
            for k in 0..<length {
                let i = start + k
                s[k] = -(unit.x * r[i] + unit.y * g[i] + unit.z * b[i])
            }
            return true
        }
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

