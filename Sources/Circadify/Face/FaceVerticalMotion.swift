/// The face's vertical position to a fraction of a thumbnail pixel, for the
/// breathing the head's small rise and fall carries.
///
/// The detector's box moves in steps of its pyramid level's pixel, several
/// times the 1-3 pixels a breath moves a face, so the box cannot show
/// breathing. Instead each thumbnail's row profile across the face (mean luma
/// of each row over the middle of the box) is matched against the profile
/// taken when the tracker last placed the box, with a parabola through the
/// best shift. The position is the box's centre plus that shift, so a head
/// that moves far (and moves the box) shows its whole travel.
package struct FaceVerticalMotion: Sendable {
    private struct Reference {
        var box: NormalizedRect
        var rows: Range<Int>, columns: Range<Int>, search: Int
        var profile: [Double]
        /// Face centre (normalized) at the reference.
        var centreY: Double
    }

    private var reference: Reference?
    private var last: Double?

    package init() {}

    /// The face centre's height (normalized, top 0) on `thumbnail`, with the
    /// tracker's `box`; nil when the box is too small or off the picture.
    package mutating func update(thumbnail: LumaThumbnail, box: NormalizedRect) -> Double? {
        if let ref = reference, ref.box == box {
            let current = GlobalMotion.rowMeans(thumbnail, rows: ref.rows, bands: [ref.columns])
            guard let costs = GlobalMotion.matchCosts(reference: ref.profile, moved: current, r: ref.search) else {
                return last
            }
            let shift = Self.minimum(costs) - Double(ref.search)
            last = ref.centreY + shift / Double(thumbnail.height)
            return last
        }
        // A new box: take the reference here.
        let h = Double(thumbnail.height), w = Double(thumbnail.width)
        let search = max(2, Int((Double(box.height) * h * 0.05).rounded()))
        let top = Int(Double(box.y) * h) - search, bottom = Int(Double(box.y + box.height) * h) + search
        let left = Int(Double(box.x + 0.2 * box.width) * w), right = Int(Double(box.x + 0.8 * box.width) * w)
        guard top >= 0, bottom <= thumbnail.height, left >= 0, right <= thumbnail.width,
              bottom - top >= 2 * search + 8, right > left else {
            reference = nil
            return nil
        }
        let rows = top..<bottom, columns = left..<right
        let centre = Double(box.centerY)
        reference = Reference(box: box, rows: rows, columns: columns, search: search,
                              profile: GlobalMotion.rowMeans(thumbnail, rows: rows, bands: [columns]), centreY: centre)
        last = centre
        return centre
    }

    package mutating func reset() {
        reference = nil
        last = nil
    }

    /// The minimum's index, refined by a parabola through it and its neighbours.
    static func minimum(_ costs: [Double]) -> Double {
        guard let i = costs.indices.min(by: { costs[$0] < costs[$1] }) else { return 0 }
        guard i > 0, i < costs.count - 1 else { return Double(i) }
        let a = costs[i - 1], b = costs[i], c = costs[i + 1], den = a - 2 * b + c
        return Double(i) + (den > 0 ? 0.5 * (a - c) / den : 0)
    }
}
