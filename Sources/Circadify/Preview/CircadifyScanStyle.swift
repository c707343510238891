/// The scan overlay's colours and timings (seed "Scan Overlay", Theming). Every
/// field defaults to the Circadify thermal palette; override only what you change.
///
/// The glow ramps gold -> mid orange -> hot orange -> red core with its
/// intensity: idle framing peaks at `idlePeak` (a calm gold), a measurement at
/// `scanPeak` (the red core). The regions light in turn, forehead, left cheek,
/// right cheek, each for its region duration.
public struct CircadifyScanStyle: Sendable, Equatable {
    /// #FF331A — red core, only at peak intensity.
    public var coreColor: Color
    /// #FF401F — hot orange.
    public var hotColor: Color
    /// #FF801F — mid orange.
    public var midColor: Color
    /// #F2B340 — resting / idle tone.
    public var goldColor: Color
    /// #F2B340 — the thin oval outline.
    public var ovalColor: Color

    /// Seconds each region stays lit while measuring (faster, hotter). Default 2.0.
    public var scanRegionDuration: Double
    /// Seconds each region stays lit while idle / framing (slower, calmer). Default 3.5.
    public var idleRegionDuration: Double
    /// Peak glow intensity (0...1) while measuring. Default 1.0.
    public var scanPeak: Double
    /// Peak glow intensity (0...1) while idle / framing. Default 0.4.
    public var idlePeak: Double

    public init(coreColor: Color = Color(hex: 0xFF331A),
                hotColor: Color = Color(hex: 0xFF401F),
                midColor: Color = Color(hex: 0xFF801F),
                goldColor: Color = Color(hex: 0xF2B340),
                ovalColor: Color = Color(hex: 0xF2B340),
                scanRegionDuration: Double = 2.0,
                idleRegionDuration: Double = 3.5,
                scanPeak: Double = 1.0,
                idlePeak: Double = 0.4) {
        self.coreColor = coreColor
        self.hotColor = hotColor
        self.midColor = midColor
        self.goldColor = goldColor
        self.ovalColor = ovalColor
        self.scanRegionDuration = scanRegionDuration
        self.idleRegionDuration = idleRegionDuration
        self.scanPeak = scanPeak
        self.idlePeak = idlePeak
    }
}
