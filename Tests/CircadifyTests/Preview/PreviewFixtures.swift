import Foundation
@testable import Circadify

/// Pictures and a face for the overlay's tests.
enum PreviewFixtures {
    /// A flat grey picture.
    static func grey(width: Int = 640, height: Int = 480, level: UInt8 = 100) -> RGBFrame {
        RGBFrame(width: width, height: height, sequence: 0, pixels: [UInt8](repeating: level, count: width * height * 3))
    }

    /// Left half red, right half blue: which side is which shows a mirror.
    static func halves(width: Int = 640, height: Int = 480) -> RGBFrame {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                pixels[(y * width + x) * 3 + (x < width / 2 ? 0 : 2)] = 200
            }
        }
        return RGBFrame(width: width, height: height, sequence: 0, pixels: pixels)
    }

    /// A face left of centre (so a mirror moves it), as FaceLayout places one.
    static let face = CircadifyScanFace(
        forehead: CGPoint(x: 0.35, y: 0.30), leftCheek: CGPoint(x: 0.43, y: 0.52), rightCheek: CGPoint(x: 0.27, y: 0.52),
        ovalCenter: CGPoint(x: 0.35, y: 0.45), ovalSize: CGSize(width: 0.36, height: 0.62),
        imageAspect: 4.0 / 3.0, isMirrored: false)

    /// `point` in pixels of a `width` x `height` picture, mirrored when asked.
    static func pixel(_ point: CGPoint, width: Int = 640, height: Int = 480, mirrored: Bool = false) -> (x: Int, y: Int) {
        let x = mirrored ? 1 - Double(point.x) : Double(point.x)
        return (Int(x * Double(width)), Int(Double(point.y) * Double(height)))
    }

    /// How far a rendered pixel is from the grey it was drawn on (sum of channel differences).
    static func change(_ frame: CircadifyPreviewFrame, at p: (x: Int, y: Int), from level: UInt8 = 100) -> Int {
        guard let c = frame.pixel(x: p.x, y: p.y) else { return -1 }
        return abs(Int(c.r) - Int(level)) + abs(Int(c.g) - Int(level)) + abs(Int(c.b) - Int(level))
    }

    /// A style whose every colour is `color`.
    static func uniform(_ color: Color) -> CircadifyScanStyle {
        CircadifyScanStyle(coreColor: color, hotColor: color, midColor: color, goldColor: color, ovalColor: color)
    }
}
