import CCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Finds frontal faces in 8-bit luma images with a trained OpenCV cascade,
/// evaluated by the C core (multi-scale sliding window, then clustering of
/// the raw hits, as OpenCV's `detectMultiScale` does).
///
/// Owns the C detector, whose scratch memory is allocated once here: a call
/// to `detect` allocates nothing in the core (only the returned array).
/// Deliberately not `Sendable`: one user at a time; give each thread or
/// actor its own detector (they may share one `FaceCascade`).
package final class FaceDetector {
    package let cascade: FaceCascade
    package let maxWidth: Int
    package let maxHeight: Int
    private let raw: OpaquePointer
    /// Output slots for the core, reused by every call.
    private var slots: [ccore_face]

    /// The most faces one call reports (the largest ones).
    package static let maxFaces = 32

    package convenience init(cascadePath: String = FaceCascade.defaultPath, maxWidth: Int = 640,
                             maxHeight: Int = 480) throws(CoreError) {
        try self.init(cascade: FaceCascade(path: cascadePath), maxWidth: maxWidth, maxHeight: maxHeight)
    }

    /// A detector for images up to `maxWidth` x `maxHeight` pixels.
    package init(cascade: FaceCascade, maxWidth: Int = 640, maxHeight: Int = 480) throws(CoreError) {
        guard maxWidth > 0, maxHeight > 0, maxWidth <= 8192, maxHeight <= 8192 else {
            throw CoreError(code: -EINVAL, message: "face detector size \(maxWidth)x\(maxHeight) is not in 1...8192")
        }
        var handle: OpaquePointer?
        let rc = ccore_face_detector_create(cascade.raw, UInt32(maxWidth), UInt32(maxHeight), &handle)
        guard rc == 0, let handle else { throw CoreError(code: rc, message: "") }
        self.cascade = cascade
        self.maxWidth = maxWidth
        self.maxHeight = maxHeight
        raw = handle
        slots = [ccore_face](repeating: ccore_face(), count: Self.maxFaces)
    }

    deinit { ccore_face_detector_destroy(raw) }

    /// Faces in a luma plane (`stride` bytes per row, `width` by default),
    /// largest first. `minFaceSize` / `maxFaceSize` bound the face side in
    /// pixels; `scaleFactor` is the pyramid step (finer finds more, costs
    /// more); a face needs more than `minNeighbours` raw hits; `area` limits the
    /// search to a rectangle of the image (pixels), on the whole image's grid.
    /// Throws `-EINVAL` for a buffer too small for the size or bad parameters,
    /// `-E2BIG` for an image larger than the detector's maximum.
    package func detect(luma: UnsafeBufferPointer<UInt8>, width: Int, height: Int, stride: Int? = nil,
                        minFaceSize: Int? = nil, maxFaceSize: Int? = nil, scaleFactor: Double = 1.1,
                        minNeighbours: Int = 3, area: PixelRect? = nil) throws(CoreError) -> [DetectedFace] {
        let rowBytes = stride ?? width
        guard width > 0, height > 0, rowBytes >= width, let base = luma.baseAddress,
              luma.count >= rowBytes * (height - 1) + width
        else {
            let want = "\(width)x\(height) at stride \(rowBytes)"
            throw CoreError(code: -EINVAL, message: "luma buffer of \(luma.count) bytes does not hold \(want)")
        }
        guard width <= maxWidth, height <= maxHeight else {
            throw CoreError(code: -E2BIG,
                            message: "image \(width)x\(height) exceeds the detector's \(maxWidth)x\(maxHeight)")
        }
        let sizes = [minFaceSize ?? 0, maxFaceSize ?? 0, minNeighbours]
        guard sizes.allSatisfy({ $0 >= 0 && $0 <= Int(UInt32.max) }) else {
            throw CoreError(code: -EINVAL, message: "face sizes and minNeighbours must be non-negative")
        }
        var params = ccore_face_params()
        ccore_face_params_default(&params)
        params.scale_factor = scaleFactor
        params.min_neighbours = UInt32(minNeighbours)
        params.min_face_size = UInt32(minFaceSize ?? 0)
        params.max_face_size = UInt32(maxFaceSize ?? 0)
        if let area {
            guard area.x >= 0, area.y >= 0, area.width > 0, area.height > 0,
                  area.x + area.width <= width, area.y + area.height <= height else {
                throw CoreError(code: -EINVAL, message: "search area \(area) is not inside the \(width)x\(height) image")
            }
            params.roi_x = UInt32(area.x)
            params.roi_y = UInt32(area.y)
            params.roi_width = UInt32(area.width)
            params.roi_height = UInt32(area.height)
        }
        var count: UInt32 = 0
        let detector = raw
        let rc = slots.withUnsafeMutableBufferPointer { out in
            ccore_face_detector_detect(detector, base, UInt32(width), UInt32(height), UInt32(rowBytes), &params,
                                       out.baseAddress, UInt32(out.count), &count)
        }
        if rc < 0 { throw CoreError(code: rc, message: String(cString: ccore_face_detector_error_message(raw))) }
        return slots.prefix(Int(count)).map {
            DetectedFace(x: Int($0.x), y: Int($0.y), width: Int($0.width), height: Int($0.height),
                         neighbours: Int($0.neighbours))
        }
    }

    /// `detect(luma:...)` on a tightly packed or strided array.
    package func detect(luma: [UInt8], width: Int, height: Int, stride: Int? = nil, minFaceSize: Int? = nil,
                        maxFaceSize: Int? = nil, scaleFactor: Double = 1.1, minNeighbours: Int = 3,
                        area: PixelRect? = nil) throws(CoreError) -> [DetectedFace] {
        // Typed throws do not cross withUnsafeBufferPointer's closure: carry the result out.
        let result: Result<[DetectedFace], CoreError> = luma.withUnsafeBufferPointer { buffer in
            Result { () throws(CoreError) in
                try detect(luma: buffer, width: width, height: height, stride: stride, minFaceSize: minFaceSize,
                           maxFaceSize: maxFaceSize, scaleFactor: scaleFactor, minNeighbours: minNeighbours, area: area)
            }
        }
        return try result.get()
    }
}

/// A rectangle of an image, pixels.
package struct PixelRect: Sendable, Equatable {
    package var x: Int, y: Int, width: Int, height: Int
    package init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }
}

/// One user at a time: a detector must not cross threads concurrently.
@available(*, unavailable)
extension FaceDetector: Sendable {}
