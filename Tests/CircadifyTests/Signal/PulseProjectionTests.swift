@testable import Circadify
import CCoreTestSupport
import Foundation
import Testing

/// The blood-volume-pulse projection against the others on traces whose answer is known:
/// under sensor noise it keeps more of a weak pulse than POS or green alone, and a gain
/// that hunts (every channel alike) is cancelled where green takes it for a pulse.
struct PulseProjectionTests {
    static let rate = 30.0
    static let filter = BandPassFilter(band: HeartRateTracker.band, rate: rate)

    /// One region's colour: skin with a pulse of the skin-reflection signature at `bpm`,
    /// multiplied by `gain(t)`, plus Gaussian sensor noise of `noise` levels per channel.
    static func trace(pulse amplitude: Double, bpm: Double = 72, noise: Double, seed: UInt64 = 7,
                      gain: (Double) -> Double = { _ in 1 }) -> [SIMD3<Double>] {
        var rng = SeededRandom(seed: seed)
        func gaussian() -> Double { SyntheticTrace.gaussian(&rng) }
        return (0..<Int(30 * rate)).map { i in
            let t = Double(i) / rate
            let pulse = sin(2 * Double.pi * bpm / 60 * t)
            let c = SyntheticTrace.skin * (SIMD3(repeating: 1) - amplitude / 0.77 * SyntheticTrace.pulsatility * pulse)
            return c * gain(t) + SIMD3(gaussian(), gaussian(), gaussian()) * noise
        }
    }

    /// The wave's power within 0.05 Hz of `hz`, as a share of its power in the pulse band.
    static func share(of hz: Double, in wave: [Double]) -> Double {
        let n = wave.count
        var at = 0.0, band = 0.0
        for k in 1..<(n / 2) {
            let f = Double(k) * rate / Double(n)
            guard HeartRateTracker.band.contains(f) else { continue }
            var re = 0.0, im = 0.0
            for (i, x) in wave.enumerated() {
                let a = 2 * Double.pi * Double(k) * Double(i) / Double(n)
                re += x * cos(a); im -= x * sin(a)
            }
            let power = re * re + im * im
            band += power
            if abs(f - hz) <= 0.05 { at += power }
        }
        return band > 0 ? at / band : 0
    }

    static func wave(_ projection: PulseProjection, _ rgb: [SIMD3<Double>]) -> [Double] {
        filter.apply(projection.pulse(of: rgb, rate: rate, filter: filter))
    }

    @Test func aWeakPulseUnderSensorNoiseKeepsMoreThanPOSOrGreen() {
        // 0.1% of the skin level in green against 0.4 levels of noise per channel: near 0 dB.
        let rgb = Self.trace(pulse: 0.001, noise: 0.4)
        let pbv = Self.share(of: 1.2, in: Self.wave(.pbv, rgb))
        let pos = Self.share(of: 1.2, in: Self.wave(.pos, rgb))
        let green = Self.share(of: 1.2, in: Self.wave(.green, rgb))
        #expect(pbv > green * 1.3 && pbv > pos * 2, "pulse share: pbv \(pbv), pos \(pos), green \(green)")
    }

    @Test func aHuntingGainIsCancelledWhereGreenTakesItForAPulse() {
        // No pulse; the camera's gain swings by 1% at 66 bpm.
        let rgb = Self.trace(pulse: 0, noise: 0.1) { t in 1 + 0.01 * sin(2 * Double.pi * 1.1 * t) }
        let pbv = Self.share(of: 1.1, in: Self.wave(.pbv, rgb))
        let green = Self.share(of: 1.1, in: Self.wave(.green, rgb))
        #expect(green > 0.9, "green reads the gain as a pulse: \(green)")
        #expect(pbv < 0.2, "pbv cancels it: \(pbv)")
    }

    @Test func thePulseComesOutWithTheSignOfBloodVolume() {
        // More blood darkens the skin; every projection reports it as a rise.
        let rgb = Self.trace(pulse: 0.01, noise: 0.05)
        let blood = (0..<rgb.count).map { sin(2 * Double.pi * 1.2 * Double($0) / Self.rate) }
        for projection in PulseProjection.allCases {
            let r = SignalMath.pearson(Self.wave(projection, rgb), blood)
            #expect(r > 0.9, "\(projection): r = \(r)")
        }
    }
}
