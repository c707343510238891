import CCore
import CCoreTestSupport
import Foundation
import Glibc
import Testing

/// A hostile-input corpus, generated here (nothing large is committed), replayed through the
/// real `circadify` binary: header attacks, truncations, odd and refused subsamplings,
/// 1-pixel frames, huge claimed sizes, FIFOs, devices, directories. Each case asserts its
/// exit status and what the message says, and that the process exited rather than crashed.
@Suite struct HostileInputTests {
    /// What the input path is.
    enum Input: Sendable {
        case bytes(String, [UInt8]) // a regular file with this name and content
        case fifo                   // a named pipe nobody writes to
        case directory
        case path(String)           // an existing system path, e.g. /dev/null
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var command: [String] // "scan", "--json", "--input", ... ; the input path follows
        var input: Input
        var options: [String] = []
        var status: Int32
        var says: String // in the JSON message (scan --json), else on stderr, or on stdout when it succeeds
        var testDescription: String { name }
    }

    // MARK: inputs

    static func y4m(_ header: String, frames: Int = 0, frameBytes: Int = 0) -> [UInt8] {
        var bytes = Array((header + "\n").utf8)
        for _ in 0..<frames { bytes += Array("FRAME\n".utf8) + [UInt8](repeating: 100, count: frameBytes) }
        return bytes
    }

    static func jpeg(_ width: Int, _ height: Int, _ subsampling: ccore_jpeg_subsampling) -> [UInt8] {
        TestScenes.jpeg(rgb: TestScenes.faceRGB(width: width, height: height), width: width, height: height,
                        subsampling: subsampling)
    }

    /// A JPEG with only its tables: no frame header (the fuzzer's first finding).
    static var tablesOnly: [UInt8] {
        let jpeg = jpeg(16, 16, CCORE_JPEG_420)
        var sof = 2
        while jpeg[sof + 1] != 0xC0 { sof += 2 + (Int(jpeg[sof + 2]) << 8 | Int(jpeg[sof + 3])) }
        return Array(jpeg[..<sof]) + [0xFF, 0xD9]
    }

    static let scan = ["scan", "--json", "--input"]
    static let tenFrames = (0..<10).flatMap { _ in jpeg(16, 16, CCORE_JPEG_420) }

