import Foundation

/// Draws the scan overlay (seed "Scan Overlay") onto a camera picture: the
/// picture as RGBA, mirrored when asked (the front camera's selfie view), then
/// the thin guide oval and over it the heat-glow on the forehead and both
/// cheeks. A pure function of its inputs, so tests can render any moment.
///
/// The glow's colour follows its intensity through the style's ramp (gold at
/// rest, mid then hot orange, red core only at full intensity) and its opacity
/// is `glowOpacity` times the intensity: an idle glow peaking at 0.4 is a light
/// gold veil, a measurement's at 1.0 a strong red core.
package struct OverlayRenderer: Sendable {
    /// Opacity of the glow at intensity 1.
    package static let glowOpacity = 0.85
    /// Where the face should sit when none is found: centre, and height as a share of the picture's.
    package static let restingOval = (centerX: 0.5, centerY: 0.47, height: 0.62, widthToHeight: 0.74)

    package private(set) var style: CircadifyScanStyle
    /// The ramp's colours for intensities 0...255, RGB.
    private var ramp: [UInt8]
    private let oval: (r: Int32, g: Int32, b: Int32, a: Double)

    package init(style: CircadifyScanStyle) {
        self.style = style
        ramp = Self.makeRamp(style)
        let o = style.ovalColor.rgb8
        oval = (Int32(o.red), Int32(o.green), Int32(o.blue), min(max(style.ovalColor.opacity, 0), 1))
    }

    /// One glow blob: an ellipse in output pixels with its intensity.
    package struct Blob: Sendable {
        package var centerX, centerY, radiusX, radiusY, intensity: Double
    }

    /// The blobs for `face` at `time`, in the output's pixels (mirrored when the
    /// picture is): sized from the face oval, which grows with the face.
    package static func blobs(for face: CircadifyScanFace, width: Int, height: Int, mirrored: Bool, time: Double,
                              scanning: Bool, style: CircadifyScanStyle) -> [Blob] {
        let ow = Double(face.ovalSize.width) * Double(width), oh = Double(face.ovalSize.height) * Double(height)
        return GlowRegion.allCases.map { region in
            let anchor: CGPoint
            let size: (Double, Double)
            switch region {
            case .forehead: anchor = face.forehead; size = (0.26, 0.12)
            case .leftCheek: anchor = face.leftCheek; size = (0.16, 0.12)
            case .rightCheek: anchor = face.rightCheek; size = (0.16, 0.12)
            }
            let x = mirrored ? 1 - Double(anchor.x) : Double(anchor.x)
            return Blob(centerX: x * Double(width), centerY: Double(anchor.y) * Double(height),
                        radiusX: max(size.0 * ow, 2), radiusY: max(size.1 * oh, 2),
                        intensity: GlowAnimation.intensity(of: region, at: time, scanning: scanning, style: style))
        }
    }

    /// Renders `image` (RGB24) with the overlay when `guide` is on: the oval
    /// follows `face`, or rests where a face should sit when there is none, and
    /// the glow is drawn only on a face.
    package func render(_ image: RGBFrame, mirrored: Bool, face: CircadifyScanFace?, guide: Bool, scanning: Bool,
                        time: Double) -> CircadifyPreviewFrame {
        let w = image.width, h = image.height
        let count = w * h * 4
        guard w > 0, h > 0, image.pixels.count >= w * h * 3 else {
            return CircadifyPreviewFrame(width: 0, height: 0, pixels: [], timestamp: time)
        }
        let pixels = [UInt8](unsafeUninitializedCapacity: count) { out, initialized in
            image.pixels.withUnsafeBufferPointer { src in Self.expand(src, into: out, width: w, height: h, mirrored: mirrored) }
            initialized = count
            guard guide else { return }
            drawOval(face.map { ovalBox(of: $0, width: w, height: h, mirrored: mirrored) } ?? restingBox(width: w, height: h),
                     into: out, width: w, height: h)
            if let face {
                drawGlow(Self.blobs(for: face, width: w, height: h, mirrored: mirrored, time: time, scanning: scanning,
                                    style: style), into: out, width: w, height: h)
            }
        }
        return CircadifyPreviewFrame(width: w, height: h, pixels: pixels, timestamp: time)
    }

    // MARK: - The picture

    private static func expand(_ src: UnsafeBufferPointer<UInt8>, into out: UnsafeMutableBufferPointer<UInt8>,
                               width w: Int, height h: Int, mirrored: Bool) {
        for y in 0..<h {
            var s = y * w * 3
            var o = y * w * 4
            if mirrored {
                s += (w - 1) * 3
                for _ in 0..<w {
                    out[o] = src[s]; out[o + 1] = src[s + 1]; out[o + 2] = src[s + 2]; out[o + 3] = 255
                    o += 4; s -= 3
                }
            } else {
                for _ in 0..<w {
                    out[o] = src[s]; out[o + 1] = src[s + 1]; out[o + 2] = src[s + 2]; out[o + 3] = 255
                    o += 4; s += 3
                }
            }
        }
    }

    // MARK: - The guide oval

    private typealias Ellipse = (cx: Double, cy: Double, a: Double, b: Double)

    private func ovalBox(of face: CircadifyScanFace, width: Int, height: Int, mirrored: Bool) -> Ellipse {
        let x = mirrored ? 1 - Double(face.ovalCenter.x) : Double(face.ovalCenter.x)
        return (x * Double(width), Double(face.ovalCenter.y) * Double(height),
                Double(face.ovalSize.width) * Double(width) / 2, Double(face.ovalSize.height) * Double(height) / 2)
    }

    private func restingBox(width: Int, height: Int) -> Ellipse {
        let r = Self.restingOval
        let b = r.height * Double(height) / 2
        return (r.centerX * Double(width), r.centerY * Double(height), b * r.widthToHeight, b)
    }

    /// An anti-aliased outline about two pixels wide (thicker on large pictures),
    /// visited only along the rim: two short spans per row.
    private func drawOval(_ e: Ellipse, into out: UnsafeMutableBufferPointer<UInt8>, width w: Int, height h: Int) {
        guard e.a >= 1, e.b >= 1, oval.a > 0, Self.drawable(e.cx), Self.drawable(e.cy),
              Self.drawable(e.a), Self.drawable(e.b) else { return }
        let half = max(1.0, Double(min(w, h)) / 480) // half the line's width, pixels
        let reach = half + 1
        let y0 = max(0, Int((e.cy - e.b - reach).rounded(.down))), y1 = min(h - 1, Int((e.cy + e.b + reach).rounded(.up)))
        guard y0 <= y1 else { return }
        for y in y0...y1 {
            let dy = Double(y) + 0.5 - e.cy
            let outer = Self.halfWidth(a: e.a + reach, b: e.b + reach, dy: dy)
            guard outer > 0 else { continue }
            let inner = Self.halfWidth(a: e.a - reach, b: e.b - reach, dy: dy)
            for (from, to) in [(-outer, -inner), (inner, outer)] {
                let x0 = max(0, Int((e.cx + from).rounded(.down))), x1 = min(w - 1, Int((e.cx + to).rounded(.up)))
                guard x0 <= x1 else { continue }
                for x in x0...x1 {
                    let dx = Double(x) + 0.5 - e.cx
                    let u = dx / e.a, v = dy / e.b
                    let rho = (u * u + v * v).squareRoot()
                    guard rho > 0 else { continue }
                    // Distance to the outline in pixels: (rho - 1) over rho's gradient.
                    let gx = dx / (e.a * e.a * rho), gy = dy / (e.b * e.b * rho)
                    let distance = abs(rho - 1) / max((gx * gx + gy * gy).squareRoot(), 1e-9)
                    let coverage = min(max(half + 0.5 - distance, 0), 1) * oval.a
                    guard coverage > 0 else { continue }
                    Self.blend(out, at: (y * w + x) * 4, r: oval.r, g: oval.g, b: oval.b, alpha: coverage)
                }
            }
        }
    }

    /// Half the width of an ellipse at height `dy` from its centre (0 outside it).
    /// Geometry within a million pixels, so the pixel conversions cannot trap
    /// (`CircadifyScanFace` has a public init: any numbers may come in).
    private static func drawable(_ v: Double) -> Bool { v.isFinite && abs(v) < 1e6 }

    private static func halfWidth(a: Double, b: Double, dy: Double) -> Double {
        guard a > 0, b > 0, abs(dy) < b else { return 0 }
        return a * (1 - (dy / b) * (dy / b)).squareRoot()
    }

    // MARK: - The heat-glow

    /// Each pixel takes the brightest blob's glow there (blobs that overlap do
    /// not add up past the peak): intensity x (1 - q)², q the squared elliptic radius.
    private func drawGlow(_ blobs: [Blob], into out: UnsafeMutableBufferPointer<UInt8>, width w: Int, height h: Int) {
        let lit = blobs.filter {
            $0.intensity > 0 && Self.drawable($0.centerX) && Self.drawable($0.centerY)
                && Self.drawable($0.radiusX) && Self.drawable($0.radiusY)
        }
        guard let top = lit.map({ $0.centerY - $0.radiusY }).min(),
              let bottom = lit.map({ $0.centerY + $0.radiusY }).max() else { return }
        // Clamped before the conversion: a face far outside the picture must not trap.
        let y0 = Int(min(max(top.rounded(.down), 0), Double(h)))
        let y1 = Int(min(max(bottom.rounded(.up), -1), Double(h - 1)))
        guard y0 <= y1 else { return }
        ramp.withUnsafeBufferPointer { ramp in
            for y in y0...y1 {
                let fy = Double(y) + 0.5
                var x0 = w, x1 = -1
                for blob in lit {
                    let half = Self.halfWidth(a: blob.radiusX, b: blob.radiusY, dy: fy - blob.centerY)
                    guard half > 0 else { continue }
                    x0 = min(x0, Int((blob.centerX - half).rounded(.down)))
                    x1 = max(x1, Int((blob.centerX + half).rounded(.up)))
                }
                x0 = max(x0, 0)
                x1 = min(x1, w - 1)
                guard x0 <= x1 else { continue }
                for x in x0...x1 {
                    let fx = Double(x) + 0.5
                    var value = 0.0
                    for blob in lit {
                        let u = (fx - blob.centerX) / blob.radiusX, v = (fy - blob.centerY) / blob.radiusY
                        let q = u * u + v * v
                        if q < 1 { value = max(value, blob.intensity * (1 - q) * (1 - q)) }
                    }
                    guard value > 0 else { continue }
                    let level = min(Int(value * 255 + 0.5), 255) * 3
                    Self.blend(out, at: (y * w + x) * 4, r: Int32(ramp[level]), g: Int32(ramp[level + 1]),
                               b: Int32(ramp[level + 2]), alpha: value * Self.glowOpacity)
                }
            }
        }
    }

    @inline(__always)
    private static func blend(_ out: UnsafeMutableBufferPointer<UInt8>, at i: Int, r: Int32, g: Int32, b: Int32,
                              alpha: Double) {
        let a = Int32(alpha * 256 + 0.5), keep = 256 - a
        out[i] = UInt8(truncatingIfNeeded: (Int32(out[i]) * keep + r * a) >> 8)
        out[i + 1] = UInt8(truncatingIfNeeded: (Int32(out[i + 1]) * keep + g * a) >> 8)
        out[i + 2] = UInt8(truncatingIfNeeded: (Int32(out[i + 2]) * keep + b * a) >> 8)
    }

    /// The ramp's stops: gold at rest, mid orange, hot orange, the red core at full intensity.
    package static let rampStops = (mid: 0.45, hot: 0.75)

    /// The colour at glow intensity 0...1 (the ramp the renderer draws with).
    package static func rampColor(_ value: Double, style: CircadifyScanStyle) -> (Double, Double, Double) {
        let stops: [(Double, Color)] = [(0, style.goldColor), (rampStops.mid, style.midColor),
                                        (rampStops.hot, style.hotColor), (1, style.coreColor)]
        let v = min(max(value, 0), 1)
        var i = 0
        while i < stops.count - 2, v > stops[i + 1].0 { i += 1 }
        let (t0, c0) = stops[i], (t1, c1) = stops[i + 1]
        let f = (v - t0) / (t1 - t0)
        return (c0.red + (c1.red - c0.red) * f, c0.green + (c1.green - c0.green) * f, c0.blue + (c1.blue - c0.blue) * f)
    }

    private static func makeRamp(_ style: CircadifyScanStyle) -> [UInt8] {
        (0..<256).flatMap { level -> [UInt8] in
            let c = rampColor(Double(level) / 255, style: style)
            return [c.0, c.1, c.2].map { UInt8(min(max($0, 0), 1) * 255 + 0.5) }
        }
    }
}
