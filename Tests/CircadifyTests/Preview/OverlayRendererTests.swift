import Foundation
import Testing
@testable import Circadify

/// The overlay drawn on known pictures at known moments.
@Suite struct OverlayRendererTests {
    let face = PreviewFixtures.face
    let renderer = OverlayRenderer(style: CircadifyScanStyle())

    private func render(_ image: RGBFrame = PreviewFixtures.grey(), renderer: OverlayRenderer? = nil,
                        mirrored: Bool = false, face: CircadifyScanFace? = PreviewFixtures.face, guide: Bool = true,
                        scanning: Bool = false, time: Double = 0) -> CircadifyPreviewFrame {
        (renderer ?? self.renderer).render(image, mirrored: mirrored, face: face, guide: guide, scanning: scanning,
                                           time: time)
    }

    /// A face given with numbers no tracker makes (NaN, huge, far outside) draws
    /// nothing of itself and does not trap.
    @Test(arguments: [Double.nan, .infinity, 1e12, -1e12])
    func impossibleFaceGeometryDrawsNothingAndDoesNotTrap(value: Double) {
        let p = CGPoint(x: value, y: value)
        let odd = CircadifyScanFace(forehead: p, leftCheek: p, rightCheek: p, ovalCenter: p,
                                    ovalSize: CGSize(width: 0.36, height: value), imageAspect: 4.0 / 3.0,
                                    isMirrored: false)
        let frame = render(face: odd, scanning: true, time: 1)
        #expect(frame.width == 640 && frame.height == 480 && frame.pixels.count == 640 * 480 * 4)
        for far in [(20, 20), (320, 240), (620, 460)] {
            #expect(PreviewFixtures.change(frame, at: far) == 0, "\(far) untouched")
        }
    }

    @Test func withoutTheGuideThePictureIsTheCameras() {
        let image = PreviewFixtures.halves()
        let frame = render(image, guide: false, scanning: true, time: 1)
        #expect(frame.width == 640 && frame.height == 480 && frame.stride == 2560 && frame.timestamp == 1)
        var expected = [UInt8]()
        for i in 0..<(640 * 480) { expected += image.pixels[3 * i ..< 3 * i + 3] + [255] }
        #expect(frame.pixels == expected)
    }

    /// The glow sits on the forehead and both cheeks, warm (red over blue), and
    /// nowhere near the face is touched.
    @Test func theGlowLandsOnTheForeheadAndCheeks() {
        let frame = render(scanning: true, time: 1.0) // the forehead's peak
        for anchor in [face.forehead, face.leftCheek, face.rightCheek] {
            let p = PreviewFixtures.pixel(anchor)
            let c = try! #require(frame.pixel(x: p.x, y: p.y))
            #expect(PreviewFixtures.change(frame, at: p) > 60, "anchor \(anchor): \(c)")
            #expect(c.r > c.b + 60, "anchor \(anchor) is warm: \(c)")
        }
        for far in [(20, 20), (620, 460), (600, 240), (500, 100)] {
            #expect(PreviewFixtures.change(frame, at: far) == 0, "\(far) is far from the face")
        }
        // Between the glow blobs (the nose, below the forehead) only the rim of a blob may reach.
        let nose = PreviewFixtures.pixel(CGPoint(x: 0.35, y: 0.62))
        #expect(PreviewFixtures.change(frame, at: nose) < PreviewFixtures.change(frame, at: PreviewFixtures.pixel(face.forehead)) / 3)
    }

