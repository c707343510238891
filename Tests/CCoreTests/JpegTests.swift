import CCore
import Foundation
import CCoreTestSupport
import Testing

@Suite struct JpegTests {
    static let width = 320, height = 240

    static func decoder() throws -> OpaquePointer {
        var raw: OpaquePointer?
        #expect(ccore_jpeg_create(UInt32(width), UInt32(height), &raw) == 0)
        return try #require(raw)
    }

    /// Mean of a plane over a normalized rectangle.
    static func planeMean(_ base: UnsafePointer<UInt8>, stride: UInt32, width: Int, height: Int,
                          rect: (Double, Double, Double, Double)) -> Double {
        let x0 = Int(rect.0 * Double(width)), y0 = Int(rect.1 * Double(height))
        let x1 = Int((rect.0 + rect.2) * Double(width)), y1 = Int((rect.1 + rect.3) * Double(height))
        var sum = 0
        for y in y0..<y1 { for x in x0..<x1 { sum += Int(base[y * Int(stride) + x]) } }
        return Double(sum) / Double((x1 - x0) * (y1 - y0))
    }

    @Test(arguments: [UInt32(1), 2, 4, 8])
    func decodesAtEveryScaleWithTheSameMeans(scale: UInt32) throws {
        let rgb = TestScenes.faceRGB(width: Self.width, height: Self.height)
        let jpeg = TestScenes.jpeg(rgb: rgb, width: Self.width, height: Self.height, quality: 95)
        let dec = try Self.decoder()
        defer { ccore_jpeg_destroy(dec) }
        var full = ccore_image(), scaled = ccore_image()
        #expect(ccore_jpeg_decode(dec, jpeg, jpeg.count, 1, &full) == 0)
        let forehead = (0.42, 0.22, 0.16, 0.08)
        let fullMean = Self.planeMean(full.plane0, stride: full.stride0, width: Self.width, height: Self.height,
                                      rect: forehead)
        #expect(ccore_jpeg_decode(dec, jpeg, jpeg.count, scale, &scaled) == 0)
        #expect(scaled.width == (UInt32(Self.width) + scale - 1) / scale)
        #expect(scaled.height == (UInt32(Self.height) + scale - 1) / scale)
        #expect(scaled.format == CCORE_PIXEL_YUV420, "4:2:0 JPEG decodes to 4:2:0 planes")
        #expect(scaled.range == CCORE_RANGE_FULL)
        let mean = Self.planeMean(scaled.plane0, stride: scaled.stride0, width: Int(scaled.width),
                                  height: Int(scaled.height), rect: forehead)
        #expect(abs(mean - fullMean) < 1.5, "scaled decode keeps the ROI's mean luma")
        // The face's luma: 0.299*196 + 0.587*142 + 0.114*112, shaded by at most 15%.
        #expect(mean > 120 && mean < 160)
    }

    @Test func corruptAndTruncatedDataAreErrorsNotCrashes() throws {
        let rgb = TestScenes.faceRGB(width: Self.width, height: Self.height)
        let jpeg = TestScenes.jpeg(rgb: rgb, width: Self.width, height: Self.height)
        let dec = try Self.decoder()
        defer { ccore_jpeg_destroy(dec) }
        var image = ccore_image()
        let truncated = Array(jpeg.prefix(jpeg.count / 2))
        #expect(ccore_jpeg_decode(dec, truncated, truncated.count, 2, &image) == CCORE_E_CORRUPT)
        #expect(!String(cString: ccore_jpeg_error_message(dec)).isEmpty)
        let garbage = [UInt8](repeating: 0x5A, count: 1000)
        #expect(ccore_jpeg_decode(dec, garbage, garbage.count, 1, &image) == CCORE_E_CORRUPT)
        var headerOnly = Array(jpeg.prefix(20))
        headerOnly[0] = 0
        #expect(ccore_jpeg_decode(dec, headerOnly, headerOnly.count, 1, &image) == CCORE_E_CORRUPT)
        // Cut before the frame header: TurboJPEG answers success and gives no size.
        let noFrame: [UInt8] = [0xFF, 0xD8, 0xFF, 0x00, 0x12]
        #expect(ccore_jpeg_decode(dec, noFrame, noFrame.count, 1, &image) == CCORE_E_CORRUPT)
        var w: UInt32 = 7, h: UInt32 = 7
        #expect(ccore_jpeg_peek_size(dec, noFrame, noFrame.count, &w, &h) == CCORE_E_CORRUPT)
        #expect(w == 7 && h == 7, "a failed peek leaves the outputs alone")
        #expect(ccore_jpeg_decode(dec, jpeg, jpeg.count, 3, &image) == -EINVAL, "scale must be 1, 2, 4 or 8")
        // The decoder still works after failures.
        #expect(ccore_jpeg_decode(dec, jpeg, jpeg.count, 1, &image) == 0)
    }

