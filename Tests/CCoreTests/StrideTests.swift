import CCore
import CCoreTestSupport
import Foundation
import Testing

/// Padded rows, as ISP drivers deliver them: every format in V4L2's one-buffer layout
/// with a `bytesperline` longer than a row, the padding filled with bytes that would
/// show in any mean that read them. The kernels must see exactly the packed frame.
@Suite struct StrideTests {
    /// One plane of a layout: where it starts, its row length in bytes, its rows, its stride.
    struct Plane { var offset: Int; var rowBytes: Int; var rows: Int; var stride: Int }

    /// The planes of a frame, packed (stride = row) or in V4L2's padded one-buffer layout.
    static func planes(_ format: ccore_pixel_format, width w: Int, height h: Int, bytesPerLine: Int?) -> [Plane] {
        let hw = (w + 1) / 2, hh = (h + 1) / 2
        let lumaRow: Int
        switch format {
        case CCORE_PIXEL_YUYV: lumaRow = 2 * w
        case CCORE_PIXEL_RGB24: lumaRow = 3 * w
        default: lumaRow = w
        }
        let bpl = bytesPerLine ?? lumaRow
        // Chroma row bytes and rows, and the chroma stride V4L2 derives from the luma's.
        let chroma: (row: Int, rows: Int, count: Int, stride: Int)?
        switch format {
        case CCORE_PIXEL_NV12: chroma = (2 * hw, hh, 1, bytesPerLine ?? 2 * hw)
        case CCORE_PIXEL_YUV420: chroma = (hw, hh, 2, bytesPerLine.map { $0 / 2 } ?? hw)
        case CCORE_PIXEL_YUV422P: chroma = (hw, h, 2, bytesPerLine.map { $0 / 2 } ?? hw)
        case CCORE_PIXEL_YUV444P: chroma = (w, h, 2, bytesPerLine ?? w)
        default: chroma = nil
        }
        var result = [Plane(offset: 0, rowBytes: lumaRow, rows: h, stride: bpl)]
        var offset = bpl * h
        if let c = chroma {
            for _ in 0..<c.count {
                result.append(Plane(offset: offset, rowBytes: c.row, rows: c.rows, stride: c.stride))
                offset += c.stride * c.rows
            }
        }
        return result
    }

    /// The packed frame's bytes re-laid with `bytesPerLine`, padding bytes set to `junk`.
    static func padded(_ frame: TestFrame, bytesPerLine: Int, junk: UInt8 = 255) -> [UInt8] {
        let src = planes(frame.format, width: frame.width, height: frame.height, bytesPerLine: nil)
        let dst = planes(frame.format, width: frame.width, height: frame.height, bytesPerLine: bytesPerLine)
        let last = dst[dst.count - 1]
        var out = [UInt8](repeating: junk, count: last.offset + last.stride * last.rows)
        for (s, d) in zip(src, dst) {
            for row in 0..<s.rows {
                let from = s.offset + row * s.stride, to = d.offset + row * d.stride
                out.replaceSubrange(to..<(to + s.rowBytes), with: frame.bytes[from..<(from + s.rowBytes)])
            }
        }
        return out
    }

    /// A padding that keeps the chroma strides of the halved formats whole (bytesperline even).
    static func bytesPerLine(_ format: ccore_pixel_format, width: Int, pad: Int) -> Int {
        let row = planes(format, width: width, height: 2, bytesPerLine: nil)[0].rowBytes
        let bpl = row + pad
        return bpl % 2 == 0 ? bpl : bpl + 1
    }

    @Test(arguments: RoiKernelTests.formats)
    func paddedPlanesMeasureLikeThePerPixelReference(format: ccore_pixel_format) throws {
        var rng = SeededRandom(seed: UInt64(format.rawValue) * 104_729)
        for (i, size) in [(64, 48), (50, 38), (160, 120)].enumerated() {
            let frame = TestFrame.random(format: format, width: size.0, height: size.1, seed: UInt64(i) + 41)
            let bpl = Self.bytesPerLine(format, width: size.0, pad: [36, 64, 7][i])
            let bytes = Self.padded(frame, bytesPerLine: bpl)
            let expectedSize = ccore_image_strided_size(format, UInt32(size.0), UInt32(size.1), UInt32(bpl))
            #expect(Int(expectedSize) == bytes.count, "\(ccore_pixel_format_name(format)!) strided size")
            let rects = RoiKernelTests.randomRects(&rng)
            let range = i % 2 == 0 ? CCORE_RANGE_LIMITED : CCORE_RANGE_FULL
            var set = ccore_roi_set()
            set.count = UInt32(rects.count)
            set.skin = ccore_skin_bounds_default()
            withUnsafeMutableBytes(of: &set.rects) { raw in
                for (k, r) in rects.enumerated() { raw.bindMemory(to: ccore_rect.self)[k] = r }
            }
            var stats = [ccore_roi_stats](repeating: ccore_roi_stats(), count: Int(CCORE_MAX_ROIS))
            let rc = bytes.withUnsafeBufferPointer { buffer -> Int32 in
                var image = ccore_image()
                let wrapped = ccore_image_wrap_strided(&image, format, range, UInt32(size.0), UInt32(size.1),
                                                       buffer.baseAddress!, UInt32(bpl))
                #expect(wrapped == 0)
                return ccore_roi_measure(&image, &set, &stats)
            }
            #expect(rc == 0)
            for (k, rect) in rects.enumerated() {
                let ref = RoiKernelTests.reference(frame, rect, ccore_skin_bounds_default(), range: range)
                #expect(Int(stats[k].pixel_count) == ref.4, "pixel count, ROI \(k)")
                #expect(abs(Double(stats[k].skin_fraction) - ref.3) < 1e-5, "skin fraction, ROI \(k)")
                #expect(abs(Double(stats[k].r) - ref.0) < 0.01, "\(ccore_pixel_format_name(format)!) R, ROI \(k)")
                #expect(abs(Double(stats[k].g) - ref.1) < 0.01, "G, ROI \(k)")
                #expect(abs(Double(stats[k].b) - ref.2) < 0.01, "B, ROI \(k)")
            }
        }
    }