    @Test func theGuideOvalFollowsTheFaceAndRestsCentredWithoutOne() {
        let withFace = render()
        // The oval's rim at the face's side: centre.x - width / 2.
        let rim = PreviewFixtures.pixel(CGPoint(x: face.ovalCenter.x - face.ovalSize.width / 2, y: face.ovalCenter.y))
        let onRim = (0...2).map { PreviewFixtures.change(withFace, at: (rim.x - 1 + $0, rim.y)) }.max()!
        #expect(onRim > 100, "the oval is drawn at the face's rim")
        #expect(PreviewFixtures.change(withFace, at: (rim.x + 8, rim.y)) == 0, "and is thin")
        let noFace = render(face: nil, scanning: true, time: 1)
        #expect(PreviewFixtures.change(noFace, at: PreviewFixtures.pixel(face.forehead)) == 0, "no face, no glow")
        let resting = OverlayRenderer.restingOval
        let b = resting.height * 480 / 2, a = b * resting.widthToHeight
        let left = Int(resting.centerX * 640 - a), top = Int(resting.centerY * 480 - b)
        let sides = [(left - 1 ... left + 1).map { PreviewFixtures.change(noFace, at: ($0, 225)) }.max()!,
                     (top - 1 ... top + 1).map { PreviewFixtures.change(noFace, at: (320, $0)) }.max()!]
        #expect(sides.allSatisfy { $0 > 100 }, "the resting oval marks where the face should sit: \(sides)")
    }

    @Test func aCustomStyleChangesTheGlowsPixels() {
        let blue = OverlayRenderer(style: PreviewFixtures.uniform(Color(red: 0, green: 0.3, blue: 1)))
        let thermal = render(scanning: true, time: 1)
        let cool = render(renderer: blue, scanning: true, time: 1)
        for anchor in [face.forehead, face.leftCheek, face.rightCheek] {
            let p = PreviewFixtures.pixel(anchor)
            let warm = try! #require(thermal.pixel(x: p.x, y: p.y)), cold = try! #require(cool.pixel(x: p.x, y: p.y))
            #expect(warm.r > warm.b && cold.b > cold.r + 60, "\(anchor): thermal \(warm), custom \(cold)")
        }
        // The peaks and durations are the style's too: a zero idle peak draws no glow.
        var dark = CircadifyScanStyle()
        dark.idlePeak = 0
        let idle = render(renderer: OverlayRenderer(style: dark), time: 1.75)
        #expect(PreviewFixtures.change(idle, at: PreviewFixtures.pixel(face.forehead)) == 0)
        #expect(thermal.pixels != cool.pixels)
    }

    /// Front camera: the picture and the face flip together, so the glow stays on the face.
    @Test func theFrontCamerasPictureIsMirroredWithItsGlow() {
        let image = PreviewFixtures.halves()
        let back = render(image, mirrored: false, face: nil, guide: false)
        let front = render(image, mirrored: true, face: nil, guide: false)
        #expect(back.pixel(x: 10, y: 240)! == (200, 0, 0, 255))
        #expect(front.pixel(x: 10, y: 240)! == (0, 0, 200, 255))
        #expect(front.pixel(x: 629, y: 240)! == (200, 0, 0, 255))
        let glowBack = render(mirrored: false, scanning: true, time: 1), glowFront = render(mirrored: true, scanning: true, time: 1)
        let plain = PreviewFixtures.pixel(face.forehead), flipped = PreviewFixtures.pixel(face.forehead, mirrored: true)
        #expect(PreviewFixtures.change(glowBack, at: plain) > 60 && PreviewFixtures.change(glowBack, at: flipped) == 0)
        #expect(PreviewFixtures.change(glowFront, at: flipped) > 60 && PreviewFixtures.change(glowFront, at: plain) == 0)
    }

