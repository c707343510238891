/// An sRGB colour for the scan overlay's style: Linux has no SwiftUI, so this
/// stands in for its `Color` with the initialisers the seed's examples use.
public struct Color: Sendable, Equatable, Hashable {
    /// Components in 0...1 (values outside are clamped when drawn).
    public var red: Double
    public var green: Double
    public var blue: Double
    public var opacity: Double

    public init(red: Double, green: Double, blue: Double, opacity: Double = 1) {
        self.red = red
        self.green = green
        self.blue = blue
        self.opacity = opacity
    }

    /// A colour written as 0xRRGGBB, e.g. `Color(hex: 0xFF331A)`.
    public init(hex: UInt32, opacity: Double = 1) {
        self.init(red: Double((hex >> 16) & 0xFF) / 255, green: Double((hex >> 8) & 0xFF) / 255,
                  blue: Double(hex & 0xFF) / 255, opacity: opacity)
    }

    /// The colour as 8-bit sRGB, rounded.
    public var rgb8: (red: UInt8, green: UInt8, blue: UInt8) {
        (Self.byte(red), Self.byte(green), Self.byte(blue))
    }

    private static func byte(_ v: Double) -> UInt8 {
        guard v.isFinite else { return 0 }
        return UInt8(min(max(v, 0), 1) * 255 + 0.5)
    }
}
