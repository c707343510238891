import CCore
import CCoreTestSupport
import Foundation
import Testing

/// Y4M and raw MJPEG parsing, including truncated and corrupt input.
@Suite struct VideoFileTests {
    static func open(_ bytes: [UInt8], fps: UInt32 = 30) -> (Int32, String, OpaquePointer?) {
        var file: OpaquePointer?
        var message = [CChar](repeating: 0, count: 256)
        let rc = bytes.withUnsafeBufferPointer { buffer in
            ccore_videofile_open_memory(buffer.baseAddress!, buffer.count, fps, &file, &message, 256)
        }
        return (rc, String(cString: message), file)
    }

    /// Reads every frame; returns the frame count and the code that ended it.
    static func readAll(_ file: OpaquePointer) -> (Int, Int32) {
        var frame = ccore_videofile_frame()
        var n = 0
        while true {
            let rc = ccore_videofile_next(file, &frame)
            if rc != 0 { return (n, rc) }
            n += 1
        }
    }

    static func message(_ file: OpaquePointer) -> String { String(cString: ccore_videofile_error_message(file)) }

    @Test(arguments: [("420jpeg", CCORE_PIXEL_YUV420, 3 / 2.0), ("420mpeg2", CCORE_PIXEL_YUV420, 1.5),
                      ("422", CCORE_PIXEL_YUV422P, 2.0), ("444", CCORE_PIXEL_YUV444P, 3.0),
                      ("mono", CCORE_PIXEL_GRAY, 1.0)])
    func parsesEveryY4MLayout(colorspace: String, format: ccore_pixel_format, bytesPerPixel: Double) throws {
        let w = 16, h = 8, size = Int(Double(w * h) * bytesPerPixel)
        let frames = (0..<3).map { i in [UInt8](repeating: UInt8(50 + i), count: size) }
        let bytes = Y4M.file(width: w, height: h, fps: "25:1", colorspace: colorspace, frames: frames)
        let (rc, msg, raw) = Self.open(bytes)
        #expect(rc == 0, "\(msg)")
        let file = try #require(raw)
        defer { ccore_videofile_close(file) }
        var info = ccore_videofile_info()
        ccore_videofile_get_info(file, &info)
        #expect(info.kind == CCORE_VIDEOFILE_Y4M)
        #expect(info.pixel_format == format)
        #expect(info.width == 16 && info.height == 8)
        #expect(info.fps_numerator == 25 && info.fps_denominator == 1)
        var frame = ccore_videofile_frame()
        for i in 0..<3 {
            #expect(ccore_videofile_next(file, &frame) == 0)
            #expect(frame.index == UInt64(i))
            #expect(frame.image.plane0[0] == UInt8(50 + i), "frame \(i) content")
            #expect(frame.image.width == 16)
        }
        #expect(ccore_videofile_next(file, &frame) == CCORE_E_END)
        #expect(ccore_videofile_rewind(file) == 0)
        #expect(Self.readAll(file) == (3, CCORE_E_END))
    }

    @Test func missingColourSpaceMeans420AndFullRangeTagIsHonoured() throws {
        let frame = Y4M.flatFrame420(width: 4, height: 4, y: 1, cb: 2, cr: 3)
        let (rc, _, raw) = Self.open(Y4M.file(width: 4, height: 4, colorspace: nil, extra: "XCOLORRANGE=FULL",
                                              frames: [frame]))
        #expect(rc == 0)
        let file = try #require(raw)
        defer { ccore_videofile_close(file) }
        var info = ccore_videofile_info()
        ccore_videofile_get_info(file, &info)
        #expect(info.pixel_format == CCORE_PIXEL_YUV420)
        #expect(info.range == CCORE_RANGE_FULL)
    }

