@testable import Circadify
import Foundation
import Testing

/// The signal pipeline on synthetic region traces with a known pulse.
@Suite struct VitalsAnalyzerTests {
    @Test func cleanPulseGivesItsHeartRateWithinHalfABeat() throws {
        for bpm in [52.0, 72.0, 95.0, 130.0] {
            var synthetic = SyntheticTrace()
            synthetic.heartRate = { _ in bpm }
            let estimate = try VitalsAnalyzer().analyze(synthetic.frames())
            let hr = try #require(estimate.heartRate)
            #expect(abs(hr - bpm) <= 0.5, "\(bpm) bpm read as \(hr)")
            #expect(estimate.confidence >= ConfidenceModel.reliable, "clean \(bpm) bpm: confidence \(estimate.confidence)")
        }
    }

    /// A steady pulse's power falls inside the SNR's pulse band (±0.1 Hz) once the whole
    /// stretch's segments are 20 s long, as wide as their window's main lobe; 10 s segments
    /// spread it over ±0.2 Hz and counted about half of it as noise.
    @Test func aSteadyPulsesPowerCountsAsPulse() throws {
        var synthetic = SyntheticTrace()
        synthetic.noise = 0.01
        synthetic.breathing = 0
        let frames = synthetic.frames()
        let snr = try VitalsAnalyzer().analyze(frames).quality.snr
        var tenSecond = VitalsAnalyzer.Configuration()
        tenSecond.stretchSegment = 10
        let snrOverTenSeconds = try VitalsAnalyzer(configuration: tenSecond).analyze(frames).quality.snr
        // Here 30.9 dB against 10.9 dB (a pure sinusoid read 10-11 dB with 10 s segments).
        #expect(snr >= snrOverTenSeconds + 10, "20 s segments: \(snr) dB, 10 s: \(snrOverTenSeconds) dB")
    }

    /// A scan's trace starts when the face is found, a few frames after the camera does, so a
    /// 30 s scan is a little short of six 5 s windows: the consistency splits it into six equal
    /// windows rather than counting five and leaving nearly 5 s of pulse out (and a 15 s scan
    /// into three, not two).
    @Test func theIndependentWindowsCoverTheWholeScan() throws {
        for (seconds, expected) in [(30.0, 6), (20.0, 4), (15.0, 3), (10.0, 2)] {
            var synthetic = SyntheticTrace()
            synthetic.duration = seconds
            synthetic.dropped = Set(0..<6) // the face found on the 7th frame
            let quality = try VitalsAnalyzer().analyze(synthetic.frames()).quality
            #expect(quality.windows == expected, "\(seconds) s: \(quality.windows) windows")
            #expect(quality.consistency == 1, "\(seconds) s: consistency \(quality.consistency)")
        }
    }

    /// The map knows scans of up to 30 s; a longer one is judged by 30 s pieces spread over it,
    /// each read alone. A scan whose second half has no pulse is as sure as those pieces together
    /// (sure where there is a pulse, disputing the reading where there is none), not as sure as
    /// a whole scan of evidence makes it look.
    @Test(arguments: [45.0, 60.0, 90.0]) func aLongScanIsOnlyAsSureAsItsPieces(seconds: Double) throws {
        for seed in 1...3 as ClosedRange<UInt64> {
            var pulse = SyntheticTrace()
            pulse.seed = seed
            pulse.duration = seconds / 2
            var none = pulse
            none.pulsePresent = false
            let frames = pulse.frames() + none.frames().map { f -> SignalFrame in
                var f = f
                f.time += seconds / 2
                return f
            }
            let estimate = try VitalsAnalyzer().analyze(frames)
            let firstHalf = try VitalsAnalyzer().analyze(pulse.frames())
            #expect(firstHalf.confidence >= ConfidenceModel.reliable, "seed \(seed): the pulse alone \(firstHalf.confidence)")
            #expect(estimate.confidence < ConfidenceModel.reliable, "\(seconds) s, seed \(seed): read \(estimate.confidence)")
            #expect(estimate.sdnn == nil)
        }
    }

    /// A piece is checked against what the whole scan's track reads over the same seconds, not
    /// the whole's mean: a heart rate that falls from 84 to 72 bpm over a minute is read as
    /// surely as a steady one (each half reads its own rate, about 3 bpm either side of the
    /// minute's mean: checked against that mean, this scan read 0.00).
    @Test func aHeartRateChangingOverALongScanKeepsItsConfidence() throws {
        var synthetic = SyntheticTrace()
        synthetic.duration = 60
        synthetic.heartRate = { 84 - 12 * $0 / 60 }
        let estimate = try VitalsAnalyzer().analyze(synthetic.frames())
        let hr = try #require(estimate.heartRate)
        #expect(abs(hr - 78) <= 1.5, "read \(hr)")
        #expect(estimate.confidence >= ConfidenceModel.reliable, "confidence \(estimate.confidence)")
    }

