/// Numbers as a person types them on the command line.
enum ArgumentValues {
    /// A plain decimal number ("30", "12.5", ".5"): digits and at most one point. Swift's
    /// `Double(_:)` also reads "0x10" (16), "1e3", "inf" and "nan", which as a duration
    /// would be a typo taken at its word.
    static func decimal(_ text: String) -> Double? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, parts.contains(where: { !$0.isEmpty }),
              parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }) else { return nil }
        return Double(text)
    }
}
