import Foundation

/// The live face geometry the scan overlay draws and the measurement samples
/// (seed "Scan Overlay"). All points and sizes are normalized to [0, 1] in the
/// detector's upright, unmirrored image space with a top-left origin; project
/// them into a view with aspect-fill via `imageAspect` and flip horizontally
/// when `isMirrored` is true.
public struct CircadifyScanFace: Sendable, Equatable {
    /// Glow anchor over the forehead.
    public var forehead: CGPoint
    /// Glow anchor over the subject's left cheek (the image's right side: the
    /// subject faces the camera).
    public var leftCheek: CGPoint
    /// Glow anchor over the subject's right cheek (the image's left side).
    public var rightCheek: CGPoint
    /// Centre of the face oval.
    public var ovalCenter: CGPoint
    /// Size of the face oval.
    public var ovalSize: CGSize
    /// Width / height of the detection image.
    public var imageAspect: CGFloat
    /// True when the preview is mirrored (the front camera).
    public var isMirrored: Bool

    public init(forehead: CGPoint, leftCheek: CGPoint, rightCheek: CGPoint, ovalCenter: CGPoint, ovalSize: CGSize,
                imageAspect: CGFloat, isMirrored: Bool) {
        self.forehead = forehead
        self.leftCheek = leftCheek
        self.rightCheek = rightCheek
        self.ovalCenter = ovalCenter
        self.ovalSize = ovalSize
        self.imageAspect = imageAspect
        self.isMirrored = isMirrored
    }
}
