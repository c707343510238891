import CCore
import Foundation
import CCoreTestSupport
import Testing

/// The per-frame path on its own, without a thread or a device.
@Suite struct ProcessorTests {
    static let interval: Int64 = 33_333_333

    static func make(format: ccore_pixel_format = CCORE_PIXEL_YUYV, mjpeg: Bool = false, width: Int = 64,
                     height: Int = 48, thumbnailEvery: UInt32 = 2) throws -> OpaquePointer {
        var config = ccore_processor_config()
        config.pixel_format = mjpeg ? CCORE_PIXEL_NONE : format
        config.is_mjpeg = mjpeg ? 1 : 0
        config.width = UInt32(width)
        config.height = UInt32(height)
        config.frame_interval_ns = interval
        config.thumbnail_width = 16
        config.thumbnail_height = 12
        config.thumbnail_every = thumbnailEvery
        config.min_roi_pixels = 8
        var raw: OpaquePointer?
        #expect(ccore_processor_create(&config, &raw) == 0)
        return try #require(raw)
    }

    static func setRegions(_ proc: OpaquePointer, _ rects: [ccore_rect], generation: UInt32 = 7) {
        var set = ccore_roi_set()
        set.count = UInt32(rects.count)
        set.generation = generation
        set.skin = ccore_skin_bounds_all()
        withUnsafeMutableBytes(of: &set.rects) { raw in
            for (i, r) in rects.enumerated() { raw.bindMemory(to: ccore_rect.self)[i] = r }
        }
        #expect(ccore_processor_set_rois(proc, &set) == 0)
    }

    /// Processes one raw frame with the given sequence number and timestamp.
    static func process(_ proc: OpaquePointer, _ frame: TestFrame, sequence: UInt64, timestamp: Int64,
                        flagged: Bool = false) -> (Int32, ccore_frame_sample) {
        var sample = ccore_frame_sample()
        let rc = frame.withImage { image in
            var f = ccore_frame()
            f.sequence = sequence
            f.timestamp_ns = timestamp
            f.flagged = flagged ? 1 : 0
            f.image = image.pointee
            return ccore_processor_process(proc, &f, &sample)
        }
        return (rc, sample)
    }

    @Test func samplesCarryMeansFlagsAndRegionGeneration() throws {
        let proc = try Self.make()
        defer { ccore_processor_destroy(proc) }
        let frame = TestFrame.random(format: CCORE_PIXEL_YUYV, width: 64, height: 48, seed: 5)
        let (rc0, first) = Self.process(proc, frame, sequence: 0, timestamp: 1_000)
        #expect(rc0 == 1)
        #expect(first.flags & UInt32(CCORE_SAMPLE_NO_ROI) != 0, "no regions published yet")
        #expect(first.roi_count == 0)
        Self.setRegions(proc, [ccore_rect(x: 0.25, y: 0.25, width: 0.5, height: 0.5)])
        let (rc1, s) = Self.process(proc, frame, sequence: 1, timestamp: 1_000 + Self.interval)
        #expect(rc1 == 1)
        #expect(s.roi_count == 1 && s.roi_generation == 7)
        #expect(s.flags & UInt32(CCORE_SAMPLE_NO_ROI) == 0)
        #expect(s.rois.0.pixel_count == 32 * 24 && s.rois.0.skin_fraction == 1)
        #expect(s.mean_luma > 60 && s.mean_luma < 200)
        #expect(s.decode_scale == 1)
        #expect(s.sequence == 1 && s.timestamp_ns == 1_000 + Self.interval)
    }