    /// The light share reads the band luma (rows 0.3-0.5, alike on every format) where frames
    /// carry it, and the frame's mean luma only where they do not.
    @Test func theLightShareReadsTheBandLuma() throws {
        var synthetic = SyntheticTrace()
        synthetic.breathing = 0
        // A gain hunting at 1.1 Hz, ±0.3%, in the band; the mean luma steady.
        let frames = synthetic.frames().map { f -> SignalFrame in
            var f = f
            f.bandLuma = 90 * (1 + 0.003 * sin(2 * Double.pi * 1.1 * f.time))
            return f
        }
        let banded = try VitalsAnalyzer().analyze(frames).quality.lightShare
        let unbanded = try VitalsAnalyzer().analyze(frames.map { var f = $0; f.bandLuma = nil; return f }).quality.lightShare
        #expect(banded > VitalsAnalyzer.steadyLightShare, "the band hunts: \(banded)")
        #expect(unbanded < 0.05, "without a band luma, the steady mean luma: \(unbanded)")
    }

    @Test func strongSecondHarmonicIsNotTakenForTheFundamental() throws {
        var synthetic = SyntheticTrace()
        synthetic.heartRate = { _ in 62 }
        synthetic.harmonic = 1.3  // the harmonic carries more power than the fundamental
        let estimate = try VitalsAnalyzer().analyze(synthetic.frames())
        let hr = try #require(estimate.heartRate)
        #expect(abs(hr - 62) <= 1, "read \(hr), twice the rate would be 124")
        #expect(estimate.heartRateTrack.allSatisfy { abs($0.bpm - 62) < 5 })
    }

    @Test func heartRateStepIsFollowedWithinAFewSeconds() throws {
        var synthetic = SyntheticTrace()
        synthetic.duration = 40
        synthetic.heartRate = { $0 < 20 ? 65 : 85 }
        let estimate = try VitalsAnalyzer().analyze(synthetic.frames())
        let before = estimate.heartRateTrack.filter { $0.time > 10 && $0.time <= 20 }
        let settled = estimate.heartRateTrack.filter { $0.time >= 28 }
        #expect(!before.isEmpty && !settled.isEmpty)
        #expect(before.allSatisfy { abs($0.bpm - 65) < 3 }, "\(before.map(\.bpm))")
        // A 10 s window has fully crossed the step 10 s after it; allow 8 s more of the window than half.
        #expect(settled.allSatisfy { abs($0.bpm - 85) < 3 }, "\(settled.map(\.bpm))")
        let reached = estimate.heartRateTrack.first { $0.time > 20 && abs($0.bpm - 85) < 3 }
        #expect((reached?.time ?? 99) <= 28, "followed the step at t=\(reached?.time ?? -1)")
    }

    @Test func noiseAloneGivesLowConfidence() throws {
        for seed in 1...5 as ClosedRange<UInt64> {
            var synthetic = SyntheticTrace()
            synthetic.pulsePresent = false
            synthetic.noise = 0.3
            synthetic.seed = seed
            let estimate = try VitalsAnalyzer().analyze(synthetic.frames())
            #expect(estimate.confidence < ConfidenceModel.retry, "seed \(seed): \(estimate.confidence) \(estimate.quality)")
        }
    }

    @Test func droppedFramesAreBridged() throws {
        var synthetic = SyntheticTrace()
        synthetic.heartRate = { _ in 80 }
        // 5 % of the frames in bursts of up to 3, as a loaded USB camera drops them.
        synthetic.dropped = Set(stride(from: 7, to: 900, by: 37).flatMap { [$0, $0 + 1] })
        let estimate = try VitalsAnalyzer().analyze(synthetic.frames())
        let hr = try #require(estimate.heartRate)
        #expect(abs(hr - 80) <= 0.5, "read \(hr)")
        #expect(estimate.quality.droppedFraction > 0.03 && estimate.quality.gapFraction == 0)
    }

    @Test func fifteenFramesPerSecondIsNotTakenForDrops() throws {
        var synthetic = SyntheticTrace()
        synthetic.fps = 15
        synthetic.heartRate = { _ in 66 }
        let estimate = try VitalsAnalyzer().analyze(synthetic.frames())
        #expect(estimate.quality.droppedFraction == 0)
        #expect(abs((estimate.heartRate ?? 0) - 66) <= 0.5)
        #expect(estimate.confidence >= ConfidenceModel.reliable, "confidence \(estimate.confidence)")
    }

