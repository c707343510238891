@testable import Circadify
import Foundation
import Testing

/// The confidence is a probability of being within ±3 bpm, told in the seed's bands.
@Suite struct ConfidenceModelTests {
    /// Each band starts at its edge: 0.7 is reliable, 0.4 a re-scan.
    @Test(arguments: [(0.0, ConfidenceBand.retry), (0.3999, .retry), (0.4, .rescan), (0.6999, .rescan),
                      (0.7, .reliable), (1.0, .reliable)])
    func theBandsStartAtTheirEdges(_ confidence: Double, _ band: ConfidenceBand) {
        #expect(ConfidenceBand(confidence) == band)
    }

    @Test func theBandsAreProbabilities() {
        #expect(abs(ConfidenceModel.confidence(probability: ConfidenceModel.reliableProbability) - ConfidenceModel.reliable) < 1e-9)
        #expect(abs(ConfidenceModel.confidence(probability: ConfidenceModel.retryProbability) - ConfidenceModel.retry) < 1e-9)
        // A confident answer is at least 97% likely right; a retry no better than even.
        #expect(ConfidenceModel.reliableProbability >= 0.9 && ConfidenceModel.retryProbability >= 0.5
               && ConfidenceModel.retryProbability < ConfidenceModel.reliableProbability)
        var previous = 0.0
        for p in stride(from: 0.01, through: 0.99, by: 0.01) {
            let c = ConfidenceModel.confidence(probability: p)
            #expect(c > previous && c < 1)
            #expect(abs(ConfidenceModel.probability(ofConfidence: c) - p) < 1e-9)
            previous = c
        }
    }

    @Test func theFittedModelRewardsEvidenceAndPunishesItsLack() {
        let good = SignalQuality(snr: 6, consistency: 1, methodsAgree: true, skinCoverage: 0.9, gapFraction: 0,
                                 droppedFraction: 0, stepsPerMinute: 0, waveAgreement: 1, motion: 0.002)
        var weak = good
        weak.snr = -4; weak.consistency = 0.3; weak.methodsAgree = false; weak.waveAgreement = 0.2
        #expect(ConfidenceModel.confidence(good) >= ConfidenceModel.reliable)
        #expect(ConfidenceModel.confidence(weak) < ConfidenceModel.retry)
        // Physical limits outside the fit: regions with little skin, long gaps.
        var littleSkin = good; littleSkin.skinCoverage = 0.05
        var gapped = good; gapped.gapFraction = 0.4
        #expect(ConfidenceModel.confidence(littleSkin) < ConfidenceModel.retry)
        #expect(ConfidenceModel.confidence(gapped) < ConfidenceModel.retry)
        // Each piece of evidence, alone, moves the confidence the right way.
        var lessSNR = good; lessSNR.snr = 2
        var lessConsistent = good; lessConsistent.consistency = 0.6
        #expect(ConfidenceModel.confidence(lessSNR) < ConfidenceModel.confidence(good))
        #expect(ConfidenceModel.confidence(lessConsistent) < ConfidenceModel.confidence(good))
        #expect(ConfidenceModel.features(good).count == ConfidenceModel.featureNames.count)
        #expect(ConfidenceModel.fitted.weights.count == ConfidenceModel.featureNames.count)
    }

    /// A scan longer than the map was fitted on counts its agreeing windows as their share of
    /// the fitted six: a weak, steady artefact that agrees in 8 of 12 windows of a minute's scan
    /// stays where 4 of 6 put it, instead of being made certain by the scan's length.
    @Test func aLongScansWindowsCountAsTheirShareOfTheFittedOnes() {
        var thirty = SignalQuality(snr: 0.5, consistency: 4.0 / 6, methodsAgree: false, skinCoverage: 0.9, gapFraction: 0,
                                   droppedFraction: 0, stepsPerMinute: 0, waveAgreement: 0.5, motion: 0.002)
        thirty.windows = ConfidenceModel.fittedWindows
        var minute = thirty
        minute.windows = 2 * ConfidenceModel.fittedWindows
        #expect(abs(ConfidenceModel.features(minute)[1] - 4) < 1e-9)
        #expect(ConfidenceModel.confidence(minute) == ConfidenceModel.confidence(thirty))
        #expect(ConfidenceModel.confidence(minute) < ConfidenceModel.reliable)
    }
}
