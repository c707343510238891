/// How to measure (seed "Configuration → Measurement Options"). A plain value:
/// `measureVitals(camera:options:)` checks it before it records anything.
public struct MeasurementOptions: Sendable, Equatable {
    /// Seconds of recording once the camera has settled and a face is in view.
    /// Default 30; at least `minimumDuration` (the analysis window).
    public var duration: Double
    /// Who is being measured; optional.
    public var demographics: Demographics?

    /// The shortest measurement the analysis accepts, seconds.
    public static let minimumDuration = ScanOutcome.minimumFaceSeconds
    /// The longest: an hour (a longer stretch belongs to continuous monitoring).
    public static let maximumDuration = 3600.0

    public init(duration: Double = 30, demographics: Demographics? = nil) {
        self.duration = duration
        self.demographics = demographics
    }

    /// Throws `processingFailed` naming the first field that is out of range.
    package func validate() throws(CircadifyError) {
        guard duration.isFinite, duration >= Self.minimumDuration, duration <= Self.maximumDuration else {
            throw .processingFailed("""
                MeasurementOptions.duration must be between \(Int(Self.minimumDuration)) and \
                \(Int(Self.maximumDuration)) seconds, got \(duration)
                """)
        }
        try demographics?.validate()
    }
}

/// The person being measured (seed "Measurement Options").
///
/// What each field changes on the device: nothing in the analysis. The skin
/// model is learnt from the face's own colour within the first second, which
/// serves every skin type, and no on-device model depends on age or sex. They
/// are checked (a value out of range is a caller's bug worth hearing about) and
/// kept with the options, for parity with the iOS SDK, whose server uses them.
public struct Demographics: Sendable, Equatable {
    public enum Sex: String, Sendable, Equatable, CaseIterable { case male, female, other }

    /// Years, 0...120.
    public var age: Int?
    public var sex: Sex?
    /// Fitzpatrick skin type, 1 (I) ... 6 (VI).
    public var fitzpatrick: Int?

    public init(age: Int? = nil, sex: Sex? = nil, fitzpatrick: Int? = nil) {
        self.age = age
        self.sex = sex
        self.fitzpatrick = fitzpatrick
    }

    package func validate() throws(CircadifyError) {
        if let age, !(0...120).contains(age) {
            throw .processingFailed("Demographics.age must be between 0 and 120 years, got \(age)")
        }
        if let fitzpatrick, !(1...6).contains(fitzpatrick) {
            throw .processingFailed("Demographics.fitzpatrick must be a skin type from 1 to 6, got \(fitzpatrick)")
        }
    }
}
