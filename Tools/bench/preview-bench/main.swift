// What the preview costs per 640x480 frame on this machine: the renderer
// (RGB -> RGBA, mirror, guide oval, heat-glow) on its own task, the one JPEG
// encode shared by every MJPEG viewer, a PNG snapshot, and on the capture
// thread the full-size RGB picture the preview needs. Not a test: it prints
// medians of CPU milliseconds per frame. Build it in release:
//
//   swift build -c release --product circadify-preview-bench
//   .build/release/circadify-preview-bench [--frames 300] [--rounds 5]
import CCore
import Circadify
import Foundation
import Glibc

let arguments = CommandLine.arguments
func option(_ name: String, _ fallback: Int) -> Int {
    guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count, let v = Int(arguments[i + 1]), v > 0 else {
        return fallback
    }
    return v
}
let frames = option("--frames", 300)
let rounds = option("--rounds", 5)
let width = 640, height = 480

/// CPU time of this thread, seconds.
func threadCPU() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}

/// Median over `rounds` of the CPU ms per call of `body` (called `frames` times a round).
func measure(_ body: (Int) -> Void) -> Double {
    var perFrame = [Double]()
    for _ in 0..<rounds {
        let start = threadCPU()
        for i in 0..<frames { body(i) }
        perFrame.append((threadCPU() - start) * 1000 / Double(frames))
    }
    return perFrame.sorted()[rounds / 2]
}

// A picture with texture (a gradient and noise), and a face of a person at arm's length.
var rng = SystemRandomNumberGenerator()
var rgb = [UInt8](repeating: 0, count: width * height * 3)
for y in 0..<height {
    for x in 0..<width {
        let i = (y * width + x) * 3
        rgb[i] = UInt8((x * 255) / width)
        rgb[i + 1] = UInt8((y * 255) / height)
        rgb[i + 2] = UInt8.random(in: 60...200, using: &rng)
    }
}
let picture = RGBFrame(width: width, height: height, sequence: 0, pixels: rgb)
let face = CircadifyScanFace(
    forehead: CGPoint(x: 0.5, y: 0.30), leftCheek: CGPoint(x: 0.58, y: 0.52), rightCheek: CGPoint(x: 0.42, y: 0.52),
    ovalCenter: CGPoint(x: 0.5, y: 0.45), ovalSize: CGSize(width: 0.36, height: 0.62), imageAspect: 4.0 / 3.0,
    isMirrored: true)
let renderer = OverlayRenderer(style: CircadifyScanStyle())

var sink = 0 // keeps the optimiser from dropping the work
let plain = measure { i in
    sink &+= Int(renderer.render(picture, mirrored: true, face: nil, guide: false, scanning: false,
                                 time: Double(i) / 30).pixels[i])
}
let idle = measure { i in
    sink &+= Int(renderer.render(picture, mirrored: true, face: face, guide: true, scanning: false,
                                 time: Double(i) / 30).pixels[i])
}
let scanning = measure { i in
    sink &+= Int(renderer.render(picture, mirrored: true, face: face, guide: true, scanning: true,
                                 time: Double(i) / 30).pixels[i])
}
let rendered = renderer.render(picture, mirrored: true, face: face, guide: true, scanning: true, time: 1)
let encoder = JPEGEncoder()
var jpegBytes = 0
let jpeg = measure { _ in
    jpegBytes = (try? encoder.encode(rendered, quality: 80).count) ?? -1
}
let png = measure { i in sink &+= PNGEncoder.encode(rendered).count + i } // snapshots: fewer calls would do

// The capture thread's side: `ccore_processor_process` on a YUYV frame with the
// full-size preview off and on (it then copies the frame's planes into the
// mailbox), and the reader's side: the YUYV -> RGB picture drawn from that copy
// (`ccore_processor_take_preview`, on the session's task), full size for the
// preview, 320x240 for imageOutput alone.
var yuyv = [UInt8](repeating: 0, count: width * height * 2)
for i in 0..<yuyv.count { yuyv[i] = UInt8.random(in: 16...235, using: &rng) }
var out = [UInt8](repeating: 0, count: width * height * 3)
@MainActor func processorCosts() -> (off: Double, on: Double, take: Double, takeSmall: Double) {
    var config = ccore_processor_config()
    config.pixel_format = CCORE_PIXEL_YUYV
    config.width = UInt32(width)
    config.height = UInt32(height)
    config.preview_width = UInt32(width)
    config.preview_height = UInt32(height)
    config.preview_every = 1
    var raw: OpaquePointer?
    guard ccore_processor_create(&config, &raw) == 0, let proc = raw else { fatalError("no processor") }
    defer { ccore_processor_destroy(proc) }
    return yuyv.withUnsafeBufferPointer { src in
        var frame = ccore_frame()
        _ = ccore_image_wrap_packed(&frame.image, CCORE_PIXEL_YUYV, CCORE_RANGE_LIMITED, UInt32(width), UInt32(height),
                                    src.baseAddress)
        var sample = ccore_frame_sample()
        var sequence: UInt64 = 0
        func process() {
            frame.sequence = sequence
            sequence += 1
            _ = ccore_processor_process(proc, &frame, &sample)
        }
        return out.withUnsafeMutableBufferPointer { dst in
            let off = measure { _ in process() }
            ccore_processor_set_preview(proc, 1)
            let on = measure { _ in process() }
            var w: UInt32 = 0, h: UInt32 = 0, seq: UInt64 = 0
            let take = measure { _ in
                process()
                _ = ccore_processor_take_preview(proc, dst.baseAddress, UInt32(dst.count), &w, &h, &seq)
            } - on
            _ = ccore_processor_set_preview_shape(proc, 320, 240, 1)
            let small = measure { _ in process() }
            let takeSmall = measure { _ in
                process()
                _ = ccore_processor_take_preview(proc, dst.baseAddress, UInt32(dst.count), &w, &h, &seq)
            } - small
            return (off, on, take, takeSmall)
        }
    }
}
let processor = processorCosts()

func ms(_ v: Double) -> String { String(format: "%6.3f", v) }
print("Preview cost per 640x480 frame, CPU ms (median of \(rounds) rounds x \(frames) frames, one thread)")
print("  render, no guide (RGB -> RGBA, mirrored)   \(ms(plain))")
print("  render, idle overlay (oval + gold glow)    \(ms(idle))")
print("  render, scanning overlay (oval + hot glow) \(ms(scanning))")
print("  JPEG encode, quality 80 (\(jpegBytes) bytes)    \(ms(jpeg))   once per frame for all viewers")
print("  PNG snapshot (stored deflate)              \(ms(png))")
print("  capture thread: per-frame call, no preview \(ms(processor.off))")
print("  capture thread: + the frame's copy         \(ms(processor.on - processor.off))   while a preview is live")
print("  reader: YUYV -> RGB 640x480 from the copy  \(ms(processor.take))   the session's task, per preview frame")
print("  reader: YUYV -> RGB 320x240 from the copy  \(ms(processor.takeSmall))   imageOutput alone, every 3rd frame")
let perFrame = scanning + jpeg
print(String(format: "  renderer + one JPEG: %.2f ms a frame, %.0f%% of one core at 30 fps", perFrame, perFrame * 30 / 10))
if sink == 42 { print("") }
