import Circadify
import Foundation

/// The per-scenario table and the confidence check of DESIGN.md §7.
struct AccuracyReport {
    var scores: [ClipScore]

    struct Row {
        var scenario: String
        var clips: Int
        var failures: Int
        var hrMAE: Double?, hrRMSE: Double?, windowsWithin5: Double?, pearson: Double?
        var rrMAE: Double?, rrCount: Int
        var sdnnMAE: Double?, sdnnCount: Int
        var meanConfidence: Double?, maxConfidence: Double?
    }

    var scenarios: [String] {
        var seen = [String]()
        for s in scores where !seen.contains(s.scenario) { seen.append(s.scenario) }
        return seen
    }

    func row(_ scenario: String) -> Row {
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
    func table() -> String {
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

    /// How well confidence separates good estimates from bad ones.
    func confidenceSummary() -> String {
        // A pulse clip with no reading (the scan failed) is a clip not answered: it
        // counts in the share answered, not in the errors.
        let pulseClips = scores.filter(\.pulsePresent).count
        let withPulse = scores.filter { $0.pulsePresent && $0.heartRateError != nil }
        let unread = pulseClips - withPulse.count
        let pulseFree = scores.filter { !$0.pulsePresent }
        let reliable = withPulse.filter { ($0.confidence ?? 0) >= ConfidenceModel.reliable }
        let wrongButSure = reliable.filter { abs($0.heartRateError ?? 0) > 3 }
        let good = withPulse.filter { abs($0.heartRateError ?? .infinity) <= 3 }
        let bad = withPulse.filter { abs($0.heartRateError ?? 0) > 3 } + pulseFree
        let auc = rocArea(positives: good.compactMap(\.confidence), negatives: bad.compactMap(\.confidence))
        let quietFree = pulseFree.filter { ($0.confidence ?? 0) < ConfidenceModel.retry }.count
        func mae(_ clips: [ClipScore]) -> String {
            clips.isEmpty ? "–" : String(format: "%.2f", mean(clips.compactMap(\.heartRateError).map(abs)))
        }
        let answered = withPulse.filter { ($0.confidence ?? 0) >= ConfidenceModel.retry }
        return """
            HR MAE over what a scan answers (confidence >= 0.4): \(mae(answered)) bpm over \(answered.count) of \
            \(pulseClips)\(unread > 0 ? " (\(unread) with no reading)" : ""); over the reliable ones (>= 0.7): \
            \(mae(reliable)) bpm over \(reliable.count)
            confidence: \(reliable.count)/\(pulseClips) pulse clips at >= 0.7, of which \(wrongButSure.count) off by more than 3 bpm; \
            \(quietFree)/\(pulseFree.count) pulse-free clips below 0.4 (max \(String(format: "%.2f", pulseFree.compactMap(\.confidence).max() ?? 0))); \
            ROC area good (|error| <= 3 bpm) vs bad (worse, or no pulse): \(auc.map { String(format: "%.3f", $0) } ?? "–")
            """
    }

    /// From the end of a 30 s scan to its result: the whole analysis, on this machine.
    func timingSummary() -> String {
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
