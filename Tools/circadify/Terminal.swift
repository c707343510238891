import Foundation
import Glibc

/// The two output streams and what is known about them.
enum Terminal {
    static func writeError(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    static func writeOutput(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    /// A person is watching this stream (so it can be redrawn in place).
    static func isInteractive(_ fd: Int32) -> Bool { isatty(fd) == 1 }

    /// Columns of the terminal on `fd`; 80 when it is not one or does not say.
    static func width(_ fd: Int32) -> Int {
        var size = winsize()
        guard ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
    }
}
