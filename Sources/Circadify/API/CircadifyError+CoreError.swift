import CCore
import Glibc

extension CircadifyError {
    /// The public error for a failure of the C core, given what was being read
    /// (DESIGN.md §4's on-device mapping).
    ///
    /// A camera: no node or not a capture device (a directory, a regular file) → `cameraNotAvailable`; no permission →
    /// `cameraPermissionDenied`; busy → `cameraInUse`; unplugged (ENODEV), a fatal stream
    /// error, or no format the core can read → `captureFailed` with the core's message.
    ///
    /// A file: every failure is `captureFailed` with the core's message, including a
    /// missing or unreadable file. The camera cases would be wrong there — they describe
    /// the machine's camera and tell the user to fix its permissions or free it — while
    /// `captureFailed` says "this input could not be read" and carries the path and reason.
    ///
    /// Either: misuse of the core (invalid state or argument, out of memory) → `unknown`.
    package init(_ error: CoreError, reading input: FrameSourceInput) {
        switch (error.code, input) {
        case (CCORE_E_STATE, _), (-EINVAL, _), (-ENOMEM, _):
            // A bug or an exhausted machine, whatever was being read.
            self = .unknown(error.description)
        case (_, .file):
            self = .captureFailed(error.message)
        case (-ENOENT, .device), (-ENXIO, .device), (-ENOTDIR, .device), (-EISDIR, .device),
             (CCORE_E_NOT_CAPTURE, .device):
            self = .cameraNotAvailable
        case (-EACCES, .device), (-EPERM, .device):
            self = .cameraPermissionDenied
        case (-EBUSY, .device):
            self = .cameraInUse
        case (_, .device):
            self = .captureFailed(error.message)
        }
    }
}
