import Testing
@testable import Circadify

/// The seed's Theming table: every default, exactly.
@Suite struct ScanStyleTests {
    @Test func defaultsAreTheSeedsThermalPalette() {
        let style = CircadifyScanStyle()
        #expect(style.coreColor == Color(hex: 0xFF331A))
        #expect(style.hotColor == Color(hex: 0xFF401F))
        #expect(style.midColor == Color(hex: 0xFF801F))
        #expect(style.goldColor == Color(hex: 0xF2B340))
        #expect(style.ovalColor == Color(hex: 0xF2B340))
        #expect(style.scanRegionDuration == 2.0)
        #expect(style.idleRegionDuration == 3.5)
        #expect(style.scanPeak == 1.0)
        #expect(style.idlePeak == 0.4)
        // The hex colours are what they say, in 8-bit sRGB.
        #expect(style.coreColor.rgb8 == (0xFF, 0x33, 0x1A))
        #expect(style.hotColor.rgb8 == (0xFF, 0x40, 0x1F))
        #expect(style.midColor.rgb8 == (0xFF, 0x80, 0x1F))
        #expect(style.goldColor.rgb8 == (0xF2, 0xB3, 0x40))
        #expect(style.ovalColor.rgb8 == (0xF2, 0xB3, 0x40))
        #expect(style.coreColor.opacity == 1)
    }

    /// The seed's "cooler, calmer overlay" compiles as written and keeps the other defaults.
    @Test func theSeedsCustomStyleOverridesOnlyWhatItNames() {
        let style = CircadifyScanStyle(
            coreColor: Color(red: 0.20, green: 0.55, blue: 1.0),
            hotColor: Color(red: 0.25, green: 0.65, blue: 1.0),
            midColor: Color(red: 0.40, green: 0.80, blue: 1.0),
            goldColor: Color(red: 0.70, green: 0.90, blue: 1.0),
            idlePeak: 0.3)
        #expect(style.coreColor.rgb8 == (51, 140, 255))
        #expect(style.idlePeak == 0.3)
        #expect(style.ovalColor == Color(hex: 0xF2B340))
        #expect(style.scanRegionDuration == 2.0 && style.idleRegionDuration == 3.5 && style.scanPeak == 1.0)
    }

    @Test func outOfRangeComponentsAreClampedWhenDrawn() {
        #expect(Color(red: 2, green: -1, blue: .nan).rgb8 == (255, 0, 0))
    }
}
