import Circadify
import Foundation

/// One status line of a running scan: phase, bar, time left, the live heart rate and
/// the pulse trace, fitted to `width` columns so redrawing in place never wraps.
enum ProgressLine {
    static func text(_ progress: ScanProgress, width: Int) -> String {
        let phase = progress.phase.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0)
        var text = "\(phase) \(bar(progress, cells: 20)) \(timeLeft(progress))"
        // A live estimate only, labelled so; the result comes at the end.
        if let rate = progress.heartRate, rate.isFinite {
            text += String(format: "  live %3.0f bpm", rate)
        }
        let room = width - 1 - text.count - 2
        if !progress.pulseWave.isEmpty, room >= 8 {
            text += "  " + PulseTrace.render(progress.pulseWave, width: min(room, 40))
        }
        return text
    }

    static func bar(_ progress: ScanProgress, cells: Int) -> String {
        let fraction = progress.total > 0 ? min(1, max(0, progress.elapsed / progress.total)) : 0
        let filled = progress.phase == .analyzing ? cells : Int((fraction * Double(cells)).rounded(.down))
        return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: cells - filled) + "]"
    }

    static func timeLeft(_ progress: ScanProgress) -> String {
        switch progress.phase {
        case .starting, .settling: String(format: "%3.0f s to go", progress.total.rounded(.up))
        case .measuring: String(format: "%3.0f s left", max(0, progress.total - progress.elapsed).rounded(.up))
        case .analyzing: "  computing"
        }
    }
}
