extension ScanPipeline {
    /// A pipeline that finds faces with the core's cascade detector, searching near the
    /// tracked face between whole-frame searches (`FaceFinder`).
    /// - Throws: `processingFailed` when the cascade cannot be loaded (its
    ///   message names the file and the package that provides it).
    package static func withFaceDetector(quality: QualityMonitor.Configuration = .init(),
                                         finder: FaceFinder.Configuration = .init()) throws(CircadifyError) -> ScanPipeline {
        let detector: FaceDetector
        do {
            detector = try FaceDetector(maxWidth: ScanPipeline.thumbnailSide, maxHeight: ScanPipeline.thumbnailSide)
        } catch {
            throw .processingFailed("the face detector is not available: \(error.message)")
        }
        let finder = FaceFinder(detector: detector, configuration: finder, keep: withoutEnclosingBoxes)
        return ScanPipeline(quality: quality) { thumbnail, tracked, time throws(CoreError) in
            try finder.find(in: thumbnail, tracked: tracked, at: time)
        }
    }

    /// Drops a box that holds a face under half its size: a face cannot contain
    /// another face, but the frontal cascade sometimes takes a small person's head
    /// and shoulders for one large face around their real one.
    static func withoutEnclosingBoxes(_ faces: [DetectedFace]) -> [DetectedFace] {
        faces.filter { outer in
            !faces.contains { inner in
                inner.width * 2 <= outer.width
                    && inner.x >= outer.x && inner.y >= outer.y
                    && inner.x + inner.width <= outer.x + outer.width && inner.y + inner.height <= outer.y + outer.height
            }
        }
    }
}
