@testable import Circadify
import CCoreTestSupport
import Foundation

/// Region colour traces with a known pulse, for the signal pipeline's unit tests:
/// skin colour modulated by a pulse wave with the skin-reflection model's channel
/// weights, plus sensor noise, at a given frame rate. The video-level truth lives
/// in the ground-truth generator (Tools/groundtruth); these traces isolate the maths.
struct SyntheticTrace {
    var duration = 30.0
    var fps = 30.0
    /// Heart rate over time, bpm.
    var heartRate: (Double) -> Double = { _ in 72 }
    /// Relative pulse amplitude in green (0.003 = 0.3 % of the skin level).
    var amplitude = 0.003
    /// Strength of the second harmonic relative to the fundamental.
    var harmonic = 0.4
    /// Gaussian noise on each region mean, 0-255 levels.
    var noise = 0.05
    /// Breathing, breaths per minute, moving the face and the baseline; 0 for none.
    var breathing = 15.0
    var pulsePresent = true
    var seed: UInt64 = 1
    /// Frames removed (indices) to simulate drops.
    var dropped: Set<Int> = []

    static let skin = SIMD3<Double>(180, 130, 105)
    static let pulsatility = SIMD3<Double>(0.33, 0.77, 0.53)

    func frames() -> [SignalFrame] {
        var rng = SeededRandom(seed: seed)
        var phase = 0.0
        var frames = [SignalFrame]()
        let count = Int(duration * fps)
        for i in 0..<count {
            let t = Double(i) / fps
            phase += 2 * Double.pi * heartRate(t) / 60 / fps
            let breath = breathing > 0 ? sin(2 * Double.pi * breathing / 60 * t) : 0
            // Blood volume rises with each beat: the skin darkens, green the most.
            let pulse = pulsePresent ? (sin(phase) + harmonic * sin(2 * phase + 0.8)) / (1 + harmonic) : 0
            let regions = (0..<3).map { r -> RegionColor in
                let base = Self.skin * (1 + 0.002 * breath) * (r == 0 ? 1.05 : 1)
                let c = base * (SIMD3(repeating: 1) - amplitude / 0.77 * Self.pulsatility * pulse)
                return RegionColor(red: c.x + Self.gaussian(&rng) * noise, green: c.y + Self.gaussian(&rng) * noise,
                                   blue: c.z + Self.gaussian(&rng) * noise, skinFraction: 0.9)
            }
            guard !dropped.contains(i) else { continue }
            frames.append(SignalFrame(time: 100 + t, regions: regions, faceCenterY: 0.45 + 0.004 * breath,
                                      meanLuma: 120))
        }
        return frames
    }

    /// A standard normal draw (Box-Muller).
    static func gaussian(_ rng: inout SeededRandom) -> Double {
        let u = max(Double.random(in: 0..<1, using: &rng), 1e-12), v = Double.random(in: 0..<1, using: &rng)
        return (-2 * log(u)).squareRoot() * cos(2 * Double.pi * v)
    }
}