    /// The band luma covers rows 0.3-0.5 on every format: a raw frame's mean luma covers all
    /// of it, an MJPEG frame's the top half, or rows 0.3-0.5 when the camera sends restart
    /// markers, and the band luma is the same through all three.
    @Test func bandLumaIsTheSameRowsOnEveryFormat() throws {
        let (w, h) = (64, 48)
        // Rows 0.3-0.5 (14..<24) at 160, the rest at 40.
        var rgb = [UInt8](repeating: 40, count: w * h * 3)
        for y in 14..<24 { for i in 0..<(w * 3) { rgb[y * w * 3 + i] = 160 } }
        let raw = try Self.make(format: CCORE_PIXEL_RGB24, width: w, height: h)
        defer { ccore_processor_destroy(raw) }
        let (_, s) = Self.process(raw, TestFrame(format: CCORE_PIXEL_RGB24, width: w, height: h, bytes: rgb),
                                  sequence: 0, timestamp: 0)
        #expect(s.band_luma == 160, "the band alone")
        #expect(abs(s.mean_luma - (160 * 10 + 40 * 38) / 48) < 0.01, "the mean luma covers the whole frame")

        let plain = TestScenes.jpeg(rgb: rgb, width: w, height: h, quality: 95)
        let marked = try #require(TestScenes.withRestartMarkers(plain, every: 2))
        var bands = [Float](), means = [Float]()
        for bytes in [plain, marked] {
            let proc = try Self.make(mjpeg: true, width: w, height: h)
            defer { ccore_processor_destroy(proc) }
            // A region 6 px wide keeps the decode at full scale.
            Self.setRegions(proc, [ccore_rect(x: 0.45, y: 0.4, width: 0.1, height: 0.1)])
            var sample = ccore_frame_sample()
            let rc = bytes.withUnsafeBufferPointer { buffer in
                var f = ccore_frame()
                f.jpeg = buffer.baseAddress
                f.jpeg_size = buffer.count
                return ccore_processor_process(proc, &f, &sample)
            }
            #expect(rc == 1)
            bands.append(sample.band_luma)
            means.append(sample.mean_luma)
        }
        #expect(bands[0] == bands[1], "restart markers or not, the same band: \(bands)")
        #expect(abs(bands[0] - 160) < 6, "the band survives JPEG: \(bands[0])")
        #expect(means[0] < means[1] - 20, "the mean luma covers the top half without markers, the band with them: \(means)")
    }

    @Test func rejectsInvalidRegions() throws {
        let proc = try Self.make()
        defer { ccore_processor_destroy(proc) }
        var set = ccore_roi_set()
        set.count = 1
        set.rects.0 = ccore_rect(x: 0.1, y: 0.1, width: 0, height: 0.2)
        #expect(ccore_processor_set_rois(proc, &set) == -Int32(EINVAL))
        set.rects.0 = ccore_rect(x: .nan, y: 0.1, width: 0.2, height: 0.2)
        #expect(ccore_processor_set_rois(proc, &set) == -Int32(EINVAL))
        set.count = UInt32(CCORE_MAX_ROIS) + 1
        #expect(ccore_processor_set_rois(proc, &set) == -Int32(EINVAL))
    }

    @Test func sequenceGapsAndFlaggedFramesAreCountedIntoTheNextSample() throws {
        let proc = try Self.make()
        defer { ccore_processor_destroy(proc) }
        let frame = TestFrame.random(format: CCORE_PIXEL_YUYV, width: 64, height: 48, seed: 6)
        var t: Int64 = 0
        _ = Self.process(proc, frame, sequence: 10, timestamp: t)
        t += 3 * Self.interval
        let (_, afterGap) = Self.process(proc, frame, sequence: 13, timestamp: t)
        #expect(afterGap.dropped_before == 2)
        #expect(afterGap.flags & UInt32(CCORE_SAMPLE_GAP) != 0)
        t += Self.interval
        let (skipped, _) = Self.process(proc, frame, sequence: 14, timestamp: t, flagged: true)
        #expect(skipped == 0, "a flagged frame yields no sample")
        t += Self.interval
        let (_, next) = Self.process(proc, frame, sequence: 15, timestamp: t)
        #expect(next.errors_before == 1 && next.dropped_before == 0)
        t += Self.interval
        let (_, clean) = Self.process(proc, frame, sequence: 16, timestamp: t)
        #expect(clean.flags & UInt32(CCORE_SAMPLE_GAP) == 0)
        var counters = ccore_processor_counters()
        ccore_processor_get_counters(proc, &counters)
        #expect(counters.frames == 5 && counters.dropped == 2 && counters.error_frames == 1)
    }

    @Test func timestampGapsCountWhenTheDriverDoesNotSkipSequenceNumbers() throws {
        let proc = try Self.make()
        defer { ccore_processor_destroy(proc) }
        let frame = TestFrame.random(format: CCORE_PIXEL_YUYV, width: 64, height: 48, seed: 7)
        _ = Self.process(proc, frame, sequence: 0, timestamp: 0)
        let (_, jitter) = Self.process(proc, frame, sequence: 1, timestamp: Self.interval * 14 / 10)
        #expect(jitter.dropped_before == 0, "40% jitter is not a drop")
        let (_, gap) = Self.process(proc, frame, sequence: 2, timestamp: Self.interval * 14 / 10 + 3 * Self.interval)
        #expect(gap.dropped_before == 2)
    }

