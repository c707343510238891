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

    /// Along a sequence, each thumbnail's profiles are taken again from the call that
    /// measured it while the bands stay; the shifts are a fresh computation's, bit for
    /// bit, and a previous thumbnail that is not the kept one is measured afresh.
    @Test func profilesAreReusedAlongASequenceWithTheSameShifts() throws {
        let person = NormalizedRect(x: 0.42, y: 0.3, width: 0.16, height: 0.25)
        let moved = NormalizedRect(x: 0.2, y: 0.3, width: 0.16, height: 0.25)
        let frames = (0..<6).map { Self.scene(dx: $0 % 3, dy: -$0 % 2, personX: 80 + $0) }
        let people = [[person], [person], [person], [moved], [moved], [moved]]
        var profiles: GlobalMotion.Profiles?
        for i in 1..<frames.count {
            let together = people[i - 1] + people[i]
            let chained = GlobalMotion.shift(from: frames[i - 1], to: frames[i], people: together, reusing: &profiles)
            let fresh = GlobalMotion.shift(from: frames[i - 1], to: frames[i], people: together)
            #expect(chained?.dx == fresh?.dx && chained?.dy == fresh?.dy, "step \(i)")
            #expect(fresh != nil)
        }
        // Bands change at 2 -> 3 (the person moved) and at 3 -> 4 (the pair's union): 2 of 5 reused.
        #expect(profiles?.reuses == 2)
        // Not the thumbnail kept last: measured afresh, so the answer is that picture's.
        let other = Self.scene(dx: 4, dy: 3, personX: 85)
        let fromOther = GlobalMotion.shift(from: other, to: frames[0], people: [moved], reusing: &profiles)
        let fresh = GlobalMotion.shift(from: other, to: frames[0], people: [moved])
        #expect(fromOther?.dx == fresh?.dx && fromOther?.dy == fresh?.dy)
        #expect(profiles?.reuses == 2)
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
