import Foundation

/// Small statistics on traces. Empty input gives 0 (the callers check counts first).
enum SignalMath {
    static func mean(_ x: some Collection<Double>) -> Double {
        x.isEmpty ? 0 : x.reduce(0, +) / Double(x.count)
    }

    static func standardDeviation(_ x: some Collection<Double>) -> Double {
        guard x.count > 1 else { return 0 }
        let m = mean(x)
        return (x.reduce(0) { $0 + ($1 - m) * ($1 - m) } / Double(x.count - 1)).squareRoot()
    }

    static func median(_ x: [Double]) -> Double {
        guard !x.isEmpty else { return 0 }
        let s = x.sorted(), n = s.count
        return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2
    }

    /// `median`, for a hot loop: reorders `values` in place (quickselect) instead of sorting a copy.
    static func median(inPlace values: UnsafeMutableBufferPointer<Double>) -> Double {
        let n = values.count
        guard n > 0 else { return 0 }
        let upper = select(values, n / 2)
        guard n % 2 == 0 else { return upper }
        // The lower middle is the largest of what quickselect left below the upper one.
        var lower = -Double.infinity
        for i in 0..<(n / 2) { lower = Swift.max(lower, values[i]) }
        return (lower + upper) / 2
    }

    /// The `k`-th smallest of `values` (Hoare's quickselect), with everything smaller before it.
    private static func select(_ values: UnsafeMutableBufferPointer<Double>, _ k: Int) -> Double {
        var low = 0, high = values.count - 1
        while low < high {
            let pivot = values[(low + high) / 2]
            var i = low, j = high
            while i <= j {
                while values[i] < pivot { i += 1 }
                while values[j] > pivot { j -= 1 }
                if i <= j { values.swapAt(i, j); i += 1; j -= 1 }
            }
            if k <= j { high = j } else if k >= i { low = i } else { break }
        }
        return values[k]
    }

    /// A median absolute deviation times this estimates the standard deviation of Gaussian data.
    static let madToStandardDeviation = 1.4826

    /// Scaled so it estimates the standard deviation of Gaussian data.
    static func medianAbsoluteDeviation(_ x: [Double]) -> Double {
        let m = median(x)
        return madToStandardDeviation * median(x.map { abs($0 - m) })
    }

    static func pearson(_ a: [Double], _ b: [Double]) -> Double {
        let n = min(a.count, b.count)
        guard n > 2 else { return 0 }
        let ma = mean(a.prefix(n)), mb = mean(b.prefix(n))
        var sab = 0.0, saa = 0.0, sbb = 0.0
        for i in 0..<n {
            let da = a[i] - ma, db = b[i] - mb
            sab += da * db; saa += da * da; sbb += db * db
        }
        return saa > 0 && sbb > 0 ? sab / (saa * sbb).squareRoot() : 0
    }

    /// Scales to zero mean and unit standard deviation (all zeros for a flat input).
    static func standardized(_ x: [Double]) -> [Double] {
        let m = mean(x), s = standardDeviation(x)
        return s > 0 ? x.map { ($0 - m) / s } : x.map { _ in 0 }
    }

    /// Subtracts the least-squares line.
    static func detrended(_ x: [Double]) -> [Double] {
        let n = Double(x.count)
        guard x.count > 2 else { return x.map { _ in 0 } }
        let mt = (n - 1) / 2, mx = mean(x)
        var stx = 0.0, stt = 0.0
        for (i, v) in x.enumerated() {
            let dt = Double(i) - mt
            stx += dt * (v - mx); stt += dt * dt
        }
        let slope = stx / stt
        return x.enumerated().map { $1 - mx - slope * (Double($0) - mt) }
    }
}

extension SIMD3 where Scalar == Double {
    /// The colour as a divisor: channels floored just above zero, so a black channel
    /// normalizes to a large value instead of infinity.
    var asDivisor: SIMD3<Double> { SIMD3(Swift.max(x, 1e-6), Swift.max(y, 1e-6), Swift.max(z, 1e-6)) }
}
