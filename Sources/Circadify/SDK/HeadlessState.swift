/// The live vital signs of headless use (SmartSpectra's `metrics`): series of
/// estimates, newest last, each with its confidence and time.
public struct Metrics: Sendable, Equatable {
    /// One estimate: its value, how far to trust it (0-1), and when.
    public struct Sample: Sendable, Equatable {
        public var value: Double
        public var confidence: Double
        /// Seconds of video since processing started (the stream's own clock, so a
        /// replayed file reports what a live camera would).
        public var time: Double

        public init(value: Double, confidence: Double, time: Double) {
            self.value = value
            self.confidence = confidence
            self.time = time
        }
    }

    public struct Cardio: Sendable, Equatable {
        /// Pulse rate, beats per minute; only estimates with confidence >= 0.4 (below
        /// that the number would be noise).
        public var pulseRate: [Sample] = []
        /// The latest HRV (SDNN, ms), when the beats were clean enough.
        public var hrv: Double?
        /// The last few seconds of the pulse wave, newest last, scaled to -1...1.
        public var pulseWave: [Float] = []
    }

    public struct Breathing: Sendable, Equatable {
        /// Breaths per minute.
        public var rate: [Sample] = []
    }

    public var cardio = Cardio()
    public var breathing = Breathing()

    public var hasCardio: Bool { !cardio.pulseRate.isEmpty }
    public var hasBreathing: Bool { !breathing.rate.isEmpty }

    /// Samples kept per series: an hour at one a second, so memory stays flat however long it runs.
    public static let capacity = 3600

    public init() {}

    mutating func append(_ reading: LiveReading, at time: Double) {
        if let rate = reading.heartRate {
            Self.append(Sample(value: rate, confidence: reading.confidence, time: time), to: &cardio.pulseRate)
        }
        cardio.hrv = reading.hrv
        cardio.pulseWave = reading.pulseWave
        if let rate = reading.respiratoryRate {
            Self.append(Sample(value: rate, confidence: reading.respiratoryConfidence ?? 0, time: time),
                        to: &breathing.rate)
        }
    }

    private static func append(_ sample: Sample, to series: inout [Sample]) {
        series.append(sample)
        if series.count > capacity { series.removeFirst(series.count - capacity) }
    }
}

/// The lifecycle of processing (SmartSpectra's `processingStatus`).
public enum ProcessingStatus: String, Sendable, Equatable {
    /// Nothing runs.
    case idle
    /// The camera is opening, settling or looking for the face.
    case starting
    /// Measuring: data is flowing.
    case running
    /// Finishing: the result is being computed, or monitoring is stopping.
    case stopping
    /// The last run failed; `error` says why. The next start clears it.
    case error
}

/// An RGB picture of what the camera sees (`imageOutput`), at most 320 pixels on
/// its longer side and about ten a second, unmirrored.
public struct RGBImage: Sendable, Equatable {
    public let width: Int
    public let height: Int
    /// RGB24, rows top to bottom, `3 * width` bytes each.
    public let pixels: [UInt8]

    init(_ frame: RGBFrame) {
        width = frame.width
        height = frame.height
        pixels = frame.pixels
    }
}

/// The headless state at one moment, for code off the main actor (`CircadifySDK.updates()`).
public struct HeadlessState: Sendable, Equatable {
    public var metrics: Metrics?
    public var validationStatus: ValidationStatus?
    public var processingStatus: ProcessingStatus
    public var error: CircadifyError?
    /// The running measurement's progress; nil outside measurements.
    public var progress: ScanProgress?
}