    @Test func frameLargerThanTheDecoderIsRefused() throws {
        let rgb = TestScenes.faceRGB(width: 64, height: 48)
        let jpeg = TestScenes.jpeg(rgb: rgb, width: 64, height: 48)
        var raw: OpaquePointer?
        #expect(ccore_jpeg_create(32, 32, &raw) == 0)
        let dec = try #require(raw)
        defer { ccore_jpeg_destroy(dec) }
        var image = ccore_image()
        #expect(ccore_jpeg_decode(dec, jpeg, jpeg.count, 1, &image) == -Int32(E2BIG))
        var w: UInt32 = 0, h: UInt32 = 0
        #expect(ccore_jpeg_peek_size(dec, jpeg, jpeg.count, &w, &h) == 0)
        #expect(w == 64 && h == 48)
    }

    /// The decoder writes planes padded to the subsampling's block (a 1-pixel-wide 4:2:2
    /// frame has a 2-wide luma plane): a decoder sized exactly to the frame must hold them,
    /// for every subsampling, 1-pixel edge, odd size and scale. Under AddressSanitizer (the
    /// CI's sanitizer run) any write past the planes fails here.
    static let edgeSizes: [(Int, Int)] = [(1, 1), (1, 2), (2, 1), (1, 4000), (4001, 1), (3, 5), (17, 9), (33, 1),
                                          (1, 31), (15, 15), (63, 17)]
    static let decodable: [ccore_jpeg_subsampling] = [CCORE_JPEG_444, CCORE_JPEG_422, CCORE_JPEG_420, CCORE_JPEG_GRAY]

    @Test(arguments: decodable)
    func oddAndOnePixelFramesDecodeInsideTheirPlanes(subsampling: ccore_jpeg_subsampling) throws {
        // A flat colour, so every decoded pixel has a known value.
        let (r, g, b) = (200.0, 120.0, 80.0)
        let y = 0.299 * r + 0.587 * g + 0.114 * b
        let cb = 128 - 0.168736 * r - 0.331264 * g + 0.5 * b, cr = 128 + 0.5 * r - 0.418688 * g - 0.081312 * b
        let (hs, vs): (Int, Int) = switch subsampling {
        case CCORE_JPEG_422: (2, 1)
        case CCORE_JPEG_420: (2, 2)
        default: (1, 1)
        }
        for (width, height) in Self.edgeSizes {
            let rgb = [UInt8]((0..<width * height).flatMap { _ in [UInt8(r), UInt8(g), UInt8(b)] })
            let jpeg = TestScenes.jpeg(rgb: rgb, width: width, height: height, quality: 95, subsampling: subsampling)
            var raw: OpaquePointer?
            try #require(ccore_jpeg_create(UInt32(width), UInt32(height), &raw) == 0)
            let dec = try #require(raw)
            defer { ccore_jpeg_destroy(dec) }
            for scale in [UInt32(1), 2, 4, 8] {
                var image = ccore_image()
                let rc = ccore_jpeg_decode(dec, jpeg, jpeg.count, scale, &image)
                try #require(rc == 0, "\(width)x\(height) \(subsampling) 1/\(scale): \(rc) \(String(cString: ccore_jpeg_error_message(dec)))")
                let w = (width + Int(scale) - 1) / Int(scale), h = (height + Int(scale) - 1) / Int(scale)
                #expect(Int(image.width) == w && Int(image.height) == h)
                var worst = 0.0
                for row in 0..<h {
                    for x in 0..<w { worst = max(worst, abs(Double(image.plane0[row * Int(image.stride0) + x]) - y)) }
                }
                if subsampling != CCORE_JPEG_GRAY {
                    for row in 0..<(h + vs - 1) / vs {
                        for x in 0..<(w + hs - 1) / hs {
                            worst = max(worst, abs(Double(image.plane1[row * Int(image.stride1) + x]) - cb),
                                        abs(Double(image.plane2[row * Int(image.stride2) + x]) - cr))
                        }
                    }
                } else {
                    #expect(image.format == CCORE_PIXEL_GRAY && image.plane1 == nil)
                }
                #expect(worst <= 3, "\(width)x\(height) \(subsampling) 1/\(scale): off by \(worst)")
            }
        }
    }

