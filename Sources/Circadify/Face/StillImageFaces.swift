/// Faces in a still image, with the scan geometry a measurement would use
/// for each: what `circadify faces IMAGE.jpg` reports.
package struct StillImageFace: Sendable, Equatable {
    /// The detector's box, in the image's pixels.
    package var box: DetectedFace
    /// The overlay anchors and oval for this face (unmirrored: a photo).
    package var scanFace: CircadifyScanFace
}

package enum StillImageFaces {
    /// Finds the faces in a JPEG file at its full resolution, largest first.
    /// - Throws: the core's error for a missing, unreadable or undecodable
    ///   file, or for a cascade that cannot be loaded.
    package static func find(jpegPath: String, cascadePath: String = FaceCascade.defaultPath)
        throws(CoreError) -> [StillImageFace] {
        let image = try LumaImage(jpegFile: jpegPath)
        let detector = try FaceDetector(cascadePath: cascadePath, maxWidth: image.width, maxHeight: image.height)
        let faces = try detector.detect(luma: image.pixels, width: image.width, height: image.height)
        let width = Float(image.width), height = Float(image.height)
        return faces.map { face in
            let box = NormalizedRect(x: Float(face.x) / width, y: Float(face.y) / height,
                                     width: Float(face.width) / width, height: Float(face.height) / height)
            return StillImageFace(box: face, scanFace: FaceLayout(face: box)
                .scanFace(imageAspect: Double(image.width) / Double(image.height), mirrored: false))
        }
    }
}
