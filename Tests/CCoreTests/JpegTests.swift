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

    @Test func scaleFollowsTheSmallestRegion() {
        // 1280 px wide, ROI 10% wide = 128 px: 1/8 leaves 16 px.
        #expect(ccore_jpeg_choose_scale(1280, 0.1, 16) == 8)
        #expect(ccore_jpeg_choose_scale(1280, 0.1, 32) == 4)
        #expect(ccore_jpeg_choose_scale(640, 0.05, 16) == 2)
        #expect(ccore_jpeg_choose_scale(640, 0.02, 16) == 1)
        #expect(ccore_jpeg_choose_scale(640, 0, 16) == 1)
    }
}
