@testable import AccuracyKit
import Testing

/// The counts every accuracy figure in the README comes from.
struct AccuracyReportTests {
    /// A scored clip: a reading (nil: the scan failed) against a truth (nil: no pulse).
    private func clip(_ name: String, read: Double?, truth: Double?, confidence: Double?,
                      scenario: String = "still") -> ClipScore {
        ClipScore(clip: name, scenario: scenario, pulsePresent: truth != nil,
                  failure: read == nil ? "qualityTooLow" : nil, heartRate: read, truthHeartRate: truth,
                  confidence: confidence, windows: [], seconds: 0)
    }

    @Test func aPulseClipWithNoReadingCountsAsNotAnswered() {
        let report = AccuracyReport(scores: [
            clip("right", read: 60.5, truth: 60, confidence: 0.9),
            clip("wrong-but-sure", read: 70, truth: 60, confidence: 0.8),
            clip("unsure", read: 61, truth: 60, confidence: 0.5),
            clip("failed", read: nil, truth: 60, confidence: nil),
            clip("photo", read: 50, truth: nil, confidence: 0.2),
            clip("photo-2", read: 45, truth: nil, confidence: 0.45),
        ])
        let c = report.counts
        #expect(c.pulseClips == 4)
        #expect(c.unread == 1)
        #expect(c.reliable == 2)
        #expect(c.wrongButSure == 1)
        #expect(c.answered == 3)
        let reliableMAE: Double = (0.5 + 10) / 2, answeredMAE: Double = (0.5 + 10 + 1) / 3
        #expect(c.reliableMAE == reliableMAE)
        #expect(c.answeredMAE == answeredMAE)
        #expect(c.pulseFree == 2)
        #expect(c.quietPulseFree == 1)
        #expect(c.pulseFreeMax == 0.45)
        // Right: 0.9, 0.5; wrong or pulse-free: 0.8, 0.2, 0.45. 0.9 beats all three, 0.5 two.
        #expect(c.rocArea == 5.0 / 6.0)
        let summary = report.confidenceSummary()
        #expect(summary.contains("over 3 of 4 (1 with no reading)"))
        #expect(summary.contains("2/4 pulse clips at >= 0.7, of which 1 off by more than 3 bpm"))
        #expect(summary.contains("1/2 pulse-free clips below 0.4 (max 0.45)"))
        #expect(summary.contains("0.833"))
    }

    @Test func tiedConfidencesCountHalfInTheROCArea() {
        let report = AccuracyReport(scores: [
            clip("a", read: 60, truth: 60, confidence: 0.9),
            clip("b", read: 60, truth: 60, confidence: 0.5),
            clip("c", read: 80, truth: 60, confidence: 0.5),
            clip("d", read: nil, truth: nil, confidence: 0.2),
        ])
        #expect(report.counts.rocArea == 3.5 / 4)
        #expect(AccuracyReport(scores: [clip("a", read: 60, truth: 60, confidence: 0.9)]).counts.rocArea == nil)
    }

    @Test func scenarioRowsCountFailuresAndAverageOnlyReadings() {
        var withRR = clip("s1", read: 62, truth: 60, confidence: 0.9)
        withRR.respiratoryRate = 15
        withRR.truthRespiratoryRate = 14
        let report = AccuracyReport(scores: [
            withRR,
            clip("s2", read: 56, truth: 60, confidence: 0.3),
            clip("s3", read: nil, truth: 60, confidence: nil),
            clip("m1", read: 60, truth: 60, confidence: 0.9, scenario: "motion"),
        ])
        #expect(report.scenarios == ["still", "motion"])
        let still = report.row("still")
        #expect(still.clips == 3)
        #expect(still.failures == 1)
        #expect(still.hrMAE == 3)
        let rmse: Double = ((4.0 + 16.0) / 2).squareRoot()
        #expect(still.hrRMSE == rmse)
        #expect(still.rrMAE == 1 && still.rrCount == 1)
        #expect(still.sdnnMAE == nil && still.sdnnCount == 0)
        #expect(report.table().contains("| still | 3 (1 failed) | 3.00 |"))
    }

    @Test func cutsAreSummarizedByLengthWithUnreadScansInTheShare() {
        let report = AccuracyReport(scores: [
            clip("still-1@0+10", read: 60, truth: 60, confidence: 0.8),
            clip("still-1@10+10", read: 75, truth: 60, confidence: 0.75),
            clip("still-1@20+10", read: nil, truth: 60, confidence: nil),
            clip("nopulse-1@0+10", read: 50, truth: nil, confidence: 0.3),
            clip("still-1@0+5", read: 60, truth: 60, confidence: 0.1),
        ])
        #expect(report.cutLengthSummary([10, 5]) == [
            "  10 s: 2/3 pulse scans at >= 0.7 (1 off by > 3 bpm); pulse-free max 0.30 over 1",
            "  5 s: 0/1 pulse scans at >= 0.7 (0 off by > 3 bpm); pulse-free max 0.00 over 0",
        ])
    }
}
