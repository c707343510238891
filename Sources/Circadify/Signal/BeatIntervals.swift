import Foundation

/// Heart-rate variability from beat-to-beat intervals of the pulse wave.
package struct BeatIntervals: Sendable, Equatable {
    /// Beat times, seconds from the start of the wave.
    package var beats: [Double]
    /// Accepted inter-beat intervals, seconds (outliers removed).
    package var intervals: [Double]
    /// Intervals rejected as outliers (missed or extra beats).
    package var rejected: Int
    /// Standard deviation of the accepted intervals, ms.
    package var sdnn: Double?
    /// Root mean square of successive differences of consecutive accepted intervals, ms.
    package var rmssd: Double?
    /// Mean heart rate from the accepted intervals, bpm.
    package var meanHeartRate: Double?

    /// Beats need this many clean intervals before HRV is reported.
    package static let minimumIntervals = 12
    private static let upsampledRate = 250.0

    /// Detects beats, the systolic peaks of the blood-volume `wave` (band-passed, sampled
    /// at `rate`), at about `heartRate` bpm.
    package init(wave: [Double], rate: Double, heartRate: Double) {
        let upsampled = Self.upsample(wave, factor: Self.upsampledRate / rate)
        let period = 60 / heartRate
        // A rate that is not a number (a wave of NaNs) spaces no beats: none, not a trap.
        beats = period.isFinite && period > 0 && wave.allSatisfy(\.isFinite)
            ? Self.peaks(upsampled, rate: Self.upsampledRate, minimumSpacing: 0.6 * period) : []
        let raw = zip(beats.dropFirst(), beats).map { $0 - $1 }
        // An interval far from its neighbours' median is a missed or an extra beat.
        var accepted = [Bool](repeating: false, count: raw.count)
        for i in raw.indices {
            let neighbourhood = Array(raw[max(0, i - 3)...min(raw.count - 1, i + 3)])
            let local = SignalMath.median(neighbourhood)
            accepted[i] = abs(raw[i] - local) < 0.2 * local && abs(raw[i] - period) < 0.35 * period
        }
        intervals = raw.indices.filter { accepted[$0] }.map { raw[$0] }
        rejected = raw.count - intervals.count
        let successive = raw.indices.dropFirst().filter { accepted[$0] && accepted[$0 - 1] }.map { raw[$0] - raw[$0 - 1] }
        let clean = intervals.count >= Self.minimumIntervals && rejected * 4 <= raw.count
        sdnn = clean ? SignalMath.standardDeviation(intervals) * 1000 : nil
        rmssd = clean && successive.count >= Self.minimumIntervals - 1
            ? (successive.reduce(0) { $0 + $1 * $1 } / Double(successive.count)).squareRoot() * 1000 : nil
        meanHeartRate = intervals.isEmpty ? nil : 60 / SignalMath.mean(intervals)
    }

    /// Cubic (Catmull-Rom) interpolation onto a finer grid, so beat times are not
    /// quantised to the camera's frame interval.
    static func upsample(_ x: [Double], factor: Double) -> [Double] {
        guard x.count > 3, factor > 1 else { return x }
        let n = Int(Double(x.count - 1) * factor) + 1
        return (0..<n).map { j in
            let t = Double(j) / factor, i = min(Int(t), x.count - 2), u = t - Double(i)
            let p0 = x[max(i - 1, 0)], p1 = x[i], p2 = x[i + 1], p3 = x[min(i + 2, x.count - 1)]
            return p1 + 0.5 * u * (p2 - p0 + u * (2 * p0 - 5 * p1 + 4 * p2 - p3 + u * (3 * (p1 - p2) + p3 - p0)))
        }
    }

    /// Peaks at least `minimumSpacing` seconds apart, strongest first, refined by a parabola.
    static func peaks(_ x: [Double], rate: Double, minimumSpacing: Double) -> [Double] {
        guard x.count > 2 else { return [] }
        let spacing = max(1, Int(minimumSpacing * rate))
        let maxima = (1..<(x.count - 1)).filter { x[$0] > x[$0 - 1] && x[$0] >= x[$0 + 1] && x[$0] > 0 }
        var taken = [Int]()
        var blocked = [Bool](repeating: false, count: x.count)
        for k in maxima.sorted(by: { x[$0] > x[$1] }) where !blocked[k] {
            taken.append(k)
            for j in max(0, k - spacing)...min(x.count - 1, k + spacing) { blocked[j] = true }
        }
        return taken.sorted().map { k in
            let denom = x[k - 1] - 2 * x[k] + x[k + 1]
            let offset = denom < 0 ? 0.5 * (x[k - 1] - x[k + 1]) / denom : 0
            return (Double(k) + offset) / rate
        }
    }
}
