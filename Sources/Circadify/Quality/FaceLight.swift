/// How the light falls on the face, from the luma thumbnail inside the face box.
/// Values are the thumbnail's raw 8-bit luma (studio or full swing, as the source
/// delivers it; the thresholds hold for both).
struct FaceLight: Sendable, Equatable {
    /// Mean luma of the face's inner part (hair and background edges left out).
    var meanLuma: Double
    /// Share of those pixels at or above `clipLevel`.
    var clippedFraction: Double
    /// Mean luma of the brighter cheek side over the darker one (>= 1).
    var sideRatio: Double

    /// Luma at which skin counts as clipped: 235 is white in studio swing (Y4M,
    /// YUYV), and full-swing sensors saturate a little above 230 after gamma.
    static let clipLevel: UInt8 = 230

    /// Nil when the box covers too few thumbnail pixels to judge.
    init?(thumbnail t: LumaThumbnail, face: NormalizedRect) {
        // Inner box: 10-90% across (cheek to cheek), 15-95% down (brows to chin).
        guard let inner = Self.pixels(t, face, x: 0.10...0.90, y: 0.15...0.95), inner.count >= 16,
              let left = Self.pixels(t, face, x: 0.10...0.42, y: 0.35...0.85),
              let right = Self.pixels(t, face, x: 0.58...0.90, y: 0.35...0.85),
              !left.isEmpty, !right.isEmpty else { return nil }
        meanLuma = Self.mean(inner)
        clippedFraction = Double(inner.count(where: { $0 >= Self.clipLevel })) / Double(inner.count)
        let l = max(Self.mean(left), 1), r = max(Self.mean(right), 1)
        sideRatio = max(l, r) / min(l, r)
    }

    private static func mean(_ v: [UInt8]) -> Double { Double(v.reduce(0) { $0 + Int($1) }) / Double(v.count) }

    /// The thumbnail's pixels in a part of the box (fractions of its width and height).
    private static func pixels(_ t: LumaThumbnail, _ box: NormalizedRect, x fx: ClosedRange<Double>,
                               y fy: ClosedRange<Double>) -> [UInt8]? {
        guard t.width > 0, t.height > 0, t.pixels.count >= t.width * t.height else { return nil }
        let bx = Double(box.x), by = Double(box.y), bw = Double(box.width), bh = Double(box.height)
        let x0 = max(0, Int(((bx + fx.lowerBound * bw) * Double(t.width)).rounded()))
        let x1 = min(t.width, Int(((bx + fx.upperBound * bw) * Double(t.width)).rounded()))
        let y0 = max(0, Int(((by + fy.lowerBound * bh) * Double(t.height)).rounded()))
        let y1 = min(t.height, Int(((by + fy.upperBound * bh) * Double(t.height)).rounded()))
        guard x1 > x0, y1 > y0 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity((x1 - x0) * (y1 - y0))
        for y in y0..<y1 { out.append(contentsOf: t.pixels[(y * t.width + x0)..<(y * t.width + x1)]) }
        return out
    }
}