    static let cases: [Case] = [
        // Y4M header attacks.
        Case(name: "negative width", command: scan, input: .bytes("w.y4m", y4m("YUV4MPEG2 W-640 H480 F30:1")),
             status: 30, says: "'W-640' is malformed"),
        Case(name: "negative rate", command: scan, input: .bytes("f.y4m", y4m("YUV4MPEG2 W8 H8 F-30:1")),
             status: 30, says: "'F-30:1' is malformed"),
        Case(name: "rate overflowing 32 bits", command: scan,
             input: .bytes("f.y4m", y4m("YUV4MPEG2 W8 H8 F30:4294967296")), status: 30, says: "is malformed"),
        Case(name: "zero rate", command: scan, input: .bytes("f.y4m", y4m("YUV4MPEG2 W8 H8 F0:1")),
             status: 30, says: "outside 1-999 frames per second"),
        Case(name: "huge Y4M frame", command: scan, input: .bytes("big.y4m", y4m("YUV4MPEG2 W16000 H16000 F30:1")),
             status: 30, says: "larger than the limit of 8192 pixels a side"),
        Case(name: "endless header", command: scan,
             input: .bytes("long.y4m", Array(("YUV4MPEG2 " + String(repeating: "X", count: 5000)).utf8)),
             status: 30, says: "header longer than"),
        Case(name: "10-bit Y4M", command: scan, input: .bytes("p10.y4m", y4m("YUV4MPEG2 W8 H8 F30:1 C420p10")),
             status: 30, says: "C420p10 is not supported"),
        // Truncations.
        Case(name: "empty file", command: scan, input: .bytes("empty.y4m", []), status: 30, says: "the file is empty"),
        Case(name: "cut in the header", command: scan, input: .bytes("cut.y4m", Array("YUV4MPEG2 W8 H8".utf8)),
             status: 30, says: "truncated"),
        Case(name: "cut in a frame", command: scan,
             input: .bytes("cut.y4m", y4m("YUV4MPEG2 W8 H8 F30:1", frames: 1, frameBytes: 50)),
             status: 30, says: "frame 0 is truncated: 50 of 96 bytes"),
        Case(name: "MJPEG cut in a frame", command: scan,
             input: .bytes("cut.mjpeg", Array(tenFrames.prefix(tenFrames.count / 10 * 3 + 40))),
             status: 30, says: "is truncated"),
        Case(name: "not a video", command: scan, input: .bytes("notes.txt", Array("hello".utf8)),
             status: 30, says: "not a Y4M or MJPEG file"),
        // MJPEG frame headers: refused subsamplings, 1-pixel frames, claimed sizes, no frame at all.
        Case(name: "4:4:0 MJPEG", command: scan, input: .bytes("440.mjpeg", jpeg(16, 16, CCORE_JPEG_440)),
             status: 30, says: "(4:4:0 or 4:1:1) not supported"),
        Case(name: "4:1:1 MJPEG", command: scan, input: .bytes("411.mjpeg", jpeg(17, 9, CCORE_JPEG_411)),
             status: 30, says: "not supported"),
        // One frame decodes (it used to overflow the planes) and the file is then too short.
        Case(name: "1x1 MJPEG", command: scan, input: .bytes("1x1.mjpeg", jpeg(1, 1, CCORE_JPEG_420)),
             status: 30, says: "s of video"),
        Case(name: "1x4000 4:2:2 MJPEG", command: scan, input: .bytes("tall.mjpeg", jpeg(1, 4000, CCORE_JPEG_422)),
             status: 30, says: "s of video"),
        Case(name: "MJPEG claiming 16000x16000", command: scan,
             input: .bytes("claim.mjpeg", TestScenes.jpegClaiming(width: 16000, height: 16000)),
             status: 30, says: "frame 0 is 16000x16000, larger than the limit"),
        Case(name: "tables-only MJPEG frame", command: scan, input: .bytes("tables.mjpeg", tablesOnly + tenFrames),
             status: 30, says: "frame 0: JPEG has no valid frame header"),
        Case(name: "tables-only frame later", command: scan, input: .bytes("tables2.mjpeg", tenFrames + tablesOnly),
             status: 30, says: "no frame header"),
        // What is not a regular file: refused at once, naming it (a FIFO used to hang in open).
        Case(name: "FIFO", command: scan, input: .fifo, status: 30, says: "is a FIFO (named pipe), not a video file"),
        Case(name: "directory", command: scan, input: .directory, status: 30, says: "is a directory, not a video file"),
        Case(name: "/dev/null", command: scan, input: .path("/dev/null"), status: 30,
             says: "/dev/null is a character device"),
        Case(name: "/dev/zero", command: scan, input: .path("/dev/zero"), status: 30,
             says: "/dev/zero is a character device"),
        Case(name: "missing file", command: scan, input: .path("/nonexistent/clip.y4m"), status: 30,
             says: "cannot open /nonexistent/clip.y4m: No such file or directory"),
        // The same readers under `samples`.
        Case(name: "samples: 1x4000 4:2:2", command: ["samples", "--fast", "--input"],
             input: .bytes("tall.mjpeg", jpeg(1, 4000, CCORE_JPEG_422)), status: 0, says: "1 frames in, 1 samples out"),
        Case(name: "samples: 4001x1 4:2:0", command: ["samples", "--fast", "--input"],
             input: .bytes("wide.mjpeg", jpeg(4001, 1, CCORE_JPEG_420)), status: 0, says: "1 frames in, 1 samples out"),
        Case(name: "samples: FIFO", command: ["samples", "--fast", "--input"], input: .fifo, status: 1,
             says: "is a FIFO"),
        Case(name: "samples: claimed 20000x20000", command: ["samples", "--fast", "--input"],
             input: .bytes("claim.mjpeg", TestScenes.jpegClaiming(width: 20000, height: 20000)), status: 1,
             says: "larger than the limit"),
        // Still images under `faces`: 65 bad or too large, 66 unreadable.
        Case(name: "faces: 1x4000 4:2:2", command: ["faces"], input: .bytes("tall.jpg", jpeg(1, 4000, CCORE_JPEG_422)),
             status: 0, says: "{\"faces\":[]}"),
        Case(name: "faces: 4001x1 4:2:0", command: ["faces"], input: .bytes("wide.jpg", jpeg(4001, 1, CCORE_JPEG_420)),
             status: 0, says: "{\"faces\":[]}"),
        Case(name: "faces: 1x1 gray", command: ["faces"], input: .bytes("dot.jpg", jpeg(1, 1, CCORE_JPEG_GRAY)),
             status: 0, says: "{\"faces\":[]}"),
        Case(name: "faces: 16000x16000 header", command: ["faces"],
             input: .bytes("claim.jpg", TestScenes.jpegClaiming(width: 16000, height: 16000)), status: 65,
             says: "16000x16000, larger than the limit of 8192 pixels a side and 40 megapixels"),
        Case(name: "faces: 20000x20000 header", command: ["faces"],
             input: .bytes("claim.jpg", TestScenes.jpegClaiming(width: 20000, height: 20000)), status: 65,
             says: "larger than the limit"),
        Case(name: "faces: 4:4:0", command: ["faces"], input: .bytes("440.jpg", jpeg(16, 16, CCORE_JPEG_440)),
             status: 65, says: "not supported"),
        Case(name: "faces: tables only", command: ["faces"], input: .bytes("tables.jpg", tablesOnly), status: 65,
             says: "no frame header"),
        Case(name: "faces: truncated", command: ["faces"],
             input: .bytes("cut.jpg", Array(jpeg(64, 48, CCORE_JPEG_420).prefix(300))), status: 65, says: "JPEG"),
        Case(name: "faces: empty", command: ["faces"], input: .bytes("empty.jpg", []), status: 65,
             says: "empty JPEG data"),
        Case(name: "faces: FIFO", command: ["faces"], input: .fifo, status: 66, says: "is a FIFO (named pipe)"),
        Case(name: "faces: directory", command: ["faces"], input: .directory, status: 66, says: "is a directory"),
        Case(name: "faces: /dev/zero", command: ["faces"], input: .path("/dev/zero"), status: 66,
             says: "/dev/zero is a character device"),
        Case(name: "faces: missing", command: ["faces"], input: .path("/nonexistent.jpg"), status: 66,
             says: "No such file or directory"),
    ]

