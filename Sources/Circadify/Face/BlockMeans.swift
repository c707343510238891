/// A thumbnail's summed-area tables (of luma and of its square), to tell
/// cheaply whether a part of the picture changed since an earlier one: block
/// by block, mean and spread, allowing for the small shifts a still scene
/// shows anyway.
///
/// `FaceFinder` keeps the table of its last whole-frame search; a face can only
/// enter, leave or appear where the picture changed, so while every block
/// outside the tracked face's window keeps its mean, the faces found there are
/// still the faces there. Block means average the sensor's noise away (a
/// block of 64 pixels has an eighth of a pixel's noise); the spread (standard
/// deviation) tells a textured block from a flat one of the same mean. A person sitting still
/// still moves: breathing, sway, a settling camera shift edges by a pixel or two,
/// which moves the mean of a block across an edge by 10-20 levels; so a block
/// counts as unchanged when it matches the earlier picture's block at any
/// offset up to `shift` pixels. A face coming in, however small, replaces its
/// blocks' content outright.
package struct BlockMeans: Sendable {
    /// Block side, thumbnail pixels: a 24-pixel face (the cascade's smallest) spans 3x3 blocks.
    package static let side = 8

    package let width: Int, height: Int
    /// (width + 1) x (height + 1), row 0 and column 0 zero. They wrap around
    /// (squares of a large picture pass 2^32); a block's sum never does, and
    /// wrapped differences give it exactly.
    private let sums: [UInt32]
    private let squares: [UInt32]

    package init(_ thumbnail: LumaThumbnail) {
        let width = thumbnail.width, height = thumbnail.height, stride = width + 1
        self.width = width
        self.height = height
        var sums = [UInt32](repeating: 0, count: stride * (height + 1))
        var squares = sums
        sums.withUnsafeMutableBufferPointer { table in
            squares.withUnsafeMutableBufferPointer { squareTable in
                thumbnail.pixels.withUnsafeBufferPointer { pixels in
                    for y in 0..<height {
                        var run: UInt32 = 0, squareRun: UInt32 = 0
                        let above = y * stride, here = above + stride, line = y * width
                        for x in 0..<width {
                            let value = UInt32(pixels[line + x])
                            run &+= value
                            squareRun &+= value &* value
                            table[here + x + 1] = table[above + x + 1] &+ run
                            squareTable[here + x + 1] = squareTable[above + x + 1] &+ squareRun
                        }
                    }
                }
            }
        }
        self.sums = sums
        self.squares = squares
    }

    /// Mean and standard deviation of the luma of the side x side block at
    /// (x, y), which lies inside the picture.
    private func block(x: Int, y: Int) -> (mean: Float, spread: Float) {
        let stride = width + 1, side = Self.side
        let top = y * stride + x, bottom = (y + side) * stride + x
        let sum = sums[bottom + side] &- sums[bottom] &- sums[top + side] &+ sums[top]
        let square = squares[bottom + side] &- squares[bottom] &- squares[top + side] &+ squares[top]
        let n = Float(side * side), mean = Float(sum) / n
        return (mean, max(0, Float(square) / n - mean * mean).squareRoot())
    }

    /// Whether a block of the grid lying wholly outside `area` (thumbnail
    /// pixels; nil: the whole picture counts) differs in mean or in spread by
    /// more than `threshold` luma levels from every block of `earlier` within
    /// `shift` pixels of it.
    /// Pictures of different sizes always count as changed.
    package func changed(since earlier: BlockMeans, outside area: PixelRect?, threshold: Float, shift: Int) -> Bool {
        let side = Self.side
        guard earlier.width == width, earlier.height == height, width >= side, height >= side else { return true }
        // The grid covers the picture; the last row and column are moved in to fit.
        for gy in 0..<(height + side - 1) / side {
            let y = min(gy * side, height - side)
            for gx in 0..<(width + side - 1) / side {
                let x = min(gx * side, width - side)
                if let area, x + side > area.x, x < area.x + area.width, y + side > area.y, y < area.y + area.height {
                    continue
                }
                let now = block(x: x, y: y)
                var matched = false
                search: for ey in max(0, y - shift)...min(height - side, y + shift) {
                    for ex in max(0, x - shift)...min(width - side, x + shift) {
                        let then = earlier.block(x: ex, y: ey)
                        if abs(then.mean - now.mean) <= threshold, abs(then.spread - now.spread) <= threshold {
                            matched = true
                            break search
                        }
                    }
                }
                if !matched { return true }
            }
        }
        return false
    }
}
