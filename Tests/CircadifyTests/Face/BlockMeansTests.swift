@testable import Circadify
import Testing

/// Telling a changed picture from a still one: small shifts and noise are no
/// change, new content is, and the tracked face's window is left out.
@Suite struct BlockMeansTests {
    /// A picture with strong edges (diagonal stripes, 12 px apart) on a flat
    /// border 8 px wide, and a little deterministic noise; the stripes `dx` /
    /// `dy` pixels to the right / down.
    private static func stripes(width: Int = 96, height: Int = 64, dx: Int = 0, dy: Int = 0, seed: Int = 0) -> LumaThumbnail {
        var pixels = [UInt8](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                let inside = x >= 8 + dx && x < width - 8 + dx && y >= 8 + dy && y < height - 8 + dy
                let stripe = !inside ? 120 : ((x - dx + y - dy + 1200) / 6) & 1 == 0 ? 60 : 190
                let noise = ((x &* 7919 &+ y &* 104_729 &+ seed &* 31) % 5) - 2
                pixels[y * width + x] = UInt8(stripe + noise)
            }
        }
        return LumaThumbnail(width: width, height: height, sequence: 0, pixels: pixels)
    }

    @Test func noiseAndSmallShiftsAreNoChange() {
        let before = BlockMeans(Self.stripes())
        #expect(!BlockMeans(Self.stripes(seed: 1)).changed(since: before, outside: nil, threshold: 8, shift: 2))
        #expect(!BlockMeans(Self.stripes(dx: 1, dy: 2, seed: 2)).changed(since: before, outside: nil, threshold: 8, shift: 2))
        // Without the shift allowance a one-pixel move across these edges is a change.
        #expect(BlockMeans(Self.stripes(dx: 1)).changed(since: before, outside: nil, threshold: 8, shift: 0))
    }

    @Test func newContentIsAChangeUnlessInsideTheArea() {
        let before = BlockMeans(Self.stripes())
        var after = Self.stripes()
        // A 12x12 patch of flat grey: the stripes' own mean, but none of their spread.
        for y in 40..<52 { for x in 70..<82 { after.pixels[y * after.width + x] = 125 } }
        let now = BlockMeans(after)
        #expect(now.changed(since: before, outside: nil, threshold: 8, shift: 2))
        #expect(now.changed(since: before, outside: PixelRect(x: 0, y: 0, width: 40, height: 40), threshold: 8, shift: 2))
        #expect(!now.changed(since: before, outside: PixelRect(x: 64, y: 32, width: 32, height: 32), threshold: 8, shift: 2))
    }

    @Test func anotherSizeIsAChange() {
        let before = BlockMeans(Self.stripes())
        #expect(BlockMeans(Self.stripes(width: 88)).changed(since: before, outside: nil, threshold: 8, shift: 2))
    }
}
