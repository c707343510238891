import Foundation

/// The face regions the glow blooms over: the ones the measurement samples.
package enum GlowRegion: Int, CaseIterable, Sendable {
    case forehead, leftCheek, rightCheek
}

/// How bright each region's glow is at a moment (0...1).
///
/// The regions light in turn, forehead -> left cheek -> right cheek, each for
/// its region duration (the style's `idleRegionDuration` while framing,
/// `scanRegionDuration` while measuring): a region swells to the peak and
/// back (sin² over its turn) and otherwise rests at a glow of `restShare` of
/// the peak, so the face stays lit and the light seems to breathe across it.
/// Times are the stream's seconds, so a replay animates as it plays.
package enum GlowAnimation {
    /// Share of the peak a region keeps between its turns.
    package static let restShare = 0.35

    package static func intensity(of region: GlowRegion, at time: Double, scanning: Bool,
                                  style: CircadifyScanStyle) -> Double {
        let duration = scanning ? style.scanRegionDuration : style.idleRegionDuration
        let peak = min(max(scanning ? style.scanPeak : style.idlePeak, 0), 1)
        guard peak.isFinite else { return 0 }
        // A zero or nonsensical duration holds every region at its peak.
        guard duration.isFinite, duration > 0, time.isFinite else { return peak }
        let cycle = duration * Double(GlowRegion.allCases.count)
        var phase = (time - Double(region.rawValue) * duration).truncatingRemainder(dividingBy: cycle)
        if phase < 0 { phase += cycle }
        let swell = phase < duration ? pow(sin(Double.pi * phase / duration), 2) : 0
        return peak * (restShare + (1 - restShare) * swell)
    }
}
