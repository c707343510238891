import Foundation

/// One frame's measurements as the signal pipeline sees them.
package struct SignalFrame: Sendable, Equatable {
    /// Capture time, seconds on the monotonic clock.
    package var time: Double
    /// Mean R, G, B (0-255) of each region's skin pixels.
    package var regions: [RegionColor]
    /// Vertical centre of the tracked face, normalized (0 top, 1 bottom); nil when not tracked.
    package var faceCenterY: Double?
    /// Mean luma of the frame (0-255).
    package var meanLuma: Double
    /// Mean luma of rows 0.3-0.5 of the frame (0-255), measured alike whatever the format;
    /// nil for frames measured before it was kept (the light share then reads `meanLuma`).
    package var bandLuma: Double?
    /// Which placement of the regions (their rectangles and skin mask) measured the frame: a
    /// change between frames means other pixels were averaged, a step the pipeline knows of.
    package var placement: UInt32

    package init(time: Double, regions: [RegionColor], faceCenterY: Double? = nil, meanLuma: Double,
                 bandLuma: Double? = nil, placement: UInt32 = 0) {
        self.time = time; self.regions = regions; self.faceCenterY = faceCenterY; self.meanLuma = meanLuma
        self.bandLuma = bandLuma; self.placement = placement
    }

    /// A core sample, with the face position the tracker had published for it.
    package init(_ sample: FrameSample, faceCenterY: Double? = nil) {
        time = Double(sample.timestampNanoseconds) / 1e9
        regions = sample.regions.map {
            RegionColor(red: Double($0.red), green: Double($0.green), blue: Double($0.blue),
                        skinFraction: Double($0.skinFraction))
        }
        self.faceCenterY = faceCenterY
        meanLuma = Double(sample.meanLuma)
        bandLuma = sample.bandLuma.isFinite ? Double(sample.bandLuma) : nil
        placement = sample.regionGeneration
    }
}

package struct RegionColor: Sendable, Equatable {
    package var red: Double, green: Double, blue: Double
    /// Share of the region's pixels that passed the skin mask (0-1); 0 means no measurement.
    package var skinFraction: Double

    package init(red: Double, green: Double, blue: Double, skinFraction: Double) {
        self.red = red; self.green = green; self.blue = blue; self.skinFraction = skinFraction
    }

    /// Whether this is a measurement: skin was seen, and every number is finite.
    var measured: Bool {
        skinFraction > 0 && skinFraction.isFinite && red.isFinite && green.isFinite && blue.isFinite
    }
}

