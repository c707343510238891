import CCore
import Foundation
import GroundTruth
import Testing

/// The written files read back through CCore's own readers, frame for frame.
@Suite struct VideoTests {
    @Test func y4mReadsBackWithTheRightSizeRateAndFrameCount() throws {
        let clip = try Clip(GT_STILL, width: 160, height: 120, duration: 2, fps: 25)
        defer { clip.cleanUp() }
        let (info, frames) = try measureVideo(clip.video) { _ in [ccore_rect(x: 0, y: 0, width: 1, height: 1)] }
        #expect(info.kind == CCORE_VIDEOFILE_Y4M)
        #expect(info.pixel_format == CCORE_PIXEL_YUV420)
        #expect(info.range == CCORE_RANGE_LIMITED)
        #expect(info.width == 160 && info.height == 120)
        #expect(info.fps_numerator == 25 && info.fps_denominator == 1)
        #expect(frames.count == 50)
        #expect(clip.int("frameCount") == 50 && clip.int("writtenFrameCount") == 50)
        #expect(clip.truth["format"] as? String == "y4m")
        #expect(clip.truth["frameTimes"] is NSNull)
        #expect(clip.regions.count == 50 && clip.faces.count == 50)
    }

    @Test func mjpegReadsBackAndEveryFrameDecodes() throws {
        // The jpeg scenario writes MJPEG unless told otherwise.
        let clip = try Clip(GT_JPEG, width: 160, height: 120, duration: 1.5)
        defer { clip.cleanUp() }
        let (info, frames) = try measureVideo(clip.video) { _ in [ccore_rect(x: 0, y: 0, width: 1, height: 1)] }
        #expect(info.kind == CCORE_VIDEOFILE_MJPEG)
        #expect(info.width == 160 && info.height == 120)
        #expect(frames.count == 45)
        #expect(clip.truth["format"] as? String == "mjpeg")
        #expect(clip.int("jpegQuality") == 55)
        // A plausible picture, not a black or clipped one.
        #expect(frames.allSatisfy { $0[0].g > 60 && $0[0].g < 220 })
    }

    /// Restart markers, as webcams send them, are written in losslessly: the frames carry a
    /// restart interval (DRI) and markers, and measure exactly as the frames without them.
    @Test func mjpegWithRestartMarkersHasTheSamePixels() throws {
        var options = Clip.options(GT_JPEG, width: 160, height: 120, duration: 1)
        let plain = try Clip(options)
        options.restart_interval = 5
        let marked = try Clip(options)
        defer { plain.cleanUp(); marked.cleanUp() }
        let bytes = try Data(contentsOf: marked.video)
        #expect(bytes.range(of: Data([0xFF, 0xDD])) != nil)  // DRI
        #expect(bytes.range(of: Data([0xFF, 0xD7])) != nil)  // RST7: markers run through their eight numbers
        #expect(try Data(contentsOf: plain.video).range(of: Data([0xFF, 0xDD])) == nil)
        #expect(marked.int("restartInterval") == 5 && plain.int("restartInterval") == 0)
        let regions = { (_: Int) in [ccore_rect(x: 0, y: 0, width: 1, height: 1), ccore_rect(x: 0.3, y: 0.4, width: 0.3, height: 0.3)] }
        let (_, a) = try measureVideo(plain.video, rects: regions)
        let (_, b) = try measureVideo(marked.video, rects: regions)
        #expect(a.count == 30 && b.count == 30)
        for (x, y) in zip(a, b) {
            #expect(x[0].r == y[0].r && x[0].g == y[0].g && x[0].b == y[0].b)
            #expect(x[1].r == y[1].r && x[1].g == y[1].g && x[1].b == y[1].b)
        }
    }

    @Test func nonIntegerFrameRateIsARationalInTheHeader() throws {
        let clip = try Clip(GT_STILL, width: 32, height: 32, duration: 1, fps: 29.97)
        defer { clip.cleanUp() }
        let (info, frames) = try measureVideo(clip.video) { _ in [] }
        #expect(info.fps_numerator == 2997 && info.fps_denominator == 100)
        #expect(frames.count == 30)
    }

