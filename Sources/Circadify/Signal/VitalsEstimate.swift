/// What the signal pipeline reads from a stretch of frames. Every value it
/// cannot measure is nil; `confidence` says how far the heart rate can be trusted.
package struct VitalsEstimate: Sendable, Equatable {
    /// Heart rate, bpm, nil until enough signal has been seen.
    package var heartRate: Double?
    /// 0-1: >= 0.7 reliable, 0.4-0.7 re-scan, < 0.4 retry (no usable pulse).
    package var confidence: Double
    /// HRV: standard deviation of beat intervals, ms (the seed's `hrv`).
    package var sdnn: Double?
    /// HRV: root mean square of successive interval differences, ms.
    package var rmssd: Double?
    /// Breaths per minute.
    package var respiratoryRate: Double?
    /// What each breathing source read, clear or not.
    package var breathingReadings: [RespirationEstimator.Reading]
    /// The heart rate over time (one reading per sliding window).
    package var heartRateTrack: [HeartRateReading]
    /// The fused, band-passed pulse wave (unit variance) at `sampleRate`.
    package var pulseWave: [Double]
    package var sampleRate: Double
    /// Seconds of signal analysed.
    package var duration: Double
    /// The measurements the confidence was made of.
    package var quality: SignalQuality
}

package struct HeartRateReading: Sendable, Equatable {
    /// Seconds from the start of the analysed stretch (the window's end).
    package var time: Double
    package var bpm: Double
}

/// The evidence behind a confidence value.
package struct SignalQuality: Sendable, Equatable {
    /// de Haan SNR of the fused pulse at the heart rate, dB, over the whole stretch's 20 s
    /// Welch segments (`VitalsAnalyzer.Configuration.stretchSegment`).
    package var snr: Double
    /// Share of the non-overlapping windows (`windows` of them) whose strongest candidate agrees
    /// with the heart rate (±5 bpm, or half a window's resolution when that is coarser).
    package var consistency: Double
    /// Each method's own pulse wave (POS, CHROM, and green when the light is steady) gives
    /// the same heart rate (±3 bpm).
    package var methodsAgree: Bool
    /// Mean share of skin pixels in the regions (0-1).
    package var skinCoverage: Double
    /// Share of the stretch lost to long gaps (no frames, or no skin).
    package var gapFraction: Double
    /// Share of the stretch bridged over dropped frames.
    package var droppedFraction: Double
    /// Intensity steps (exposure or lighting jumps) removed, per minute.
    package var stepsPerMinute: Double
    /// Share of the separate pulse waves (each region and the regions pooled, through POS
    /// CHROM and green) whose own strongest candidate agrees with the heart rate (±3 bpm).
    package var waveAgreement: Double = 0
    /// How much the face moved: standard deviation of its detrended vertical centre,
    /// share of the frame height (0 when not tracked).
    package var motion: Double = 0
    /// How much the picture's brightness (the band luma: rows 0.3-0.5, alike on every format)
    /// moves in the pulse band, as a share of how much the face's green does: near 0.2 on a
    /// steady camera (the face's own pulse, and noise), 1 or more when the exposure hunts or
    /// the light flickers slowly, which can pass for a pulse.
    package var lightShare: Double = 0
    /// How many non-overlapping windows `consistency` is a share of (the stretch split into
    /// equal windows near 5 s, two at least): six in a 30 s scan, two in a 10 s one. The
    /// windows that agree, `consistency` × `windows`, are the evidence the confidence weighs.
    package var windows = 6
    /// The share of the pulse wave the head's position explains through its square and cube
    /// (`MotionRegression.harmonicShare`): near 0 for a pulse, high for a reading made of the
    /// breathing's harmonics through the regions' texture.
    package var swayHarmonics: Double = 0
}
