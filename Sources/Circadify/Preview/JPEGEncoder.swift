import CCore
import Foundation

/// The core's reusable JPEG encoder (`ccore_jpeg_encoder`) for preview
/// pictures: encoding allocates nothing but the `Data` handed out. It grows
/// (once) when a larger picture comes. One user at a time.
package final class JPEGEncoder {
    private var raw: OpaquePointer?
    private var maxWidth = 0, maxHeight = 0

    package init() {}

    deinit { ccore_jpeg_encoder_destroy(raw) }

    /// `frame` as a 4:2:0 JPEG at `quality` (1-100).
    package func encode(_ frame: CircadifyPreviewFrame, quality: Int) throws(CoreError) -> Data {
        guard frame.width > 0, frame.height > 0, frame.pixels.count >= frame.stride * frame.height else {
            throw CoreError(code: -EINVAL, message: "an empty or short picture cannot be encoded")
        }
        if raw == nil || frame.width > maxWidth || frame.height > maxHeight {
            ccore_jpeg_encoder_destroy(raw)
            raw = nil
            var created: OpaquePointer?
            let rc = ccore_jpeg_encoder_create(UInt32(frame.width), UInt32(frame.height), &created)
            guard rc == 0, let created else { throw CoreError(code: rc, message: "") }
            raw = created
            (maxWidth, maxHeight) = (frame.width, frame.height)
        }
        var out: UnsafePointer<UInt8>?
        var size = 0
        let rc = frame.pixels.withUnsafeBufferPointer { pixels in
            ccore_jpeg_encoder_encode(raw, pixels.baseAddress, UInt32(frame.width), UInt32(frame.height),
                                      UInt32(frame.stride), 4, Int32(min(max(quality, 1), 100)), &out, &size)
        }
        guard rc == 0, let out else {
            throw CoreError(code: rc, message: String(cString: ccore_jpeg_encoder_error_message(raw)))
        }
        return Data(bytes: out, count: size)
    }
}
