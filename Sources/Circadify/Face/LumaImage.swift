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

    /// The largest JPEG file read: a 40-megapixel photo at top quality is well below it.
    package static let maximumFileBytes = 64 << 20

    /// Decodes a JPEG file's luma (the Y' of its Y'CbCr, the same grey a
    /// JPEG decoder's greyscale output gives) at full resolution.
    ///
    /// - Throws: `-ENOENT`/`-EACCES` (and other errnos) when the file cannot be opened,
    ///   `-EINVAL` when it is not a regular file (a directory, FIFO or device, which could
    ///   block or never end), `-EFBIG` over `maximumFileBytes`, `-E2BIG` when its header
    ///   gives a frame beyond the core's limits (8192 pixels a side, 40 megapixels), and
    ///   the decoder's error for data it cannot decode.
    package init(jpegFile path: String) throws(CoreError) {
        try self.init(jpeg: try Self.readRegularFile(path))
    }

    /// The whole file, opened without blocking and refused unless it is a regular file of
    /// at most `maximumFileBytes`, so no path can make this hang or read without end.
    static func readRegularFile(_ path: String) throws(CoreError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else {
            let error = errno
            throw CoreError(code: -error, message: "cannot read JPEG file \(path): \(String(cString: strerror(error)))")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw CoreError(code: -errno, message: "cannot read JPEG file \(path): \(String(cString: strerror(errno)))")
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            let what = switch info.st_mode & S_IFMT {
            case S_IFDIR: "a directory"
            case S_IFIFO: "a FIFO (named pipe)"
            case S_IFCHR: "a character device"
            case S_IFBLK: "a block device"
            default: "not a regular file"
            }
            throw CoreError(code: -EINVAL, message: "\(path) is \(what), not a JPEG file")
        }
        guard info.st_size <= maximumFileBytes else {
            throw CoreError(code: -EFBIG, message: "\(path) is \(info.st_size / (1 << 20)) MiB, larger than the "
                + "\(maximumFileBytes >> 20) MiB a photo may be")
        }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var filled = 0
        while filled < bytes.count {
            let got = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + filled, $0.count - filled) }
            if got < 0, errno == EINTR { continue }
            guard got > 0 else {
                let reason = got < 0 ? String(cString: strerror(errno)) : "it shrank while being read"
                throw CoreError(code: got < 0 ? -errno : -EIO, message: "cannot read JPEG file \(path): \(reason)")
            }
            filled += got
        }
        return bytes
    }

    /// Decodes JPEG bytes' luma at full resolution. Corrupt data: `CCORE_E_CORRUPT`; a
    /// frame beyond the core's size limits: `-E2BIG`, judged from the header before any
    /// allocation or decoding.
    package init(jpeg bytes: [UInt8]) throws(CoreError) {
        guard !bytes.isEmpty else { throw CoreError(code: CoreError.corrupt, message: "empty JPEG data") }
        // A 1x1 decoder only reads the header; the real one is sized to the image.
        var width: UInt32 = 0, height: UInt32 = 0
        let probe = try JpegDecoder(maxWidth: 1, maxHeight: 1)
        try probe.check(ccore_jpeg_peek_size(probe.raw, bytes, bytes.count, &width, &height))
        guard width > 0, height > 0 else {
            throw CoreError(code: CoreError.corrupt, message: "JPEG header gives an empty \(width)x\(height) image")
        }
        guard ccore_frame_size_allowed(width, height) == 1 else {
            throw CoreError(code: -E2BIG, message: "the JPEG is \(width)x\(height), larger than the limit of "
                + "\(CCORE_MAX_FRAME_SIDE) pixels a side and \(CCORE_MAX_FRAME_PIXELS / 1_000_000) megapixels")
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
