import CCore

/// A trained OpenCV face cascade (an XML file of Debian's `opencv-data`),
/// parsed once by the C core.
///
/// `@unchecked Sendable`: the C cascade is immutable after loading, so any
/// number of detectors on any threads may read it at once.
package final class FaceCascade: @unchecked Sendable {
    /// OpenCV's frontal-face LBP cascade: a 24 px window, so faces down to
    /// 24 px are found, and the fastest of the frontal-face files.
    package static let defaultPath = "/usr/share/opencv4/lbpcascades/lbpcascade_frontalface.xml"

    let raw: OpaquePointer

    /// Loads a cascade file. Missing file: `-ENOENT` (the message says to
    /// install opencv-data); malformed or truncated: `CCORE_E_CORRUPT`; a
    /// kind of cascade the core does not evaluate: `CCORE_E_UNSUPPORTED`.
    package init(path: String = FaceCascade.defaultPath) throws(CoreError) {
        var handle: OpaquePointer?
        var message = [CChar](repeating: 0, count: 512)
        let rc = message.withUnsafeMutableBufferPointer { buffer in
            ccore_cascade_load(path, &handle, buffer.baseAddress, UInt32(buffer.count))
        }
        guard rc == 0, let handle else { throw CoreError(code: rc, message: stringFromCChars(message)) }
        raw = handle
    }

    deinit { ccore_cascade_destroy(raw) }

    /// The trained window: the smallest face this cascade finds, in pixels.
    package var windowWidth: Int { Int(ccore_cascade_window_width(raw)) }
    package var windowHeight: Int { Int(ccore_cascade_window_height(raw)) }
}