    @Test func truncatedFrameNamesTheFrame() throws {
        let frames = (0..<4).map { _ in Y4M.flatFrame420(width: 8, height: 8, y: 100, cb: 110, cr: 150) }
        var bytes = Y4M.file(width: 8, height: 8, frames: frames)
        bytes.removeLast(10)
        let (rc, _, raw) = Self.open(bytes)
        #expect(rc == 0)
        let file = try #require(raw)
        defer { ccore_videofile_close(file) }
        #expect(Self.readAll(file) == (3, CCORE_E_TRUNCATED))
        #expect(Self.message(file).contains("frame 3 is truncated"))
    }

    @Test func truncatedInsideTheFrameHeader() throws {
        let frame = Y4M.flatFrame420(width: 8, height: 8, y: 100, cb: 110, cr: 150)
        let bytes = Y4M.file(width: 8, height: 8, frames: [frame]) + Array("FRA".utf8)
        let (_, _, raw) = Self.open(bytes)
        let file = try #require(raw)
        defer { ccore_videofile_close(file) }
        #expect(Self.readAll(file) == (1, CCORE_E_TRUNCATED))
        #expect(Self.message(file).contains("frame 1"))
    }

    @Test func corruptFrameMarkerIsReportedWithItsOffset() throws {
        let frames = (0..<2).map { _ in Y4M.flatFrame420(width: 8, height: 8, y: 100, cb: 110, cr: 150) }
        var bytes = Y4M.file(width: 8, height: 8, frames: frames)
        let second = bytes.count - frames[1].count - 6
        bytes[second] = UInt8(ascii: "X")
        let (_, _, raw) = Self.open(bytes)
        let file = try #require(raw)
        defer { ccore_videofile_close(file) }
        #expect(Self.readAll(file) == (1, CCORE_E_CORRUPT))
        #expect(Self.message(file).contains("frame 1: expected 'FRAME' at byte \(second)"))
    }

    @Test(arguments: [
        ("YUV4MPEG2 W8 H8 F30:1 C420p10\n", CCORE_E_UNSUPPORTED, "C420p10"),
        ("YUV4MPEG2 W0 H8 F30:1\n", CCORE_E_CORRUPT, "no valid size"),
        ("YUV4MPEG2 Wabc H8\n", CCORE_E_CORRUPT, "malformed"),
        ("YUV4MPEG2 W8 H8", CCORE_E_TRUNCATED, "truncated"),
        ("YUV4MPEG W8 H8\n", CCORE_E_CORRUPT, "signature"),
        ("RIFF....AVI ", CCORE_E_UNSUPPORTED, "not a Y4M or MJPEG"),
        // Header attacks: signs, overflowing numbers, sizes and rates beyond the limits.
        ("YUV4MPEG2 W-640 H480 F30:1\n", CCORE_E_CORRUPT, "'W-640' is malformed"),
        ("YUV4MPEG2 W640 H+480 F30:1\n", CCORE_E_CORRUPT, "'H+480' is malformed"),
        ("YUV4MPEG2 W4294967297 H8 F30:1\n", CCORE_E_CORRUPT, "'W4294967297' is malformed"),
        ("YUV4MPEG2 W16000 H16000 F30:1\n", CCORE_E_UNSUPPORTED, "larger than the limit of 8192 pixels a side"),
        ("YUV4MPEG2 W8192 H8192 F30:1\n", CCORE_E_UNSUPPORTED, "40 megapixels"),
        ("YUV4MPEG2 W8 H8 F-30:1\n", CCORE_E_CORRUPT, "'F-30:1' is malformed (a frame rate is two whole numbers"),
        ("YUV4MPEG2 W8 H8 F30:4294967296\n", CCORE_E_CORRUPT, "'F30:4294967296' is malformed"),
        ("YUV4MPEG2 W8 H8 F30\n", CCORE_E_CORRUPT, "'F30' is malformed"),
        ("YUV4MPEG2 W8 H8 F0:1\n", CCORE_E_UNSUPPORTED, "F0:1 is outside 1-999 frames per second"),
        ("YUV4MPEG2 W8 H8 F30:0\n", CCORE_E_UNSUPPORTED, "F30:0 is outside"),
        ("YUV4MPEG2 W8 H8 F1:2\n", CCORE_E_UNSUPPORTED, "F1:2 is outside"),
        ("YUV4MPEG2 W8 H8 F4294967295:1\n", CCORE_E_UNSUPPORTED, "is outside"),
        // A field given twice is a broken writer: which one holds is not guessed.
        ("YUV4MPEG2 W8 H8 F30:1 F15:1\n", CCORE_E_CORRUPT, "gives F twice"),
        ("YUV4MPEG2 W8 H8 W16 F30:1\n", CCORE_E_CORRUPT, "gives W twice"),
        ("YUV4MPEG2 W8 H8 H8 F30:1\n", CCORE_E_CORRUPT, "gives H twice"),
        ("YUV4MPEG2 W8 H8 F30:1 C420 C444\n", CCORE_E_CORRUPT, "gives C twice"),
        // The header's own bytes in a message: control characters are shown as '?'.
        ("YUV4MPEG2 W8 H8 F30:1 C\u{1b}[31mRED\n", CCORE_E_UNSUPPORTED, "colour space C?[31mRED is not supported"),
        ("YUV4MPEG2 W8 H8 F30:1 C420jpeg\r\n", CCORE_E_UNSUPPORTED, "colour space C420jpeg? is not supported"),
        ("YUV4MPEG2 W8 H\u{7f}8 F30:1\n", CCORE_E_CORRUPT, "'H?8' is malformed"),
    ])
    func badHeadersAreClearErrors(header: String, code: Int32, fragment: String) {
        let (rc, msg, raw) = Self.open(Array(header.utf8))
        #expect(rc == code, "\(msg)")
        #expect(raw == nil)
        #expect(msg.contains(fragment), "message: \(msg)")
    }

