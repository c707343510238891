import Circadify
import Foundation

/// Fits the confidence map: a logistic regression, with a ridge penalty, of "the heart
/// rate is within ±3 bpm of the truth" on the pipeline's reliability signals
/// (ConfidenceModel.featureNames), over the clips scored. A pulse-free clip counts as
/// wrong whatever it reads. The features are standardized first, so the penalty treats
/// them alike; the result is printed as the Swift literal ConfidenceModel keeps.
package struct ConfidenceFit {
    package var model: LogisticModel
    package var clips: Int, right: Int
    package var logLoss: Double
    /// The probabilities the bands' edges stand for (see `bandEdges`).
    package var reliableProbability: Double, retryProbability: Double

    /// The share of answers at >= 0.7 that must be right on the tuning split: above the
    /// seed's 97%, a margin for what the tuning split has not shown.
    static let reliablePrecision = 0.985
    /// The retry edge: pulse-free inputs must fall below it all but once in this many (a
    /// vital read off a photograph is the worst failure there is), on a normal fitted to the
    /// log-odds of the tuning split's pulse-free clips (its upper half: see `bandEdges`).
    static let pulseFreeTail = 1000.0
    /// How far (log-odds) the retry edge stays above the most convincing tuning pulse-free clip.
    static let pulseFreeMargin = 0.5
    /// The normal quantile of 1 − 1/`pulseFreeTail`.
    static let pulseFreeQuantile = 3.09

    /// The penalty on the standardized weights: with a few dozen clips and perfectly
    /// separable classes an unpenalized fit would run its weights off to infinity.
    static let ridge = 1.0

    package static func fit(_ scores: [ClipScore]) throws -> ConfidenceFit {
        let rows = scores.compactMap { s -> (x: [Double], y: Double)? in
            guard let x = s.reliability else { return nil }
            return (x, s.readRight ? 1 : 0)
        }
        let d = ConfidenceModel.featureNames.count
        guard rows.count > d, rows.contains(where: { $0.y == 1 }), rows.contains(where: { $0.y == 0 }) else {
            throw AccuracyError("fitting needs more than \(d) analysed clips, right and wrong ones (have \(rows.count))")
        }
        var means = [Double](repeating: 0, count: d), scales = [Double](repeating: 1, count: d)
        for j in 0..<d {
            let column = rows.map { $0.x[j] }
            means[j] = column.reduce(0, +) / Double(column.count)
            let sd = (column.map { ($0 - means[j]) * ($0 - means[j]) }.reduce(0, +) / Double(column.count)).squareRoot()
            scales[j] = sd > 1e-9 ? sd : 1
        }
        let z = rows.map { r in [1] + (0..<d).map { (r.x[$0] - means[$0]) / scales[$0] } }
        // Each signal may only push the way physics says (more SNR, more agreement, more skin:
        // more confidence; gaps, drops, steps, motion: less). A signal the fit wants to turn
        // the other way is telling the generator's quirks, not physics: it is left out and
        // the rest fitted again.
        var used = [Bool](repeating: true, count: d)
        var beta = newton(z: z, y: rows.map(\.y), used: used)
        while let wrong = (0..<d).first(where: { used[$0] && beta[$0 + 1] * ConfidenceModel.featureSigns[$0] < 0 }) {
            used[wrong] = false
            beta = newton(z: z, y: rows.map(\.y), used: used)
        }
        let model = LogisticModel(means: means, scales: scales, weights: Array(beta.dropFirst()), intercept: beta[0])
        let loss = zip(z, rows).reduce(0.0) { total, pair in
            let p = min(max(model.probability(pair.1.x), 1e-12), 1 - 1e-12)
            return total - (pair.1.y == 1 ? log(p) : log(1 - p))
        } / Double(rows.count)
        let edges = bandEdges(rows.map { (p: model.probability($0.x), right: $0.y == 1) },
                              pulseFree: zip(scores.filter { $0.reliability != nil }, rows).filter { !$0.0.pulsePresent }
                                  .map { model.probability($0.1.x) })
        return ConfidenceFit(model: model, clips: rows.count, right: rows.filter { $0.y == 1 }.count, logLoss: loss,
                             reliableProbability: edges.reliable, retryProbability: edges.retry)
    }

    /// The bands' edges as probabilities. Reliable: the lowest probability above which the
    /// tuning clips are right at least `reliablePrecision` of the time (the seed's band is a
    /// promise about the clips in it, not about each one). Retry: an even chance, or the
    /// probability a pulse-free input exceeds once in `pulseFreeTail` if that is higher and
    /// fits below the reliable edge, and above every tuning pulse-free clip in any case (the
    /// reliable edge then at least halfway from it to certainty).
    package static func bandEdges(_ clips: [(p: Double, right: Bool)], pulseFree: [Double]) -> (reliable: Double, retry: Double) {
        let sorted = clips.sorted { $0.p > $1.p }
        var reliable = 0.99, right = 0
        for (n, clip) in sorted.enumerated() {
            right += clip.right ? 1 : 0
            // Only at a wrong clip can the precision fall; stop before it falls too far.
            if Double(right) / Double(n + 1) < reliablePrecision { break }
            if clip.right { reliable = clip.p }
        }
        let logits = pulseFree.map { log(max($0, 1e-9) / max(1 - $0, 1e-9)) }
        var tail = 0.5
        if logits.count >= 3 {
            // Only the upper tail matters: the normal is centred on the median and its spread
            // taken from the clips above it, so a few hopeless pulse-free clips far below do not
            // widen it.
            let sorted = logits.sorted()
            let m = (sorted[(sorted.count - 1) / 2] + sorted[sorted.count / 2]) / 2
            let upper = logits.filter { $0 > m }
            let sd = upper.isEmpty ? 0 : (upper.map { ($0 - m) * ($0 - m) }.reduce(0, +) / Double(upper.count)).squareRoot()
            tail = 1 / (1 + exp(-(m + pulseFreeQuantile * sd)))
        }
        // Every tuning pulse-free clip stays below the retry edge: when one reaches past the
        // reliable edge, that edge moves up, never the retry edge down. The tail bound counts
        // where it fits below the reliable edge (it is a normal's guess; the clips are facts).
        let clearOfPulseFree = pulseFree.max().map { 1 / (1 + exp(-(log($0 / max(1 - $0, 1e-9)) + pulseFreeMargin))) } ?? 0
        let retry = min(max(0.5, clearOfPulseFree, min(tail, reliable - 0.05)), 0.99)
        return (max(reliable, retry + (1 - retry) / 2), retry)
    }

    /// Newton's method on the penalized log-likelihood (the intercept unpenalized); the
    /// features not `used` keep a weight of 0.
    private static func newton(z: [[Double]], y: [Double], used: [Bool]) -> [Double] {
        let d = used.count
        var beta = [Double](repeating: 0, count: d + 1)
        for _ in 0..<50 {
            var gradient = [Double](repeating: 0, count: d + 1)
            var hessian = [[Double]](repeating: [Double](repeating: 0, count: d + 1), count: d + 1)
            for (row, target) in zip(z, y) {
                let p = 1 / (1 + exp(-zip(row, beta).reduce(0) { $0 + $1.0 * $1.1 }))
                let w = max(p * (1 - p), 1e-9)
                for a in 0...d {
                    gradient[a] += (p - target) * row[a]
                    for b in 0...d { hessian[a][b] += w * row[a] * row[b] }
                }
            }
            for a in 1...d { gradient[a] += ridge * beta[a]; hessian[a][a] += ridge }
            // A feature left out: its row and column reduced to the identity, its step 0.
            for a in 1...d where !used[a - 1] {
                gradient[a] = 0
                for b in 0...d { hessian[a][b] = 0; hessian[b][a] = 0 }
                hessian[a][a] = 1
                beta[a] = 0
            }
            let step = solve(hessian, gradient)
            for a in 0...d { beta[a] -= step[a] }
            if step.map(abs).max() ?? 0 < 1e-10 { break }
        }
        return beta
    }

    /// Gaussian elimination with partial pivoting (a small, well-conditioned system).
    private static func solve(_ a: [[Double]], _ b: [Double]) -> [Double] {
        var m = a, v = b
        let n = v.count
        for c in 0..<n {
            let p = (c..<n).max { abs(m[$0][c]) < abs(m[$1][c]) } ?? c
            m.swapAt(c, p); v.swapAt(c, p)
            guard abs(m[c][c]) > 1e-12 else { continue }
            for r in (c + 1)..<n {
                let f = m[r][c] / m[c][c]
                for k in c..<n { m[r][k] -= f * m[c][k] }
                v[r] -= f * v[c]
            }
        }
        var x = [Double](repeating: 0, count: n)
        for c in stride(from: n - 1, through: 0, by: -1) {
            let s = ((c + 1)..<n).reduce(v[c]) { $0 - m[c][$1] * x[$1] }
            x[c] = abs(m[c][c]) > 1e-12 ? s / m[c][c] : 0
        }
        return x
    }

    package func swiftSource() -> String {
        func list(_ v: [Double]) -> String { "[" + v.map { String(format: "%.5g", $0) }.joined(separator: ", ") + "]" }
        return """
                // Confidence map fitted on \(clips) clips (\(right) within ±3 bpm), mean log-loss \(String(format: "%.3f", logLoss)).
                // Features: \(ConfidenceModel.featureNames.joined(separator: ", ")).
                package static let fitted = LogisticModel(
                    means: \(list(model.means)),
                    scales: \(list(model.scales)),
                    weights: \(list(model.weights)),
                    intercept: \(String(format: "%.5g", model.intercept)))
                // Band edges: right \(String(format: "%.1f", Self.reliablePrecision * 100))% of the time above the first on the \
            tuning split; every tuning pulse-free input \(Self.pulseFreeMargin) log-odds below the second (and above it once in \
            \(Int(Self.pulseFreeTail)) on a normal, where that fits below the first).
                package static let reliableProbability = \(String(format: "%.4f", reliableProbability))
                package static let retryProbability = \(String(format: "%.4f", retryProbability))
            """
    }
}
