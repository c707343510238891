import CCore
import Foundation
import CCoreTestSupport
import Testing

/// The ROI kernels against a straightforward per-pixel reference: convert
/// every pixel, test the mask, average. Every pixel format, random frames,
/// random regions, both the skin mask and the all-pass mask.
@Suite struct RoiKernelTests {
    static let formats: [ccore_pixel_format] = [
        CCORE_PIXEL_YUYV, CCORE_PIXEL_NV12, CCORE_PIXEL_YUV420, CCORE_PIXEL_YUV422P, CCORE_PIXEL_YUV444P,
        CCORE_PIXEL_RGB24, CCORE_PIXEL_GRAY,
    ]

    /// Pixel box of a normalized rect, computed with the same float operations as the core.
    static func pixelBox(_ r: ccore_rect, width: Int, height: Int) -> (Int, Int, Int, Int) {
        func edge(_ v: Float, _ limit: Int) -> Int {
            v <= 0 ? 0 : v >= Float(limit) ? limit : Int(v.rounded(.toNearestOrEven))
        }
        let x0 = edge(r.x * Float(width), width), y0 = edge(r.y * Float(height), height)
        let x1 = max(x0, edge((r.x + r.width) * Float(width), width))
        let y1 = max(y0, edge((r.y + r.height) * Float(height), height))
        return (x0, y0, x1, y1)
    }

    static func inside(_ v: Int, _ lo: UInt8, _ hi: UInt8) -> Bool { v >= Int(lo) && v <= Int(hi) }

    /// Reference mean RGB and skin fraction of one ROI.
    static func reference(_ frame: TestFrame, _ rect: ccore_rect, _ s: ccore_skin_bounds,
                          range: ccore_color_range) -> (Double, Double, Double, Double, Int) {
        let (x0, y0, x1, y1) = pixelBox(rect, width: frame.width, height: frame.height)
        var sum = (0.0, 0.0, 0.0), skin = 0
        for y in y0..<y1 {
            for x in x0..<x1 {
                let (a, b, c) = frame.components(x: x, y: y)
                var rgb: (Double, Double, Double)
                var ycc: (Int, Int, Int)
                if frame.format == CCORE_PIXEL_RGB24 {
                    rgb = (Double(a), Double(b), Double(c))
                    // Full-range JFIF Y'CbCr in the same 8.8 fixed point as the core.
                    ycc = ((77 * a + 150 * b + 29 * c) >> 8, ((-43 * a - 85 * b + 128 * c) >> 8) + 128,
                           ((128 * a - 107 * b - 21 * c) >> 8) + 128)
                } else {
                    ycc = (a, b, c)
                    let u = Double(b) - 128, v = Double(c) - 128
                    if range == CCORE_RANGE_FULL {
                        rgb = (Double(a) + 1.402 * v, Double(a) - 0.344136 * u - 0.714136 * v, Double(a) + 1.772 * u)
                    } else {
                        let l = 1.164383 * (Double(a) - 16)
                        rgb = (l + 1.596027 * v, l - 0.391762 * u - 0.812968 * v, l + 2.017232 * u)
                    }
                }
                guard inside(ycc.0, s.y_min, s.y_max), inside(ycc.1, s.cb_min, s.cb_max),
                      inside(ycc.2, s.cr_min, s.cr_max) else { continue }
                sum.0 += rgb.0; sum.1 += rgb.1; sum.2 += rgb.2
                skin += 1
            }
        }
        let n = (x1 - x0) * (y1 - y0)
        guard skin > 0 else { return (0, 0, 0, 0, n) }
        return (sum.0 / Double(skin), sum.1 / Double(skin), sum.2 / Double(skin), Double(skin) / Double(n), n)
    }

    static func randomRects(_ rng: inout SeededRandom) -> [ccore_rect] {
        (0..<Int(CCORE_MAX_ROIS)).map { _ in
            let w = Float.random(in: 0.03...0.5, using: &rng), h = Float.random(in: 0.03...0.5, using: &rng)
            // Some rectangles poke out of the frame on purpose: they must be clipped.
            return ccore_rect(x: Float.random(in: -0.1...0.9, using: &rng), y: Float.random(in: -0.1...0.9, using: &rng),
                              width: w, height: h)
        }
    }

    static func measure(_ frame: TestFrame, _ rects: [ccore_rect], _ skin: ccore_skin_bounds,
                        range: ccore_color_range) -> [ccore_roi_stats] {
        var set = ccore_roi_set()
        set.count = UInt32(rects.count)
        set.skin = skin
        withUnsafeMutableBytes(of: &set.rects) { raw in
            for (i, r) in rects.enumerated() { raw.bindMemory(to: ccore_rect.self)[i] = r }
        }
        var stats = [ccore_roi_stats](repeating: ccore_roi_stats(), count: Int(CCORE_MAX_ROIS))
        let rc = frame.withImage(range: range) { ccore_roi_measure($0, &set, &stats) }
        #expect(rc == 0)
        return stats
    }

