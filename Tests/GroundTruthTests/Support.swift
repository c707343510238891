import CCore
import Foundation
import GroundTruth
import Testing

/// A NUL-terminated C message buffer as a String.
func cString(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

struct GroundTruthError: Error, CustomStringConvertible {
    let code: Int32
    let message: String
    var description: String { "\(code): \(message)" }
}

/// A clip written by the generator into a fresh temporary directory, with its truth parsed.
struct Clip {
    let dir: URL
    let video: URL
    let truthURL: URL
    let truth: [String: Any]

    static func options(_ scenario: gt_scenario, seed: UInt32 = 1, width: UInt32 = 160, height: UInt32 = 120,
                        duration: Float = 2, fps: Float = 0, format: gt_format = GT_FORMAT_AUTO,
                        heartRate: Float = 0, noise: Float = -1, threads: UInt32 = 0) -> gt_options {
        var o = gt_options()
        gt_options_init(&o)
        o.scenario = scenario
        o.seed = seed
        o.width = width
        o.height = height
        o.duration_s = duration
        o.fps = fps
        o.format = format
        o.heart_rate_bpm = heartRate
        o.noise_sigma = noise
        o.threads = threads
        return o
    }

    init(_ options: gt_options) throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("groundtruth-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        video = dir.appendingPathComponent("clip.video") // no telling extension: the scenario picks the format
        truthURL = dir.appendingPathComponent("clip.json")
        var o = options
        var message = [CChar](repeating: 0, count: 256)
        let rc = gt_write_clip(&o, video.path, truthURL.path, &message, message.count)
        guard rc == 0 else {
            try? FileManager.default.removeItem(at: dir)
            throw GroundTruthError(code: rc, message: cString(message))
        }
        let data = try Data(contentsOf: truthURL)
        truth = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    init(_ scenario: gt_scenario, seed: UInt32 = 1, width: UInt32 = 160, height: UInt32 = 120, duration: Float = 2,
         fps: Float = 0, format: gt_format = GT_FORMAT_AUTO, heartRate: Float = 0, noise: Float = -1,
         threads: UInt32 = 0) throws {
        try self.init(Self.options(scenario, seed: seed, width: width, height: height, duration: duration, fps: fps,
                                   format: format, heartRate: heartRate, noise: noise, threads: threads))
    }

    func cleanUp() { try? FileManager.default.removeItem(at: dir) }

    func double(_ key: String) -> Double? { (truth[key] as? NSNumber)?.doubleValue }
    func int(_ key: String) -> Int? { (truth[key] as? NSNumber)?.intValue }
    func doubles(_ key: String) -> [Double] { (truth[key] as? [NSNumber])?.map(\.doubleValue) ?? [] }
    var beatTimes: [Double] { doubles("beatTimes") }

    /// Per written frame: forehead, subject's left cheek, subject's right cheek.
    var regions: [[ccore_rect]] {
        guard let frames = truth["regions"] as? [[[NSNumber]]] else { return [] }
        return frames.map { $0.map(Self.rect) }
    }

    var faces: [ccore_rect] { (truth["face"] as? [[NSNumber]])?.map(Self.rect) ?? [] }

    static func rect(_ v: [NSNumber]) -> ccore_rect {
        ccore_rect(x: v[0].floatValue, y: v[1].floatValue, width: v[2].floatValue, height: v[3].floatValue)
    }
}

/// Reads a Y4M or MJPEG file through CCore's reader (MJPEG decoded by CCore's
/// decoder at full size) and hands every frame's picture to `body`.
func readVideo<T>(_ url: URL, fps: UInt32 = 30,
                  _ body: (inout ccore_image, Int) -> T) throws -> (ccore_videofile_info, [T]) {
    var file: OpaquePointer?
    var message = [CChar](repeating: 0, count: 256)
    let rc = ccore_videofile_open(url.path, fps, &file, &message, 256)
    guard rc == 0, let file else { throw GroundTruthError(code: rc, message: cString(message)) }
    defer { ccore_videofile_close(file) }
    var info = ccore_videofile_info()
    ccore_videofile_get_info(file, &info)
    var decoder: OpaquePointer?
    if info.kind == CCORE_VIDEOFILE_MJPEG {
        #expect(ccore_jpeg_create(info.width, info.height, &decoder) == 0)
    }
    defer { if let decoder { ccore_jpeg_destroy(decoder) } }
    var out: [T] = []
    var frame = ccore_videofile_frame()
    while true {
        let rc = ccore_videofile_next(file, &frame)
        if rc == CCORE_E_END { break }
        guard rc == 0 else {
            throw GroundTruthError(code: rc, message: String(cString: ccore_videofile_error_message(file)))
        }
        var image = frame.image
        if info.kind == CCORE_VIDEOFILE_MJPEG {
            let drc = ccore_jpeg_decode(decoder, frame.jpeg, frame.jpeg_size, 1, &image)
            guard drc == 0 else { throw GroundTruthError(code: drc, message: "frame \(out.count) does not decode") }
        }
        out.append(body(&image, out.count))
    }
    return (info, out)
}

/// Every frame's ROI means (CCore's kernel, no skin mask) of the rects `rects(frameIndex)` gives.
func measureVideo(_ url: URL, fps: UInt32 = 30,
                  rects: (Int) -> [ccore_rect]) throws -> (ccore_videofile_info, [[ccore_roi_stats]]) {
    try readVideo(url, fps: fps) { image, i in measure(&image, rects(i)) }
}

/// Area-weighted mean RGB of normalized rects on a 4:2:0 image: a pixel the
/// rect covers in part counts in proportion, so a region that moves by a
/// fraction of a pixel changes its mean smoothly, without the jumps of
/// rounding the rect to whole pixels. (Y'CbCr to RGB is affine, so the mean
/// converts as one triple.)
func areaMeans(_ image: ccore_image, _ rects: [ccore_rect]) -> [SIMD3<Double>] {
    precondition(image.format == CCORE_PIXEL_YUV420)
    let w = Int(image.width), h = Int(image.height)
    return rects.map { r in
        let x0 = Double(r.x) * Double(w), x1 = Double(r.x + r.width) * Double(w)
        let y0 = Double(r.y) * Double(h), y1 = Double(r.y + r.height) * Double(h)
        var sy = 0.0, sb = 0.0, sr = 0.0, sw = 0.0
        for y in max(0, Int(y0.rounded(.down)))..<min(h, Int(y1.rounded(.up))) {
            let wy = min(Double(y + 1), y1) - max(Double(y), y0)
            if wy <= 0 { continue }
            for x in max(0, Int(x0.rounded(.down)))..<min(w, Int(x1.rounded(.up))) {
                let wx = min(Double(x + 1), x1) - max(Double(x), x0)
                if wx <= 0 { continue }
                let wt = wx * wy
                sy += wt * Double(image.plane0[y * Int(image.stride0) + x])
                sb += wt * Double(image.plane1[(y / 2) * Int(image.stride1) + x / 2])
                sr += wt * Double(image.plane2[(y / 2) * Int(image.stride2) + x / 2])
                sw += wt
            }
        }
        var rgb: [Float] = [0, 0, 0]
        ccore_ycbcr_to_rgb(Float(sy / sw), Float(sb / sw), Float(sr / sw), image.range, &rgb)
        return SIMD3(Double(rgb[0]), Double(rgb[1]), Double(rgb[2]))
    }
}

func measure(_ image: inout ccore_image, _ rects: [ccore_rect]) -> [ccore_roi_stats] {
    var set = ccore_roi_set()
    set.count = UInt32(rects.count)
    set.skin = ccore_skin_bounds_all()
    withUnsafeMutableBytes(of: &set.rects) { raw in
        for (i, r) in rects.enumerated() { raw.bindMemory(to: ccore_rect.self)[i] = r }
    }
    var stats = [ccore_roi_stats](repeating: ccore_roi_stats(), count: Int(CCORE_MAX_ROIS))
    _ = ccore_roi_measure(&image, &set, &stats)
    return Array(stats.prefix(rects.count))
}

/// Power of `x` (sampled at `times`) at each frequency: linear detrend, Hann
/// window, then a direct DFT (fine grid; no FFT needed at these sizes).
func spectrum(_ x: [Double], times: [Double], frequencies: [Double]) -> [Double] {
    let n = Double(x.count)
    let mt = times.reduce(0, +) / n, mx = x.reduce(0, +) / n
    var sxy = 0.0, sxx = 0.0
    for (t, v) in zip(times, x) { sxy += (t - mt) * (v - mx); sxx += (t - mt) * (t - mt) }
    let slope = sxx > 0 ? sxy / sxx : 0
    let t0 = times.first ?? 0, span = max((times.last ?? 0) - t0, 1e-9)
    let y = zip(times, x).map { t, v in
        (v - mx - slope * (t - mt)) * (0.5 - 0.5 * cos(2 * Double.pi * (t - t0) / span))
    }
    return frequencies.map { f in
        var re = 0.0, im = 0.0
        for (t, v) in zip(times, y) {
            re += v * cos(2 * Double.pi * f * t)
            im -= v * sin(2 * Double.pi * f * t)
        }
        return re * re + im * im
    }
}

/// The heart-rate band of the design (0.7-3.5 Hz), every 0.005 Hz.
let pulseBand: [Double] = stride(from: 0.7, through: 3.5, by: 0.005).map { $0 }
