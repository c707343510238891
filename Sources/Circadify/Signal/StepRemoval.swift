import Foundation

/// Removes steps from colour traces: an exposure, gain, white-balance or lighting jump,
/// or the skin mask taking in other pixels when the picture's levels jump, which
/// band-pass filtering would turn into a burst of false pulse. In the log domain a step
/// is an outsized sample-to-sample change; it is replaced by no change and the trace
/// re-integrated, which keeps the pulse and drops the jump.
///
/// Where the regions were moved or their skin mask changed, the pipeline knows a step may
/// be (other pixels averaged, in each region by its own amount, often too small to find in
/// the noise yet a steady drip of broadband energy): those changes are removed in every region
/// without being looked for. A removed change is replaced by none (bridging it with its
/// neighbours' mean change instead, to carry the pulse's slope through, read 28 rather than
/// 33 of 36 clips right on part of the tuning split).
///
/// A camera's step reaches every region at the same moment, so steps are found on all
/// regions together (the mean, over regions, of each sample's change), which finds them
/// where one noisy region alone could not. Each channel counts: white balance moves red
/// and blue apart and leaves their sum nearly still. A step that spreads over two samples
/// (a frame interval longer than the trace's, or a camera settling over two frames) is
/// removed whole.
package enum StepRemoval {
    /// Returns the cleaned traces and the sample indices where a step was found and removed
    /// (the known moves not among them). `threshold`: how many noise SDs (over the three
    /// channels together) make a step. `known[i]`: the change into sample i spans a new
    /// placement of the regions.
    package static func apply(_ regions: [[SIMD3<Double>]], threshold: Double = 12, known: [Bool] = [])
        -> (traces: [[SIMD3<Double>]], steps: [Int])
    {
        guard let count = regions.map(\.count).min(), count > 8 else { return (regions, []) }
        let moved = (1..<count).map { $0 < known.count && known[$0] }
        let logs = regions.map { rgb in rgb.map { SIMD3(log(max($0.x, 1e-3)), log(max($0.y, 1e-3)), log(max($0.z, 1e-3))) } }
        let diffs = logs.map { l in (1..<count).map { l[$0] - l[$0 - 1] } }
        // Each sample's change, averaged over the regions, in units of each channel's own
        // sample-to-sample noise (dark skin's blue is much noisier, relatively, than its red).
        let joint = (0..<(count - 1)).map { i in diffs.reduce(SIMD3<Double>.zero) { $0 + $1[i] } / Double(diffs.count) }
        let still = joint.indices.filter { !moved[$0] }.map { joint[$0] }
        let noise = SIMD3(robustSD(still.map(\.x)), robustSD(still.map(\.y)), robustSD(still.map(\.z)))
        let size = joint.map { ($0 / noise * ($0 / noise)).sum().squareRoot() }
        // Physical floor: 0.6% in a channel from one sample to the next is ten times what
        // the pulse does; below it, nothing is a step whatever the noise.
        func isStep(_ i: Int, _ k: Double) -> Bool {
            size[i] > k && max(abs(joint[i].x), abs(joint[i].y), abs(joint[i].z)) > 0.006
        }
        var removed = moved
        for i in joint.indices where !moved[i] && isStep(i, threshold) {
            removed[i] = true
            // The step's other half, if it took two samples: same direction, clearly outsized.
            for j in [i - 1, i + 1] where j >= 0 && j < joint.count && isStep(j, threshold / 2)
                && (joint[j] * joint[i]).sum() > 0 { removed[j] = true }
        }
        let steps = removed.indices.filter { removed[$0] && !moved[$0] }.map { $0 + 1 }
        guard removed.contains(true) else { return (regions, []) }
        // Every region is cut to the shortest one's length (a UniformTrace's are all alike).
        let cleaned = regions.indices.map { r -> [SIMD3<Double>] in
            var out = [regions[r][0]]
            out.reserveCapacity(count)
            var current = logs[r][0]
            for (i, d) in diffs[r].enumerated() {
                if !removed[i] { current += d }
                out.append(SIMD3(exp(current.x), exp(current.y), exp(current.z)))
            }
            return out
        }
        return (cleaned, steps)
    }

    /// The standard deviation of Gaussian noise (scaled MAD), unmoved by the steps themselves.
    private static func robustSD(_ x: [Double]) -> Double { max(SignalMath.medianAbsoluteDeviation(x), 1e-5) }

    /// One trace on its own.
    package static func apply(_ rgb: [SIMD3<Double>], threshold: Double = 12) -> (trace: [SIMD3<Double>], steps: [Int]) {
        let result = apply([rgb], threshold: threshold)
        return (result.traces[0], result.steps)
    }
}