    @Test(arguments: formats)
    func roiMeansMatchThePerPixelReference(format: ccore_pixel_format) {
        var rng = SeededRandom(seed: UInt64(format.rawValue) * 7919)
        for (i, size) in [(64, 48), (50, 38), (160, 120)].enumerated() {
            let frame = TestFrame.random(format: format, width: size.0, height: size.1, seed: UInt64(i) + 11)
            let rects = Self.randomRects(&rng)
            let range = i % 2 == 0 ? CCORE_RANGE_LIMITED : CCORE_RANGE_FULL
            for skin in [ccore_skin_bounds_default(), ccore_skin_bounds_all()] {
                let stats = Self.measure(frame, rects, skin, range: range)
                for (k, rect) in rects.enumerated() {
                    let ref = Self.reference(frame, rect, skin, range: range)
                    let got = stats[k]
                    #expect(Int(got.pixel_count) == ref.4, "pixel count, ROI \(k)")
                    #expect(abs(Double(got.skin_fraction) - ref.3) < 1e-5, "skin fraction, ROI \(k)")
                    #expect(abs(Double(got.r) - ref.0) < 0.01, "\(ccore_pixel_format_name(format)!) R, ROI \(k)")
                    #expect(abs(Double(got.g) - ref.1) < 0.01, "G, ROI \(k)")
                    #expect(abs(Double(got.b) - ref.2) < 0.01, "B, ROI \(k)")
                }
            }
        }
    }

    @Test func allPassMaskOnAFlatFrameGivesItsColour() {
        // Limited-range Y'CbCr (126, 110, 160) is a skin tone; its RGB is known.
        let w = 32, h = 16
        var bytes = [UInt8]()
        for _ in 0..<(w * h / 2) { bytes += [126, 110, 126, 160] }
        let frame = TestFrame(format: CCORE_PIXEL_YUYV, width: w, height: h, bytes: bytes)
        let stats = Self.measure(frame, [ccore_rect(x: 0, y: 0, width: 1, height: 1)], ccore_skin_bounds_default(),
                                 range: CCORE_RANGE_LIMITED)
        var rgb: [Float] = [0, 0, 0]
        ccore_ycbcr_to_rgb(126, 110, 160, CCORE_RANGE_LIMITED, &rgb)
        #expect(stats[0].skin_fraction == 1)
        #expect(stats[0].pixel_count == UInt32(w * h))
        #expect(abs(stats[0].r - rgb[0]) < 1e-3 && abs(stats[0].g - rgb[1]) < 1e-3 && abs(stats[0].b - rgb[2]) < 1e-3)
        #expect(rgb[0] > rgb[1] && rgb[1] > rgb[2], "a skin tone is red > green > blue")
    }

    @Test func regionOutsideTheFrameIsEmpty() {
        let frame = TestFrame.random(format: CCORE_PIXEL_YUYV, width: 32, height: 32, seed: 3)
        let stats = Self.measure(frame, [ccore_rect(x: 1.2, y: 0.1, width: 0.3, height: 0.3)], ccore_skin_bounds_all(),
                                 range: CCORE_RANGE_LIMITED)
        #expect(stats[0].pixel_count == 0)
        #expect(stats[0].skin_fraction == 0 && stats[0].g == 0)
    }

    @Test func unsupportedImageIsRejected() {
        var image = ccore_image()
        var set = ccore_roi_set()
        var stats = [ccore_roi_stats](repeating: ccore_roi_stats(), count: Int(CCORE_MAX_ROIS))
        #expect(ccore_roi_measure(&image, &set, &stats) == -Int32(EINVAL))
    }

    @Test(arguments: formats)
    func meanLumaAndThumbnailMatchTheReference(format: ccore_pixel_format) {
        let w = 96, h = 72
        let frame = TestFrame.random(format: format, width: w, height: h, seed: 99)
        func luma(_ x: Int, _ y: Int) -> Int {
            let (a, b, c) = frame.components(x: x, y: y)
            return format == CCORE_PIXEL_RGB24 ? (77 * a + 150 * b + 29 * c) >> 8 : a
        }
        let gx = min(w, 64), gy = min(h, 48)
        var sum = 0
        for j in 0..<gy { for i in 0..<gx { sum += luma((2 * i + 1) * w / (2 * gx), (2 * j + 1) * h / (2 * gy)) } }
        let mean = frame.withImage { ccore_image_mean_luma($0) }
        #expect(abs(Double(mean) - Double(sum) / Double(gx * gy)) < 1e-3)

        // 40x30: the usual downscale; 96x72: same size; 300x7: wider than the frame (right neighbours
        // clamped) and wider than the kernel's 256-column chunk; 7x100: taller than the frame;
        // 48x36: exactly half (the kernel's fast path for the detector's 320x240 of 640x480).
        for (tw, th) in [(40, 30), (96, 72), (300, 7), (7, 100), (48, 36)] {
            var thumb = [UInt8](repeating: 0, count: tw * th)
            #expect(frame.withImage { ccore_image_luma_thumbnail($0, &thumb, UInt32(tw), UInt32(th)) } == 0)
            for j in 0..<th {
                for i in 0..<tw {
                    let x = (2 * i + 1) * w / (2 * tw), y = (2 * j + 1) * h / (2 * th)
                    let x2 = min(x + 1, w - 1), y2 = min(y + 1, h - 1)
                    let expected = (luma(x, y) + luma(x2, y) + luma(x, y2) + luma(x2, y2) + 2) >> 2
                    #expect(Int(thumb[j * tw + i]) == expected, "thumbnail \(tw)x\(th) (\(i), \(j))")
                }
            }
        }
    }
}
