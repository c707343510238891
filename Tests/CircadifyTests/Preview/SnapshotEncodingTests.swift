import CCore
import Foundation
import Testing
@testable import Circadify

/// The snapshots decode back to the picture: JPEG through the core's decoder,
/// PNG read chunk by chunk (CRCs checked, stored deflate blocks inflated).
@Suite struct SnapshotEncodingTests {
    let frame = OverlayRenderer(style: CircadifyScanStyle())
        .render(PreviewFixtures.halves(), mirrored: false, face: PreviewFixtures.face, guide: true, scanning: true, time: 1)

    @Test func aJPEGDecodesToThePictureAtItsSize() throws {
        let encoder = JPEGEncoder()
        let jpeg = try encoder.encode(frame, quality: 90)
        #expect(jpeg.starts(with: [0xFF, 0xD8]) && jpeg.suffix(2) == Data([0xFF, 0xD9]))
        let again = try encoder.encode(frame, quality: 90)
        #expect(again == jpeg, "the reused buffer gives the same bytes")
        var decoder: OpaquePointer?
        #expect(ccore_jpeg_create(640, 480, &decoder) == 0)
        defer { ccore_jpeg_destroy(decoder) }
        var image = ccore_image()
        let rc = jpeg.withUnsafeBytes { ccore_jpeg_decode(decoder, $0.bindMemory(to: UInt8.self).baseAddress, jpeg.count, 1, &image) }
        #expect(rc == 0)
        #expect(image.width == 640 && image.height == 480)
        // Luma where the picture is flat (red half, blue half, the glow's peak) within JPEG's error.
        for (x, y) in [(40, 40), (600, 440), PreviewFixtures.pixel(PreviewFixtures.face.forehead)] {
            let c = frame.pixel(x: x, y: y)!
            let luma = 0.299 * Double(c.r) + 0.587 * Double(c.g) + 0.114 * Double(c.b)
            let decoded = Double(image.plane0[y * Int(image.stride0) + x])
            #expect(abs(decoded - luma) < 10, "(\(x), \(y)): \(decoded) vs \(luma)")
        }
    }

    @Test func aLargerPictureAfterASmallerOneIsEncodedWhole() throws {
        let encoder = JPEGEncoder()
        let small = OverlayRenderer(style: CircadifyScanStyle())
            .render(PreviewFixtures.grey(width: 64, height: 48), mirrored: false, face: nil, guide: true, scanning: false, time: 0)
        _ = try encoder.encode(small, quality: 80)
        let big = try encoder.encode(frame, quality: 80)
        var decoder: OpaquePointer?
        #expect(ccore_jpeg_create(640, 480, &decoder) == 0)
        defer { ccore_jpeg_destroy(decoder) }
        var width: UInt32 = 0, height: UInt32 = 0
        let rc = big.withUnsafeBytes { ccore_jpeg_peek_size(decoder, $0.bindMemory(to: UInt8.self).baseAddress, big.count, &width, &height) }
        #expect(rc == 0 && width == 640 && height == 480)
    }

    @Test func anEmptyPictureIsRefusedNotEncoded() {
        let empty = CircadifyPreviewFrame(width: 0, height: 0, pixels: [], timestamp: 0)
        #expect(throws: CoreError.self) { try JPEGEncoder().encode(empty, quality: 80) }
    }

    @Test func aPNGHoldsThePictureExactly() throws {
        let png = PNGEncoder.encode(frame)
        let decoded = try PNGReader.read(png)
        #expect(decoded.width == 640 && decoded.height == 480)
        #expect(decoded.pixels == frame.pixels)
    }

    @Test func aDamagedPNGIsCaught() throws {
        var png = PNGEncoder.encode(frame)
        png[png.count / 2] ^= 0x40
        #expect(throws: PNGReader.Failure.self) { try PNGReader.read(png) }
    }
}

/// Just enough of a PNG reader to check the writer: signature, chunk CRCs,
/// IHDR, stored deflate blocks with their length checks, Adler-32, filter 0.
enum PNGReader {
    struct Failure: Error, CustomStringConvertible { let description: String }

    static func read(_ data: Data) throws -> (width: Int, height: Int, pixels: [UInt8]) {
        let bytes = [UInt8](data)
        guard bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else { throw Failure(description: "signature") }
        func u32(_ at: Int) -> Int { Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3]) }
        var offset = 8
        var width = 0, height = 0
        var idat = [UInt8]()
        var types = [String]()
        while offset + 12 <= bytes.count {
            let length = u32(offset)
            guard offset + 12 + length <= bytes.count else { throw Failure(description: "truncated chunk") }
            let typed = bytes[offset + 4 ..< offset + 8 + length]
            guard PNGEncoder.crc32(typed) == UInt32(u32(offset + 8 + length)) else { throw Failure(description: "CRC") }
            let type = String(decoding: bytes[offset + 4 ..< offset + 8], as: UTF8.self)
            types.append(type)
            let body = Array(bytes[offset + 8 ..< offset + 8 + length])
            if type == "IHDR" {
                width = u32(offset + 8)
                height = u32(offset + 12)
                guard body[8...] == [8, 6, 0, 0, 0] else { throw Failure(description: "IHDR \(body)") }
            } else if type == "IDAT" {
                idat += body
            }
            offset += 12 + length
        }
        guard types.first == "IHDR", types.last == "IEND", offset == bytes.count else { throw Failure(description: "chunks \(types)") }
        // zlib: header, stored blocks, Adler-32.
        guard idat.count >= 6, (Int(idat[0]) << 8 | Int(idat[1])) % 31 == 0, idat[0] & 0x0F == 8 else { throw Failure(description: "zlib header") }
        var raw = [UInt8]()
        var at = 2
        while true {
            guard at + 5 <= idat.count else { throw Failure(description: "truncated block") }
            let header = idat[at]
            guard header & 0x06 == 0 else { throw Failure(description: "not a stored block") }
            let len = Int(idat[at + 1]) | Int(idat[at + 2]) << 8, nlen = Int(idat[at + 3]) | Int(idat[at + 4]) << 8
            guard len == ~nlen & 0xFFFF, at + 5 + len <= idat.count else { throw Failure(description: "block length") }
            raw += idat[at + 5 ..< at + 5 + len]
            at += 5 + len
            if header & 1 == 1 { break }
        }
        guard at + 4 == idat.count else { throw Failure(description: "trailing data") }
        let adler = UInt32(idat[at]) << 24 | UInt32(idat[at + 1]) << 16 | UInt32(idat[at + 2]) << 8 | UInt32(idat[at + 3])
        guard adler == PNGEncoder.adler32(raw) else { throw Failure(description: "Adler-32") }
        let row = width * 4
        guard raw.count == (row + 1) * height else { throw Failure(description: "size") }
        var pixels = [UInt8]()
        for y in 0..<height {
            guard raw[y * (row + 1)] == 0 else { throw Failure(description: "filter") }
            pixels += raw[y * (row + 1) + 1 ..< (y + 1) * (row + 1)]
        }
        return (width, height, pixels)
    }
}
