import CCore
import Foundation
import GroundTruth
import Testing

/// The pulse is really in the pixels (and really absent from the no-pulse
/// clips): the green mean of the truth regions, read back from the file,
/// carries the truth heart rate.
@Suite struct PulseTests {
    struct Trace {
        let green: [[Double]] // per region, per frame
        let times: [Double]
        let meanHR: Double?
    }

    static func trace(_ scenario: gt_scenario, seed: UInt32, noise: Float = -1, heartRate: Float = 0,
                      format: gt_format = GT_FORMAT_AUTO) throws -> Trace {
        let clip = try Clip(scenario, seed: seed, width: 320, height: 240, duration: 10, format: format,
                            heartRate: heartRate, noise: noise)
        defer { clip.cleanUp() }
        let rects = clip.regions
        let (_, means) = try readVideo(clip.video) { image, i in areaMeans(image, rects[i]) }
        let green = (0..<3).map { k in means.map { $0[k][1] } }
        let times = (0..<means.count).map { Double($0) / 30 }
        return Trace(green: green, times: times, meanHR: clip.double("meanHeartRate"))
    }

    /// Frequency of the strongest peak in the pulse band, and the power near a frequency.
    static func peak(_ x: [Double], _ times: [Double]) -> (Double, [Double]) {
        let p = spectrum(x, times: times, frequencies: pulseBand)
        let i = p.indices.max { p[$0] < p[$1] }!
        return (pulseBand[i], p)
    }

    static func power(_ p: [Double], near f: Double) -> Double {
        zip(pulseBand, p).filter { abs($0.0 - f) <= 0.1 }.map(\.1).max() ?? 0
    }

    static let cases: [(UInt32, Float)] = [(1, 0), (2, 0), (3, 0), (4, 95)]

    @Test(arguments: cases)
    func foreheadGreenBeatsAtTheTruthHeartRate(seed: UInt32, heartRate: Float) throws {
        let t = try Self.trace(GT_STILL, seed: seed, heartRate: heartRate)
        let hz = try #require(t.meanHR) / 60
        let (f, _) = Self.peak(t.green[0], t.times)
        #expect(abs(f - hz) < 0.1, "forehead peak \(f) Hz, truth \(hz) Hz")
        // All three regions together, as a pipeline would fuse them.
        let fused = (0..<t.times.count).map { i in t.green.map { $0[i] }.reduce(0, +) }
        let (ff, _) = Self.peak(fused, t.times)
        #expect(abs(ff - hz) < 0.1, "fused peak \(ff) Hz, truth \(hz) Hz")
    }

    @Test func pulseSurvivesHeavyJpeg() throws {
        let t = try Self.trace(GT_JPEG, seed: 5)
        let hz = try #require(t.meanHR) / 60
        let fused = (0..<t.times.count).map { i in t.green.map { $0[i] }.reduce(0, +) }
        let (f, _) = Self.peak(fused, t.times)
        #expect(abs(f - hz) < 0.1, "peak \(f) Hz, truth \(hz) Hz")
    }

    /// Same person, same breathing and sway, no noise: with the pulse the
    /// heart-rate line stands far above what the no-pulse clip has there.
    @Test func noPulseClipHasNoPulsePeak() throws {
        let withPulse = try Self.trace(GT_STILL, seed: 6, noise: 0)
        let without = try Self.trace(GT_NOPULSE, seed: 6, noise: 0)
        #expect(without.meanHR == nil)
        let hz = try #require(withPulse.meanHR) / 60
        func fused(_ t: Trace) -> [Double] { (0..<t.times.count).map { i in t.green.map { $0[i] }.reduce(0, +) } }
        for k in 0..<4 {
            let a = k < 3 ? withPulse.green[k] : fused(withPulse), b = k < 3 ? without.green[k] : fused(without)
            let (_, p1) = Self.peak(a, withPulse.times)
            let (_, p0) = Self.peak(b, without.times)
            let ratio = Self.power(p1, near: hz) / Self.power(p0, near: hz)
            #expect(ratio > (k < 3 ? 8 : 30), "region \(k): power at the heart rate \(ratio)x the no-pulse clip's")
        }
        // With sensor noise, the no-pulse clip has no peak anywhere in the band
        // that comes near the pulse's.
        let noisy = try Self.trace(GT_NOPULSE, seed: 6)
        let (_, pn) = Self.peak(fused(noisy), noisy.times)
        let (_, ps) = Self.peak(fused(withPulse), withPulse.times)
        #expect(Self.power(ps, near: hz) > 10 * (pn.max() ?? 0))
    }
}
