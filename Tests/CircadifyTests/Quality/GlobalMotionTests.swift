@testable import Circadify
import Foundation
import Testing

/// The background shift between two thumbnails, on a synthetic textured scene.
@Suite struct GlobalMotionTests {
    /// A smooth pseudo-random texture (sum of sinusoids), shifted by (dx, dy) pixels,
    /// with a bright "person" block in the middle that moves on its own.
    static func scene(dx: Int, dy: Int, personX: Int, gain: Double = 1) -> LumaThumbnail {
        let w = 160, h = 120
        var pixels = [UInt8](repeating: 0, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                let u = Double(x - dx), v = Double(y - dy)
                var value = 128 + 20 * (u / 9).sinValue + 15 * (v / 7).sinValue + 10 * ((u + v) / 13).sinValue
                if abs(x - personX) < 25, y > 20 { value = 220 }
                pixels[y * w + x] = UInt8(max(0, min(255, value * gain)))
            }
        }
        return LumaThumbnail(width: w, height: h, sequence: 0, pixels: pixels)
    }

    @Test(arguments: [(0, 0), (3, -2), (-5, 4)])
    func backgroundShiftIsFoundBesideThePerson(dx: Int, dy: Int) throws {
        let person = NormalizedRect(x: 0.42, y: 0.3, width: 0.16, height: 0.25)
        let a = Self.scene(dx: 0, dy: 0, personX: 80), b = Self.scene(dx: dx, dy: dy, personX: 86)
        let shift = try #require(GlobalMotion.shift(from: a, to: b, people: [person]))
        #expect(abs(shift.dx - Double(dx)) < 0.5 && abs(shift.dy - Double(dy)) < 0.5, "\(shift)")
    }

    /// A flicker or exposure step brightens everything by 10%: not motion.
    @Test func brightnessChangeIsNotMotion() throws {
        let person = NormalizedRect(x: 0.42, y: 0.3, width: 0.16, height: 0.25)
        let a = Self.scene(dx: 0, dy: 0, personX: 80), b = Self.scene(dx: 0, dy: 0, personX: 80, gain: 1.1)
        let shift = try #require(GlobalMotion.shift(from: a, to: b, people: [person]))
        #expect(shift.dx == 0 && shift.dy == 0, "\(shift)")
    }

    @Test func flatOrCrowdedBackgroundsGiveNoEstimate() {
        let flat = LumaThumbnail(width: 160, height: 120, sequence: 0, pixels: [UInt8](repeating: 100, count: 160 * 120))
        #expect(GlobalMotion.shift(from: flat, to: flat, people: []) == nil, "nothing to match")
        let a = Self.scene(dx: 0, dy: 0, personX: 80)
        let everywhere = NormalizedRect(x: 0.3, y: 0.1, width: 0.4, height: 0.8)
        #expect(GlobalMotion.shift(from: a, to: a, people: [everywhere]) == nil, "no background beside the person")
    }
}

private extension Double {
    var sinValue: Double { Foundation.sin(self) }
}
