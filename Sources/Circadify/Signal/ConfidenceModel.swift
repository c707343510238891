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
