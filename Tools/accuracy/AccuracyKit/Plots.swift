import Circadify
import Foundation

/// The two pictures of DESIGN.md §7's accuracy check, as plain SVG: a reliability
/// diagram (what share of the clips at each confidence were within ±3 bpm) and a
/// Bland-Altman plot of the heart rate against the truth.
package enum Plots {
    private static let width = 560.0, height = 420.0, margin = 60.0

    private static func header(_ title: String) -> String {
        """
        <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" font-family="sans-serif" font-size="12">
        <rect width="100%" height="100%" fill="white"/>
        <text x="\(width / 2)" y="20" text-anchor="middle" font-size="14">\(title)</text>

        """
    }

    private static func f(_ v: Double) -> String { String(format: "%.1f", v) }

    /// Axes with ticks; `x` and `y` map data to pixels.
    private static func axes(x: (Double) -> Double, y: (Double) -> Double, xTicks: [Double], yTicks: [Double],
                             xLabel: String, yLabel: String, digits: Int = 1) -> String {
        var s = "<g stroke=\"black\" fill=\"none\"><rect x=\"\(margin)\" y=\"\(margin / 2)\" width=\"\(width - 1.5 * margin)\" "
            + "height=\"\(height - 1.5 * margin)\"/></g>\n"
        for t in xTicks {
            s += "<line x1=\"\(f(x(t)))\" y1=\"\(f(height - margin))\" x2=\"\(f(x(t)))\" y2=\"\(f(height - margin + 5))\" stroke=\"black\"/>"
            s += "<text x=\"\(f(x(t)))\" y=\"\(f(height - margin + 18))\" text-anchor=\"middle\">\(String(format: "%.\(digits)f", t))</text>\n"
        }
        for t in yTicks {
            s += "<line x1=\"\(f(margin - 5))\" y1=\"\(f(y(t)))\" x2=\"\(f(margin))\" y2=\"\(f(y(t)))\" stroke=\"black\"/>"
            s += "<text x=\"\(f(margin - 8))\" y=\"\(f(y(t) + 4))\" text-anchor=\"end\">\(String(format: "%.\(digits)f", t))</text>\n"
        }
        s += "<text x=\"\(f((margin + width - margin / 2) / 2))\" y=\"\(f(height - 12))\" text-anchor=\"middle\">\(xLabel)</text>\n"
        s += "<text transform=\"translate(16 \(f(height / 2))) rotate(-90)\" text-anchor=\"middle\">\(yLabel)</text>\n"
        return s
    }

    /// Confidence in bins of 0.1 against the share of clips in the bin that were right
    /// (a pulse read within ±3 bpm); pulse-free clips count as not right. The dashed
    /// curve is what the confidence map promises (ConfidenceModel.probability(ofConfidence:)),
    /// the bands' edges are marked.
    package static func reliability(_ scores: [ClipScore]) -> String {
        let x = { (c: Double) in margin + c * (width - 1.5 * margin) }
        let y = { (a: Double) in height - margin - a * (height - 1.5 * margin) }
        var s = header("Reliability: confidence vs share within ±3 bpm")
        s += axes(x: x, y: y, xTicks: stride(from: 0, through: 1, by: 0.1).map { $0 },
                  yTicks: stride(from: 0, through: 1, by: 0.2).map { $0 }, xLabel: "confidence",
                  yLabel: "observed share right (±3 bpm)")
        for edge in [ConfidenceModel.retry, ConfidenceModel.reliable] {
            s += "<line x1=\"\(f(x(edge)))\" y1=\"\(f(y(0)))\" x2=\"\(f(x(edge)))\" y2=\"\(f(y(1)))\" stroke=\"#bbb\"/>\n"
        }
        s += "<line x1=\"\(f(x(ConfidenceModel.reliable)))\" y1=\"\(f(y(0.97)))\" x2=\"\(f(x(1)))\" y2=\"\(f(y(0.97)))\" "
            + "stroke=\"#2a2\" stroke-dasharray=\"2 3\"/>\n"
        let curve = stride(from: 0.01, through: 0.99, by: 0.01).map { c in
            "\(f(x(c))),\(f(y(ConfidenceModel.probability(ofConfidence: c))))"
        }
        s += "<polyline points=\"\(curve.joined(separator: " "))\" fill=\"none\" stroke=\"#888\" stroke-dasharray=\"5 4\"/>\n"
        let scored = scores.filter { $0.confidence != nil }
        for bin in 0..<10 {
            let lo = Double(bin) / 10, hi = lo + 0.1
            let inBin = scored.filter { ($0.confidence ?? 0) >= lo && (($0.confidence ?? 0) < hi || (bin == 9 && ($0.confidence ?? 0) <= 1)) }
            guard !inBin.isEmpty else { continue }
            let right = inBin.filter(\.readRight).count
            let share = Double(right) / Double(inBin.count)
            let cx = x(lo + 0.05), cy = y(share), r = 3 + 2 * Double(inBin.count).squareRoot()
            s += "<circle cx=\"\(f(cx))\" cy=\"\(f(cy))\" r=\"\(f(r))\" fill=\"#36c\" fill-opacity=\"0.5\" stroke=\"#136\"/>"
            s += "<text x=\"\(f(cx))\" y=\"\(f(cy - r - 3))\" text-anchor=\"middle\" font-size=\"10\">\(right)/\(inBin.count)</text>\n"
        }
        s += "<text x=\"\(f(x(0.02)))\" y=\"\(f(y(0.93)))\" font-size=\"10\" fill=\"#555\">dashed: the map's promise; "
            + "green: 97% over the reliable band</text>\n"
        return s + "</svg>\n"
    }

    /// Bland-Altman: mean of reading and truth against their difference, for every pulse
    /// clip with a reading; colour by band (reliable, re-scan, retry). Bias and 95% limits
    /// of agreement over the reliable readings.
    package static func blandAltman(_ scores: [ClipScore]) -> String {
        let points = scores.compactMap { s -> (mean: Double, diff: Double, c: Double)? in
            guard let hr = s.heartRate, let truth = s.truthHeartRate, s.pulsePresent else { return nil }
            return ((hr + truth) / 2, hr - truth, s.confidence ?? 0)
        }
        let lo = (points.map(\.mean).min() ?? 40) - 5, hi = (points.map(\.mean).max() ?? 180) + 5
        let span = max(6, min(30, (points.map { abs($0.diff) }.max() ?? 3) * 1.1))
        let x = { (m: Double) in margin + (m - lo) / (hi - lo) * (width - 1.5 * margin) }
        let y = { (d: Double) in height - margin - (d + span) / (2 * span) * (height - 1.5 * margin) }
        var s = header("Bland-Altman: heart rate (bpm)")
        let step = span > 15 ? 10.0 : span > 6 ? 3.0 : 1.0
        s += axes(x: x, y: y, xTicks: stride(from: (lo / 20).rounded(.up) * 20, through: hi, by: 20).map { $0 },
                  yTicks: stride(from: -(span / step).rounded(.down) * step, through: span, by: step).map { $0 },
                  xLabel: "(reading + truth) / 2, bpm", yLabel: "reading − truth, bpm", digits: 0)
        let sure = points.filter { $0.c >= ConfidenceModel.reliable }.map(\.diff)
        if sure.count >= 2 {
            let bias = sure.reduce(0, +) / Double(sure.count)
            let sd = (sure.map { ($0 - bias) * ($0 - bias) }.reduce(0, +) / Double(sure.count - 1)).squareRoot()
            for (v, label) in [(bias, "bias"), (bias + 1.96 * sd, "+1.96 SD"), (bias - 1.96 * sd, "−1.96 SD")] {
                let py = y(min(max(v, -span), span))
                s += "<line x1=\"\(f(margin))\" y1=\"\(f(py))\" x2=\"\(f(width - margin / 2))\" y2=\"\(f(py))\" "
                    + "stroke=\"#c33\" stroke-dasharray=\"4 3\"/>"
                s += "<text x=\"\(f(width - margin / 2 - 4))\" y=\"\(f(py - 3))\" text-anchor=\"end\" font-size=\"10\" "
                    + "fill=\"#c33\">\(label) \(String(format: "%.2f", v))</text>\n"
            }
        }
        for p in points {
            let colour = p.c >= ConfidenceModel.reliable ? "#2a2" : p.c >= ConfidenceModel.retry ? "#e90" : "#999"
            let py = y(min(max(p.diff, -span), span))
            s += "<circle cx=\"\(f(x(p.mean)))\" cy=\"\(f(py))\" r=\"3.5\" fill=\"\(colour)\" fill-opacity=\"0.8\"/>\n"
        }
        s += "<text x=\"\(f(margin + 6))\" y=\"\(f(margin / 2 + 14))\" font-size=\"10\" fill=\"#555\">green: confidence ≥ 0.7 "
            + "(limits over these), orange: 0.4–0.7, grey: < 0.4</text>\n"
        return s + "</svg>\n"
    }
}
