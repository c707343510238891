import CCore

/// An error from the C core: its code (a negated errno or a `CCORE_E_*` value),
/// the code's symbolic name and the core's detailed message.
package struct CoreError: Error, Sendable, Equatable, CustomStringConvertible {
    package let code: Int32
    package let message: String

    package init(code: Int32, message: String) {
        self.code = code
        self.message = message.isEmpty ? String(cString: ccore_error_string(code)) : message
    }

    /// Symbolic name: "EBUSY", "CCORE_E_TRUNCATED", ...
    package var name: String { String(cString: ccore_error_name(code)) }

    package var description: String { "\(message) [\(name)]" }

    package static let notCapture = (CCORE_E_NOT_CAPTURE)
    package static let noFormat = (CCORE_E_NO_FORMAT)
    package static let truncated = (CCORE_E_TRUNCATED)
    package static let corrupt = (CCORE_E_CORRUPT)
    package static let unsupported = (CCORE_E_UNSUPPORTED)
    package static let streamFailed = (CCORE_E_STREAM)
    package static let invalidState = (CCORE_E_STATE)
}

/// Decodes a NUL-terminated C string held in a Swift array.
func stringFromCChars(_ chars: [CChar]) -> String {
    String(decoding: chars.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// Reads a fixed-size C `char` buffer filled by the core as a Swift string.
func stringFromCBuffer<T>(_ buffer: T) -> String {
    withUnsafeBytes(of: buffer) { raw in
        let bytes = raw.prefix { $0 != 0 }
        return String(decoding: bytes, as: UTF8.self)
    }
}
