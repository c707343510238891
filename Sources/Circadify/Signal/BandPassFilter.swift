import Foundation

/// A Butterworth band-pass filter (4th-order high-pass and 4th-order low-pass, as
/// second-order sections) applied forward and backward, so the pulse wave keeps
/// its beat timing (zero phase) and its shape.
package struct BandPassFilter: Sendable {
    /// One second-order section, normalized so a0 = 1.
    struct Biquad: Sendable {
        var b0, b1, b2, a1, a2: Double

        /// Robert Bristow-Johnson's cookbook sections on the bilinear transform.
        static func lowPass(cutoff: Double, rate: Double, q: Double) -> Biquad {
            let w = 2 * Double.pi * cutoff / rate, alpha = sin(w) / (2 * q), c = cos(w), a0 = 1 + alpha
            return Biquad(b0: (1 - c) / 2 / a0, b1: (1 - c) / a0, b2: (1 - c) / 2 / a0,
                          a1: -2 * c / a0, a2: (1 - alpha) / a0)
        }

        static func highPass(cutoff: Double, rate: Double, q: Double) -> Biquad {
            let w = 2 * Double.pi * cutoff / rate, alpha = sin(w) / (2 * q), c = cos(w), a0 = 1 + alpha
            return Biquad(b0: (1 + c) / 2 / a0, b1: -(1 + c) / a0, b2: (1 + c) / 2 / a0,
                          a1: -2 * c / a0, a2: (1 - alpha) / a0)
        }

        /// Direct form II transposed, starting from the state a constant input `x0` would settle to.
        func run(_ x: inout [Double]) {
            guard let x0 = x.first else { return }
            let gain = (b0 + b1 + b2) / (1 + a1 + a2)
            let y0 = gain * x0
            var z1 = y0 - b0 * x0, z2 = b2 * x0 - a2 * y0
            for i in x.indices {
                let input = x[i], output = b0 * input + z1
                z1 = b1 * input - a1 * output + z2
                z2 = b2 * input - a2 * output
                x[i] = output
            }
        }
    }

    /// The Q of the two sections of a 4th-order Butterworth filter.
    private static let butterworthQ = [0.541196100146197, 1.306562964876377]

    private let sections: [Biquad]
    package let band: ClosedRange<Double>
    /// The sample rate it was designed for, Hz.
    package let rate: Double

    /// `band` in Hz; both edges must lie strictly between 0 and half the rate.
    package init(band: ClosedRange<Double>, rate: Double) {
        self.band = band
        self.rate = rate
        sections = Self.butterworthQ.map { Biquad.highPass(cutoff: band.lowerBound, rate: rate, q: $0) }
            + Self.butterworthQ.map { Biquad.lowPass(cutoff: band.upperBound, rate: rate, q: $0) }
    }

    /// Zero-phase filtering. The signal is extended at both ends by odd reflection
    /// (a mirrored copy of up to `padding` samples) so the edges do not ring.
    package func apply(_ signal: [Double], padding: Int = 90) -> [Double] {
        guard signal.count > 2 else { return signal.map { _ in 0 } }
        let pad = min(padding, signal.count - 1)
        let first = signal[0], last = signal[signal.count - 1]
        var x = [Double]()
        x.reserveCapacity(signal.count + 2 * pad)
        for i in stride(from: pad, to: 0, by: -1) { x.append(2 * first - signal[i]) }
        x.append(contentsOf: signal)
        for i in 1...pad { x.append(2 * last - signal[signal.count - 1 - i]) }
        for s in sections { s.run(&x) }
        x.reverse()
        for s in sections { s.run(&x) }
        x.reverse()
        return Array(x[pad..<(pad + signal.count)])
    }
}