    @Test(arguments: [CCORE_JPEG_440, CCORE_JPEG_411])
    func unsupportedSubsamplingIsRefusedAtEverySize(subsampling: ccore_jpeg_subsampling) throws {
        for (width, height) in Self.edgeSizes {
            let jpeg = TestScenes.jpeg(rgb: TestScenes.faceRGB(width: width, height: height), width: width,
                                       height: height, subsampling: subsampling)
            var raw: OpaquePointer?
            try #require(ccore_jpeg_create(UInt32(width), UInt32(height), &raw) == 0)
            let dec = try #require(raw)
            defer { ccore_jpeg_destroy(dec) }
            for scale in [UInt32(1), 2, 4, 8] {
                var image = ccore_image()
                #expect(ccore_jpeg_decode(dec, jpeg, jpeg.count, scale, &image) == CCORE_E_UNSUPPORTED)
                #expect(String(cString: ccore_jpeg_error_message(dec)).contains("not supported"))
            }
        }
    }

    @Test func framesBeyondTheSizeLimitAreRefusedBeforeAllocating() throws {
        #expect(ccore_frame_size_allowed(8192, 4882) == 1)
        #expect(ccore_frame_size_allowed(8192, 4883) == 0, "over 40 megapixels")
        #expect(ccore_frame_size_allowed(8193, 1) == 0)
        #expect(ccore_frame_size_allowed(0, 10) == 0)
        var raw: OpaquePointer?
        #expect(ccore_jpeg_create(16000, 16000, &raw) == -Int32(E2BIG))
        #expect(raw == nil)
        // A small decoder refuses a header claiming a huge frame, before decoding anything.
        let dec = try Self.decoder()
        defer { ccore_jpeg_destroy(dec) }
        let claim = TestScenes.jpegClaiming(width: 20000, height: 20000)
        var w: UInt32 = 0, h: UInt32 = 0
        #expect(ccore_jpeg_peek_size(dec, claim, claim.count, &w, &h) == 0)
        #expect(w == 20000 && h == 20000)
        var image = ccore_image()
        #expect(ccore_jpeg_decode(dec, claim, claim.count, 1, &image) == -Int32(E2BIG))
    }

    /// A tables-only JPEG (quantisation and Huffman tables, no frame) passes TurboJPEG's header
    /// call without a size: it used to leave the size and subsampling unset and decode into
    /// planes sized from stack garbage (found by fuzz_videofile).
    @Test func tablesOnlyJpegIsCorruptNotDecoded() throws {
        let jpeg = TestScenes.jpeg(rgb: TestScenes.faceRGB(width: 16, height: 16), width: 16, height: 16)
        var sof = 2
        while jpeg[sof + 1] != 0xC0 { sof += 2 + (Int(jpeg[sof + 2]) << 8 | Int(jpeg[sof + 3])) }
        let tables = Array(jpeg[..<sof]) + [0xFF, 0xD9]
        var raw: OpaquePointer?
        try #require(ccore_jpeg_create(1, 1, &raw) == 0)
        let dec = try #require(raw)
        defer { ccore_jpeg_destroy(dec) }
        var image = ccore_image(), w: UInt32 = 7, h: UInt32 = 7
        #expect(ccore_jpeg_decode(dec, tables, tables.count, 1, &image) == CCORE_E_CORRUPT)
        #expect(String(cString: ccore_jpeg_error_message(dec)).contains("no frame header"))
        #expect(ccore_jpeg_peek_size(dec, tables, tables.count, &w, &h) == CCORE_E_CORRUPT)
    }

