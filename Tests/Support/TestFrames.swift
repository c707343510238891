import CCore
import Foundation

/// A deterministic pseudo-random generator (SplitMix64), so failures reproduce.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// A frame's bytes in one of the core's pixel layouts, tightly packed.
public struct TestFrame: Sendable {
    public let format: ccore_pixel_format
    public let width: Int
    public let height: Int
    public var bytes: [UInt8]

    public init(format: ccore_pixel_format, width: Int, height: Int, bytes: [UInt8]) {
        self.format = format; self.width = width; self.height = height; self.bytes = bytes
    }

    /// Random pixels biased towards skin tones so the skin mask has work on both sides.
    public static func random(format: ccore_pixel_format, width: Int, height: Int, seed: UInt64) -> TestFrame {
        var rng = SeededRandom(seed: seed)
        let size = Int(ccore_pixel_format_frame_size(format, UInt32(width), UInt32(height)))
        let bytes = (0..<size).map { _ in UInt8.random(in: 60...200, using: &rng) }
        return TestFrame(format: format, width: width, height: height, bytes: bytes)
    }

    /// Calls `body` with a `ccore_image` view of the bytes.
    public func withImage<R>(range: ccore_color_range = CCORE_RANGE_LIMITED,
                             _ body: (UnsafePointer<ccore_image>) throws -> R) rethrows -> R {
        try bytes.withUnsafeBufferPointer { buffer in
            var image = ccore_image()
            let rc = ccore_image_wrap_packed(&image, format, range, UInt32(width), UInt32(height), buffer.baseAddress!)
            precondition(rc == 0, "cannot wrap a \(width)x\(height) test frame")
            return try body(&image)
        }
    }

    /// Y'CbCr (or RGB for RGB24) of pixel (x, y), read the plain way.
    public func components(x: Int, y: Int) -> (Int, Int, Int) {
        let w = width, h = height, hw = (w + 1) / 2, hh = (h + 1) / 2
        let luma = Int(bytes[y * w + x])
        switch format {
        case CCORE_PIXEL_YUYV:
            let row = y * w * 2, pair = row + (x / 2) * 4
            return (Int(bytes[row + 2 * x]), Int(bytes[pair + 1]), Int(bytes[pair + 3]))
        case CCORE_PIXEL_NV12:
            let c = w * h + (y / 2) * hw * 2 + (x / 2) * 2
            return (luma, Int(bytes[c]), Int(bytes[c + 1]))
        case CCORE_PIXEL_YUV420:
            let u = w * h + (y / 2) * hw + x / 2
            return (luma, Int(bytes[u]), Int(bytes[u + hw * hh]))
        case CCORE_PIXEL_YUV422P:
            let u = w * h + y * hw + x / 2
            return (luma, Int(bytes[u]), Int(bytes[u + hw * h]))
        case CCORE_PIXEL_YUV444P:
            let u = w * h + y * w + x
            return (luma, Int(bytes[u]), Int(bytes[u + w * h]))
        case CCORE_PIXEL_RGB24:
            let p = (y * w + x) * 3
            return (Int(bytes[p]), Int(bytes[p + 1]), Int(bytes[p + 2]))
        default:
            return (luma, 128, 128)
        }
    }
}

/// Synthetic RGB scenes for the JPEG and file tests.
public enum TestScenes {
    /// A smooth gradient with a skin-toned ellipse: compresses like a real scene.
    public static func faceRGB(width: Int, height: Int, phase: Double = 0) -> [UInt8] {
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        let cx = 0.5 * Double(width), cy = 0.45 * Double(height)
        let rx = 0.2 * Double(width), ry = 0.32 * Double(height)
        for y in 0..<height {
            for x in 0..<width {
                let dx = (Double(x) - cx) / rx, dy = (Double(y) - cy) / ry
                let inside = dx * dx + dy * dy <= 1
                let g = 60 + 60 * Double(y) / Double(height)
                let c: (Double, Double, Double) = inside
                    ? (196 + 4 * sin(phase), 142 + 6 * sin(phase), 112 + 3 * sin(phase))
                    : (g * 0.8, g * 0.9 + 20 * Double(x) / Double(width), g * 1.1)
                let p = (y * width + x) * 3
                rgb[p] = UInt8(max(0, min(255, c.0.rounded())))
                rgb[p + 1] = UInt8(max(0, min(255, c.1.rounded())))
                rgb[p + 2] = UInt8(max(0, min(255, c.2.rounded())))
            }
        }
        return rgb
    }

