import ArgumentParser
import Circadify

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
        // A Y4M file is read at its header's rate whatever --fps says: the same rate is
        // harmless (a script that passes --fps for every file), another one a mistake.
        if let fps, let input, let own = VideoFileHeader.y4mFrameRate(path: input),
           abs(own - Double(fps)) > 0.005 * own {
            let rate = own == own.rounded() ? String(Int(own)) : String((own * 1000).rounded() / 1000)
            throw ValidationError("--fps \(fps) sets the frame rate of a raw MJPEG file; \(input) is Y4M at \(rate) fps "
                + "by its header: drop --fps")
        }
    }

    static func frameRate(_ text: String) throws -> UInt32 {
        guard let value = UInt32(text), (1...999).contains(value) else {
            throw ValidationError("a frame rate is a whole number of frames per second from 1 to 999")
        }
        return value
    }
}
