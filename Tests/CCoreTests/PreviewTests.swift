import CCore
import CCoreTestSupport
import Testing

/// The RGB preview (`imageOutput`): each output pixel is the source pixel at
/// its cell's centre, converted with BT.601 like the ROI means; sizes fitted
/// to a square at the frame's aspect.
@Suite struct PreviewTests {
    @Test(arguments: RoiKernelTests.formats)
    func everyPixelIsItsSourcePixelInRGB(format: ccore_pixel_format) throws {
        let frame = TestFrame.random(format: format, width: 64, height: 48, seed: 7)
        let (w, h) = (20, 14)
        var out = [UInt8](repeating: 0, count: w * h * 3)
        for range in [CCORE_RANGE_LIMITED, CCORE_RANGE_FULL] {
            let rc = frame.withImage(range: range) { ccore_image_rgb_preview($0, &out, UInt32(w), UInt32(h)) }
            #expect(rc == 0)
            for j in 0..<h {
                for i in 0..<w {
                    let x = (2 * i + 1) * frame.width / (2 * w), y = (2 * j + 1) * frame.height / (2 * h)
                    let (a, b, c) = frame.components(x: x, y: y)
                    var expected = [a, b, c]
                    if format != CCORE_PIXEL_RGB24 {
                        var rgb: [Float] = [0, 0, 0]
                        let (cb, cr) = format == CCORE_PIXEL_GRAY ? (128, 128) : (b, c)
                        ccore_ycbcr_to_rgb(Float(a), Float(cb), Float(cr), range, &rgb)
                        expected = rgb.map { Int(min(max($0.rounded(), 0), 255)) }
                    }
                    let got = (0..<3).map { Int(out[(j * w + i) * 3 + $0]) }
                    // Fixed point against float: within one level.
                    #expect(zip(got, expected).allSatisfy { abs($0 - $1) <= 1 },
                            "\(format) \(range) pixel (\(i), \(j)): \(got) vs \(expected)")
                }
            }
        }
    }

    @Test func sizesFitTheSquareAtTheFramesAspect() {
        func fit(_ w: UInt32, _ h: UInt32, _ side: UInt32) -> [UInt32] {
            var a: UInt32 = 0, b: UInt32 = 0
            ccore_preview_fit(w, h, side, &a, &b)
            return [a, b]
        }
        #expect(fit(640, 480, 320) == [320, 240])
        #expect(fit(1280, 720, 320) == [320, 180])
        #expect(fit(480, 640, 320) == [240, 320])  // portrait
        #expect(fit(64, 48, 320) == [64, 48])      // never larger than the frame
        #expect(fit(641, 479, 320) == [320, 238])  // even sides
        #expect(fit(0, 480, 320) == [0, 0] && fit(640, 480, 0) == [0, 0])
    }

    @Test func badArgumentsAreRefused() {
        let frame = TestFrame.random(format: CCORE_PIXEL_YUYV, width: 16, height: 8, seed: 1)
        var out = [UInt8](repeating: 0, count: 8 * 4 * 3)
        #expect(ccore_image_rgb_preview(nil, &out, 8, 4) == -22)
        #expect(frame.withImage { ccore_image_rgb_preview($0, &out, 0, 4) } == -22)
        #expect(frame.withImage { ccore_image_rgb_preview($0, nil, 8, 4) } == -22)
    }
}