    /// JPEG of an RGB24 image via the core's encoder.
    public static func jpeg(rgb: [UInt8], width: Int, height: Int, quality: Int32 = 90) -> [UInt8] {
        let frame = TestFrame(format: CCORE_PIXEL_RGB24, width: width, height: height, bytes: rgb)
        return frame.withImage(range: CCORE_RANGE_FULL) { image in
            var out: UnsafeMutablePointer<UInt8>?
            var size = 0
            let rc = ccore_jpeg_encode(image, quality, &out, &size)
            precondition(rc == 0 && out != nil, "JPEG encode failed: \(rc)")
            defer { free(out) }
            return Array(UnsafeBufferPointer(start: out, count: size))
        }
    }

    /// JPEG of an RGB24 image with the given chroma subsampling (including the two the decoder refuses).
    public static func jpeg(rgb: [UInt8], width: Int, height: Int, quality: Int32 = 90,
                            subsampling: ccore_jpeg_subsampling) -> [UInt8] {
        let frame = TestFrame(format: CCORE_PIXEL_RGB24, width: width, height: height, bytes: rgb)
        return frame.withImage(range: CCORE_RANGE_FULL) { image in
            var out: UnsafeMutablePointer<UInt8>?
            var size = 0
            let rc = ccore_jpeg_encode_rgb(image, quality, subsampling, &out, &size)
            precondition(rc == 0 && out != nil, "JPEG encode failed: \(rc)")
            defer { free(out) }
            return Array(UnsafeBufferPointer(start: out, count: size))
        }
    }

    /// The same JPEG with a restart marker every `interval` MCUs, as many webcams send
    /// their frames (written in losslessly: the same pixels).
    public static func withRestartMarkers(_ jpeg: [UInt8], every interval: UInt32) -> [UInt8] {
        var out: UnsafeMutablePointer<UInt8>?
        var size = 0
        let rc = ccore_jpeg_set_restart_interval(jpeg, jpeg.count, interval, &out, &size)
        precondition(rc == 0 && out != nil, "restart markers not written: \(rc)")
        defer { free(out) }
        return Array(UnsafeBufferPointer(start: out, count: size))
    }

    /// A JPEG whose frame header claims `width` x `height` (the rest of it is a small real image): a
    /// header attack, for size checks that must refuse it before allocating or decoding.
    public static func jpegClaiming(width: Int, height: Int) -> [UInt8] {
        var bytes = jpeg(rgb: faceRGB(width: 16, height: 16), width: 16, height: 16)
        var i = 2
        while i + 8 < bytes.count, bytes[i] == 0xFF {
            let marker = bytes[i + 1], length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            if marker == 0xC0 || marker == 0xC1 || marker == 0xC2 {
                bytes[i + 5] = UInt8(height >> 8); bytes[i + 6] = UInt8(height & 0xFF)
                bytes[i + 7] = UInt8(width >> 8); bytes[i + 8] = UInt8(width & 0xFF)
                return bytes
            }
            i += 2 + length
        }
        preconditionFailure("the encoder's JPEG has no frame header")
    }
}

/// Builds Y4M files in memory.
public enum Y4M {
    /// A header plus `frames`, each already in the planar layout of `colorspace`.
    public static func file(width: Int, height: Int, fps: String = "30:1", colorspace: String? = "420jpeg",
                            extra: String = "", frames: [[UInt8]]) -> [UInt8] {
        var header = "YUV4MPEG2 W\(width) H\(height) F\(fps) Ip A1:1"
        if let colorspace { header += " C\(colorspace)" }
        if !extra.isEmpty { header += " " + extra }
        var bytes = Array((header + "\n").utf8)
        for frame in frames {
            bytes += Array("FRAME\n".utf8)
            bytes += frame
        }
        return bytes
    }

    /// A 4:2:0 frame whose Y, Cb, Cr planes are constant, with the frame index in the first luma byte.
    public static func flatFrame420(width: Int, height: Int, y: UInt8, cb: UInt8, cr: UInt8) -> [UInt8] {
        let chroma = ((width + 1) / 2) * ((height + 1) / 2)
        return [UInt8](repeating: y, count: width * height) + [UInt8](repeating: cb, count: chroma)
            + [UInt8](repeating: cr, count: chroma)
    }
}

/// A file in a fresh temporary directory, removed by `cleanUp()`.
public struct TemporaryFile: Sendable {
    public let url: URL
    public var path: String { url.path }

    public init(named name: String, contents: [UInt8]) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("circadify-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        url = dir.appendingPathComponent(name)
        try Data(contents).write(to: url)
    }

    public func cleanUp() { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
}