    @Test func droppedFramesAreMissingFromTheFileAndListedInTheTruth() throws {
        let clip = try Clip(GT_DROPPED, width: 64, height: 48, duration: 12)
        defer { clip.cleanUp() }
        let (_, frames) = try measureVideo(clip.video) { _ in [] }
        let dropped = (clip.truth["droppedFrames"] as? [NSNumber])?.map(\.intValue) ?? []
        let frameTimes = clip.doubles("frameTimes")
        let total = try #require(clip.int("frameCount"))
        #expect(total == 360)
        #expect(!dropped.isEmpty, "the dropped scenario drops frames")
        #expect(Double(dropped.count) < 0.15 * Double(total))
        #expect(frames.count == total - dropped.count)
        #expect(clip.int("writtenFrameCount") == frames.count)
        #expect(frameTimes.count == frames.count)
        #expect(clip.regions.count == frames.count && clip.faces.count == frames.count)
        // The kept frames' times are the timeline minus the dropped indices.
        let kept = (0..<total).filter { !Set(dropped).contains($0) }.map { Double($0) / 30 }
        #expect(zip(kept, frameTimes).allSatisfy { abs($0 - $1) < 1e-4 })
        #expect(!dropped.contains(0) && !dropped.contains(total - 1))
    }

    /// The Y4M carries the same colours the renderer produced, i.e. the file
    /// uses the range (studio swing, BT.601) CCore assumes when it reads it.
    @Test(arguments: [GT_FORMAT_Y4M, GT_FORMAT_MJPEG])
    func fileColoursMatchTheRenderedRGB(format: gt_format) throws {
        var options = Clip.options(GT_STILL, seed: 4, width: 160, height: 120, duration: 0.5, format: format)
        let clip = try Clip(options)
        defer { clip.cleanUp() }
        // Large regions (the whole frame, the face), so 4:2:0 chroma at their borders does not matter.
        let faces = clip.faces
        let rects = faces.map { [ccore_rect(x: 0, y: 0, width: 1, height: 1), $0] }
        let (_, fileStats) = try measureVideo(clip.video) { rects[$0] }

        var handle: OpaquePointer?
        var message = [CChar](repeating: 0, count: 256)
        #expect(gt_clip_create(&options, &handle, &message, 256) == 0)
        let gt = try #require(handle)
        defer { gt_clip_destroy(gt) }
        var rgb = [UInt8](repeating: 0, count: 160 * 120 * 3)
        for index in [0, 7, 14] {
            #expect(gt_clip_render_rgb(gt, UInt32(index), &rgb) == 0)
            let rendered: [ccore_roi_stats] = rgb.withUnsafeBufferPointer { buffer in
                var image = ccore_image()
                _ = ccore_image_wrap_packed(&image, CCORE_PIXEL_RGB24, CCORE_RANGE_FULL, 160, 120, buffer.baseAddress)
                return measure(&image, rects[index])
            }
            let tolerance: Float = format == GT_FORMAT_Y4M ? 0.5 : 1.5
            for (a, b) in zip(rendered, fileStats[index]) {
                #expect(abs(a.r - b.r) < tolerance && abs(a.g - b.g) < tolerance && abs(a.b - b.b) < tolerance,
                        "frame \(index): rendered \(a.r), \(a.g), \(a.b) vs file \(b.r), \(b.g), \(b.b)")
            }
        }
    }

    /// The truth regions sit on the skin in every frame, even when the head moves.
    @Test func regionsStayOnTheSkinUnderMotion() throws {
        let clip = try Clip(GT_MOTION, seed: 2, width: 320, height: 240, duration: 8, noise: 0)
        defer { clip.cleanUp() }
        let rects = clip.regions
        let (_, stats) = try measureVideo(clip.video) { rects[$0] }
        #expect(stats.count == 240)
        for (i, frame) in stats.enumerated() {
            for (k, s) in frame.enumerated() {
                // Skin: bright and clearly redder than blue; the backdrop is near neutral, hair is darker.
                #expect(s.r > 150 && s.r - s.b > 30, "frame \(i) region \(k): \(s.r), \(s.g), \(s.b)")
            }
        }
        // And the head did move: the face box wanders by several percent.
        let xs = clip.faces.map(\.x), ys = clip.faces.map(\.y)
        #expect(xs.max()! - xs.min()! > 0.03 || ys.max()! - ys.min()! > 0.03)
    }
}