    /// Idle: each region's turn lasts 3.5 s and peaks at 0.4; scanning: 2 s and 1.0.
    @Test func idleAndScanningPulseAtTheirOwnPeriodsAndPeaks() {
        let style = CircadifyScanStyle()
        func level(_ region: GlowRegion, _ t: Double, _ scanning: Bool) -> Double {
            GlowAnimation.intensity(of: region, at: t, scanning: scanning, style: style)
        }
        let rest = GlowAnimation.restShare
        // The forehead's turn: peak half-way through, at rest at its end.
        #expect(abs(level(.forehead, 1.0, true) - 1.0) < 1e-9)
        #expect(abs(level(.forehead, 1.75, false) - 0.4) < 1e-9)
        #expect(abs(level(.forehead, 2.0, true) - rest) < 1e-9)
        #expect(abs(level(.forehead, 3.5, false) - 0.4 * rest) < 1e-9)
        // Then the left cheek, then the right one, each a region duration later.
        #expect(abs(level(.leftCheek, 3.0, true) - 1.0) < 1e-9 && abs(level(.rightCheek, 5.0, true) - 1.0) < 1e-9)
        #expect(abs(level(.leftCheek, 5.25, false) - 0.4) < 1e-9 && abs(level(.rightCheek, 8.75, false) - 0.4) < 1e-9)
        // Periodic over three turns: 6 s scanning, 10.5 s idle — and not over the other's.
        for t in stride(from: 0.0, to: 12, by: 0.37) {
            for region in GlowRegion.allCases {
                #expect(abs(level(region, t, true) - level(region, t + 6, true)) < 1e-9)
                #expect(abs(level(region, t, false) - level(region, t + 10.5, false)) < 1e-9)
            }
        }
        #expect(abs(level(.forehead, 1.0, false) - level(.forehead, 7.0, false)) > 0.05)
        // Never above the peak, never below the rest.
        for t in stride(from: 0.0, to: 21, by: 0.05) {
            #expect((0.4 * rest - 1e-9 ... 0.4 + 1e-9).contains(level(.leftCheek, t, false)))
            #expect((rest - 1e-9 ... 1 + 1e-9).contains(level(.leftCheek, t, true)))
        }
    }

    /// The pixels follow: over one scanning cycle the forehead glows hotter (redder:
    /// less green) and changes faster than over the same time idle.
    @Test func scanningIsHotterAndFasterInThePixels() {
        let p = PreviewFixtures.pixel(face.forehead)
        func sample(scanning: Bool) -> [(r: UInt8, g: UInt8, b: UInt8, a: UInt8)] {
            stride(from: 0.0, to: 6.0, by: 0.25).map { render(scanning: scanning, time: $0).pixel(x: p.x, y: p.y)! }
        }
        let scan = sample(scanning: true), idle = sample(scanning: false)
        let hottest = scan.max { $0.r < $1.r }!, idlest = idle.max { $0.r < $1.r }!
        #expect(Int(hottest.r) - Int(hottest.g) > Int(idlest.r) - Int(idlest.g) + 60, "scan \(hottest), idle \(idlest)")
        func swing(_ s: [(r: UInt8, g: UInt8, b: UInt8, a: UInt8)]) -> Int {
            zip(s, s.dropFirst()).map { abs(Int($0.r) - Int($1.r)) + abs(Int($0.g) - Int($1.g)) + abs(Int($0.b) - Int($1.b)) }
                .reduce(0, +)
        }
        #expect(swing(scan) > 2 * swing(idle), "scan moves \(swing(scan)), idle \(swing(idle))")
        // The forehead peaks at 1 s scanning and at 1.75 s idle.
        let scanPeakIndex = scan.indices.max { PreviewFixtures.changeOf(scan[$0]) < PreviewFixtures.changeOf(scan[$1]) }!
        let idlePeakIndex = idle.indices.max { PreviewFixtures.changeOf(idle[$0]) < PreviewFixtures.changeOf(idle[$1]) }!
        #expect(scanPeakIndex == 4, "scanning forehead peaks at \(Double(scanPeakIndex) * 0.25) s")
        #expect(idlePeakIndex == 7, "idle forehead peaks at \(Double(idlePeakIndex) * 0.25) s")
    }
}

extension PreviewFixtures {
    static func changeOf(_ c: (r: UInt8, g: UInt8, b: UInt8, a: UInt8), from level: UInt8 = 100) -> Int {
        abs(Int(c.r) - Int(level)) + abs(Int(c.g) - Int(level)) + abs(Int(c.b) - Int(level))
    }
}
