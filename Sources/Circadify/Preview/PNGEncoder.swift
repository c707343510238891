import Foundation

/// A small PNG writer for snapshots: 8-bit RGBA, no filtering, the image data
/// in stored (uncompressed) deflate blocks inside a zlib stream. Files are the
/// size of the pixels, and it needs no compression library.
package enum PNGEncoder {
    package static func encode(_ frame: CircadifyPreviewFrame) -> Data {
        var png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        var header = Data()
        header.appendBigEndian(UInt32(frame.width))
        header.appendBigEndian(UInt32(frame.height))
        header.append(contentsOf: [8, 6, 0, 0, 0]) // 8 bits, RGBA, deflate, filter method 0, no interlace
        appendChunk("IHDR", header, to: &png)
        appendChunk("IDAT", zlibStored(scanlines(frame)), to: &png)
        appendChunk("IEND", Data(), to: &png)
        return png
    }

    /// Each row preceded by its filter type, 0 (none).
    private static func scanlines(_ frame: CircadifyPreviewFrame) -> [UInt8] {
        let row = frame.width * 4
        var out = [UInt8]()
        out.reserveCapacity((row + 1) * frame.height)
        for y in 0..<frame.height {
            out.append(0)
            out.append(contentsOf: frame.pixels[y * frame.stride ..< y * frame.stride + row])
        }
        return out
    }

    /// A zlib stream of stored blocks (at most 65535 bytes each) with its Adler-32.
    private static func zlibStored(_ bytes: [UInt8]) -> Data {
        var out = Data([0x78, 0x01]) // deflate, 32K window; 0x7801 is a multiple of 31
        var offset = 0
        repeat {
            let count = min(65535, bytes.count - offset)
            let last: UInt8 = offset + count == bytes.count ? 1 : 0
            out.append(last) // BFINAL, BTYPE 00 (stored)
            out.append(contentsOf: [UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)])
            out.append(contentsOf: bytes[offset ..< offset + count])
            offset += count
        } while offset < bytes.count
        out.appendBigEndian(adler32(bytes))
        return out
    }

    private static func appendChunk(_ type: String, _ body: Data, to png: inout Data) {
        png.appendBigEndian(UInt32(body.count))
        var typed = Data(type.utf8)
        typed.append(body)
        png.append(typed)
        png.appendBigEndian(crc32(typed))
    }

    package static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1, b: UInt32 = 0
        var index = 0
        while index < bytes.count {
            // 5552 bytes keep the sums under 2^32 before the modulo (zlib's NMAX).
            let end = min(index + 5552, bytes.count)
            for byte in bytes[index..<end] {
                a += UInt32(byte)
                b += a
            }
            a %= 65521
            b %= 65521
            index = end
        }
        return b << 16 | a
    }

    private static let crcTable: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    package static func crc32<Bytes: Sequence>(_ bytes: Bytes) -> UInt32 where Bytes.Element == UInt8 {
        var c: UInt32 = 0xFFFF_FFFF
        for byte in bytes { c = crcTable[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }
}

extension Data {
    fileprivate mutating func appendBigEndian(_ value: UInt32) {
        append(contentsOf: [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)])
    }
}
