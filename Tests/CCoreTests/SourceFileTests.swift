import CCore
import CCoreTestSupport
import Foundation
import Testing

/// File replay through the capture thread, and the device-open error paths
/// that need no camera.
@Suite struct SourceFileTests {
    static func config(realtime: Bool = false, ring: UInt32 = 256) -> ccore_source_config {
        var c = ccore_source_config()
        ccore_source_config_init(&c)
        c.realtime = realtime ? 1 : 0
        c.ring_capacity = ring
        return c
    }

    static func open(_ path: String, _ config: ccore_source_config) -> (Int32, String, OpaquePointer?) {
        var c = config
        var source: OpaquePointer?
        var message = [CChar](repeating: 0, count: 320)
        let rc = ccore_source_open_file(path, &c, &source, &message, 320)
        return (rc, String(cString: message), source)
    }

    /// Drains the ring until the thread ends; returns the samples and the final stats.
    static func drain(_ source: OpaquePointer) -> ([ccore_frame_sample], ccore_source_stats) {
        let ring = ccore_source_ring(source)
        var samples = [ccore_frame_sample]()
        var s = ccore_frame_sample(), stats = ccore_source_stats()
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if ccore_ring_pop(ring, &s) { samples.append(s); continue }
            ccore_source_get_stats(source, &stats)
            if stats.state == CCORE_SOURCE_FINISHED || stats.state == CCORE_SOURCE_FAILED {
                while ccore_ring_pop(ring, &s) { samples.append(s) }
                break
            }
            usleep(200)
        }
        return (samples, stats)
    }

    static func y4m(frames: Int) -> [UInt8] {
        Y4M.file(width: 32, height: 24, frames: (0..<frames).map { i in
            Y4M.flatFrame420(width: 32, height: 24, y: UInt8(100 + i % 50), cb: 110, cr: 150)
        })
    }

    @Test func fastReplayDeliversEveryFrameInOrderEvenThroughASmallRing() throws {
        let file = try TemporaryFile(named: "clip.y4m", contents: Self.y4m(frames: 200))
        defer { file.cleanUp() }
        let (rc, msg, raw) = Self.open(file.path, Self.config(ring: 4))
        #expect(rc == 0, "\(msg)")
        let source = try #require(raw)
        defer { ccore_source_destroy(source) }
        var set = ccore_roi_set()
        set.count = 1
        set.generation = 1
        set.skin = ccore_skin_bounds_all()
        set.rects.0 = ccore_rect(x: 0, y: 0, width: 1, height: 1)
        #expect(ccore_source_set_rois(source, &set) == 0)
        #expect(ccore_source_start(source) == 0)
        let (samples, stats) = Self.drain(source)
        #expect(stats.state == CCORE_SOURCE_FINISHED)
        #expect(samples.map(\.sequence) == (0..<200).map(UInt64.init))
        #expect(stats.frames == 200 && stats.samples == 200 && stats.ring_overflows == 0 && stats.dropped == 0)
        let intervals = zip(samples.dropFirst(), samples).map { $0.timestamp_ns - $1.timestamp_ns }
        #expect(intervals.allSatisfy { $0 == 33_333_333 }, "timestamps follow the 30 fps frame rate")
        // Flat Y'CbCr frames: the all-pass ROI reproduces each frame's colour.
        var rgb: [Float] = [0, 0, 0]
        ccore_ycbcr_to_rgb(Float(100 + 17), 110, 150, CCORE_RANGE_LIMITED, &rgb)
        #expect(abs(samples[17].rois.0.g - rgb[1]) < 0.01)
        #expect(ccore_source_start(source) == CCORE_E_STATE, "a source starts once")
    }

    @Test func realtimeReplayIsPacedAtTheFrameRate() throws {
        let file = try TemporaryFile(named: "clip.y4m", contents: Self.y4m(frames: 15))
        defer { file.cleanUp() }
        let (_, _, raw) = Self.open(file.path, Self.config(realtime: true))
        let source = try #require(raw)
        defer { ccore_source_destroy(source) }
        let start = Date()
        #expect(ccore_source_start(source) == 0)
        let (samples, _) = Self.drain(source)
        let elapsed = Date().timeIntervalSince(start)
        #expect(samples.count == 15)
        #expect(elapsed > 0.4, "15 frames at 30 fps take about half a second, took \(elapsed) s")
    }

    /// A realtime replay sleeps until each frame is due, and a stop wakes it at once
    /// however far off the next frame is (here 1 s: a clip at 1 frame a second, the slowest
    /// a Y4M header may say).
    @Test func stoppingARealtimeReplayDoesNotWaitForTheNextFrame() throws {
        let frames = (0..<3).map { i in Y4M.flatFrame420(width: 32, height: 24, y: UInt8(100 + i), cb: 110, cr: 150) }
        let file = try TemporaryFile(named: "slow.y4m",
                                     contents: Y4M.file(width: 32, height: 24, fps: "1:1", frames: frames))
        defer { file.cleanUp() }
        let (rc, msg, raw) = Self.open(file.path, Self.config(realtime: true))
        #expect(rc == 0, "\(msg)")
        let source = try #require(raw)
        defer { ccore_source_destroy(source) }
        #expect(ccore_source_start(source) == 0)
        let ring = ccore_source_ring(source)
        var sample = ccore_frame_sample()
        var first = false
        let due = Date().addingTimeInterval(3)
        while !first, Date() < due {
            first = ccore_ring_pop(ring, &sample)
            if !first { usleep(1000) }
        }
        #expect(first && sample.sequence == 0, "frame 0 is due at once")
        usleep(50_000) // the thread is now asleep until frame 1, 1 s after the start
        let asked = Date()
        #expect(ccore_source_stop(source) == 0)
        let took = Date().timeIntervalSince(asked)
        #expect(took < 0.5, "the stop took \(took) s: it waited for frame 1")
        #expect(!ccore_ring_pop(ring, &sample), "no frame after frame 0")
    }

    @Test func truncatedFileFailsAtTheBrokenFrameAfterDeliveringTheGoodOnes() throws {
        let file = try TemporaryFile(named: "cut.y4m", contents: Array(Self.y4m(frames: 10).dropLast(100)))
        defer { file.cleanUp() }
        let (_, _, raw) = Self.open(file.path, Self.config())
        let source = try #require(raw)
        defer { ccore_source_destroy(source) }
        #expect(ccore_source_start(source) == 0)
        let (samples, stats) = Self.drain(source)
        #expect(samples.count == 9)
        #expect(stats.state == CCORE_SOURCE_FAILED)
        #expect(stats.error == CCORE_E_TRUNCATED)
        #expect(String(cString: ccore_source_error_message(source)).contains("frame 9 is truncated"))
    }

    @Test func corruptMJPEGFrameFailsTheReplayWithItsIndex() throws {
        var bytes = [UInt8]()
        for i in 0..<4 {
            var jpeg = TestScenes.jpeg(rgb: TestScenes.faceRGB(width: 64, height: 48, phase: Double(i)), width: 64,
                                       height: 48)
            if i == 2 { // keep the markers, wreck the entropy-coded data and the tables
                for k in 20..<(jpeg.count - 2) where jpeg[k] != 0xFF && jpeg[k - 1] != 0xFF { jpeg[k] = 0xFF ^ jpeg[k] & 0x7F }
            }
            bytes += jpeg
        }
        let file = try TemporaryFile(named: "bad.mjpeg", contents: bytes)
        defer { file.cleanUp() }
        let (rc, msg, raw) = Self.open(file.path, Self.config())
        #expect(rc == 0, "\(msg)")
        let source = try #require(raw)
        defer { ccore_source_destroy(source) }
        #expect(ccore_source_start(source) == 0)
        let (samples, stats) = Self.drain(source)
        #expect(stats.state == CCORE_SOURCE_FAILED)
        #expect(samples.count == 2)
        let message = String(cString: ccore_source_error_message(source))
        #expect(message.hasPrefix("frame 2"), "\(message)")
    }

    @Test func missingFileAndNonCameraDevicesAreClearErrors() {
        let (rc, msg, raw) = Self.open("/nonexistent/clip.y4m", Self.config())
        #expect(rc == -Int32(ENOENT) && raw == nil)
        #expect(msg.contains("/nonexistent/clip.y4m"))

        var c = Self.config()
        var source: OpaquePointer?
        var message = [CChar](repeating: 0, count: 320)
        #expect(ccore_source_open_device("/dev/video-none-here", &c, &source, &message, 320) == -Int32(ENOENT))
        #expect(String(cString: message) == "no camera at /dev/video-none-here")
        #expect(ccore_source_open_device("/dev/null", &c, &source, &message, 320) == CCORE_E_NOT_CAPTURE)
        #expect(String(cString: message).contains("not a video capture device"))
        #expect(source == nil)
    }

    @Test func accessStatusOfNodesThatAreNotUsableCameras() {
        let missing = ccore_device_access("/dev/video-none-here")
        #expect(missing.status == CCORE_ACCESS_NOT_DETERMINED)
        let regular = ccore_device_access("/etc/hostname")
        #expect(regular.status == CCORE_ACCESS_NOT_DETERMINED, "a regular file is no device node")
        #expect(ccore_device_access("/dev/null").status == CCORE_ACCESS_AUTHORIZED)
        var info = ccore_device_info()
        #expect(ccore_device_probe("/dev/null", &info) == CCORE_E_NOT_CAPTURE)
        var count: UInt32 = 99
        #expect(ccore_device_list(nil, 0, &count) == 0, "listing works with or without cameras")
    }

    @Test func errorNamesAndDescriptions() {
        #expect(String(cString: ccore_error_name(-Int32(EBUSY))) == "EBUSY")
        #expect(String(cString: ccore_error_name(CCORE_E_TRUNCATED)) == "CCORE_E_TRUNCATED")
        #expect(String(cString: ccore_error_string(-Int32(EACCES))) == "Permission denied")
        #expect(String(cString: ccore_error_string(CCORE_E_STREAM)).contains("fatal streaming error"))
    }
}
