/// The skin mask's bounds, learnt from the face's own colour.
///
/// A fixed Y'CbCr box (Chai & Ngan) loses dark skin and dim light: their
/// pixels fall under its luma floor or outside its chroma box, the regions'
/// skin fraction collapses and with it the signal. So measurement starts with
/// a wide box and then centres a tighter one on the median colour the regions
/// report, which follows the person and the light. Chroma is compared in the
/// frame's own Y'CbCr; computing it back from RGB with the full-range (JPEG)
/// matrix is off by under two levels for studio-range cameras, well inside
/// the margins.
///
/// Once learnt, the mask is kept until the skin's colour has really moved (the
/// light changed, another face): each new mask lets other pixels in and out of
/// every region, a step in its colour, and a median that wanders by a level
/// or two from second to second is noise, not a new skin tone.
package struct SkinToneModel: Sendable, Equatable {
    /// Half-widths of the learnt chroma box, 8-bit levels.
    package var chromaMargin: UInt8 = 14
    /// Pixels darker than this share of the skin's mean luma are shadow, brow or hair.
    package var lumaFloorShare = 0.45
    /// Frames of colour to learn from before the first update.
    package var framesToLearn = 15
    /// How far the learnt chroma centre (levels) or luma floor (share of it) must move before
    /// the mask in use is replaced: a third of the margin, well above the median's wander.
    package var chromaShiftToRelearn = 5
    package var lumaFloorShiftToRelearn = 0.2

    package init() {}

    /// What to start with: the classic box widened, with a low luma floor.
    package static let initial = SkinBounds(y: 16...250, cb: 70...135, cr: 128...185)

    /// Bounds centred on the median skin colour of `frames` (each frame's regions
    /// averaged); nil until enough frames with skin have been seen.
    package func bounds(from frames: [SignalFrame]) -> SkinBounds? {
        let colours = frames.compactMap { frame -> SIMD3<Double>? in
            let skin = frame.regions.filter { $0.skinFraction > 0.05 }
            guard !skin.isEmpty else { return nil }
            return skin.reduce(SIMD3<Double>.zero) { $0 + SIMD3($1.red, $1.green, $1.blue) } / Double(skin.count)
        }
        guard colours.count >= framesToLearn else { return nil }
        let y = SignalMath.median(colours.map { 0.299 * $0.x + 0.587 * $0.y + 0.114 * $0.z })
        let cb = SignalMath.median(colours.map { 128 - 0.168736 * $0.x - 0.331264 * $0.y + 0.5 * $0.z })
        let cr = SignalMath.median(colours.map { 128 + 0.5 * $0.x - 0.418688 * $0.y - 0.081312 * $0.z })
        func level(_ v: Double) -> UInt8 { UInt8(max(0, min(255, v.rounded()))) }
        let m = Double(chromaMargin)
        return SkinBounds(y: level(max(8, y * lumaFloorShare))...250,
                          cb: level(cb - m)...level(cb + m), cr: level(cr - m)...level(cr + m))
    }

    /// Whether `learnt` should replace the mask in use: always the initial wide box, otherwise
    /// only when the skin's colour has moved clearly (see the type's note).
    package func replaces(_ current: SkinBounds, with learnt: SkinBounds) -> Bool {
        guard current != Self.initial else { return learnt != current }
        func centre(_ r: ClosedRange<UInt8>) -> Int { (Int(r.lowerBound) + Int(r.upperBound)) / 2 }
        let chromaShift = max(abs(centre(learnt.cb) - centre(current.cb)), abs(centre(learnt.cr) - centre(current.cr)))
        let floor = Double(current.y.lowerBound), newFloor = Double(learnt.y.lowerBound)
        return chromaShift >= chromaShiftToRelearn || abs(newFloor - floor) > lumaFloorShiftToRelearn * max(floor, 8)
    }
}
