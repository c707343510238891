import Foundation

/// Maps the evidence of a measurement to a 0-1 confidence with the seed's bands, and
/// makes the bands mean what they say: >= 0.7, the heart rate is within ±3 bpm at least
/// 97% of the time; < 0.4, less likely right than wrong (no pulse, or an unusable input).
///
/// The probability of being within ±3 bpm is a logistic regression on the pipeline's own
/// reliability signals (SNR, how many non-overlapping windows agree, agreement of the methods
/// and of the regions' and methods' own waves, camera steps, head motion, dropped frames, the
/// picture's brightness moving in the pulse band, the head's sway harmonics), fitted on the
/// ground-truth generator's tuning split, whole clips and 5-20 s scans cut from them
/// (`circadify-accuracy --split tune --cuts 5,8,10,12,15,20 --fit-confidence`, see the README),
/// with each signal allowed to push only the way physics says. Physical limits stay outside the fit, where the generator has no variety to learn
/// them from: too little skin in the regions and long gaps scale the probability down.
package enum ConfidenceModel {
    package static let reliable = 0.7
    package static let retry = 0.4
    /// The pulse SNR (dB, 10 s Welch segments, where a perfect pulse reads about 9-10 dB)
    /// below which beat-time jitter inflates SDNN by more than 10 ms: on the wider generator's
    /// tuning split (varied pulse shapes, beat amplitudes) every clip above 5.5 dB was within
    /// 6 ms, and clips at 3.5-5.3 dB were off by up to 27 ms (with the blood-volume-pulse
    /// projection in the fusion: within 7 ms above 5.5 dB, up to 34 ms at 4.5-5.1 dB).
    package static let hrvMinimumSNR = 5.5

    /// The reliability signals the probability is fitted on, by name.
    package static let featureNames = ["snr", "agreeingWindows", "methodsAgree", "waveAgreement", "stepsPerMinute", "motion",
                                       "droppedFraction", "lightShare", "swayHarmonics"]

    /// The most non-overlapping windows the map was fitted on: those of a 30 s scan, the
    /// longest the tuning split holds.
    package static let fittedWindows = 6
    /// The longest scan the map was fitted on, seconds; a longer one is judged by pieces this long
    /// (`VitalsAnalyzer`).
    package static let fittedDuration = 30.0

    /// Which way each signal may move the confidence (+1 up, -1 down), as physics says.
    package static let featureSigns: [Double] = [1, 1, 1, 1, -1, -1, -1, -1, -1]

    /// `q` as numbers in the order of `featureNames` (an infinite SNR clamped to ±20 dB, the light
    /// share to 5). The windows' agreement counts as the number of non-overlapping windows that
    /// agree, not their share: each is a separate look at the pulse, and a short scan has fewer.
    /// Beyond `fittedWindows` it counts as their share of that many: the map never saw more, and
    /// a count that grew with the scan's length would make any steady artefact certain in a long
    /// enough scan (a pulse-free face's breathing harmonic read 0.99 at 60 s with 11 of 12).
    package static func features(_ q: SignalQuality) -> [Double] {
        let snr = q.snr.isFinite ? min(max(q.snr, -20), 20) : (q.snr > 0 ? 20 : -20)
        return [snr, q.consistency * Double(min(q.windows, fittedWindows)), q.methodsAgree ? 1 : 0, q.waveAgreement, q.stepsPerMinute, q.motion, q.droppedFraction,
                min(q.lightShare, 5), q.swayHarmonics]
    }

    // Fitted by `circadify-accuracy --split tune --seeds 10 --cuts 5,8,10,12,15,20 --fit-confidence` (README, "Ground-truth
    // videos and accuracy"); refit and paste when the pipeline changes.
    // Confidence map fitted on 2874 clips (1756 within ±3 bpm), mean log-loss 0.358.
    // Features: snr, agreeingWindows, methodsAgree, waveAgreement, stepsPerMinute, motion, droppedFraction, lightShare, swayHarmonics.
    package static let fitted = LogisticModel(
        means: [1.1199, 1.7415, 0.47738, 0.54136, 7.1485, 0.0038375, 0.0036465, 0.34345, 0.031539],
        scales: [3.4677, 1.1442, 0.49949, 0.28948, 25.916, 0.0040328, 0.016297, 0.32124, 0.076172],
        weights: [1.1317, 0.64153, 0.33551, 0.61941, 0, -0.30458, 0, -0.55757, -0.56472],
        intercept: 0.97815)
    // Band edges: right 98.5% of the time above the first on the tuning split; every tuning pulse-free input 0.5 log-odds below the second (and above it once in 1000 on a normal, where that fits below the first).
    package static let reliableProbability = 0.9708
    package static let retryProbability = 0.9417

    /// The probability that the heart rate is within ±3 bpm.
    package static func probability(_ q: SignalQuality) -> Double {
        var p = fitted.probability(features(q))
        p *= min(1, q.skinCoverage / 0.25)
        p *= max(0, 1 - 2 * q.gapFraction)
        return min(max(p, 0), 1)
    }

    package static func confidence(_ q: SignalQuality) -> Double { confidence(probability: probability(q)) }

    /// The bands as probabilities: a confidence of 0.7 stands for `reliableProbability`,
    /// above which the tuning split's answers were right at least 98.5% of the time (the
    /// seed's promise is 97% over the band), and 0.4 for `retryProbability`, which a
    /// pulse-free input exceeds about once in a thousand; in between and beyond, the
    /// log-odds are scaled linearly: confidence = σ(a · logit(p) + b).
    private static let bandSlope = (logit(reliable) - logit(retry)) / (logit(reliableProbability) - logit(retryProbability))
    private static let bandOffset = logit(retry) - bandSlope * logit(retryProbability)

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
