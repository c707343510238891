import CCore
import CCoreTestSupport
import Foundation
import Testing

/// The MJPEG reader parses 64 KiB blocks, not single bytes: frames, markers, stuffed
/// bytes and segment lengths that straddle a block boundary must come back exactly as
/// written, and a stream cut at a boundary must fail as any truncated stream does.
@Suite struct VideoFileBlockTests {
    static let block = 64 << 10

    /// A JPEG with enough entropy-coded data to hold stuffed 0xFF00 bytes.
    static let jpeg = TestScenes.jpeg(rgb: TestScenes.faceRGB(width: 96, height: 72, phase: 0.3), width: 96,
                                      height: 72, quality: 95)

    /// `jpeg` with a comment segment after SOI whose body pads the frame to `size` bytes.
    static func padded(to size: Int) -> [UInt8] {
        let body = size - jpeg.count - 4
        precondition(body >= 0 && body + 2 <= 0xFFFF, "comment body \(body) out of range")
        let length = body + 2
        return Array(jpeg.prefix(2)) + [0xFF, 0xFE, UInt8(length >> 8), UInt8(length & 0xFF)]
            + [UInt8](repeating: 0x20, count: body) + Array(jpeg.dropFirst(2))
    }

    /// Every frame of a stream, byte for byte, and the code that ended it.
    static func frames(_ bytes: [UInt8]) throws -> ([[UInt8]], Int32, String) {
        let (rc, msg, raw) = VideoFileTests.open(bytes)
        guard rc == 0 else { return ([], rc, msg) }
        let file = try #require(raw)
        defer { ccore_videofile_close(file) }
        var out = [[UInt8]]()
        var frame = ccore_videofile_frame()
        while true {
            let rc = ccore_videofile_next(file, &frame)
            if rc != 0 { return (out, rc, VideoFileTests.message(file)) }
            out.append(Array(UnsafeBufferPointer(start: frame.jpeg, count: frame.jpeg_size)))
        }
    }

    /// Offsets in `jpeg` where a boundary is hardest: on and just after every 0xFF (marker
    /// and stuffing bytes) and on the bytes of each segment's length.
    static var interestingOffsets: [Int] {
        var offsets = Set([1, 2, 3, jpeg.count - 2, jpeg.count - 1])
        for (i, byte) in jpeg.enumerated() where byte == 0xFF {
            offsets.formUnion([i, i + 1, i + 2, i + 3].filter { $0 < jpeg.count })
        }
        return offsets.sorted()
    }

    @Test func jpegUnderTestHasStuffedBytes() {
        let stuffed = zip(Self.jpeg, Self.jpeg.dropFirst()).filter { $0 == 0xFF && $1 == 0x00 }.count
        #expect(stuffed > 0, "the entropy-coded data holds no 0xFF00: the test would not exercise stuffing")
    }

    @Test func framesStraddlingABlockBoundaryComeBackByteForByte() throws {
        let offsets = Self.interestingOffsets
        #expect(offsets.count > 20)
        for p in offsets {
            // The first frame ends `p` bytes before the boundary, so the second straddles it at offset p.
            let first = Self.padded(to: Self.block - p)
            let stream = first + Self.jpeg + Self.jpeg
            let (got, rc, msg) = try Self.frames(stream)
            #expect(rc == CCORE_E_END, "boundary at offset \(p) of frame 1: \(msg)")
            #expect(got == [first, Self.jpeg, Self.jpeg], "boundary at offset \(p) of frame 1")
        }
    }

    @Test func aFrameLargerThanABlockComesBackWhole() throws {
        // 320x240 of noise at quality 100: well over 64 KiB of entropy-coded data.
        var rng = SeededRandom(seed: 17)
        let rgb = (0..<(320 * 240 * 3)).map { _ in UInt8.random(in: 0...255, using: &rng) }
        let big = TestScenes.jpeg(rgb: rgb, width: 320, height: 240, quality: 100)
        #expect(big.count > 2 * Self.block)
        let (got, rc, msg) = try Self.frames(Self.jpeg + big + Self.jpeg)
        #expect(rc == CCORE_E_END, "\(msg)")
        #expect(got == [Self.jpeg, big, Self.jpeg])
    }

    @Test(arguments: [-2, -1, 0, 1, 2])
    func streamCutAtABlockBoundaryIsTruncated(delta: Int) throws {
        let first = Self.padded(to: Self.block - 100)
        let stream = first + Self.jpeg + Self.jpeg
        let (got, rc, msg) = try Self.frames(Array(stream.prefix(Self.block + delta)))
        #expect(got == [first], "cut at the boundary \(delta >= 0 ? "+" : "")\(delta)")
        #expect(rc == CCORE_E_TRUNCATED)
        #expect(msg.contains("frame 1 is truncated"), "\(msg)")
    }

    @Test func filesReadLikeMemory() throws {
        // A real file takes the same path as memory (64 KiB blocks); rewinding drops the read-ahead.
        let first = Self.padded(to: Self.block - 7)
        let stream = first + Self.jpeg + Self.jpeg
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("ccore-blocks-\(UUID()).mjpeg")
        try Data(stream).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        var raw: OpaquePointer?
        var message = [CChar](repeating: 0, count: 256)
        #expect(ccore_videofile_open(url.path, 30, &raw, &message, 256) == 0)
        let file = try #require(raw)
        defer { ccore_videofile_close(file) }
        for pass in 0..<2 {
            var frame = ccore_videofile_frame()
            var sizes = [Int]()
            while ccore_videofile_next(file, &frame) == 0 { sizes.append(frame.jpeg_size) }
            #expect(sizes == [first.count, Self.jpeg.count, Self.jpeg.count], "pass \(pass)")
            #expect(ccore_videofile_rewind(file) == 0)
        }
    }
}