    @Test(arguments: cases)
    func hostileInputIsAClearErrorNotACrashOrAHang(_ hostile: Case) async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("circadify-hostile-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path: String
        switch hostile.input {
        case .bytes(let name, let bytes):
            path = dir.appendingPathComponent(name).path
            try Data(bytes).write(to: URL(fileURLWithPath: path))
        case .fifo:
            path = dir.appendingPathComponent("clip.y4m").path
            try #require(mkfifo(path, 0o600) == 0)
        case .directory:
            path = dir.path
        case .path(let system):
            path = system
        }
        let run = try await CLIProcess.run(hostile.command + [path] + hostile.options, timeout: .seconds(30))
        #expect(!run.signalled, "\(hostile.name): killed by a signal; stderr: \(run.stderr)")
        #expect(run.status == hostile.status, "\(hostile.name): exit \(run.status); \(run.stdout) \(run.stderr)")
        let message: String
        if hostile.command == Self.scan {
            let object = try CLIProcess.jsonObject(run)
            message = object["message"] as? String ?? ""
            #expect(message.contains(path), "\(hostile.name): the message names the file: \(message)")
        } else {
            message = hostile.status == 0 ? run.stdout : run.stderr
        }
        #expect(message.contains(hostile.says), "\(hostile.name): \(message)")
    }
}