    @Test func emptyInputIsTruncated() {
        var file: OpaquePointer?
        let empty: [UInt8] = [0]
        #expect(ccore_videofile_open_memory(empty, 0, 30, &file, nil, 0) == CCORE_E_TRUNCATED)
        var message = [CChar](repeating: 0, count: 128)
        #expect(ccore_videofile_open("/nonexistent/clip.y4m", 30, &file, &message, 128) == -Int32(ENOENT))
        #expect(String(cString: message).contains("/nonexistent/clip.y4m"))
    }

    @Test func mjpegClaimingAHugeFrameIsRefusedAtOpen() {
        let (rc, msg, raw) = Self.open(TestScenes.jpegClaiming(width: 16000, height: 16000))
        #expect(rc == CCORE_E_UNSUPPORTED)
        #expect(raw == nil)
        #expect(msg.contains("frame 0 is 16000x16000, larger than the limit"), "\(msg)")
    }

    static func openPath(_ path: String) -> (Int32, String) {
        var file: OpaquePointer?
        var message = [CChar](repeating: 0, count: 256)
        let rc = ccore_videofile_open(path, 30, &file, &message, 256)
        if let file { ccore_videofile_close(file) }
        return (rc, String(cString: message))
    }

    /// Only regular files are read, and opening never blocks: a FIFO with no writer used to
    /// hang in open(); a directory read as "the file is empty"; a device can block any read.
    @Test func whatIsNotARegularFileIsRefusedNamingIt() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("circadify-vf-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let fifo = dir.appendingPathComponent("clip.y4m").path
        try #require(mkfifo(fifo, 0o600) == 0)
        var (rc, msg) = Self.openPath(fifo)
        #expect(rc == CCORE_E_UNSUPPORTED)
        #expect(msg == "\(fifo) is a FIFO (named pipe), not a video file (give a regular Y4M or MJPEG file)")
        (rc, msg) = Self.openPath(dir.path)
        #expect(rc == -EISDIR)
        #expect(msg.hasPrefix("\(dir.path) is a directory, not a video file"), "\(msg)")
        (rc, msg) = Self.openPath("/dev/null")
        #expect(rc == CCORE_E_UNSUPPORTED)
        #expect(msg.hasPrefix("/dev/null is a character device"), "\(msg)")
    }

