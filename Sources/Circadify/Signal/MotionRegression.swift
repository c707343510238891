import Foundation

/// Takes out of the colour traces what the head's position explains. A region that slides
/// over the face's texture as the head rises with each breath (or sways) changes colour in
/// step with the head's position, and breathing is not a sinusoid: its third or fourth
/// harmonic lands in the pulse band (20 breaths a minute, a false 60 bpm). In the pulse band,
/// each channel of each region is regressed on the face's vertical position and its rate of
/// change, and the fitted part removed; the pulse, unrelated to where the head is, stays.
package enum MotionRegression {
    /// `regions`' log colour minus its least-squares fit on `faceY` and its derivative, both
    /// band-passed by `filter` first (so slow drift neither drives the fit nor is removed).
    package static func apply(_ regions: [[SIMD3<Double>]], faceY: [Double], filter: BandPassFilter)
        -> [[SIMD3<Double>]]
    {
        let n = faceY.count
        guard n > 16, regions.allSatisfy({ $0.count == n }) else { return regions }
        let velocity: [Double] = (0..<n).map { i -> Double in (faceY[min(i + 1, n - 1)] - faceY[max(i - 1, 0)]) / 2 }
        let r0 = filter.apply(faceY), r1 = filter.apply(velocity)
        // Normal equations of the two regressors, shared by every channel.
        let a = dot(r0, r0), d = dot(r1, r1), b = dot(r0, r1)
        let det = a * d - b * b
        guard det > 1e-18 * max(a * d, 1e-300) else { return regions }
        return regions.map { rgb in
            var out = rgb
            for channel in 0..<3 {
                let logs = rgb.map { log(max($0[channel], 1e-3)) }
                let x = filter.apply(logs)
                let p = dot(r0, x), q = dot(r1, x)
                let k0 = (d * p - b * q) / det, k1 = (a * q - b * p) / det
                for i in 0..<n { out[i][channel] = exp(logs[i] - k0 * r0[i] - k1 * r1[i]) }
            }
            return out
        }
    }

    /// The share of `wave`'s power (already in the pulse band) that the square and the cube of
    /// the head's position explain, least squares. The linear part is removed from the colour
    /// above; what a region's texture does non-linearly with the head's rise (a glasses' rim or a
    /// beard's edge crossing it) lands on twice and three times the breathing, and a reading
    /// made of it follows these curves where a pulse does not.
    package static func harmonicShare(_ wave: [Double], faceY: [Double], filter: BandPassFilter) -> Double {
        let n = faceY.count
        guard n > 16, wave.count == n else { return 0 }
        let centred = SignalMath.detrended(faceY)
        let spread = SignalMath.standardDeviation(centred)
        guard spread > 0 else { return 0 }
        let u = centred.map { $0 / spread }
        let r0 = filter.apply(u.map { $0 * $0 }), r1 = filter.apply(u.map { $0 * $0 * $0 })
        let a = dot(r0, r0), d = dot(r1, r1), b = dot(r0, r1)
        let det = a * d - b * b
        let power = dot(wave, wave)
        guard det > 1e-12 * max(a * d, 1e-300), power > 0 else { return 0 }
        let p = dot(r0, wave), q = dot(r1, wave)
        let k0 = (d * p - b * q) / det, k1 = (a * q - b * p) / det
        let explained = min(max((k0 * p + k1 * q) / power, 0), 1)
        // Two curves explain some of any wave by chance, the more the shorter it is: about two
        // of its degrees of freedom (twice the band's width times its length). Only the excess counts.
        let freedom = 2 * (filter.band.upperBound - filter.band.lowerBound) * Double(n) / filter.rate
        let chance = min(2 / max(freedom, 2), 0.5)
        return max(0, (explained - chance) / (1 - chance))
    }

    private static func dot(_ x: [Double], _ y: [Double]) -> Double {
        var s = 0.0
        for i in 0..<min(x.count, y.count) { s += x[i] * y[i] }
        return s
    }
}
