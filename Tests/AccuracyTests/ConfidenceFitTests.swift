@testable import AccuracyKit
import Circadify
import Testing

/// The fit that produces `ConfidenceModel.fitted` and its band edges.
struct ConfidenceFitTests {
    /// Reliability signals in `ConfidenceModel.featureNames` order: everything typical
    /// but the SNR and the head's motion.
    private func features(snr: Double, motion: Double) -> [Double] {
        [snr, 3, 1, 0.7, 0, motion, 0, 0.2, 0]
    }

    private func scored(_ i: Int, snr: Double, motion: Double, right: Bool, pulse: Bool = true) -> ClipScore {
        var score = ClipScore(clip: "clip-\(i)", scenario: "still", pulsePresent: pulse,
                              heartRate: right ? 60.5 : 80, truthHeartRate: pulse ? 60 : nil, windows: [], seconds: 0)
        score.reliability = features(snr: snr, motion: motion)
        return score
    }

    @Test func theFitFollowsTheSNRAndDropsASignalThatPointsAgainstPhysics() throws {
        // Right answers come with more SNR (noisily) and, by this set's quirk, with more head
        // motion: physics says motion can only lower the confidence, so its weight must go.
        var scores = [ClipScore]()
        for i in 0..<80 {
            let snr = Double(i % 20) / 2 - 3 // -3 ... 6.5 dB
            let right = snr + Double((i * 7) % 5) - 2 > 1
            scores.append(scored(i, snr: snr, motion: right ? 0.02 : 0.005, right: right))
        }
        for i in 0..<6 { scores.append(scored(100 + i, snr: -4 + Double(i) / 2, motion: 0.004, right: false, pulse: false)) }
        let fit = try ConfidenceFit.fit(scores)
        let snr = try #require(ConfidenceModel.featureNames.firstIndex(of: "snr"))
        let motion = try #require(ConfidenceModel.featureNames.firstIndex(of: "motion"))
        #expect(fit.model.weights[snr] > 0)
        #expect(fit.model.weights[motion] == 0)
        #expect(fit.clips == 86)
        #expect(fit.right == scores.filter { $0.pulsePresent && abs($0.heartRateError ?? 99) <= 3 }.count)
        #expect(fit.model.probability(features(snr: 8, motion: 0.01)) > fit.model.probability(features(snr: -2, motion: 0.01)))
        #expect(fit.retryProbability >= 0.5 && fit.reliableProbability > fit.retryProbability)
        // Run twice, it prints the same map.
        #expect(try ConfidenceFit.fit(scores).swiftSource() == fit.swiftSource())
    }

    @Test func tooFewClipsOrOnlyOneKindIsRefusedWithAReason() {
        let few = (0..<5).map { scored($0, snr: Double($0), motion: 0, right: $0 > 2) }
        #expect(throws: AccuracyError.self) { try ConfidenceFit.fit(few) }
        let allRight = (0..<40).map { scored($0, snr: Double($0 % 7), motion: 0, right: true) }
        do {
            _ = try ConfidenceFit.fit(allRight)
            Issue.record("a fit with no wrong clip was accepted")
        } catch {
            #expect("\(error)".contains("right and wrong ones"))
        }
    }

    @Test func theReliableEdgeStopsBeforeTheFirstWrongAnswerThatBreaksThePrecision() {
        let clips: [(p: Double, right: Bool)] = [(0.99, true), (0.95, true), (0.9, true), (0.85, false), (0.8, true)]
        let edges = ConfidenceFit.bandEdges(clips, pulseFree: [0.1, 0.2])
        #expect(edges.reliable == 0.9)
        #expect(edges.retry == 0.5)
    }

    @Test func aConvincingPulseFreeClipRaisesBothEdgesAboveIt() {
        let clips: [(p: Double, right: Bool)] = [(0.99, true), (0.95, true), (0.9, true), (0.85, false)]
        let edges = ConfidenceFit.bandEdges(clips, pulseFree: [0.1, 0.95])
        #expect(edges.retry > 0.95)
        #expect(edges.reliable > edges.retry)
        #expect(edges.reliable == edges.retry + (1 - edges.retry) / 2)
    }
}