/// The frames resampled to a uniform rate from their timestamps. Cameras
/// deliver frames with jitter and drops, and spectra need a uniform grid.
/// Short gaps (dropped frames, a region briefly without skin) are bridged by
/// linear interpolation; samples inside longer gaps are interpolated too, so
/// the arithmetic stays simple, but marked unreliable.
///
/// A timestamp is the one input that sizes the grid, so a bad one must not: a
/// frame ahead of the next while the one before is not (a driver's glitch) is
/// left out, so is a first or last frame more than `longestGap` from the rest (a
/// bogus first timestamp), and a longer gap inside (a clock stepped forward) is
/// shortened to `longestGap`. A clock stepped back still loses the frames behind
/// the last one kept. Values that are not finite count as missing.
package struct UniformTrace: Sendable {
    /// Gaps longer than this are shortened to it, seconds: unreliable either way,
    /// and a jump of days must not make a grid of days.
    package static let longestGap = 5.0

    package let rate: Double
    /// Time of sample 0 on the frames' clock. Later samples are on it too, up to the first
    /// gap longer than `longestGap`; a lone first frame left out moves sample 0 to the next.
    package let start: Double
    /// Per region, per sample: R, G, B.
    package var colors: [[SIMD3<Double>]]
    /// Per region, per sample: skin fraction (0 where the region had no skin).
    package var skin: [[Double]]
    package var faceCenterY: [Double]?
    package var luma: [Double]
    /// Per sample: the band luma (`SignalFrame.bandLuma`); nil when no frame had one.
    package var band: [Double]?
    /// Per sample: inside a gap longer than the bridging limit.
    package var unreliable: [Bool]
    /// Per sample: the change from the previous sample spans a new placement of the regions
    /// (they moved, or the skin mask changed), so part of it is other pixels, not the face's colour.
    package var placementChanged: [Bool]
    /// Frames the source delivered, and how many uniform samples were bridged over dropped frames.
    package var frameCount: Int
    package var bridgedCount: Int

    package var count: Int { luma.count }
    package var duration: Double { Double(count) / rate }
    package var regionCount: Int { colors.count }

    /// Resamples `frames` (in time order; out-of-order or repeated times are skipped).
    /// A gap up to `maxBridge` seconds is bridged; longer ones are marked unreliable.
    package init(frames: [SignalFrame], rate: Double, maxBridge: Double = 0.5) {
        self.rate = rate
        let kept = Self.timeline(frames)
        frameCount = kept.count
        let origin = kept.first?.time ?? 0
        start = origin
        let regionCount = kept.map(\.regions.count).min() ?? 0
        let n = kept.count < 2 ? kept.count : Int(((kept[kept.count - 1].time - origin) * rate).rounded(.down)) + 1
        let times = (0..<n).map { origin + Double($0) / rate }

        luma = Self.interpolate(kept.filter { $0.meanLuma.isFinite }.map { ($0.time, $0.meanLuma) }, at: times)
        let banded = kept.compactMap { f in f.bandLuma.map { (f.time, $0) } }
        band = banded.isEmpty ? nil : Self.interpolate(banded, at: times)
        var gapMask = Self.gaps(in: kept.map(\.time), at: times, longerThan: maxBridge)
        // A dropped frame is a gap well beyond the source's own frame interval (a 15 fps
        // camera resampled to 30 Hz drops nothing).
        let frameInterval = SignalMath.median(zip(kept.dropFirst(), kept).map { $0.time - $1.time })
        let dropGap = 1.5 * max(frameInterval, 1 / rate)
        var bridged = Self.gaps(in: kept.map(\.time), at: times, longerThan: dropGap).filter { $0 }.count
        colors = []
        skin = []
        for r in 0..<regionCount {
            // A frame whose region had no skin pixels has no colour: it is a gap for that region.
            let valid = kept.filter { $0.regions[r].measured }
            let rgb = valid.map { ($0.time, SIMD3($0.regions[r].red, $0.regions[r].green, $0.regions[r].blue)) }
            colors.append(Self.interpolate(rgb, at: times))
            skin.append(Self.interpolate(kept.map { ($0.time, $0.regions[r].measured ? $0.regions[r].skinFraction : 0) },
                                         at: times))
            let regionGaps = Self.gaps(in: valid.map(\.time), at: times, longerThan: maxBridge)
            for i in 0..<n where regionGaps[i] { gapMask[i] = true }
            bridged = max(bridged, Self.gaps(in: valid.map(\.time), at: times, longerThan: dropGap)
                .filter { $0 }.count)
        }
        if kept.allSatisfy({ $0.faceCenterY != nil }), !kept.isEmpty {
            let placed = kept.compactMap { f in f.faceCenterY.flatMap { $0.isFinite ? (f.time, $0) : nil } }
            if !placed.isEmpty { faceCenterY = Self.interpolate(placed, at: times) }
        }
        unreliable = gapMask
        bridgedCount = bridged
        placementChanged = Self.placementChanges(kept, at: times, rate: rate)
    }

    /// The frames to resample, in time order, on a clock whose long gaps are shortened.
    /// A frame with no finite time is left out; so is one ahead of the next frame while
    /// the one kept before is behind it (a single bad timestamp: keeping it would drop
    /// every frame after it as out of order); later frames at or behind the last one
    /// kept are skipped (of equal times, the first is kept). A first or last frame more
    /// than `longestGap` from its neighbour carries no pulse and is left out; a gap over
    /// `longestGap` inside moves every later frame back by the excess.
    private static func timeline(_ frames: [SignalFrame]) -> [SignalFrame] {
        let timed = frames.filter { $0.time.isFinite }
        var ordered = [SignalFrame]()
        ordered.reserveCapacity(timed.count)
        for (k, frame) in timed.enumerated() {
            let lastTime = ordered.last?.time ?? -.infinity
            if k + 1 < timed.count, frame.time > timed[k + 1].time, lastTime < timed[k + 1].time { continue }
            if frame.time > lastTime { ordered.append(frame) }
        }
        if ordered.count > 1, ordered[1].time - ordered[0].time > longestGap { ordered.removeFirst() }
        if ordered.count > 1, ordered[ordered.count - 1].time - ordered[ordered.count - 2].time > longestGap {
            ordered.removeLast()
        }
        var shift = 0.0
        for k in ordered.indices.dropFirst() {
            let gap = ordered[k].time - shift - ordered[k - 1].time
            if gap > longestGap { shift += gap - longestGap }
            ordered[k].time -= shift
        }
        return ordered
    }

    /// Marks sample i when the stretch from sample i-1 to i overlaps the time between the
    /// last frame of one placement and the first of the next (at 15 fps, two samples share it).
    private static func placementChanges(_ frames: [SignalFrame], at times: [Double], rate: Double) -> [Bool] {
        var mask = [Bool](repeating: false, count: times.count)
        guard times.count > 1, let origin = times.first else { return mask }
        for k in frames.indices.dropFirst() where frames[k].placement != frames[k - 1].placement {
            let before = frames[k - 1].time, after = frames[k].time
            // Samples i with times[i-1] < after and times[i] > before.
            let first = max(1, Int(((before - origin) * rate).rounded(.down)) + 1)
            let last = min(times.count - 1, Int(((after - origin) * rate).rounded(.up)))
            guard first <= last else { continue }
            for i in first...last where times[i - 1] < after && times[i] > before { mask[i] = true }
        }
        return mask
    }

    /// Linear interpolation of (time, value) points at `times`; held flat outside them.
    private static func interpolate<V: Sendable>(_ points: [(Double, V)], at times: [Double]) -> [V]
    where V: FloatingPointInterpolatable {
        guard let first = points.first else { return times.map { _ in V.zero } }
        var out = [V]()
        out.reserveCapacity(times.count)
        var j = 0
        for t in times {
            while j + 1 < points.count && points[j + 1].0 <= t { j += 1 }
            if t <= first.0 { out.append(first.1); continue }
            if j + 1 >= points.count { out.append(points[j].1); continue }
            let (t0, v0) = points[j], (t1, v1) = points[j + 1]
            out.append(V.lerp(v0, v1, (t - t0) / (t1 - t0)))
        }
        return out
    }

    /// Marks the uniform samples that fall inside a gap between `frameTimes` longer than `limit` seconds.
    private static func gaps(in frameTimes: [Double], at times: [Double], longerThan limit: Double) -> [Bool] {
        var mask = [Bool](repeating: frameTimes.isEmpty, count: times.count)
        guard frameTimes.count > 1 else { return mask }
        var j = 0
        for (i, t) in times.enumerated() {
            while j + 1 < frameTimes.count && frameTimes[j + 1] < t { j += 1 }
            if j + 1 < frameTimes.count, frameTimes[j] < t, frameTimes[j + 1] - frameTimes[j] > limit { mask[i] = true }
        }
        return mask
    }
}

/// What the interpolation needs of a value: a zero and a straight line between two values.
protocol FloatingPointInterpolatable {
    static var zero: Self { get }
    static func lerp(_ a: Self, _ b: Self, _ w: Double) -> Self
}

extension Double: FloatingPointInterpolatable {
    static func lerp(_ a: Double, _ b: Double, _ w: Double) -> Double { a + (b - a) * w }
}

extension SIMD3: FloatingPointInterpolatable where Scalar == Double {
    static func lerp(_ a: SIMD3<Double>, _ b: SIMD3<Double>, _ w: Double) -> SIMD3<Double> { a + (b - a) * w }
}
