import CCore
import CCoreTestSupport
import Glibc
import Testing

/// The preview's size and period changed at run time (`ccore_processor_set_preview_shape`):
/// the full picture every frame for the preview renderer, a small one every 3rd for imageOutput.
@Suite struct PreviewShapeTests {
    static func make() throws -> OpaquePointer {
        var config = ccore_processor_config()
        config.pixel_format = CCORE_PIXEL_YUYV
        config.width = 64
        config.height = 48
        config.frame_interval_ns = ProcessorTests.interval
        config.preview_width = 64
        config.preview_height = 48
        config.preview_every = 3
        var raw: OpaquePointer?
        #expect(ccore_processor_create(&config, &raw) == 0)
        return try #require(raw)
    }

    /// Frames 0..<count; the sequences whose preview was published, and the last one's size.
    static func run(_ proc: OpaquePointer, _ frame: TestFrame, from start: Int, count: Int)
        -> (published: [UInt64], width: UInt32, height: UInt32, pixels: [UInt8]) {
        var published = [UInt64]()
        var pixels = [UInt8](repeating: 0, count: 64 * 48 * 3)
        var w: UInt32 = 0, h: UInt32 = 0, seq: UInt64 = 0
        for i in start..<(start + count) {
            _ = ProcessorTests.process(proc, frame, sequence: UInt64(i), timestamp: Int64(i) * ProcessorTests.interval)
            if ccore_processor_take_preview(proc, &pixels, UInt32(pixels.count), &w, &h, &seq) == 1 { published.append(seq) }
        }
        return (published, w, h, Array(pixels.prefix(Int(w * h * 3))))
    }

    @Test func theShapeChangesFromTheNextFrame() throws {
        let proc = try Self.make()
        defer { ccore_processor_destroy(proc) }
        let frame = TestFrame.random(format: CCORE_PIXEL_YUYV, width: 64, height: 48, seed: 4)
        ccore_processor_set_preview(proc, 1)
        let configured = Self.run(proc, frame, from: 0, count: 6)
        #expect(configured.published == [0, 3] && configured.width == 64 && configured.height == 48)
        #expect(ccore_processor_set_preview_shape(proc, 32, 24, 1) == 0)
        let small = Self.run(proc, frame, from: 6, count: 3)
        #expect(small.published == [6, 7, 8] && small.width == 32 && small.height == 24)
        var expected = [UInt8](repeating: 0, count: 32 * 24 * 3)
        _ = frame.withImage { ccore_image_rgb_preview($0, &expected, 32, 24) }
        #expect(small.pixels == expected, "the picture a 32x24 preview of the frame is")
    }

    /// The capture thread copies the planes, the reader converts: the picture is the
    /// one drawn straight from the frame, in every format.
    @Test(arguments: RoiKernelTests.formats)
    func theReaderDrawsWhatTheFrameShows(format: ccore_pixel_format) throws {
        var config = ccore_processor_config()
        config.pixel_format = format
        config.width = 64
        config.height = 48
        config.preview_width = 64
        config.preview_height = 48
        config.preview_every = 1
        var raw: OpaquePointer?
        #expect(ccore_processor_create(&config, &raw) == 0)
        let proc = try #require(raw)
        defer { ccore_processor_destroy(proc) }
        ccore_processor_set_preview(proc, 1)
        let frame = TestFrame.random(format: format, width: 64, height: 48, seed: 11)
        for (w, h) in [(64, 48), (40, 30)] {
            #expect(ccore_processor_set_preview_shape(proc, UInt32(w), UInt32(h), 1) == 0)
            let shown = Self.run(proc, frame, from: 0, count: 1)
            var expected = [UInt8](repeating: 0, count: w * h * 3)
            _ = frame.withImage { ccore_image_rgb_preview($0, &expected, UInt32(w), UInt32(h)) }
            #expect(shown.width == UInt32(w) && shown.height == UInt32(h) && shown.pixels == expected, "\(w)x\(h)")
        }
    }

    @Test func shapesBeyondTheMailboxOrZeroAreRefused() throws {
        let proc = try Self.make()
        defer { ccore_processor_destroy(proc) }
        #expect(ccore_processor_set_preview_shape(proc, 65, 48, 1) == -E2BIG)
        #expect(ccore_processor_set_preview_shape(proc, 64, 49, 1) == -E2BIG)
        #expect(ccore_processor_set_preview_shape(proc, 0, 48, 1) == -EINVAL)
        #expect(ccore_processor_set_preview_shape(proc, 64, 48, 0) == -EINVAL)
        #expect(ccore_processor_set_preview_shape(nil, 64, 48, 1) == -EINVAL)
        var config = ccore_processor_config()
        config.pixel_format = CCORE_PIXEL_YUYV
        config.width = 64
        config.height = 48
        var none: OpaquePointer?
        #expect(ccore_processor_create(&config, &none) == 0)
        defer { ccore_processor_destroy(none) }
        #expect(ccore_processor_set_preview_shape(none, 32, 24, 1) == -EINVAL, "no preview at create, none later")
    }

    @Test func theEncoderRefusesBadPicturesAndAllocatesOnlyAtCreate() {
        var encoder: OpaquePointer?
        #expect(ccore_jpeg_encoder_create(0, 48, &encoder) == -EINVAL)
        #expect(ccore_jpeg_encoder_create(100_000, 48, &encoder) == -E2BIG)
        #expect(ccore_jpeg_encoder_create(64, 48, &encoder) == 0)
        defer { ccore_jpeg_encoder_destroy(encoder) }
        let rgba = [UInt8](repeating: 128, count: 64 * 48 * 4)
        var out: UnsafePointer<UInt8>?
        var size = 0
        #expect(ccore_jpeg_encoder_encode(encoder, rgba, 65, 48, 65 * 4, 4, 80, &out, &size) == -E2BIG)
        #expect(ccore_jpeg_encoder_encode(encoder, rgba, 64, 48, 64 * 4 - 1, 4, 80, &out, &size) == -EINVAL)
        #expect(ccore_jpeg_encoder_encode(encoder, rgba, 64, 48, 64 * 4, 2, 80, &out, &size) == -EINVAL)
        #expect(ccore_jpeg_encoder_encode(encoder, rgba, 64, 48, 64 * 4, 4, 0, &out, &size) == -EINVAL)
        #expect(ccore_jpeg_encoder_encode(encoder, rgba, 64, 48, 64 * 4, 4, 80, &out, &size) == 0)
        let first = out
        #expect(size > 100)
        #expect(ccore_jpeg_encoder_encode(encoder, rgba, 32, 24, 64 * 4, 4, 80, &out, &size) == 0)
        #expect(out == first, "every picture goes to the same buffer")
    }
}
