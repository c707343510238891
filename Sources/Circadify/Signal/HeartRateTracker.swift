import Foundation

/// A heart-rate candidate in one window's spectrum.
package struct PulseCandidate: Sendable, Equatable {
    package var frequency: Double
    /// Harmonic-sum score: the power at the frequency plus half the power at its
    /// second harmonic, as a share of the window's band power.
    package var score: Double
}

/// One sliding window's spectral reading of the pulse wave.
package struct PulseWindow: Sendable, Equatable {
    /// Centre of the window, seconds from the start of the trace.
    package var time: Double
    package var candidates: [PulseCandidate]
}

/// Picks pulse frequencies from spectra and follows them over time.
///
/// Two traps are designed out. A real pulse wave carries a second harmonic
/// nearly as strong as its fundamental, so a bare spectral maximum often sits
/// at twice the heart rate: candidates are ranked by harmonic sum, which lets a
/// fundamental collect its harmonic's power but never the other way round. And
/// a motion or lighting peak can outgrow the pulse for a window or two: the
/// tracker keeps the path through the windows' candidates that best balances
/// spectral strength against jumps (a Viterbi search), so a lone stray peak
/// cannot hijack it.
package enum HeartRateTracker {
    /// 0.7-3.5 Hz: 42-210 bpm.
    package static let band: ClosedRange<Double> = 0.7...3.5

    /// Local maxima of `psd` in the pulse band, strongest harmonic sum first.
    package static func candidates(psd: [Float], binHz: Double, limit: Int = 4) -> [PulseCandidate] {
        let lo = max(1, Int((band.lowerBound / binHz).rounded(.up)))
        let hi = min(psd.count - 2, Int((band.upperBound / binHz).rounded(.down)))
        guard hi > lo else { return [] }
        let total = (lo...hi).reduce(0.0) { $0 + Double(psd[$1]) }
        guard total > 0 else { return [] }
        func power(at f: Double) -> Double {
            // The largest bin within half a bin either side tolerates grid misalignment.
            let k = f / binHz, a = Int(k.rounded(.down)), b = a + 1
            guard a >= 0, b < psd.count else { return 0 }
            return Double(max(psd[a], psd[b]))
        }
        var found = [PulseCandidate]()
        for k in lo...hi where psd[k] > 0 && psd[k] >= psd[k - 1] && psd[k] > psd[k + 1] {
            // Parabolic refinement on the log power.
            let l = log(Double(max(psd[k - 1], 1e-30))), c = log(Double(psd[k])), r = log(Double(max(psd[k + 1], 1e-30)))
            let denom = l - 2 * c + r
            let offset = denom < 0 ? max(-0.5, min(0.5, 0.5 * (l - r) / denom)) : 0
            let f = (Double(k) + offset) * binHz
            let score = (Double(psd[k]) + 0.5 * power(at: 2 * f)) / total
            found.append(PulseCandidate(frequency: f, score: score))
        }
        return Array(found.sorted { $0.score > $1.score }.prefix(limit))
    }

    /// The most plausible frequency path through the windows (one frequency per window).
    /// `jumpPerSecond` is the heart-rate change, in bpm per second of window spacing,
    /// that costs as much as the strongest candidate losing two thirds of its score.
    package static func track(_ windows: [PulseWindow], jumpPerSecond: Double = 4) -> [Double?] {
        var costs = [[Double]](), back = [[Int]]()
        for (w, window) in windows.enumerated() {
            let best = window.candidates.map(\.score).max() ?? 0
            let emission = window.candidates.map { -log(max($0.score / max(best, 1e-12), 1e-6)) }
            guard w > 0, let previous = costs.last, !previous.isEmpty else {
                costs.append(emission)
                back.append(emission.map { _ in -1 })
                continue
            }
            let dt = max(window.time - windows[w - 1].time, 1e-3)
            var row = [Double](), from = [Int]()
            for (c, candidate) in window.candidates.enumerated() {
                var bestCost = Double.infinity, bestIndex = -1
                for (p, prev) in windows[w - 1].candidates.enumerated() {
                    let jump = abs(candidate.frequency - prev.frequency) * 60 / (jumpPerSecond * dt)
                    let cost = previous[p] + jump * jump * log(3)
                    if cost < bestCost { bestCost = cost; bestIndex = p }
                }
                row.append(bestCost + emission[c])
                from.append(bestIndex)
            }
            costs.append(row)
            back.append(from)
        }
        var path = [Double?](repeating: nil, count: windows.count)
        func cheapest(_ row: [Double]) -> Int? { row.indices.min { row[$0] < row[$1] } }
        var index: Int?
        for w in stride(from: windows.count - 1, through: 0, by: -1) {
            // The end of the path, or a restart after a window without candidates.
            if index == nil { index = cheapest(costs[w]) }
            guard let i = index else { continue }
            path[w] = windows[w].candidates[i].frequency
            index = back[w][i] >= 0 ? back[w][i] : nil
        }
        return path
    }
}
