/// A pulse wave drawn as one line of braille: each character holds two samples side
/// by side, each at one of four heights, so a 40-character line shows 80 samples.
enum PulseTrace {
    /// Dot bits of a braille cell, bottom row first, for the left and the right column.
    private static let leftDots: [UInt32] = [0x40, 0x04, 0x02, 0x01]
    private static let rightDots: [UInt32] = [0x80, 0x20, 0x10, 0x08]

    /// The newest `2 * width` samples of `wave` (roughly -1...1, scaled to its own peak so a
    /// weak pulse still shows), as `width` braille characters; blank cells before the first sample.
    static func render(_ wave: [Float], width: Int) -> String {
        guard width > 0 else { return "" }
        let samples = resample(wave, to: 2 * width)
        let peak = samples.map { abs($0) }.max() ?? 0
        let scale: Float = peak > 0 ? 1 / peak : 0
        func row(_ value: Float) -> Int {
            min(3, max(0, Int((((value * scale) + 1) / 2 * 4).rounded(.down))))
        }
        var text = String(repeating: "\u{2800}", count: width - (samples.count + 1) / 2)
        var index = 0
        while index < samples.count {
            var bits = leftDots[row(samples[index])]
            if index + 1 < samples.count { bits |= rightDots[row(samples[index + 1])] }
            text.unicodeScalars.append(Unicode.Scalar(0x2800 + bits) ?? "\u{2800}")
            index += 2
        }
        return text
    }

    /// At most `count` points: the wave itself when it is short, else evenly picked.
    private static func resample(_ wave: [Float], to count: Int) -> [Float] {
        guard wave.count > count else { return wave.filter { $0.isFinite } }
        let step = Double(wave.count) / Double(count)
        return (0..<count).map { i in
            let value = wave[min(wave.count - 1, Int(Double(i) * step))]
            return value.isFinite ? value : 0
        }
    }
}
