/// What the quality monitor has to say at one moment.
package struct QualityReport: Sendable, Equatable {
    /// Every warning active now, most severe first.
    package var active: [QualityWarning]
    /// Warnings that became active since the previous report, in the order they
    /// did (each delivered once per episode, for `onQualityWarning`).
    package var raised: [QualityWarning]
    package var status: ValidationStatus
}
