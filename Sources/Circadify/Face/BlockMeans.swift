/// A thumbnail's summed-area tables (of luma and of its square), to tell
/// cheaply whether a part of the picture changed since an earlier one: block
/// by block, mean and spread, allowing for the small shifts a still scene
/// shows anyway. A test that allows no shift reads only a grid's blocks, and
/// for it the blocks' sums alone will do (`init(_:gridOver:)`).
///
/// `FaceFinder` keeps the table of its last whole-frame search; a face can only
/// enter, leave or appear where the picture changed, so while every block
/// outside the tracked face's window keeps its mean, the faces found there are
/// still the faces there. It also keeps a table of the window alone at its last
/// windowed search: while every block inside keeps its mean, the face is where
/// that search found it. Block means average the sensor's noise away (a
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

    /// The whole picture's size.
    package let width: Int, height: Int
    /// The part of the picture the tables cover (all of it unless made for an area).
    package let covered: PixelRect
    /// Summed-area tables, (covered.width + 1) x (covered.height + 1), row 0 and
    /// column 0 zero: any block inside `covered`, at any offset. They wrap around
    /// (squares of a large picture pass 2^32); a block's sum never does, and
    /// wrapped differences give it exactly. Or only the sums of the blocks of
    /// the grid over `covered` (`init(_:gridOver:)`), row by row, `columns` a row.
    private enum Storage {
        case tables(sums: [UInt32], squares: [UInt32])
        case grid(sums: [UInt32], squares: [UInt32], columns: Int)
    }
    private let storage: Storage

    /// The tables of the whole thumbnail, or only of `area` (clipped to the picture).
    package init(_ thumbnail: LumaThumbnail, covering area: PixelRect? = nil) {
        let width = thumbnail.width, height = thumbnail.height
        let covered = area.map { Self.clip($0, width: width, height: height) }
            ?? PixelRect(x: 0, y: 0, width: width, height: height)
        self.width = width
        self.height = height
        self.covered = covered
        let stride = covered.width + 1
        // Two arrays of their own: a copy (`var squares = sums`) would be duplicated
        // whole at the first write, a memmove of the table on every call.
        var sums = [UInt32](repeating: 0, count: stride * (covered.height + 1))
        var squares = [UInt32](repeating: 0, count: sums.count)
        sums.withUnsafeMutableBufferPointer { table in
            squares.withUnsafeMutableBufferPointer { squareTable in
                thumbnail.pixels.withUnsafeBufferPointer { pixels in
                    for y in 0..<covered.height {
                        var run: UInt32 = 0, squareRun: UInt32 = 0
                        let above = y * stride, here = above + stride, line = (covered.y + y) * width + covered.x
                        for x in 0..<covered.width {
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
        storage = .tables(sums: sums, squares: squares)
    }

    /// Only the blocks of the grid over `area` (clipped to the picture; see
    /// `changed(since:inside:)`): what a test at no shift and `correlation` read
    /// of it, the same sums as the tables give, without writing the tables (a
    /// windowed face's test runs on most thumbnails). An area smaller than a
    /// block has no blocks.
    package init(_ thumbnail: LumaThumbnail, gridOver area: PixelRect) {
        let width = thumbnail.width, height = thumbnail.height, side = Self.side
        let covered = Self.clip(area, width: width, height: height)
        self.width = width
        self.height = height
        self.covered = covered
        let columns = covered.width >= side ? (covered.width + side - 1) / side : 0
        let rows = covered.height >= side ? (covered.height + side - 1) / side : 0
        var sums = [UInt32](repeating: 0, count: columns * rows)
        var squares = [UInt32](repeating: 0, count: sums.count)
        sums.withUnsafeMutableBufferPointer { blockSums in
            squares.withUnsafeMutableBufferPointer { blockSquares in
                thumbnail.pixels.withUnsafeBufferPointer { pixels in
                    for gy in 0..<rows {
                        let top = covered.y + min(gy * side, covered.height - side)
                        for gx in 0..<columns {
                            let left = covered.x + min(gx * side, covered.width - side)
                            var sum: UInt32 = 0, square: UInt32 = 0
                            for y in top..<(top + side) {
                                let line = y * width + left
                                for x in 0..<side {
                                    let value = UInt32(pixels[line + x])
                                    sum &+= value
                                    square &+= value &* value
                                }
                            }
                            blockSums[gy * columns + gx] = sum
                            blockSquares[gy * columns + gx] = square
                        }
                    }
                }
            }
        }
        storage = .grid(sums: sums, squares: squares, columns: columns)
    }

    /// `area` cut to a width x height picture (empty when it lies outside).
    package static func clip(_ area: PixelRect, width: Int, height: Int) -> PixelRect {
        let left = min(max(0, area.x), width), top = min(max(0, area.y), height)
        let right = max(left, min(width, area.x + area.width)), bottom = max(top, min(height, area.y + area.height))
        return PixelRect(x: left, y: top, width: right - left, height: bottom - top)
    }

    /// Which block of a grid over `length` pixels starts at `offset` (its last
    /// block moved in to fit), if any.
    private static func gridIndex(_ offset: Int, _ length: Int) -> Int? {
        if offset % side == 0, offset <= length - side { return offset / side }
        return offset == length - side ? (length + side - 1) / side - 1 : nil
    }

    /// Mean and standard deviation of the luma of the side x side block at
    /// (x, y), picture pixels; nil when it does not lie inside the tables (or,
    /// for a grid, is not one of its blocks).
    private func block(x: Int, y: Int) -> (mean: Float, spread: Float)? {
        guard x >= covered.x, y >= covered.y,
              x + Self.side <= covered.x + covered.width, y + Self.side <= covered.y + covered.height
        else { return nil }
        let side = Self.side, sum: UInt32, square: UInt32
        switch storage {
        case .tables(let sums, let squares):
            let stride = covered.width + 1
            let top = (y - covered.y) * stride + (x - covered.x), bottom = top + side * stride
            sum = sums[bottom + side] &- sums[bottom] &- sums[top + side] &+ sums[top]
            square = squares[bottom + side] &- squares[bottom] &- squares[top + side] &+ squares[top]
        case .grid(let sums, let squares, let columns):
            guard let row = Self.gridIndex(y - covered.y, covered.height),
                  let column = Self.gridIndex(x - covered.x, covered.width)
            else { return nil }
            sum = sums[row * columns + column]
            square = squares[row * columns + column]
        }
        let n = Float(side * side), mean = Float(sum) / n
        return (mean, max(0, Float(square) / n - mean * mean).squareRoot())
    }

    /// Whether a block of the grid lying wholly outside `area` (thumbnail
    /// pixels; nil: the whole picture counts) differs in mean or in spread by
    /// more than `threshold` luma levels from every block of `earlier` within
    /// `shift` pixels of it.
    /// Pictures of different sizes, or tables not covering the whole picture (or
    /// a grid's blocks alone), always count as changed.
    package func changed(since earlier: BlockMeans, outside area: PixelRect?, threshold: Float, shift: Int) -> Bool {
        let whole = PixelRect(x: 0, y: 0, width: width, height: height)
        guard covered == whole, earlier.covered == whole, case .tables = storage, case .tables = earlier.storage
        else { return true }
        return changed(since: earlier, grid: whole, skipping: area, threshold: threshold, shift: shift)
    }

    /// The same test for the blocks of a grid laid over `area` alone (its last
    /// row and column moved in to fit), against `earlier`'s blocks within
    /// `shift` pixels that its tables cover (make them for `area` grown by
    /// `shift` on each side; with no shift, a grid over `area` will do, here
    /// and in `earlier`). Tables not covering `area`, or an area smaller
    /// than a block, always count as changed.
    package func changed(since earlier: BlockMeans, inside area: PixelRect, threshold: Float, shift: Int) -> Bool {
        guard Self.clip(area, width: width, height: height) == area, area.width >= Self.side, area.height >= Self.side,
              covered.x <= area.x, covered.y <= area.y,
              covered.x + covered.width >= area.x + area.width, covered.y + covered.height >= area.y + area.height
        else { return true }
        return changed(since: earlier, grid: area, skipping: nil, threshold: threshold, shift: shift)
    }

    /// Pearson correlation of the block means on a grid laid over `area` (as
    /// for `changed(since:inside:)`, no shift) here and in `earlier`: near 1
    /// when the picture there is the same up to a gain and an offset, which is
    /// all an exposure or gain change does to it. Nil when either table does
    /// not cover `area`, the area is smaller than a block, or either picture
    /// is flat there (no pattern to compare).
    package func correlation(with earlier: BlockMeans, inside area: PixelRect) -> Float? {
        guard earlier.width == width, earlier.height == height, area.width >= Self.side, area.height >= Self.side,
              Self.clip(area, width: width, height: height) == area
        else { return nil }
        var n = 0.0, sumNow = 0.0, sumThen = 0.0, squaresNow = 0.0, squaresThen = 0.0, cross = 0.0
        let covered = Self.forEachBlock(of: area) { x, y in
            guard let now = block(x: x, y: y), let then = earlier.block(x: x, y: y) else { return false }
            let a = Double(now.mean), b = Double(then.mean)
            n += 1
            sumNow += a
            sumThen += b
            squaresNow += a * a
            squaresThen += b * b
            cross += a * b
            return true
        }
        guard covered else { return nil }
        // Sums of squared deviations from the means, and of their products.
        let spreadNow = squaresNow - sumNow * sumNow / n, spreadThen = squaresThen - sumThen * sumThen / n
        // Less than a luma level of spread between blocks: a flat picture.
        guard spreadNow >= n, spreadThen >= n else { return nil }
        return Float((cross - sumNow * sumThen / n) / (spreadNow * spreadThen).squareRoot())
    }

    private func changed(since earlier: BlockMeans, grid: PixelRect, skipping area: PixelRect?,
                         threshold: Float, shift: Int) -> Bool {
        let side = Self.side
        guard earlier.width == width, earlier.height == height, grid.width >= side, grid.height >= side else { return true }
        let unchanged = Self.forEachBlock(of: grid) { x, y in
            if let area, x + side > area.x, x < area.x + area.width, y + side > area.y, y < area.y + area.height {
                return true
            }
            guard let now = block(x: x, y: y) else { return false } // a grid over another area: no block here
            for ey in max(0, y - shift)...min(height - side, y + shift) {
                for ex in max(0, x - shift)...min(width - side, x + shift) {
                    if let then = earlier.block(x: ex, y: ey),
                       abs(then.mean - now.mean) <= threshold, abs(then.spread - now.spread) <= threshold {
                        return true
                    }
                }
            }
            return false
        }
        return !unchanged
    }

    /// Calls `body` with the top-left corner of each block of a grid laid over
    /// `grid` (at least a block in each direction; its last row and column
    /// moved in to fit), row by row, until `body` returns false. Returns
    /// whether every call returned true.
    private static func forEachBlock(of grid: PixelRect, _ body: (_ x: Int, _ y: Int) -> Bool) -> Bool {
        for gy in 0..<(grid.height + side - 1) / side {
            let y = grid.y + min(gy * side, grid.height - side)
            for gx in 0..<(grid.width + side - 1) / side where !body(grid.x + min(gx * side, grid.width - side), y) {
                return false
            }
        }
        return true
    }
}
