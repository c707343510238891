@testable import Circadify
import Foundation
import Testing

/// Colour that follows the head's position is taken out; colour that does not, stays.
@Suite struct MotionRegressionTests {
    @Test func breathingHarmonicsThroughTheRegionsGoThePulseStays() {
        let rate = 30.0, n = 900
        // The head rises with each breath (20 /min), not as a sinusoid: its third harmonic is at 1 Hz.
        let faceY = (0..<n).map { i -> Double in
            let t = Double(i) / rate, phase = 2 * Double.pi * 20 / 60 * t
            return 0.45 + 0.003 * (sin(phase) + 0.5 * sin(3 * phase + 0.4))
        }
        // A region sliding over texture: its colour follows the head; the pulse is at 80 bpm.
        let pulse = (0..<n).map { 0.002 * sin(2 * Double.pi * 80 / 60 * Double($0) / rate) }
        let rgb = (0..<n).map { i -> SIMD3<Double> in
            let artefact = 4 * (faceY[i] - 0.45)
            return SIMD3(180, 130, 105) * SIMD3(repeating: exp(artefact)) * SIMD3(1 - 0.4 * pulse[i], 1 - pulse[i], 1 - 0.7 * pulse[i])
        }
        let filter = BandPassFilter(band: HeartRateTracker.band, rate: rate)
        let cleaned = MotionRegression.apply([rgb], faceY: faceY, filter: filter)[0]
        let before = filter.apply(rgb.map { log($0.y) }), after = filter.apply(cleaned.map { log($0.y) })
        let artefactInBand = filter.apply(faceY.map { -4 * ($0 - 0.45) })
        let truePulse = filter.apply(pulse.map { log(1 - $0) })
        func rms(_ x: [Double]) -> Double { (x.map { $0 * $0 }.reduce(0, +) / Double(x.count)).squareRoot() }
        let residual = zip(after, truePulse).map { $0 - $1 }
        #expect(rms(artefactInBand) > 0.5 * rms(truePulse), "the artefact is worth removing")
        // What is left of the artefact: a tenth of it at most, under a fifth of the pulse.
        #expect(rms(residual) < 0.1 * rms(artefactInBand), "left \(rms(residual)) of \(rms(artefactInBand))")
        #expect(rms(residual) < 0.2 * rms(truePulse), "left \(rms(residual)) beside a \(rms(truePulse)) pulse")
        #expect(rms(zip(before, truePulse).map { $0 - $1 }) > 5 * rms(residual))
    }

    @Test func withoutMotionNothingChanges() {
        let rgb = (0..<300).map { SIMD3<Double>(180, 130, 105) * (1 + 0.002 * sin(Double($0) / 3)) }
        let flat = [Double](repeating: 0.45, count: 300)
        let filter = BandPassFilter(band: HeartRateTracker.band, rate: 30)
        #expect(MotionRegression.apply([rgb], faceY: flat, filter: filter)[0] == rgb)
    }
}
