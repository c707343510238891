import Circadify
import Foundation

/// The per-scenario table and the confidence check of DESIGN.md §7.
package struct AccuracyReport {
    package var scores: [ClipScore]

    package init(scores: [ClipScore]) { self.scores = scores }

    package struct Row {
        package var scenario: String
        package var clips: Int
        package var failures: Int
        package var hrMAE: Double?, hrRMSE: Double?, windowsWithin5: Double?, pearson: Double?
        package var rrMAE: Double?, rrCount: Int
        package var sdnnMAE: Double?, sdnnCount: Int
        package var meanConfidence: Double?, maxConfidence: Double?
    }

    package var scenarios: [String] {
        var seen = [String]()
        for s in scores where !seen.contains(s.scenario) { seen.append(s.scenario) }
        return seen
    }

    package func row(_ scenario: String) -> Row {
        let clips = scores.filter { $0.scenario == scenario }
        let errors = clips.compactMap(\.heartRateError)
        let windows = clips.flatMap(\.windows)
        let rr = clips.compactMap { c in c.respiratoryRate.flatMap { r in c.truthRespiratoryRate.map { abs(r - $0) } } }
        let sdnn = clips.compactMap { c in c.sdnn.flatMap { s in c.truthSDNN.map { abs(s - $0) } } }
        let confidences = clips.compactMap(\.confidence)
        return Row(
            scenario: scenario, clips: clips.count, failures: clips.filter { $0.failure != nil }.count,
            hrMAE: errors.isEmpty ? nil : mean(errors.map(abs)),
            hrRMSE: errors.isEmpty ? nil : mean(errors.map { $0 * $0 }).squareRoot(),
            windowsWithin5: windows.isEmpty ? nil
                : Double(windows.filter { abs($0[0] - $0[1]) <= 5 }.count) / Double(windows.count),
            pearson: windows.count > 2 ? pearson(windows.map { $0[0] }, windows.map { $0[1] }) : nil,
            rrMAE: rr.isEmpty ? nil : mean(rr), rrCount: rr.count,
            sdnnMAE: sdnn.isEmpty ? nil : mean(sdnn), sdnnCount: sdnn.count,
            meanConfidence: confidences.isEmpty ? nil : mean(confidences), maxConfidence: confidences.max())
    }

    /// The markdown table printed and kept in the README.
    package func table() -> String {
        func f(_ v: Double?, _ digits: Int = 2) -> String { v.map { String(format: "%.\(digits)f", $0) } ?? "–" }
        var lines = [
            "| scenario | clips | HR MAE | HR RMSE | windows ±5 bpm | r (windows) | RR MAE (n) | SDNN MAE ms (n) | confidence mean / max |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for scenario in scenarios {
            let r = row(scenario)
            let clips = r.failures > 0 ? "\(r.clips) (\(r.failures) failed)" : "\(r.clips)"
            lines.append("| \(scenario) | \(clips) | \(f(r.hrMAE)) | \(f(r.hrRMSE)) | "
                + "\(r.windowsWithin5.map { String(format: "%.0f%%", $0 * 100) } ?? "–") | \(f(r.pearson)) | "
                + "\(f(r.rrMAE)) (\(r.rrCount)) | \(f(r.sdnnMAE, 1)) (\(r.sdnnCount)) | "
                + "\(f(r.meanConfidence)) / \(f(r.maxConfidence)) |")
        }
        return lines.joined(separator: "\n")
    }

    /// How the confidence sorted the clips: what the bands promise, counted.
    package struct ConfidenceCounts {
        /// Clips with a pulse, read or not.
        package var pulseClips: Int
        /// Pulse clips with no reading (the scan failed): not answered, in no error.
        package var unread: Int
        /// Pulse clips read at >= 0.7, and those of them off by more than 3 bpm.
        package var reliable: Int, wrongButSure: Int
        /// Pulse clips read at >= 0.4 (what a scan answers).
        package var answered: Int
        /// HR MAE over the answered and over the reliable clips (nil when there are none).
        package var answeredMAE: Double?, reliableMAE: Double?
        /// Pulse-free clips, those below 0.4, and the highest confidence among them.
        package var pulseFree: Int, quietPulseFree: Int, pulseFreeMax: Double?
        /// How often a right clip's (within ±3 bpm) confidence beats a wrong or pulse-free one's
        /// (ties half); nil without both kinds.
        package var rocArea: Double?
    }

    package var counts: ConfidenceCounts {
        // A pulse clip with no reading (the scan failed) is a clip not answered: it
        // counts in the share answered, not in the errors.
        let pulseClips = scores.filter(\.pulsePresent).count
        let withPulse = scores.filter { $0.pulsePresent && $0.heartRateError != nil }
        let pulseFree = scores.filter { !$0.pulsePresent }
        let reliable = withPulse.filter { ($0.confidence ?? 0) >= ConfidenceModel.reliable }
        let answered = withPulse.filter { ($0.confidence ?? 0) >= ConfidenceModel.retry }
        let good = withPulse.filter(\.readRight)
        let bad = withPulse.filter { !$0.readRight } + pulseFree
        func mae(_ clips: [ClipScore]) -> Double? {
            clips.isEmpty ? nil : mean(clips.compactMap(\.heartRateError).map(abs))
        }
        return ConfidenceCounts(
            pulseClips: pulseClips, unread: pulseClips - withPulse.count,
            reliable: reliable.count, wrongButSure: reliable.filter { !$0.readRight }.count,
            answered: answered.count, answeredMAE: mae(answered), reliableMAE: mae(reliable),
            pulseFree: pulseFree.count,
            quietPulseFree: pulseFree.filter { ($0.confidence ?? 0) < ConfidenceModel.retry }.count,
            pulseFreeMax: pulseFree.compactMap(\.confidence).max(),
            rocArea: rocArea(positives: good.compactMap(\.confidence), negatives: bad.compactMap(\.confidence)))
    }

    /// How well confidence separates good estimates from bad ones.
    package func confidenceSummary() -> String {
        let c = counts
        func f(_ v: Double?, _ format: String = "%.2f") -> String { v.map { String(format: format, $0) } ?? "–" }
        return """
            HR MAE over what a scan answers (confidence >= 0.4): \(f(c.answeredMAE)) bpm over \(c.answered) of \
            \(c.pulseClips)\(c.unread > 0 ? " (\(c.unread) with no reading)" : ""); over the reliable ones (>= 0.7): \
            \(f(c.reliableMAE)) bpm over \(c.reliable)
            confidence: \(c.reliable)/\(c.pulseClips) pulse clips at >= 0.7, of which \(c.wrongButSure) off by more than 3 bpm; \
            \(c.quietPulseFree)/\(c.pulseFree) pulse-free clips below 0.4 (max \(String(format: "%.2f", c.pulseFreeMax ?? 0))); \
            ROC area good (|error| <= 3 bpm) vs bad (worse, or no pulse): \(f(c.rocArea, "%.3f"))
            """
    }

    /// One line per scan length for scores cut from longer clips (`ClipEvaluator.cutScores`),
    /// whose names end in "+LENGTH".
    package func cutLengthSummary(_ lengths: [Double]) -> [String] {
        lengths.map { length in
            let these = scores.filter { $0.clip.hasSuffix(String(format: "+%.0f", length)) }
            let free = these.filter { !$0.pulsePresent }.compactMap(\.confidence)
            let pulse = these.filter { $0.pulsePresent && $0.truthHeartRate != nil }
            let sure = pulse.filter { ($0.confidence ?? 0) >= ConfidenceModel.reliable }
            let wrong = sure.filter { !$0.readRight }
            return String(format: "  %.0f s: %d/%d pulse scans at >= 0.7 (%d off by > 3 bpm); pulse-free max %.2f over %d",
                          length, sure.count, pulse.count, wrong.count, free.max() ?? 0, free.count)
        }
    }

    /// From the end of a 30 s scan to its result: the whole analysis, on this machine.
    package func timingSummary() -> String {
        let times = scores.compactMap(\.analysisSeconds).sorted()
        guard !times.isEmpty else { return "analysis time: no clip analysed" }
        let median = times[times.count / 2], worst = times[times.count - 1]
        return String(format: "analysis time per clip (all frames in, result out): median %.0f ms, worst %.0f ms",
                      median * 1000, worst * 1000)
    }

    private func mean(_ x: [Double]) -> Double { x.reduce(0, +) / Double(max(x.count, 1)) }

    private func pearson(_ a: [Double], _ b: [Double]) -> Double? {
        let ma = mean(a), mb = mean(b)
        let sab = zip(a, b).reduce(0) { $0 + ($1.0 - ma) * ($1.1 - mb) }
        let saa = a.reduce(0) { $0 + ($1 - ma) * ($1 - ma) }, sbb = b.reduce(0) { $0 + ($1 - mb) * ($1 - mb) }
        return saa > 0 && sbb > 0 ? sab / (saa * sbb).squareRoot() : nil
    }

    /// Probability that a good clip's confidence beats a bad one's (ties count half).
    private func rocArea(positives: [Double], negatives: [Double]) -> Double? {
        guard !positives.isEmpty, !negatives.isEmpty else { return nil }
        var wins = 0.0
        for p in positives { for n in negatives { wins += p > n ? 1 : (p == n ? 0.5 : 0) } }
        return wins / Double(positives.count * negatives.count)
    }
}