    @Test func openErrorsNameTheFile() throws {
        let empty = try TemporaryFile(named: "empty.y4m", contents: [])
        defer { empty.cleanUp() }
        #expect(Self.openPath(empty.path) == (CCORE_E_TRUNCATED, "\(empty.path): the file is empty"))
        let text = try TemporaryFile(named: "notes.txt", contents: Array("hello".utf8))
        defer { text.cleanUp() }
        #expect(Self.openPath(text.path) == (CCORE_E_UNSUPPORTED,
                                              "\(text.path): not a Y4M or MJPEG file (first byte 0x68)"))
    }

    static func mjpegStream(frames: Int) -> ([UInt8], [Int]) {
        var bytes = [UInt8](), sizes = [Int]()
        for i in 0..<frames {
            let jpeg = TestScenes.jpeg(rgb: TestScenes.faceRGB(width: 64, height: 48, phase: Double(i)),
                                       width: 64, height: 48)
            bytes += jpeg
            sizes.append(jpeg.count)
        }
        return (bytes, sizes)
    }

    @Test func splitsAConcatenatedMJPEGStream() throws {
        let (bytes, sizes) = Self.mjpegStream(frames: 5)
        let (rc, msg, raw) = Self.open(bytes, fps: 15)
        #expect(rc == 0, "\(msg)")
        let file = try #require(raw)
        defer { ccore_videofile_close(file) }
        var info = ccore_videofile_info()
        ccore_videofile_get_info(file, &info)
        #expect(info.kind == CCORE_VIDEOFILE_MJPEG)
        #expect(info.width == 64 && info.height == 48, "size from the first frame's header")
        #expect(info.fps_numerator == 15)
        var frame = ccore_videofile_frame()
        for i in 0..<5 {
            #expect(ccore_videofile_next(file, &frame) == 0)
            #expect(frame.jpeg_size == sizes[i], "frame \(i) boundaries")
            #expect(frame.jpeg[0] == 0xFF && frame.jpeg[1] == 0xD8 && frame.jpeg[frame.jpeg_size - 1] == 0xD9)
        }
        #expect(ccore_videofile_next(file, &frame) == CCORE_E_END)
    }

    @Test func truncatedMJPEGNamesTheFrame() throws {
        let (bytes, _) = Self.mjpegStream(frames: 3)
        let (_, _, raw) = Self.open(Array(bytes.dropLast(40)))
        let file = try #require(raw)
        defer { ccore_videofile_close(file) }
        #expect(Self.readAll(file) == (2, CCORE_E_TRUNCATED))
        #expect(Self.message(file).contains("frame 2 is truncated"))
    }

    @Test func garbageBetweenMJPEGFramesIsCorrupt() throws {
        let (bytes, sizes) = Self.mjpegStream(frames: 2)
        var broken = Array(bytes.prefix(sizes[0]))
        broken += [0x00, 0x11, 0x22]
        broken += bytes.suffix(sizes[1])
        let (_, _, raw) = Self.open(broken)
        let file = try #require(raw)
        defer { ccore_videofile_close(file) }
        #expect(Self.readAll(file) == (1, CCORE_E_CORRUPT))
        #expect(Self.message(file).contains("frame 1: no JPEG start-of-image marker"))
    }

    @Test func firstFrameWithoutAnEndIsAnOpenError() {
        let (bytes, sizes) = Self.mjpegStream(frames: 1)
        let (rc, msg, raw) = Self.open(Array(bytes.prefix(sizes[0] - 2)))
        #expect(rc == CCORE_E_TRUNCATED)
        #expect(raw == nil)
        #expect(msg.contains("frame 0 is truncated"))
    }
}
