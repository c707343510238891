@testable import Circadify
import Foundation
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

    /// Tables of an area alone: the blocks inside it are compared, against the
    /// earlier tables grown by the shift; what happens outside is not seen.
    @Test func insideAnAreaOnlyItsOwnBlocksCount() {
        let area = PixelRect(x: 16, y: 16, width: 40, height: 32)
        let grown = PixelRect(x: 14, y: 14, width: 44, height: 36)
        let before = BlockMeans(Self.stripes(), covering: grown)
        #expect(before.covered == grown)
        #expect(!BlockMeans(Self.stripes(seed: 1), covering: area)
            .changed(since: before, inside: area, threshold: 8, shift: 2))
        #expect(!BlockMeans(Self.stripes(dx: 2, dy: 1, seed: 2), covering: area)
            .changed(since: before, inside: area, threshold: 8, shift: 2))
        var patched = Self.stripes()
        for y in 40..<52 { for x in 70..<82 { patched.pixels[y * patched.width + x] = 125 } }  // outside the area
        #expect(!BlockMeans(patched, covering: area).changed(since: before, inside: area, threshold: 8, shift: 2))
        for y in 20..<32 { for x in 24..<36 { patched.pixels[y * patched.width + x] = 125 } }  // inside
        #expect(BlockMeans(patched, covering: area).changed(since: before, inside: area, threshold: 8, shift: 2))
        // Tables that do not cover the area, or an area smaller than a block, are a change.
        let elsewhere = PixelRect(x: 40, y: 8, width: 40, height: 40)
        #expect(BlockMeans(Self.stripes(), covering: area).changed(since: before, inside: elsewhere, threshold: 8, shift: 2))
        let tiny = PixelRect(x: 20, y: 20, width: 6, height: 6)
        #expect(BlockMeans(Self.stripes(), covering: area).changed(since: before, inside: tiny, threshold: 8, shift: 2))
        // An area reaching outside the picture is clipped to it.
        #expect(BlockMeans(Self.stripes(), covering: PixelRect(x: -5, y: 60, width: 20, height: 20)).covered
            == PixelRect(x: 0, y: 60, width: 15, height: 4))
    }

    /// A smooth pattern like a face's shading (blobs tens of pixels across), with
    /// a little noise, `gain` x the picture + `offset`, moved `dx` pixels right.
    private static func shading(gain: Float = 1, offset: Float = 0, dx: Int = 0, seed: Int = 0) -> LumaThumbnail {
        let width = 96, height = 96
        var pixels = [UInt8](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                let u = Float(x - dx), v = Float(y)
                let base = 100 + 50 * sin(u / 9) * cos(v / 7) + 20 * sin((u + v) / 23)
                let noise = Float(((x &* 7919 &+ y &* 104_729 &+ seed &* 31) % 5) - 2)
                pixels[y * width + x] = UInt8(max(0, min(255, (gain * base + offset + noise).rounded())))
            }
        }
        return LumaThumbnail(width: width, height: height, sequence: 0, pixels: pixels)
    }

    /// The same picture under another gain and offset (an exposure step) correlates
    /// near 1 block for block; the picture moved by a third of the area does not.
    @Test func aGainChangeKeepsTheCorrelationAMoveDoesNot() throws {
        let area = PixelRect(x: 16, y: 16, width: 48, height: 48)
        let before = BlockMeans(Self.shading(), covering: area)
        let brighter = try #require(BlockMeans(Self.shading(gain: 1.3, offset: -10, seed: 1), covering: area)
            .correlation(with: before, inside: area))
        #expect(brighter > 0.99, "\(brighter)")
        let darker = try #require(BlockMeans(Self.shading(gain: 0.6, seed: 2), covering: area)
            .correlation(with: before, inside: area))
        #expect(darker > 0.99, "\(darker)")
        let moved = try #require(BlockMeans(Self.shading(dx: 16), covering: area).correlation(with: before, inside: area))
        #expect(moved < 0.8, "\(moved)")
    }

    /// No pattern, no verdict: a flat picture, an area the tables do not cover, one
    /// smaller than a block or pictures of different sizes give nil.
    @Test func aFlatOrUncoveredAreaHasNoCorrelation() {
        let area = PixelRect(x: 16, y: 16, width: 48, height: 48)
        let before = BlockMeans(Self.shading(), covering: area)
        let flat = LumaThumbnail(width: 96, height: 96, sequence: 0, pixels: [UInt8](repeating: 90, count: 96 * 96))
        #expect(BlockMeans(flat, covering: area).correlation(with: before, inside: area) == nil)
        #expect(BlockMeans(Self.shading(), covering: area).correlation(with: BlockMeans(flat), inside: area) == nil)
        let beyond = PixelRect(x: 40, y: 40, width: 48, height: 48)
        #expect(BlockMeans(Self.shading()).correlation(with: before, inside: beyond) == nil)
        #expect(BlockMeans(Self.shading()).correlation(with: BlockMeans(Self.shading()),
                                                       inside: PixelRect(x: 0, y: 0, width: 6, height: 6)) == nil)
        #expect(BlockMeans(Self.stripes()).correlation(with: before, inside: area) == nil)
    }

    /// A grid's blocks alone give what the tables give for every test that reads the
    /// grid at no shift (areas not a multiple of a block, clipped at the picture's
    /// edge, any mix of grid and tables); a grid over another area has no blocks to
    /// compare, and the whole-picture test, which reads blocks off the grid, refuses one.
    @Test func aGridAloneAnswersAsTheTablesDo() {
        let pictures = [Self.stripes(), Self.stripes(dx: 1, seed: 3), Self.shading(gain: 1.2, seed: 1), Self.shading(dx: 3)]
        let areas = [PixelRect(x: 16, y: 16, width: 40, height: 32), PixelRect(x: 3, y: 5, width: 45, height: 29),
                     PixelRect(x: 70, y: 40, width: 40, height: 40), PixelRect(x: 0, y: 0, width: 96, height: 64),
                     PixelRect(x: 10, y: 10, width: 6, height: 30)]
        var compared = 0
        for area in areas {
            for a in pictures where a.width == pictures[0].width || area.width < 96 {
                for b in pictures where b.width == a.width && b.height == a.height {
                    let tablesA = BlockMeans(a, covering: area), gridA = BlockMeans(a, gridOver: area)
                    let tablesB = BlockMeans(b, covering: area), gridB = BlockMeans(b, gridOver: area)
                    #expect(gridA.covered == tablesA.covered)
                    for threshold: Float in [2, 8, 30] {
                        let expected = tablesA.changed(since: tablesB, inside: area, threshold: threshold, shift: 0)
                        #expect(gridA.changed(since: gridB, inside: area, threshold: threshold, shift: 0) == expected)
                        #expect(gridA.changed(since: tablesB, inside: area, threshold: threshold, shift: 0) == expected)
                        #expect(tablesA.changed(since: gridB, inside: area, threshold: threshold, shift: 0) == expected)
                    }
                    #expect(gridA.correlation(with: gridB, inside: area) == tablesA.correlation(with: tablesB, inside: area))
                    compared += 1
                }
            }
        }
        #expect(compared >= 20)
        // A grid over another area has no blocks there; shifted and whole-picture tests need tables.
        let area = PixelRect(x: 16, y: 16, width: 40, height: 32), other = PixelRect(x: 20, y: 16, width: 40, height: 32)
        let still = Self.stripes()
        #expect(BlockMeans(still, gridOver: area).changed(since: BlockMeans(still, gridOver: area), inside: area,
                                                          threshold: 8, shift: 0) == false)
        #expect(BlockMeans(still, gridOver: other).changed(since: BlockMeans(still, gridOver: area), inside: area,
                                                           threshold: 8, shift: 0))
        #expect(BlockMeans(still, gridOver: area).correlation(with: BlockMeans(still, gridOver: other), inside: area) == nil)
        let whole = PixelRect(x: 0, y: 0, width: still.width, height: still.height)
        #expect(BlockMeans(still, gridOver: whole).changed(since: BlockMeans(still), outside: nil, threshold: 8, shift: 2))
        #expect(!BlockMeans(still).changed(since: BlockMeans(still), outside: nil, threshold: 8, shift: 2))
    }

    @Test func anotherSizeIsAChange() {
        let before = BlockMeans(Self.stripes())
        #expect(BlockMeans(Self.stripes(width: 88)).changed(since: before, outside: nil, threshold: 8, shift: 2))
    }
}
