import Foundation

/// JSON text for the few values the server writes by hand.
enum JSONText {
    /// A JSON string literal, escaped.
    static func string(_ text: String) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: [text], options: [.withoutEscapingSlashes]) else {
            return "\"\""
        }
        let array = String(decoding: data, as: UTF8.self)
        return String(array.dropFirst().dropLast())
    }
}
