import CCore

/// The one owner of a `ccore_source` handle. The capture thread lives inside
/// it; `deinit` stops the thread, restores camera controls, unmaps buffers and
/// closes the device.
///
/// `@unchecked Sendable`: the C handle is built for exactly two threads, the
/// capture thread and one consumer. `FrameSource` makes sure a single drain
/// task is that consumer and serialises every other call through its actor.
final class SourceHandle: @unchecked Sendable {
    let raw: OpaquePointer

    private init(raw: OpaquePointer) { self.raw = raw }

    deinit { ccore_source_destroy(raw) }

    typealias Opener = (UnsafePointer<CChar>, UnsafePointer<ccore_source_config>,
                        UnsafeMutablePointer<OpaquePointer?>, UnsafeMutablePointer<CChar>, UInt32) -> Int32

    static func open(path: String, config: ccore_source_config, using opener: Opener) throws(CoreError) -> SourceHandle {
        var config = config
        var handle: OpaquePointer?
        var message = [CChar](repeating: 0, count: Int(CCORE_SOURCE_MESSAGE_SIZE)) // holds any open error whole
        let rc = message.withUnsafeMutableBufferPointer { buffer in
            opener(path, &config, &handle, buffer.baseAddress!, UInt32(buffer.count))
        }
        guard rc == 0, let handle else {
            throw CoreError(code: rc, message: stringFromCChars(message))
        }
        return SourceHandle(raw: handle)
    }

    var lastErrorMessage: String { String(cString: ccore_source_error_message(raw)) }

    func check(_ rc: Int32) throws(CoreError) {
        if rc < 0 { throw CoreError(code: rc, message: lastErrorMessage) }
    }
}
