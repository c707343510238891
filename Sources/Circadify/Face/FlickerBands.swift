import Foundation

/// The bright and dark bands a lamp's mains ripple (100 or 120 Hz) lays across the picture
/// through a rolling shutter: each row is exposed a little later than the one above, so the
/// light's ripple becomes a gain that varies along the rows, `exp(a sin(ω y + φ))`, the same
/// across each row.
///
/// A few percent of it is enough to hide a face from the cascade: its local binary patterns
/// compare neighbouring cells, and on a dark, low-contrast face a band's gradient outweighs the
/// face's own (a Fitzpatrick VI face under ±7% bands is missed on every frame, found on every
/// frame once they are divided out). So when a search finds nothing, `FaceFinder` looks for
/// bands and, when they are there, searches again on the picture with them divided out.
///
/// The bands are found from the rows' vertical change, not their brightness: the median over a
/// row's columns of the change of log luma to the next rows. The picture's content (a face, hair,
/// a shoulder) changes in some columns and not others and falls out of the median; a band changes
/// every column alike and stays. A sinusoid fitted to that median over the rows, at the period
/// that explains most of it, is the bands' derivative. On the dark face above the fit explains
/// about 0.9 of the rows' change; bands of 5-8% laid on a busy photograph, 0.6-0.8; photographs
/// without bands, at most about a third.
package struct FlickerBands: Sendable, Equatable {
    /// Rows of the picture per band (light and dark), and the band's log gain at row y:
    /// `cosine · sin(ω y) − sine · cos(ω y)` with ω = 2π / period.
    package var period: Double
    package var cosine: Double, sine: Double
    /// The share of the rows' median change the sinusoid explains.
    package var explained: Double

    /// Peak log gain (≈ the relative amplitude of the bands).
    package var amplitude: Double { (cosine * cosine + sine * sine).squareRoot() / (2 * Double.pi / period) }

    /// Weaker bands do not hide a face; a sinusoid fitted to a picture without bands explains
    /// up to about a third of its rows' median change.
    package static let minimumAmplitude = 0.01
    package static let minimumExplained = 0.5
    /// Periods looked at, as shares of the picture's height: a lamp at 100 or 120 Hz read by a
    /// shutter that sweeps the frame in most of a 30 fps frame's time lays 3-4 bands on it, at
    /// 15 fps up to 8; a faster sweep, fewer and wider ones. Bands wider than the picture are a
    /// gradient, which does not hide a face.
    package static let periods: ClosedRange<Double> = 0.1...1.0

    /// The bands on `thumbnail`; nil when there are none worth removing. About a millisecond on
    /// a 320x240 thumbnail here: it runs only after a search that found no face.
    package init?(in thumbnail: LumaThumbnail) {
        let width = thumbnail.width, height = thumbnail.height
        guard width >= 8, height >= 16, thumbnail.pixels.count >= width * height else { return nil }
        let logs = (0..<256).map { log(Double(max($0, 1))) }
        // The median over every other column of the central difference of log luma, rows 1...h-2.
        var change = [Double](repeating: 0, count: height - 2)
        var column = [Double](repeating: 0, count: (width + 1) / 2)
        thumbnail.pixels.withUnsafeBufferPointer { p in
            for y in 1..<(height - 1) {
                let above = (y - 1) * width, below = (y + 1) * width
                for (k, x) in stride(from: 0, to: width, by: 2).enumerated() {
                    column[k] = (logs[Int(p[below + x])] - logs[Int(p[above + x])]) / 2
                }
                change[y - 1] = column.withUnsafeMutableBufferPointer { SignalMath.median(inPlace: $0) }
            }
        }
        // The period whose sinusoid (with an offset) explains most of the change: first a plain
        // least-squares fit at every period, then the best few again, robustly. Rows where the
        // picture itself changes across most of the width (a collar, a table's edge) are
        // outliers to the fit, not bands: each robust fit drops the rows far from it and is made again.
        let shortest = max(4, Int((Self.periods.lowerBound * Double(height)).rounded(.up)))
        let longest = Int((Self.periods.upperBound * Double(height)).rounded(.down))
        guard shortest <= longest else { return nil }
        var plain = [(period: Int, explained: Double)]()
        for period in stride(from: shortest, through: longest, by: 2) {
            if let fit = Self.sinusoid(change, omega: 2 * Double.pi / Double(period), keep: nil) {
                plain.append((period, fit.explained))
            }
        }
        var best: FlickerBands?
        var scratch = [Double](repeating: 0, count: change.count)
        for candidate in plain.sorted(by: { $0.explained > $1.explained }).prefix(Self.robustCandidates) {
            let omega = 2 * Double.pi / Double(candidate.period)
            guard let fit = Self.robustSinusoid(change, omega: omega, scratch: &scratch) else { continue }
            if fit.explained > best?.explained ?? -.infinity {
                best = FlickerBands(period: Double(candidate.period), cosine: fit.cosine, sine: fit.sine,
                                    explained: fit.explained)
            }
        }
        guard let best, best.explained >= Self.minimumExplained, best.amplitude >= Self.minimumAmplitude else { return nil }
        self = best
    }

    /// Periods whose plain fits explain the most, fitted again robustly.
    private static let robustCandidates = 4

    package init(period: Double, cosine: Double, sine: Double, explained: Double) {
        self.period = period; self.cosine = cosine; self.sine = sine; self.explained = explained
    }

    /// The log gain the bands put on row `y`.
    package func logGain(atRow y: Int) -> Double {
        let omega = 2 * Double.pi / period
        return (cosine * sin(omega * Double(y)) - sine * cos(omega * Double(y))) / omega
    }

    /// `thumbnail` with the bands divided out of every row.
    package func removed(from thumbnail: LumaThumbnail) -> LumaThumbnail {
        var out = thumbnail
        let width = thumbnail.width
        out.pixels.withUnsafeMutableBufferPointer { p in
            for y in 0..<thumbnail.height {
                let scale = exp(-logGain(atRow: y))
                for i in (y * width)..<((y + 1) * width) {
                    p[i] = UInt8(min(255, (Double(p[i]) * scale).rounded()))
                }
            }
        }
        return out
    }

    /// Least squares of `values` (row i at y = i + 1) on cos(ω y), sin(ω y) and 1 over the rows
    /// `keep` allows (all when nil): the cosine's and sine's coefficients and the offset, each
    /// row's residual in `residuals` when given, and the share of the kept rows' variance
    /// explained. Nil when the kept rows do not vary or the system is singular.
    private static func sinusoid(_ values: [Double], omega: Double, keep: [Bool]?,
                                 residuals: UnsafeMutableBufferPointer<Double>? = nil)
        -> (cosine: Double, sine: Double, explained: Double)? {
        // cos and sin of ω y by rotation, row by row, instead of a call each.
        let stepC = cos(omega), stepS = sin(omega)
        var m00 = 0.0, m01 = 0.0, m02 = 0.0, m11 = 0.0, m12 = 0.0, m22 = 0.0
        var v0 = 0.0, v1 = 0.0, v2 = 0.0, sum = 0.0, squares = 0.0
        var c = stepC, s = stepS
        for (i, value) in values.enumerated() {
            if keep?[i] ?? true {
                m00 += c * c; m01 += c * s; m02 += c; m11 += s * s; m12 += s; m22 += 1
                v0 += c * value; v1 += s * value; v2 += value
                sum += value; squares += value * value
            }
            (c, s) = (c * stepC - s * stepS, s * stepC + c * stepS)
        }
        guard m22 >= 8, let k = solve3(SIMD3(m00, m01, m02), SIMD3(m01, m11, m12), SIMD3(m02, m12, m22), SIMD3(v0, v1, v2))
        else { return nil }
        let total = squares - sum * sum / m22
        guard total > 0 else { return nil }
        // The fit's share: the explained sum of squares of a least-squares fit is k · v less the mean's.
        let explained = (k[0] * v0 + k[1] * v1 + k[2] * v2 - sum * sum / m22) / total
        if let residuals {
            c = stepC; s = stepS
            for (i, value) in values.enumerated() {
                residuals[i] = value - (k[0] * c + k[1] * s + k[2])
                (c, s) = (c * stepC - s * stepS, s * stepC + c * stepS)
            }
        }
        return (k[0], k[1], explained)
    }

    /// `sinusoid`, made again without the rows more than `outlierMADs` robust deviations from the
    /// last fit (three rounds).
    private static func robustSinusoid(_ values: [Double], omega: Double, scratch: inout [Double])
        -> (cosine: Double, sine: Double, explained: Double)? {
        var keep = [Bool](repeating: true, count: values.count)
        var residuals = [Double](repeating: 0, count: values.count)
        for _ in 0..<3 {
            let fit = residuals.withUnsafeMutableBufferPointer { sinusoid(values, omega: omega, keep: keep, residuals: $0) }
            guard fit != nil else { return nil }
            var kept = 0
            for i in values.indices where keep[i] {
                scratch[kept] = abs(residuals[i])
                kept += 1
            }
            let spread = SignalMath.madToStandardDeviation * scratch.withUnsafeMutableBufferPointer {
                SignalMath.median(inPlace: UnsafeMutableBufferPointer(rebasing: $0[0..<kept]))
            }
            guard spread > 0 else { return nil }
            for i in values.indices { keep[i] = abs(residuals[i]) <= outlierMADs * spread }
        }
        return sinusoid(values, omega: omega, keep: keep)
    }

    /// Rows further than this many robust deviations (`SignalMath.madToStandardDeviation` × the
    /// median absolute residual) from a fit are left out of the next.
    private static let outlierMADs = 3.0

    /// Solves the 3x3 system of rows `r0`, `r1`, `r2` and right side `v` by Cramer's rule; nil when
    /// it is singular. Rows as SIMD values: it runs over a hundred times a look, with nothing to allocate.
    private static func solve3(_ r0: SIMD3<Double>, _ r1: SIMD3<Double>, _ r2: SIMD3<Double>, _ v: SIMD3<Double>)
        -> SIMD3<Double>? {
        func det(_ a: SIMD3<Double>, _ b: SIMD3<Double>, _ c: SIMD3<Double>) -> Double {
            a.x * (b.y * c.z - b.z * c.y) - a.y * (b.x * c.z - b.z * c.x) + a.z * (b.x * c.y - b.y * c.x)
        }
        let d = det(r0, r1, r2)
        guard abs(d) > 1e-12 * max(1, abs(r0.x * r1.y * r2.z)) else { return nil }
        var k = SIMD3<Double>()
        for column in 0..<3 {
            var a = r0, b = r1, c = r2
            a[column] = v.x; b[column] = v.y; c[column] = v.z
            k[column] = det(a, b, c) / d
        }
        return k
    }
}
