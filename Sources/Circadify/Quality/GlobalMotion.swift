/// How far the whole picture moved between two thumbnails: the camera's own
/// motion, measured on the background beside the people in view.
///
/// 1-D projections: the background bands' column means (for the horizontal
/// shift) and row means (for the vertical) are matched over shifts of up to
/// `searchFraction` of the height, each profile divided by its mean so a change
/// of brightness (flicker, exposure) is not read as motion; a parabola through
/// the best match and its neighbours gives the sub-pixel shift.
enum GlobalMotion {
    /// Largest shift searched: 6% of the height between thumbnails, twice the
    /// peak of a strongly shaking hand-held camera (~3%) between 5 Hz thumbnails.
    static let searchFraction = 0.06
    /// Around a face box, the person's head and shoulders: 1.1 face heights to
    /// either side of the box's centre (shoulders reach ~1 face height out), and
    /// everything below the chin plus 0.1 face heights (the torso widens there).
    static let personHalfWidth = 1.1, belowChin = 0.1

    /// The profiles of the last `current` thumbnail, reused at the next call,
    /// where it is the previous one, if the background bands are the same then
    /// (about every other call on a still scene: the people's boxes wobble by a
    /// pixel). Only for the same pixels and bands, so the shift is a fresh
    /// computation's, bit for bit.
    struct Profiles {
        fileprivate var pixels: [UInt8]
        fileprivate var geometry: Geometry
        fileprivate var columns: [[Double]]
        fileprivate var rows: [Double]
        /// Calls along this chain that took the previous thumbnail's profiles from here.
        fileprivate(set) var reuses = 0
    }

    /// Where the profiles are taken: the background bands, the rows, the search radius.
    fileprivate struct Geometry: Equatable {
        var width: Int
        var bands: [Range<Int>]
        var rows: Range<Int>
        var r: Int
    }

    /// The shift (thumbnail pixels, x right, y down) of `current` relative to
    /// `previous`; nil when there is not enough background beside the people,
    /// or it has no texture to match.
    static func shift(from previous: LumaThumbnail, to current: LumaThumbnail,
                      people: [NormalizedRect]) -> (dx: Double, dy: Double)? {
        var profiles: Profiles?
        return shift(from: previous, to: current, people: people, reusing: &profiles)
    }

    /// As `shift(from:to:people:)`, keeping `current`'s profiles in `profiles` for
    /// the next call and taking `previous`'s from there when they are its.
    static func shift(from previous: LumaThumbnail, to current: LumaThumbnail, people: [NormalizedRect],
                      reusing profiles: inout Profiles?) -> (dx: Double, dy: Double)? {
        let w = current.width, h = current.height
        guard previous.width == w, previous.height == h, w >= 32, h >= 32,
              previous.pixels.count >= w * h, current.pixels.count >= w * h else { return nil }
        let r = max(2, Int((searchFraction * Double(h)).rounded()))
        // Background columns: outside every person's extent; rows above their chins.
        var free = [Bool](repeating: true, count: w)
        var bottom = h - r
        for p in people {
            let fh = Double(p.height) * Double(h)
            let cx = (Double(p.x) + Double(p.width) / 2) * Double(w)
            let lo = max(0, Int((cx - personHalfWidth * fh).rounded(.down)))
            let hi = min(w, Int((cx + personHalfWidth * fh).rounded(.up)))
            if lo < hi { for x in lo..<hi { free[x] = false } }
            bottom = min(bottom, Int(((Double(p.y) + Double(p.height)) * Double(h) + belowChin * fh).rounded()))
        }
        let top = r
        guard bottom - top >= 24 else { return nil }
        // Bands: runs of free columns at least 12 wide, kept `r` inside the picture.
        var bands: [Range<Int>] = []
        var start: Int?
        for x in r...(w - r) {
            let isFree = x < w - r && free[x]
            if isFree, start == nil { start = x }
            if !isFree, let s = start {
                if x - s >= 12 { bands.append(s..<x) }
                start = nil
            }
        }
        guard !bands.isEmpty else { return nil }
        let geometry = Geometry(width: w, bands: bands, rows: top..<bottom, r: r)
        // Arrays compare by their buffer first: the kept thumbnail is `previous` in O(1).
        let kept = profiles.flatMap { $0.geometry == geometry && $0.pixels == previous.pixels ? $0 : nil }
        let before = kept ?? Self.profiles(of: previous, geometry)
        var now = Self.profiles(of: current, geometry)
        now.reuses = (profiles?.reuses ?? 0) + (kept == nil ? 0 : 1)
        profiles = now
        guard let dx = horizontalShift(before, now), let dy = verticalShift(before, now) else { return nil }
        return (dx, dy)
    }

