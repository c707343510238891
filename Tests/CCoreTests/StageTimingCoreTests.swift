import CCore
import CCoreTestSupport
import Foundation
import Testing

/// The capture thread's stage timing: off by default (no clock read, fields 0),
/// on when asked, and the drops split by how they were counted.
@Suite struct StageTimingCoreTests {
    static func now() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }

    @Test func rawFramesAreTimedOnlyWhileTimingIsOn() throws {
        let proc = try ProcessorTests.make(thumbnailEvery: 2)
        defer { ccore_processor_destroy(proc) }
        ProcessorTests.setRegions(proc, [ccore_rect(x: 0.25, y: 0.25, width: 0.5, height: 0.5)])
        let frame = TestFrame.random(format: CCORE_PIXEL_YUYV, width: 64, height: 48, seed: 11)
        let (_, off) = ProcessorTests.process(proc, frame, sequence: 0, timestamp: 0)
        #expect(off.dequeued_ns == 0 && off.decode_ns == 0 && off.kernels_ns == 0 && off.thumbnail_ns == 0)

        ccore_processor_set_stage_timing(proc, 1)
        let before = Self.now()
        let (_, noThumbnail) = ProcessorTests.process(proc, frame, sequence: 1, timestamp: before - 5_000_000)
        let (_, thumbnail) = ProcessorTests.process(proc, frame, sequence: 2, timestamp: before)
        let after = Self.now()
        for s in [noThumbnail, thumbnail] {
            #expect(s.dequeued_ns >= before && s.dequeued_ns <= after, "taken in between, on CLOCK_MONOTONIC")
            #expect(s.decode_ns == 0, "a raw frame decodes nothing")
            #expect(s.kernels_ns > 0 && Int64(s.kernels_ns) <= after - before)
        }
        #expect(noThumbnail.flags & UInt32(CCORE_SAMPLE_THUMBNAIL) == 0 && noThumbnail.thumbnail_ns == 0)
        #expect(thumbnail.flags & UInt32(CCORE_SAMPLE_THUMBNAIL) != 0 && thumbnail.thumbnail_ns > 0)

        ccore_processor_set_stage_timing(proc, 0)
        let (_, offAgain) = ProcessorTests.process(proc, frame, sequence: 3, timestamp: after)
        #expect(offAgain.dequeued_ns == 0 && offAgain.kernels_ns == 0 && offAgain.thumbnail_ns == 0)
    }

    @Test func mjpegDecodeIsTimedApartFromTheKernels() throws {
        let (w, h) = (320, 240)
        let proc = try ProcessorTests.make(mjpeg: true, width: w, height: h)
        defer { ccore_processor_destroy(proc) }
        ccore_processor_set_stage_timing(proc, 1)
        let jpeg = TestScenes.jpeg(rgb: TestScenes.faceRGB(width: w, height: h), width: w, height: h)
        var sample = ccore_frame_sample()
        let start = Self.now()
        let rc = jpeg.withUnsafeBufferPointer { buffer in
            var f = ccore_frame()
            f.timestamp_ns = start
            f.jpeg = buffer.baseAddress
            f.jpeg_size = buffer.count
            return ccore_processor_process(proc, &f, &sample)
        }
        let end = Self.now()
        #expect(rc == 1)
        #expect(sample.decode_ns > 0 && sample.kernels_ns > 0)
        #expect(Int64(sample.decode_ns) + Int64(sample.kernels_ns) + Int64(sample.thumbnail_ns) <= end - start)
    }

    @Test func dropsAreSplitBySequenceAndByTimestampGap() throws {
        let proc = try ProcessorTests.make()
        defer { ccore_processor_destroy(proc) }
        let frame = TestFrame.random(format: CCORE_PIXEL_YUYV, width: 64, height: 48, seed: 12)
        let interval = ProcessorTests.interval
        _ = ProcessorTests.process(proc, frame, sequence: 0, timestamp: 0)
        _ = ProcessorTests.process(proc, frame, sequence: 3, timestamp: 3 * interval) // 2 by sequence
        _ = ProcessorTests.process(proc, frame, sequence: 4, timestamp: 7 * interval) // 3 by timestamp
        var counters = ccore_processor_counters()
        ccore_processor_get_counters(proc, &counters)
        #expect(counters.dropped == 5 && counters.dropped_by_timestamp == 3)
    }

    @Test func aReplaySourceTimesEveryFrameOnceSwitchedOn() throws {
        let file = try TemporaryFile(named: "clip.y4m", contents: SourceFileTests.y4m(frames: 30))
        defer { file.cleanUp() }
        let (rc, msg, raw) = SourceFileTests.open(file.path, SourceFileTests.config())
        #expect(rc == 0, "\(msg)")
        let source = try #require(raw)
        defer { ccore_source_destroy(source) }
        #expect(ccore_source_set_stage_timing(source, 1) == 0)
        #expect(ccore_source_set_stage_timing(nil, 1) == -EINVAL)
        #expect(ccore_source_start(source) == 0)
        let (samples, stats) = SourceFileTests.drain(source)
        #expect(samples.count == 30 && stats.dropped_by_timestamp == 0)
        for s in samples {
            #expect(s.dequeued_ns > 0 && s.dequeued_ns <= s.processed_ns, "frame \(s.sequence)")
            #expect(s.kernels_ns > 0)
        }
    }
}