    /// The processor (ROI means, mean luma, thumbnail) gives the same sample for the
    /// padded frame as for the packed one.
    @Test(arguments: RoiKernelTests.formats)
    func processorSeesThePackedFrame(format: ccore_pixel_format) throws {
        let w = 96, h = 72
        let frame = TestFrame.random(format: format, width: w, height: h, seed: 7)
        let bytes = Self.padded(frame, bytesPerLine: Self.bytesPerLine(format, width: w, pad: 64))
        let bpl = Self.bytesPerLine(format, width: w, pad: 64)
        func run(_ image: ccore_image) throws -> (ccore_frame_sample, [UInt8]) {
            let proc = try ProcessorTests.make(format: format, width: w, height: h, thumbnailEvery: 1)
            defer { ccore_processor_destroy(proc) }
            ProcessorTests.setRegions(proc, [ccore_rect(x: 0.1, y: 0.2, width: 0.5, height: 0.6),
                                             ccore_rect(x: 0.55, y: 0.05, width: 0.4, height: 0.9)])
            var f = ccore_frame()
            f.sequence = 1
            f.timestamp_ns = 1_000
            f.image = image
            var sample = ccore_frame_sample()
            #expect(ccore_processor_process(proc, &f, &sample) == 1)
            var thumb = [UInt8](repeating: 0, count: 16 * 12)
            #expect(ccore_processor_take_thumbnail(proc, &thumb, UInt32(thumb.count), nil, nil, nil) == 1)
            return (sample, thumb)
        }
        let packed = try frame.withImage { try run($0.pointee) }
        let strided = try bytes.withUnsafeBufferPointer { buffer in
            var image = ccore_image()
            #expect(ccore_image_wrap_strided(&image, format, CCORE_RANGE_LIMITED, UInt32(w), UInt32(h),
                                             buffer.baseAddress!, UInt32(bpl)) == 0)
            return try run(image)
        }
        let name = ccore_pixel_format_name(format).map { String(cString: $0) } ?? "?"
        #expect(strided.1 == packed.1, "\(name): thumbnail")
        #expect(strided.0.mean_luma == packed.0.mean_luma, "\(name): mean luma")
        for (a, b) in [(strided.0.rois.0, packed.0.rois.0), (strided.0.rois.1, packed.0.rois.1)] {
            #expect(a.r == b.r && a.g == b.g && a.b == b.b && a.pixel_count == b.pixel_count, "\(name): ROI means")
        }
    }

    @Test func stridesShorterThanARowAreRefused() {
        var image = ccore_image()
        let bytes = [UInt8](repeating: 0, count: 64 * 48 * 3)
        bytes.withUnsafeBufferPointer { buffer in
            let p = buffer.baseAddress!
            #expect(ccore_image_wrap_strided(&image, CCORE_PIXEL_YUYV, CCORE_RANGE_LIMITED, 64, 48, p, 127) == -EINVAL)
            #expect(ccore_image_wrap_strided(&image, CCORE_PIXEL_RGB24, CCORE_RANGE_FULL, 64, 48, p, 191) == -EINVAL)
            #expect(ccore_image_wrap_strided(&image, CCORE_PIXEL_NV12, CCORE_RANGE_LIMITED, 64, 48, p, 63) == -EINVAL)
            // YUV420's chroma stride is half the luma's: 65 leaves 32 for 32 chroma bytes, 64 is fine.
            #expect(ccore_image_wrap_strided(&image, CCORE_PIXEL_YUV420, CCORE_RANGE_LIMITED, 64, 48, p, 65) == 0)
            #expect(ccore_image_wrap_strided(&image, CCORE_PIXEL_YUV420, CCORE_RANGE_LIMITED, 65, 48, p, 65) == -EINVAL)
            #expect(ccore_image_wrap_strided(&image, CCORE_PIXEL_NONE, CCORE_RANGE_LIMITED, 64, 48, p, 64) == -EINVAL)
            #expect(ccore_image_wrap_strided(nil, CCORE_PIXEL_GRAY, CCORE_RANGE_LIMITED, 64, 48, p, 64) == -EINVAL)
        }
        #expect(ccore_image_strided_size(CCORE_PIXEL_YUYV, 64, 48, 100) == 0)
        // 0 means packed: the packed frame size.
        #expect(ccore_image_strided_size(CCORE_PIXEL_NV12, 64, 48, 0) == ccore_pixel_format_frame_size(CCORE_PIXEL_NV12, 64, 48))
        #expect(ccore_image_strided_size(CCORE_PIXEL_NV12, 64, 48, 128) == 128 * 48 + 128 * 24)
    }

    /// YUYV's pixels come in pairs that share U and V: at an odd width the last pixel's
    /// pair, and its V, would lie past the row, so no call builds or reads such a frame.
    @Test func yuyvAtAnOddWidthIsRefused() {
        var image = ccore_image()
        let bytes = [UInt8](repeating: 128, count: 8 * 4 * 2)
        bytes.withUnsafeBufferPointer { buffer in
            let p = buffer.baseAddress!
            #expect(ccore_image_wrap_packed(&image, CCORE_PIXEL_YUYV, CCORE_RANGE_LIMITED, 7, 4, p) == -EINVAL)
            #expect(ccore_image_wrap_strided(&image, CCORE_PIXEL_YUYV, CCORE_RANGE_LIMITED, 7, 4, p, 16) == -EINVAL)
            #expect(ccore_image_strided_size(CCORE_PIXEL_YUYV, 7, 4, 16) == 0)
            #expect(ccore_pixel_format_frame_size(CCORE_PIXEL_YUYV, 7, 4) == 0)
            // A view built by hand reaches the kernels all the same: they refuse it too.
            image = ccore_image()
            image.format = CCORE_PIXEL_YUYV
            image.range = CCORE_RANGE_LIMITED
            image.width = 7
            image.height = 4
            image.plane0 = p
            image.stride0 = 14
            var rois = ccore_roi_set()
            rois.count = 1
            rois.skin = ccore_skin_bounds_all()
            rois.rects.0 = ccore_rect(x: 0, y: 0, width: 1, height: 1)
            var stats = ccore_roi_stats()
            #expect(ccore_roi_measure(&image, &rois, &stats) == -EINVAL)
            var rgb = [UInt8](repeating: 0, count: 7 * 4 * 3)
            #expect(ccore_image_rgb_preview(&image, &rgb, 7, 4) == -EINVAL)
            var luma = [UInt8](repeating: 0, count: 7 * 4)
            #expect(ccore_image_luma_thumbnail(&image, &luma, 7, 4) == -EINVAL)
            var jpeg: UnsafeMutablePointer<UInt8>?
            var jpegSize = 0
            #expect(ccore_jpeg_encode(&image, 90, &jpeg, &jpegSize) == -EINVAL && jpeg == nil)
            // The even width beside it is read.
            #expect(ccore_image_wrap_packed(&image, CCORE_PIXEL_YUYV, CCORE_RANGE_LIMITED, 8, 4, p) == 0)
            #expect(ccore_roi_measure(&image, &rois, &stats) == 0 && stats.pixel_count == 32)
        }
    }

    /// Rows packed (bytes per line 0) at an odd width: each chroma row is as long as it
    /// needs ((w + 1) / 2 bytes), not half of a luma row, which is one byte short.
    @Test func packedPlanarFramesAtAnOddWidth() {
        let w: UInt32 = 5, h: UInt32 = 4
        for format in [CCORE_PIXEL_YUV420, CCORE_PIXEL_YUV422P, CCORE_PIXEL_NV12] {
            let size = ccore_pixel_format_frame_size(format, w, h)
            #expect(ccore_image_strided_size(format, w, h, 0) == size)
            let bytes = [UInt8](repeating: 128, count: Int(size))
            bytes.withUnsafeBufferPointer { buffer in
                var strided = ccore_image(), packed = ccore_image()
                #expect(ccore_image_wrap_strided(&strided, format, CCORE_RANGE_LIMITED, w, h, buffer.baseAddress!, 0) == 0)
                #expect(ccore_image_wrap_packed(&packed, format, CCORE_RANGE_LIMITED, w, h, buffer.baseAddress!) == 0)
                #expect(strided.stride1 == packed.stride1 && strided.plane2 == packed.plane2)
            }
        }
    }
}
