import ArgumentParser
import Glibc

/// Where the frames come from, for the commands that take a camera or a file
/// (scan, preview, monitor): the options, their parsing and the rules between
/// them in one place. What a command does with a file (measure it, replay it in
/// a loop, follow it at its frame rate) its own help says.
struct SourceOptions: ParsableArguments {
    @Option(help: ArgumentHelp("A V4L2 capture node, e.g. /dev/video0.", valueName: "path"))
    var device: String?

    @Option(help: ArgumentHelp("A Y4M or raw MJPEG video file instead of a camera.", valueName: "file"))
    var input: String?

    // `.unconditional`: "--fps -1" is a bad frame rate, not a missing value followed by an option.
    @Option(parsing: .unconditional, help: "Frame rate of a raw MJPEG file, 1-999 (default: 30).",
            transform: SourceOptions.frameRate)
    var fps: UInt32?

    /// The frame rate a file is read at: --fps, else 30 (a Y4M file carries its own).
    var fileFrameRate: UInt32 { fps ?? 30 }

    func validate() throws {
        if device != nil, input != nil { throw ValidationError("give --device or --input, not both") }
        if fps != nil, input == nil {
            throw ValidationError("--fps sets the frame rate of an MJPEG file (--input); a camera runs at its own")
        }
        if fps != nil, let input, Self.isY4M(input) {
            throw ValidationError("--fps sets the frame rate of a raw MJPEG file; \(input) is Y4M, whose header gives "
                + "its own (F)")
        }
    }

    /// Whether `path` starts as a Y4M file does; a file that cannot be read is left to the
    /// command, which says why.
    static func isY4M(_ path: String) -> Bool {
        guard let file = fopen(path, "rb") else { return false }
        defer { fclose(file) }
        var magic = [UInt8](repeating: 0, count: 9)
        return fread(&magic, 1, magic.count, file) == magic.count && magic == Array("YUV4MPEG2".utf8)
    }

    static func frameRate(_ text: String) throws -> UInt32 {
        guard let value = UInt32(text), (1...999).contains(value) else {
            throw ValidationError("a frame rate is a whole number of frames per second from 1 to 999")
        }
        return value
    }
}
