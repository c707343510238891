import Foundation
import Testing
@testable import Circadify

@Suite struct FaceVerticalMotionTests {
    /// A 160x120 thumbnail whose rows carry a smooth pattern, moved down by `shift` pixels.
    static func thumbnail(shift: Double) -> LumaThumbnail {
        let width = 160, height = 120
        var pixels = [UInt8](repeating: 0, count: width * height)
        for y in 0..<height {
            let v = 120 + 60 * sin((Double(y) - shift) / 5) + 20 * cos((Double(y) - shift) / 2.3)
            for x in 0..<width { pixels[y * width + x] = UInt8(max(0, min(255, v.rounded()))) }
        }
        return LumaThumbnail(width: width, height: height, sequence: 0, pixels: pixels)
    }

    let box = NormalizedRect(x: 0.3, y: 0.25, width: 0.4, height: 0.5)

    @Test func aSubPixelRiseAndFallIsMeasured() throws {
        var motion = FaceVerticalMotion()
        let first = motion.update(thumbnail: Self.thumbnail(shift: 0), box: box)
        let start = try #require(first)
        #expect(abs(start - Double(box.centerY)) < 1e-6)
        for shift in [0.3, 0.7, 1.5, -0.6] {
            let read = motion.update(thumbnail: Self.thumbnail(shift: shift), box: box)
            let y = try #require(read)
            // Within a tenth of a pixel of the true shift (1 pixel = 1/120 of the height).
            #expect(abs((y - start) * 120 - shift) < 0.1, "shift \(shift): read \((y - start) * 120)")
        }
    }

    @Test func aNewBoxRestartsFromItsCentre() throws {
        var motion = FaceVerticalMotion()
        _ = motion.update(thumbnail: Self.thumbnail(shift: 0), box: box)
        let moved = NormalizedRect(x: 0.3, y: 0.3, width: 0.4, height: 0.5)
        let read = motion.update(thumbnail: Self.thumbnail(shift: 6), box: moved)
        let y = try #require(read)
        #expect(abs(y - Double(moved.centerY)) < 1e-6)
    }

    @Test func aBoxOffThePictureGivesNothing() {
        var motion = FaceVerticalMotion()
        let read = motion.update(thumbnail: Self.thumbnail(shift: 0),
                                 box: NormalizedRect(x: 0.3, y: -0.1, width: 0.4, height: 0.5))
        #expect(read == nil)
    }
}
