import CCore
import Circadify
import Foundation

/// One RGB picture to JPEG, through the core's TurboJPEG encoder.
enum JPEGEncoding {
    /// The quality of the video's frames: small enough for several viewers on a board's Wi-Fi.
    static let quality: Int32 = 80

    /// The JPEG bytes of an RGB24 picture, or nil when the encoder refuses it (an empty picture).
    static func encode(rgb pixels: [UInt8], width: Int, height: Int, quality: Int32 = quality) -> [UInt8]? {
        guard width > 0, height > 0, pixels.count >= width * height * 3 else { return nil }
        return pixels.withUnsafeBufferPointer { buffer -> [UInt8]? in
            var image = ccore_image()
            image.format = CCORE_PIXEL_RGB24
            image.range = CCORE_RANGE_FULL
            image.width = UInt32(width)
            image.height = UInt32(height)
            image.plane0 = buffer.baseAddress
            image.stride0 = UInt32(width * 3)
            var out: UnsafeMutablePointer<UInt8>?
            var size = 0
            guard ccore_jpeg_encode(&image, quality, &out, &size) == 0, let out else { return nil }
            defer { free(out) }
            return Array(UnsafeBufferPointer(start: out, count: size))
        }
    }
}