    /// Each band's column profile (widened by the search radius) and the bands' row profile.
    private static func profiles(of t: LumaThumbnail, _ g: Geometry) -> Profiles {
        let columns = g.bands.map { band in
            columnMeans(t, columns: (band.lowerBound - g.r)..<(band.upperBound + g.r), rows: g.rows)
        }
        let rows = rowMeans(t, rows: (g.rows.lowerBound - g.r)..<(g.rows.upperBound + g.r), bands: g.bands)
        return Profiles(pixels: t.pixels, geometry: g, columns: columns, rows: rows)
    }

    private static func horizontalShift(_ a: Profiles, _ b: Profiles) -> Double? {
        let r = b.geometry.r
        var cost = [Double](repeating: 0, count: 2 * r + 1)
        for (band, (pa, pb)) in zip(b.geometry.bands, zip(a.columns, b.columns)) {
            guard let c = matchCosts(reference: pa, moved: pb, r: r) else { return nil }
            for i in cost.indices { cost[i] += c[i] * Double(band.count) }
        }
        return bestShift(cost)
    }

    private static func verticalShift(_ a: Profiles, _ b: Profiles) -> Double? {
        guard let c = matchCosts(reference: a.rows, moved: b.rows, r: b.geometry.r) else { return nil }
        return bestShift(c)
    }

    // The profiles read the pixels through a buffer pointer: integer sums, no
    // per-pixel bounds checks (ranges were checked against the size above). 32-bit
    // sums, exact for any thumbnail (a column of 16 million rows would overflow),
    // let the loops run four or eight pixels at a time.
    private static func columnMeans(_ t: LumaThumbnail, columns: Range<Int>, rows: Range<Int>) -> [Double] {
        var sums = [UInt32](repeating: 0, count: columns.count)
        t.pixels.withUnsafeBufferPointer { px in
            sums.withUnsafeMutableBufferPointer { out in
                for y in rows {
                    let row = y * t.width + columns.lowerBound
                    for i in 0..<out.count { out[i] &+= UInt32(px[row + i]) }
                }
            }
        }
        return sums.map { Double($0) / Double(rows.count) }
    }

    static func rowMeans(_ t: LumaThumbnail, rows: Range<Int>, bands: [Range<Int>]) -> [Double] {
        let n = Double(bands.reduce(0) { $0 + $1.count })
        return t.pixels.withUnsafeBufferPointer { px in
            rows.map { y in
                var s: UInt32 = 0
                for band in bands {
                    let row = y * t.width
                    for x in band { s &+= UInt32(px[row + x]) }
                }
                return Double(s) / n
            }
        }
    }

    /// Mean absolute difference of the mean-normalized profiles for every shift
    /// d in -r...r (index d + r): `moved`[i] against `reference`[i - d], over the
    /// inner part both cover. Nil when the background is flat (nothing to match).
    static func matchCosts(reference: [Double], moved: [Double], r: Int) -> [Double]? {
        let n = moved.count - 2 * r
        guard n >= 8 else { return nil }
        let inner = Array(moved[r..<(r + n)])
        let m = inner.reduce(0, +) / Double(n)
        // Under ~0.3 levels of variation the profile is sensor noise, not texture.
        let spread = (inner.map { ($0 - m) * ($0 - m) }.reduce(0, +) / Double(n)).squareRoot()
        guard m > 1, spread > 0.3 else { return nil }
        return reference.withUnsafeBufferPointer { ref in
            inner.withUnsafeBufferPointer { cur in
                (-r...r).map { d in
                    let start = r - d
                    var sum = 0.0
                    for i in 0..<n { sum += ref[start + i] }
                    let rm = max(sum / Double(n), 1)
                    var s = 0.0
                    for i in 0..<n { s += abs(cur[i] / m - ref[start + i] / rm) }
                    return s / Double(n)
                }
            }
        }
    }

    /// A shift must match at least this much better than none (mismatch at zero
    /// shift over mismatch at the best): below it sensor noise on a weakly
    /// textured background explains the difference as well as motion does, and
    /// the shift is taken as zero. (Noise alone gave up to ~1.2-1.3 on the
    /// generated backdrops; a real shift of a few pixels gives 1.5-8.)
    static let significance = 1.35

    /// The minimum's position (shift) with parabolic sub-pixel refinement.
    private static func bestShift(_ cost: [Double]) -> Double? {
        guard let i = cost.indices.min(by: { cost[$0] < cost[$1] }) else { return nil }
        let r = (cost.count - 1) / 2
        guard cost[r] >= significance * cost[i] else { return 0 }
        var offset = 0.0
        if i > 0, i < cost.count - 1 {
            let a = cost[i - 1], b = cost[i], c = cost[i + 1], den = a - 2 * b + c
            if den > 0 { offset = 0.5 * (a - c) / den }
        }
        return Double(i - r) + offset
    }
}