    /// Many UVC cameras send MJPEG frames without a DHT segment: the stream relies on the standard
    /// Huffman tables of JPEG's Annex K (the AVI1 convention). Such a frame must decode exactly as
    /// the same frame with its tables, at every scale the camera path uses.
    @Test(arguments: [UInt32(1), 2])
    func uvcFramesWithoutHuffmanTablesDecodeAsWithThem(scale: UInt32) throws {
        let rgb = TestScenes.faceRGB(width: Self.width, height: Self.height)
        let jpeg = TestScenes.jpeg(rgb: rgb, width: Self.width, height: Self.height, quality: 90)
        let bare = try Self.withoutHuffmanTables(jpeg)
        #expect(bare.count < jpeg.count - 400, "the four standard tables are gone (\(jpeg.count) -> \(bare.count) bytes)")
        // A fresh decoder for each: libjpeg keeps the tables of the last image it read, so a
        // decoder that had seen the tables would pass without the standard ones.
        func fresh(_ data: [UInt8]) throws -> [[UInt8]] {
            let dec = try Self.decoder()
            defer { ccore_jpeg_destroy(dec) }
            return try Self.decodedPlanes(data, scale: scale, with: dec)
        }
        let without = try fresh(bare), withTables = try fresh(jpeg)
        #expect(withTables.count == 3 && withTables.allSatisfy { !$0.isEmpty })
        #expect(without == withTables)
    }

    /// A driver that leaves `bytesused` at the buffer's size (or 0, read as the whole buffer) hands
    /// over the frame with the rest of the buffer after its end-of-image marker: the frame decodes
    /// as it would alone.
    @Test func aFrameFollowedByTheRestOfItsBufferDecodesAsAlone() throws {
        let rgb = TestScenes.faceRGB(width: Self.width, height: Self.height)
        let jpeg = TestScenes.jpeg(rgb: rgb, width: Self.width, height: Self.height)
        let padded = jpeg + [UInt8](repeating: 0, count: 64 * 1024) + [0xFF, 0xD8, 0xFF]
        let dec = try Self.decoder()
        defer { ccore_jpeg_destroy(dec) }
        let alone = try Self.decodedPlanes(jpeg, with: dec)
        #expect(try Self.decodedPlanes(padded, with: dec) == alone)
    }

    /// The pixels of each plane `data` decodes to, row by row without the rows' padding.
    static func decodedPlanes(_ data: [UInt8], scale: UInt32 = 1, with dec: OpaquePointer) throws -> [[UInt8]] {
        var image = ccore_image()
        let rc = ccore_jpeg_decode(dec, data, data.count, scale, &image)
        try #require(rc == 0, "decode failed: \(String(cString: ccore_jpeg_error_message(dec)))")
        try #require(image.format == CCORE_PIXEL_YUV420, "a 4:2:0 JPEG")
        let chroma = (Int(image.width) + 1) / 2, chromaRows = (Int(image.height) + 1) / 2
        return [(image.plane0, image.stride0, Int(image.width), Int(image.height)),
                (image.plane1, image.stride1, chroma, chromaRows),
                (image.plane2, image.stride2, chroma, chromaRows)].map { base, stride, width, rows in
            guard let base else { return [] }
            return (0..<rows).flatMap { y in (0..<width).map { x in base[y * Int(stride) + x] } }
        }
    }

    /// `jpeg` with its DHT segments removed (everything before the scan is walked marker by marker).
    static func withoutHuffmanTables(_ jpeg: [UInt8]) throws -> [UInt8] {
        var out: [UInt8] = [0xFF, 0xD8]
        var at = 2
        while at + 4 <= jpeg.count {
            try #require(jpeg[at] == 0xFF, "a marker at \(at)")
            let marker = jpeg[at + 1]
            if marker == 0xDA { return out + jpeg[at...] }  // start of scan: the rest is entropy-coded data
            let length = Int(jpeg[at + 2]) << 8 | Int(jpeg[at + 3])
            if marker != 0xC4 { out += jpeg[at..<(at + 2 + length)] }
            at += 2 + length
        }
        Issue.record("no start of scan")
        return out
    }

    @Test func scaleFollowsTheSmallestRegion() {
        // 1280 px wide, ROI 10% wide = 128 px: 1/8 leaves 16 px.
        #expect(ccore_jpeg_choose_scale(1280, 0.1, 16) == 8)
        #expect(ccore_jpeg_choose_scale(1280, 0.1, 32) == 4)
        #expect(ccore_jpeg_choose_scale(640, 0.05, 16) == 2)
        #expect(ccore_jpeg_choose_scale(640, 0.02, 16) == 1)
        #expect(ccore_jpeg_choose_scale(640, 0, 16) == 1)
    }
}
