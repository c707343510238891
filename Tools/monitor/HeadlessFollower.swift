import Circadify

/// Turns the SDK's headless states (`CircadifySDK.updates()`) into the monitor's
/// events: an `estimate` for each new live reading, a `validation` when the status
/// changes. Keeps only the last reading's marks, so it stays the same size however
/// long it runs.
public struct HeadlessFollower: Sendable {
    private var lastMetrics: Metrics?
    private var lastPulseTime = -Double.infinity
    private var lastBreathingTime = -Double.infinity
    private var lastValidation: ValidationStatus.Code?

    public init() {}

    /// A new session starts: its status and its first reading are reported afresh.
    public mutating func reset() {
        self = HeadlessFollower()
    }

    public mutating func events(for state: HeadlessState) -> [MonitorEvent] {
        events(metrics: state.metrics, validation: state.validationStatus)
    }

    public mutating func events(metrics: Metrics?, validation: ValidationStatus?) -> [MonitorEvent] {
        var events: [MonitorEvent] = []
        if let status = validation {
            if status.code != lastValidation { events.append(.validation(status)) }
            lastValidation = status.code
        }
        guard let metrics else {
            // Monitoring (re)started: the series and their clock start over.
            lastMetrics = nil
            lastPulseTime = -.infinity
            lastBreathingTime = -.infinity
            return events
        }
        guard metrics != lastMetrics else { return events }
        lastMetrics = metrics
        var estimate = Estimate(hrv: metrics.cardio.hrv)
        if let pulse = metrics.cardio.pulseRate.last, pulse.time > lastPulseTime {
            lastPulseTime = pulse.time
            estimate.pulse = .init(value: pulse.value, confidence: pulse.confidence)
            estimate.mediaTime = pulse.time
        }
        if let rate = metrics.breathing.rate.last, rate.time > lastBreathingTime {
            lastBreathingTime = rate.time
            estimate.breathing = .init(value: rate.value, confidence: rate.confidence)
            estimate.mediaTime = max(estimate.mediaTime ?? rate.time, rate.time)
        }
        events.append(.estimate(estimate))
        return events
    }
}