    @Test func lostSampleCarriesItsCountersOver() throws {
        let proc = try Self.make()
        defer { ccore_processor_destroy(proc) }
        let frame = TestFrame.random(format: CCORE_PIXEL_YUYV, width: 64, height: 48, seed: 8)
        _ = Self.process(proc, frame, sequence: 0, timestamp: 0)
        let (_, lost) = Self.process(proc, frame, sequence: 3, timestamp: 3 * Self.interval)
        #expect(lost.dropped_before == 2)
        ccore_processor_sample_lost(proc, [lost])
        let (_, next) = Self.process(proc, frame, sequence: 4, timestamp: 4 * Self.interval)
        #expect(next.dropped_before == 2 && next.overflow_before == 1)
    }

    @Test func thumbnailEveryKthFrame() throws {
        let proc = try Self.make(thumbnailEvery: 3)
        defer { ccore_processor_destroy(proc) }
        let frame = TestFrame.random(format: CCORE_PIXEL_YUYV, width: 64, height: 48, seed: 9)
        var flagged = [Bool]()
        var pixels = [UInt8](repeating: 0, count: 16 * 12)
        var w: UInt32 = 0, h: UInt32 = 0, seq: UInt64 = 0
        #expect(ccore_processor_take_thumbnail(proc, &pixels, UInt32(pixels.count), &w, &h, &seq) == 0)
        for i in 0..<7 {
            let (_, s) = Self.process(proc, frame, sequence: UInt64(i), timestamp: Int64(i) * Self.interval)
            flagged.append(s.flags & UInt32(CCORE_SAMPLE_THUMBNAIL) != 0)
        }
        #expect(flagged == [true, false, false, true, false, false, true])
        #expect(ccore_processor_take_thumbnail(proc, &pixels, UInt32(pixels.count), &w, &h, &seq) == 1)
        #expect(w == 16 && h == 12 && seq == 6, "the newest thumbnail")
        var expected = [UInt8](repeating: 0, count: 16 * 12)
        _ = frame.withImage { ccore_image_luma_thumbnail($0, &expected, 16, 12) }
        #expect(pixels == expected)
        var small = [UInt8](repeating: 0, count: 4)
        #expect(ccore_processor_take_thumbnail(proc, &small, 4, &w, &h, &seq) == 0, "nothing new")
    }

    @Test func mjpegFramesAreDecodedAtTheScaleTheRegionsAllow() throws {
        let (w, h) = (320, 240)
        let proc = try Self.make(mjpeg: true, width: w, height: h)
        defer { ccore_processor_destroy(proc) }
        let jpeg = TestScenes.jpeg(rgb: TestScenes.faceRGB(width: w, height: h), width: w, height: h, quality: 95)
        func run(_ sequence: UInt64, _ bytes: [UInt8]) -> (Int32, ccore_frame_sample) {
            var sample = ccore_frame_sample()
            let rc = bytes.withUnsafeBufferPointer { buffer in
                var f = ccore_frame()
                f.sequence = sequence
                f.timestamp_ns = Int64(sequence) * Self.interval
                f.jpeg = buffer.baseAddress
                f.jpeg_size = buffer.count
                return ccore_processor_process(proc, &f, &sample)
            }
            return (rc, sample)
        }
        // A 0.16-wide forehead is 51 px at full size: 1/2 leaves 25 px >= 8, 1/4 leaves 12, 1/8 leaves 6 < 8.
        Self.setRegions(proc, [ccore_rect(x: 0.42, y: 0.22, width: 0.16, height: 0.08)])
        let (rc, s) = run(0, jpeg)
        #expect(rc == 1)
        #expect(s.decode_scale == 2, "the thumbnail (16x12) does not limit it; the ROI height (19 px) does")
        #expect(s.rois.0.skin_fraction == 1)
        #expect(abs(s.rois.0.r - 188) < 8 && abs(s.rois.0.g - 136) < 8 && abs(s.rois.0.b - 107) < 8,
                "forehead colour survives JPEG and the reduced decode")
        let (bad, _) = run(1, Array(jpeg.prefix(jpeg.count / 3)))
        #expect(bad == CCORE_E_CORRUPT)
        #expect(String(cString: ccore_processor_error_message(proc)).hasPrefix("frame 1:"))
        let (_, after) = run(2, jpeg)
        #expect(after.errors_before == 1)
    }
}
