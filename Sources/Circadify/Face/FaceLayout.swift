import Foundation

/// Where the measured skin lies inside a detected face box, and the overlay
/// anchors at the centre of each region.
///
/// Proportions are of the frontal-face detector's box, which spans roughly
/// from the middle of the forehead to below the mouth and from cheekbone to
/// cheekbone: the brows sit near 0.27 of its height, the eyes near 0.38, the
/// nostrils near 0.62 and the mouth near 0.78. The forehead band stays above
/// the brows and below the hairline; the cheek patches sit under the eyes,
/// outside the nose and above the mouth corners. The skin mask inside each
/// region removes whatever hair, glasses or shadow still falls in it.
package struct FaceLayout: Sendable, Equatable {
    /// The face box, normalized (top-left origin, unmirrored).
    package var face: NormalizedRect
    /// Forehead band, then the subject's left cheek, then the right cheek: the
    /// measurement's region order.
    package var regions: [NormalizedRect]

    /// Fractions of the face box (x, y, width, height), image left to right.
    static let forehead = (x: 0.30, y: 0.14, width: 0.40, height: 0.12)
    static let imageLeftCheek = (x: 0.17, y: 0.48, width: 0.20, height: 0.18)
    static let imageRightCheek = (x: 0.63, y: 0.48, width: 0.20, height: 0.18)

    package init(face: NormalizedRect) {
        self.face = face
        func place(_ part: (x: Double, y: Double, width: Double, height: Double)) -> NormalizedRect {
            NormalizedRect(x: face.x + face.width * Float(part.x), y: face.y + face.height * Float(part.y),
                           width: face.width * Float(part.width), height: face.height * Float(part.height))
                .clampedToUnitSquare()
        }
        // The subject's left cheek is on the image's right.
        regions = [place(Self.forehead), place(Self.imageRightCheek), place(Self.imageLeftCheek)]
    }

    /// The overlay's geometry for this face in an image of `aspect` (width / height).
    package func scanFace(imageAspect aspect: Double, mirrored: Bool) -> CircadifyScanFace {
        func centre(_ r: NormalizedRect) -> CGPoint {
            CGPoint(x: Double(r.x + r.width / 2), y: Double(r.y + r.height / 2))
        }
        // The oval takes in the whole head shape: the detector's box stops
        // short of the hairline and the chin.
        let oval = CGSize(width: Double(face.width) * 1.05, height: Double(face.height) * 1.35)
        let ovalCenter = CGPoint(x: Double(face.x + face.width / 2), y: Double(face.y) + Double(face.height) * 0.55)
        return CircadifyScanFace(forehead: centre(regions[0]), leftCheek: centre(regions[1]),
                                 rightCheek: centre(regions[2]), ovalCenter: ovalCenter, ovalSize: oval,
                                 imageAspect: CGFloat(aspect), isMirrored: mirrored)
    }
}

extension NormalizedRect {
    /// The part of the rectangle inside the image (zero-sized when it lies outside).
    package func clampedToUnitSquare() -> NormalizedRect {
        let left = min(max(x, 0), 1), top = min(max(y, 0), 1)
        let right = min(max(x + width, 0), 1), bottom = min(max(y + height, 0), 1)
        return NormalizedRect(x: left, y: top, width: right - left, height: bottom - top)
    }

    var centerX: Float { x + width / 2 }
    var centerY: Float { y + height / 2 }
    var area: Float { width * height }

    /// Intersection over union with `other` (0 when they do not overlap).
    package func intersectionOverUnion(_ other: NormalizedRect) -> Float {
        let w = min(x + width, other.x + other.width) - max(x, other.x)
        let h = min(y + height, other.y + other.height) - max(y, other.y)
        guard w > 0, h > 0 else { return 0 }
        let overlap = w * h
        return overlap / (area + other.area - overlap)
    }
}
