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

    /// Whether `path` is a regular file that starts as a Y4M file does. Anything else (no
    /// such file, a FIFO, a device) is left to the command, which says why: opened without
    /// blocking and never read unless regular, as the core's reader does, so a FIFO with no
    /// writer cannot hang the check.
    static func isY4M(_ path: String) -> Bool {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return false }
        var magic = [UInt8](repeating: 0, count: 9)
        return read(fd, &magic, magic.count) == magic.count && magic == Array("YUV4MPEG2".utf8)
    }

    static func frameRate(_ text: String) throws -> UInt32 {
        guard let value = UInt32(text), (1...999).contains(value) else {
            throw ValidationError("a frame rate is a whole number of frames per second from 1 to 999")
        }
        return value
    }
}
