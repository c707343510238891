/// One rendered preview picture: the camera's frame (mirrored for the front
/// camera) with the scan overlay drawn on it.
public struct CircadifyPreviewFrame: Sendable, Equatable {
    public let width: Int
    public let height: Int
    /// Bytes per row: `4 * width` (rows are not padded).
    public let stride: Int
    /// RGBA, 8 bits per channel, alpha 255, rows top to bottom.
    public let pixels: [UInt8]
    /// Seconds of video since the camera's stream began (a replay's own clock).
    public let timestamp: Double

    package init(width: Int, height: Int, pixels: [UInt8], timestamp: Double) {
        self.width = width
        self.height = height
        stride = 4 * width
        self.pixels = pixels
        self.timestamp = timestamp
    }

    /// The pixel at (x, y) as (r, g, b, a); nil outside the picture.
    public func pixel(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8)? {
        guard x >= 0, y >= 0, x < width, y < height else { return nil }
        let i = y * stride + 4 * x
        return (pixels[i], pixels[i + 1], pixels[i + 2], pixels[i + 3])
    }
}
