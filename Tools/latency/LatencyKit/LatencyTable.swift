import Circadify

/// The report as a person reads it: one row per stage, milliseconds.
public enum LatencyTable {
    public static func render(_ report: LatencyReport) -> String {
        var lines = [String]()
        let s = report.source
        var format = [s.format, s.width.flatMap { w in s.height.map { "\(w)x\($0)" } }].compactMap { $0 }
            .joined(separator: " ")
        if let fps = s.nominalFps { format += " at \(fixed(fps, 2)) fps" }
        let how = s.kind == "file" ? "replayed in real time" : "camera"
        let warmup = report.warmupSeconds > 0 ? " after \(fixed(report.warmupSeconds, 1)) s of warm-up" : ""
        lines.append("circadify-latency: \(s.input) (\(format), \(how)), \(fixed(report.durationSeconds, 1)) s\(warmup)")
        lines.append("")
        var rows = [["stage (ms)", "frames", "p50", "p90", "p99", "p99.9", "max"]]
        for stage in PipelineStage.allCases {
            guard let summary = report[stage] else { continue }
            let name = stage.rawValue + (stage.includesQueueing ? " *" : "")
            guard let p = summary.percentiles else {
                rows.append([name, "0", "-", "-", "-", "-", "-"])
                continue
            }
            rows.append([name, "\(summary.count)"] + p.ordered.map { fixed($0 / 1000, 3) })
        }
        lines += aligned(rows)
        let f = report.frames
        lines.append("")
        lines.append("* corrected for coordinated omission: \(f.backfilled) lost frame(s) backfilled at the frame interval")
        lines.append("frames: \(f.received) received, \(f.samples) samples, \(f.timed) timed; dropped "
            + "\(f.droppedBySequence) by sequence, \(f.droppedByTimestampGap) by timestamp gap; "
            + "\(f.corrupt) corrupt; \(f.ringOverflows) ring overflows; "
            + "\(f.fromRestartMarkers) decoded from restart markers")
        let fps = report.achievedFps.map { fixed($0, 2) } ?? "-"
        let cpu = report.cpuPercent.map { fixed($0, 1) + "%" } ?? "-"
        lines.append("rate: \(fps) fps achieved; CPU \(cpu) of one core; "
            + "peak RSS \(fixed(report.peakRssMB, 1)) MB")
        if report.interrupted { lines.append("interrupted: the report covers the time measured until then") }
        if let error = report.error { lines.append("ended early: \(error)") }
        return lines.joined(separator: "\n")
    }

    /// Columns as wide as their widest cell: the first left-aligned, the numbers right-aligned.
    private static func aligned(_ rows: [[String]]) -> [String] {
        let widths = (0..<(rows.first?.count ?? 0)).map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { cells in
            cells.enumerated().map { column, cell in
                let gap = String(repeating: " ", count: widths[column] - cell.count)
                return column == 0 ? cell + gap : "  " + gap + cell
            }.joined()
        }
    }

    /// `value` with `digits` decimals (no Foundation formatting needed).
    public static func fixed(_ value: Double, _ digits: Int) -> String {
        guard value.isFinite else { return "\(value)" }
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        let whole = Int(scaled / scale), fraction = Int(scaled.truncatingRemainder(dividingBy: scale))
        let sign = value < 0 && scaled > 0 ? "-" : ""
        guard digits > 0 else { return sign + String(whole) }
        let text = String(fraction)
        return sign + String(whole) + "." + String(repeating: "0", count: digits - text.count) + text
    }
}
