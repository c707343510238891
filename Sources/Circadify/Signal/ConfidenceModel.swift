import Foundation

/// Maps the evidence of a measurement to a 0-1 confidence with the seed's bands:
/// >= 0.7 reliable, < 0.4 retry. The pulse's SNR and the agreement of the
/// sliding windows carry it; poor skin coverage, gaps, dropped frames and
/// disagreeing projections take from it. Calibrated on the ground-truth set
/// (Tools/accuracy): pulse-free inputs, still or moving, must stay below 0.4.
package enum ConfidenceModel {
    package static let reliable = 0.7
    package static let retry = 0.4
    /// The pulse SNR (dB, 10 s Welch segments, where a perfect pulse reads about 9-10 dB)
    /// below which beat-time jitter inflates SDNN by more than 10 ms on the ground-truth set.
    package static let hrvMinimumSNR = 3.5

    /// The pipeline's reliability signals a confidence is made of, by name.
    package static let featureNames = [
        "snr", "consistency", "methodsAgree", "waveAgreement", "skinCoverage", "gapFraction", "droppedFraction",
        "stepsPerMinute", "motion",
    ]

    /// `q` as numbers in the order of `featureNames` (an infinite SNR clamped to ±20 dB).
    package static func features(_ q: SignalQuality) -> [Double] {
        let snr = q.snr.isFinite ? min(max(q.snr, -20), 20) : (q.snr > 0 ? 20 : -20)
        return [snr, q.consistency, q.methodsAgree ? 1 : 0, q.waveAgreement, q.skinCoverage, q.gapFraction,
                q.droppedFraction, q.stepsPerMinute, q.motion]
    }

    /// The bands as probabilities: a confidence of 0.7 means a 97% chance the heart rate is
    /// within ±3 bpm, 0.4 an even chance. In between and beyond, the log-odds are scaled
    /// linearly: confidence = σ(a · logit(p) + b).
    private static let bandSlope = (logit(reliable) - logit(retry)) / logit(0.97)
    private static let bandOffset = logit(retry)

    private static func logit(_ p: Double) -> Double { log(p / (1 - p)) }

    /// The confidence that stands for `p`, the probability of being within ±3 bpm.
    package static func confidence(probability p: Double) -> Double {
        let z = logit(min(max(p, 1e-9), 1 - 1e-9))
        return 1 / (1 + exp(-(bandSlope * z + bandOffset)))
    }

    /// The probability of being within ±3 bpm a confidence stands for.
    package static func probability(ofConfidence c: Double) -> Double {
        let z = (logit(min(max(c, 1e-9), 1 - 1e-9)) - bandOffset) / bandSlope
        return 1 / (1 + exp(-z))
    }

    package static func confidence(_ q: SignalQuality) -> Double {
        // The SNR term: about 0.5 at 0 dB, 0.9 at 5 dB.
        let snr = 1 / (1 + exp(-(q.snr.isFinite ? q.snr : (q.snr > 0 ? 20 : -20)) / 2.3))
        var c = 0.6 * snr + 0.4 * q.consistency
        // Without the consistency of the windows, a strong peak alone is not a pulse.
        c *= 0.4 + 0.6 * q.consistency
        if !q.methodsAgree { c *= 0.8 }
        c *= min(1, q.skinCoverage / 0.25)
        c *= max(0, 1 - 2 * q.gapFraction)
        c *= max(0, 1 - q.droppedFraction)
        return min(max(c, 0), 1)
    }
}

/// A logistic regression on standardized features: P = σ(intercept + Σ wᵢ (xᵢ − meanᵢ) / scaleᵢ).
package struct LogisticModel: Sendable, Equatable {
    package var means: [Double], scales: [Double], weights: [Double]
    package var intercept: Double

    package init(means: [Double], scales: [Double], weights: [Double], intercept: Double) {
        self.means = means; self.scales = scales; self.weights = weights; self.intercept = intercept
    }

    package func logOdds(_ x: [Double]) -> Double {
        x.indices.reduce(intercept) { $0 + weights[$1] * (x[$1] - means[$1]) / scales[$1] }
    }

    package func probability(_ x: [Double]) -> Double { 1 / (1 + exp(-logOdds(x))) }
}
