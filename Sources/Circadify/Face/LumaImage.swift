import CCore
import Foundation

/// A full-resolution 8-bit luma plane, tightly packed (`width` bytes a row):
/// what `FaceDetector` reads.
package struct LumaImage: Sendable, Equatable {
    package let width: Int
    package let height: Int
    package let pixels: [UInt8]

    package init(width: Int, height: Int, pixels: [UInt8]) {
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// Decodes a JPEG file's luma (the Y' of its Y'CbCr, the same grey a
    /// JPEG decoder's greyscale output gives) at full resolution.
    package init(jpegFile path: String) throws(CoreError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            let missing = !FileManager.default.fileExists(atPath: path)
            throw CoreError(code: missing ? -ENOENT : -EACCES, message: "cannot read JPEG file \(path)")
        }
        try self.init(jpeg: [UInt8](data))
    }

    /// Decodes JPEG bytes' luma at full resolution. Corrupt data: `CCORE_E_CORRUPT`.
    package init(jpeg bytes: [UInt8]) throws(CoreError) {
        guard !bytes.isEmpty else { throw CoreError(code: CoreError.corrupt, message: "empty JPEG data") }
        // A 1x1 decoder only reads the header; the real one is sized to the image.
        var width: UInt32 = 0, height: UInt32 = 0
        let probe = try JpegDecoder(maxWidth: 1, maxHeight: 1)
        try probe.check(ccore_jpeg_peek_size(probe.raw, bytes, bytes.count, &width, &height))
        guard width > 0, height > 0 else {
            throw CoreError(code: CoreError.corrupt, message: "JPEG header gives an empty \(width)x\(height) image")
        }
        let decoder = try JpegDecoder(maxWidth: width, maxHeight: height)
        var image = ccore_image()
        try decoder.check(ccore_jpeg_decode(decoder.raw, bytes, bytes.count, 1, &image))
        let w = Int(image.width), h = Int(image.height), stride = Int(image.stride0)
        guard let luma = image.plane0, w > 0, h > 0, stride >= w else {
            throw CoreError(code: CoreError.corrupt, message: "JPEG decoder returned no luma plane")
        }
        var pixels = [UInt8]()
        pixels.reserveCapacity(w * h)
        for row in 0..<h { pixels.append(contentsOf: UnsafeBufferPointer(start: luma + row * stride, count: w)) }
        self.init(width: w, height: h, pixels: pixels)
    }
}

/// The one owner of a `ccore_jpeg` decoder used for still images.
private final class JpegDecoder {
    let raw: OpaquePointer

    init(maxWidth: UInt32, maxHeight: UInt32) throws(CoreError) {
        var handle: OpaquePointer?
        let rc = ccore_jpeg_create(maxWidth, maxHeight, &handle)
        guard rc == 0, let handle else {
            let reason = String(cString: ccore_error_string(rc))
            throw CoreError(code: rc, message: "JPEG decoder for \(maxWidth)x\(maxHeight): \(reason)")
        }
        raw = handle
    }

    deinit { ccore_jpeg_destroy(raw) }

    func check(_ rc: Int32) throws(CoreError) {
        if rc < 0 { throw CoreError(code: rc, message: String(cString: ccore_jpeg_error_message(raw))) }
    }
}