    @Test func hrvIsWithheldWhenThePulseIsNotReliable() throws {
        var synthetic = SyntheticTrace()
        synthetic.amplitude = 0.0004
        synthetic.noise = 0.3
        let estimate = try VitalsAnalyzer().analyze(synthetic.frames())
        #expect(estimate.confidence < ConfidenceModel.reliable, "confidence \(estimate.confidence)")
        #expect(estimate.sdnn == nil && estimate.rmssd == nil)
    }

    @Test func headMovingOnPurposeIsNotReadAsBreathing() throws {
        var synthetic = SyntheticTrace()
        synthetic.breathing = 0
        let frames = synthetic.frames().enumerated().map { i, frame in
            var f = frame
            // A slow nod of ±3 % of the frame, far more than breathing moves a head.
            f.faceCenterY = 0.45 + 0.03 * sin(2 * Double.pi * 0.15 * Double(i) / 30)
            return f
        }
        let estimate = try VitalsAnalyzer().analyze(frames)
        #expect(!estimate.breathingReadings.contains { $0.source == .motion })
        #expect(estimate.respiratoryRate == nil, "read \(String(describing: estimate.respiratoryRate))")
    }

    @Test func longGapIsMarkedAndLowersConfidence() throws {
        var synthetic = SyntheticTrace()
        synthetic.dropped = Set(300..<390)  // 3 s without frames
        let gapped = try VitalsAnalyzer().analyze(synthetic.frames())
        let clean = try VitalsAnalyzer().analyze(SyntheticTrace().frames())
        #expect(gapped.quality.gapFraction > 0.08)
        #expect(gapped.confidence < clean.confidence)
        #expect(abs((gapped.heartRate ?? 0) - 72) <= 1)
    }

    @Test func tooShortAStretchIsAnErrorNotAGuess() {
        var synthetic = SyntheticTrace()
        synthetic.duration = 3
        #expect(throws: VitalsAnalyzer.Failure.self) { try VitalsAnalyzer().analyze(synthetic.frames()) }
        #expect(throws: VitalsAnalyzer.Failure.noRegions) {
            try VitalsAnalyzer().analyze((0..<300).map { SignalFrame(time: Double($0) / 30, regions: [], meanLuma: 100) })
        }
    }

    @Test func lightingStepIsRemovedNotReadAsPulse() throws {
        var synthetic = SyntheticTrace()
        synthetic.heartRate = { _ in 70 }
        var frames = synthetic.frames()
        for i in frames.indices where i >= 400 {
            frames[i].regions = frames[i].regions.map {
                RegionColor(red: $0.red * 1.12, green: $0.green * 1.12, blue: $0.blue * 1.12, skinFraction: $0.skinFraction)
            }
        }
        let estimate = try VitalsAnalyzer().analyze(frames)
        #expect(abs((estimate.heartRate ?? 0) - 70) <= 0.5)
        #expect(estimate.quality.stepsPerMinute > 0)
        #expect(estimate.confidence >= ConfidenceModel.reliable)
    }

    @Test func hrvAndBreathingFromASteadyPulse() throws {
        var synthetic = SyntheticTrace()
        // Respiratory sinus arrhythmia: ±4 bpm at the breathing rate (12 /min).
        synthetic.breathing = 12
        synthetic.heartRate = { 70 + 4 * sin(2 * Double.pi * 0.2 * $0) }
        let estimate = try VitalsAnalyzer().analyze(synthetic.frames())
        let rr = try #require(estimate.respiratoryRate)
        #expect(abs(rr - 12) <= 1, "breathing read as \(rr)")
        let sdnn = try #require(estimate.sdnn)
        // ±4 bpm around 70 bpm swings the interval by about ±49 ms: SDNN ≈ 49/√2 ≈ 35 ms.
        #expect(sdnn > 20 && sdnn < 50, "SDNN \(sdnn)")
        #expect(estimate.rmssd != nil)
    }

    @Test func breathingIsNilWithoutAnyBreathingSignal() throws {
        var synthetic = SyntheticTrace()
        synthetic.breathing = 0
        synthetic.noise = 0.2
        let estimate = try VitalsAnalyzer().analyze(synthetic.frames().map {
            var f = $0
            f.faceCenterY = nil
            return f
        })
        #expect(estimate.respiratoryRate == nil, "read \(String(describing: estimate.respiratoryRate))")
    }
}
