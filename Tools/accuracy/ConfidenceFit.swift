import ArgumentParser
import Circadify
import Foundation

/// Fits the confidence map: a logistic regression, with a ridge penalty, of "the heart
/// rate is within ±3 bpm of the truth" on the pipeline's reliability signals
/// (ConfidenceModel.featureNames), over the clips scored. A pulse-free clip counts as
/// wrong whatever it reads. The features are standardized first, so the penalty treats
/// them alike; the result is printed as the Swift literal ConfidenceModel keeps.
struct ConfidenceFit {
    var model: LogisticModel
    var clips: Int, right: Int
    var logLoss: Double

    /// The penalty on the standardized weights: with a few dozen clips and perfectly
    /// separable classes an unpenalized fit would run its weights off to infinity.
    static let ridge = 1.0

    static func fit(_ scores: [ClipScore]) throws -> ConfidenceFit {
        let rows = scores.compactMap { s -> (x: [Double], y: Double)? in
            guard let x = s.reliability else { return nil }
            let right = s.pulsePresent && abs(s.heartRateError ?? .infinity) <= 3
            return (x, right ? 1 : 0)
        }
        let d = ConfidenceModel.featureNames.count
        guard rows.count > d, rows.contains(where: { $0.y == 1 }), rows.contains(where: { $0.y == 0 }) else {
            throw ValidationError("fitting needs more than \(d) analysed clips, right and wrong ones (have \(rows.count))")
        }
        var means = [Double](repeating: 0, count: d), scales = [Double](repeating: 1, count: d)
        for j in 0..<d {
            let column = rows.map { $0.x[j] }
            means[j] = column.reduce(0, +) / Double(column.count)
            let sd = (column.map { ($0 - means[j]) * ($0 - means[j]) }.reduce(0, +) / Double(column.count)).squareRoot()
            scales[j] = sd > 1e-9 ? sd : 1
        }
        let z = rows.map { r in [1] + (0..<d).map { (r.x[$0] - means[$0]) / scales[$0] } }
        var beta = [Double](repeating: 0, count: d + 1)
        // Newton's method on the penalized log-likelihood (the intercept unpenalized).
        for _ in 0..<50 {
            var gradient = [Double](repeating: 0, count: d + 1)
            var hessian = [[Double]](repeating: [Double](repeating: 0, count: d + 1), count: d + 1)
            for (row, r) in zip(z, rows) {
                let p = 1 / (1 + exp(-zip(row, beta).reduce(0) { $0 + $1.0 * $1.1 }))
                let w = max(p * (1 - p), 1e-9)
                for a in 0...d {
                    gradient[a] += (p - r.y) * row[a]
                    for b in 0...d { hessian[a][b] += w * row[a] * row[b] }
                }
            }
            for a in 1...d { gradient[a] += ridge * beta[a]; hessian[a][a] += ridge }
            let step = solve(hessian, gradient)
            for a in 0...d { beta[a] -= step[a] }
            if step.map(abs).max() ?? 0 < 1e-10 { break }
        }
        let model = LogisticModel(means: means, scales: scales, weights: Array(beta.dropFirst()), intercept: beta[0])
        let loss = zip(z, rows).reduce(0.0) { total, pair in
            let p = min(max(model.probability(pair.1.x), 1e-12), 1 - 1e-12)
            return total - (pair.1.y == 1 ? log(p) : log(1 - p))
        } / Double(rows.count)
        return ConfidenceFit(model: model, clips: rows.count, right: rows.filter { $0.y == 1 }.count, logLoss: loss)
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

    func swiftSource() -> String {
        func list(_ v: [Double]) -> String { "[" + v.map { String(format: "%.5g", $0) }.joined(separator: ", ") + "]" }
        return """
            // Confidence map fitted on \(clips) clips (\(right) within ±3 bpm), mean log-loss \(String(format: "%.3f", logLoss)).
            // Features: \(ConfidenceModel.featureNames.joined(separator: ", ")).
            package static let fitted = LogisticModel(
                means: \(list(model.means)),
                scales: \(list(model.scales)),
                weights: \(list(model.weights)),
                intercept: \(String(format: "%.5g", model.intercept)))
            """
    }
}
