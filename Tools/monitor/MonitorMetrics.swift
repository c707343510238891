import Circadify
import Prometheus
import Synchronization

/// The monitor's Prometheus metrics (swift-prometheus, registered with help texts so
/// `promtool check metrics` passes). Nothing here is a vital sign unless the operator
/// asked for them (`exportVitals`): a fleet's dashboards see how the boards run, not
/// the people in front of them.
///
/// Names (the README's "Running a fleet" explains them):
/// `circadify_frames_total`, `circadify_frames_dropped_total{by}`, `circadify_frames_corrupt_total`,
/// `circadify_ring_overflows_total`, `circadify_frames_decoded_from_restart_markers_total`,
/// `circadify_stage_latency_seconds{stage}`,
/// `circadify_outcomes_total{outcome}`, `circadify_validation_status{code}`,
/// `circadify_camera_up`, `circadify_camera_reopens_total`; with `exportVitals`
/// `circadify_pulse_bpm`, `circadify_pulse_confidence`, `circadify_breathing_per_minute`,
/// `circadify_breathing_confidence`, `circadify_hrv_sdnn_milliseconds`.
public final class MonitorMetrics: Sendable {
    public let registry: PrometheusCollectorRegistry
    public let exportVitals: Bool

    private let frames: Counter
    private let droppedBySequence: Counter
    private let droppedByGap: Counter
    private let corrupt: Counter
    private let overflows: Counter
    private let fromRestartMarkers: Counter
    private let reopens: Counter
    private let cameraUp: Gauge
    private let validation: [ValidationStatus.Code: Gauge]
    private let latency: [(PipelineStage, DurationHistogram)]
    private let counted = Mutex(CounterBaseline())
    private let vitals = Mutex([VitalSeries: Gauge]())

    /// Latency buckets, seconds: a frame interval at 30 fps is 33 ms; the target is 2 ms beyond it.
    public static let latencyBuckets: [Duration] = [
        .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2),
        .milliseconds(5), .milliseconds(10), .milliseconds(20), .milliseconds(35), .milliseconds(50),
        .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1),
    ]

    /// Outcomes reported from the start (at zero), so `rate()` works before the first of each.
    static let knownOutcomes = ["measured", "qualityTooLow", "captureFailed", "timeout", "cameraNotAvailable",
                                "cameraPermissionDenied", "cameraInUse"]

    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry(), exportVitals: Bool = false) {
        self.registry = registry
        self.exportVitals = exportVitals
        frames = registry.makeCounter(descriptor: Self.name(
            "frames", "total", "Frames the camera delivered (or read from the replayed file)."))
        let dropped = Self.name("frames_dropped", "total",
                                "Frames the driver dropped, counted from gaps in its sequence numbers or its timestamps.")
        droppedBySequence = registry.makeCounter(descriptor: dropped, labels: [("by", "sequence")])
        droppedByGap = registry.makeCounter(descriptor: dropped, labels: [("by", "timestamp_gap")])
        corrupt = registry.makeCounter(descriptor: Self.name(
            "frames_corrupt", "total", "Frames the driver flagged as bad or that could not be decoded."))
        overflows = registry.makeCounter(descriptor: Self.name(
            "ring_overflows", "total", "Samples lost because the analysis fell behind the capture thread."))
        fromRestartMarkers = registry.makeCounter(descriptor: Self.name(
            "frames_decoded_from_restart_markers", "total", """
            MJPEG frames decoded from the restart intervals that hold the face's regions, the rows above them skipped \
            (0 from a camera that sends no restart markers).
            """))
        reopens = registry.makeCounter(descriptor: Self.name(
            "camera_reopens", "total", "Times the camera was opened again after being lost."))
        cameraUp = registry.makeGauge(descriptor: Self.name("camera", "up", "1 while the camera streams, else 0."))
        var validation: [ValidationStatus.Code: Gauge] = [:]
        for code in ValidationStatus.Code.allCases {
            validation[code] = registry.makeGauge(
                descriptor: Self.name("validation", "status",
                                      "1 for the current validation status (what most stands in the way of a reading), else 0."),
                labels: [("code", code.rawValue)])
        }
        self.validation = validation
        latency = PipelineStage.allCases.map { ($0, Self.latencyHistogram($0, in: registry)) }
        for outcome in Self.knownOutcomes { _ = outcomeCounter(outcome) }
    }

    /// What an event changes: outcomes, validation, the camera's state, and the vitals when exported.
    public func record(_ event: MonitorEvent) {
        switch event {
        case .estimate(let estimate):
            // A live reading without a confident pulse is what a measurement would end with as qualityTooLow.
            outcomeCounter(estimate.pulse == nil ? "qualityTooLow" : "measured").increment()
            if exportVitals { export(estimate) }
        case .validation(let status):
            for (code, gauge) in validation { gauge.set(to: code == status.code ? 1 : 0) }
        case .error(let error, _, _, _):
            outcomeCounter(error.caseName).increment()
        case .cameraLost(_, let error, _):
            if let error { outcomeCounter(error.caseName).increment() }
            cameraDown()
        case .cameraOpened:
            cameraUp.set(to: 1)
        case .cameraReopened:
            cameraUp.set(to: 1)
            reopens.increment()
        case .serviceStopped:
            cameraDown()
        case .serviceStarted, .inputRestarted, .warning: // a file starts over at once: still up
            break
        }
    }

    /// Adds what the camera's pipeline counted since the last call.
    public func record(_ counters: PipelineCounters) {
        let delta = counted.withLock { $0.advance(to: counters) }
        frames.increment(by: Int64(clamping: delta.framesReceived))
        droppedBySequence.increment(by: Int64(clamping: delta.droppedBySequence))
        droppedByGap.increment(by: Int64(clamping: delta.droppedByTimestampGap))
        corrupt.increment(by: Int64(clamping: delta.corrupt))
        overflows.increment(by: Int64(clamping: delta.ringOverflows))
        fromRestartMarkers.increment(by: Int64(clamping: delta.decodedFromRestartMarkers))
    }

    /// The next counters come from a new session, which counts from zero.
    public func countersRestarted() {
        counted.withLock { $0 = CounterBaseline() }
    }

    /// One frame's time in each stage it was timed in.
    public func record(_ timing: StageTiming) {
        for (stage, histogram) in latency {
            if let nanoseconds = timing.nanoseconds(stage) { histogram.recordNanoseconds(nanoseconds) }
        }
    }

    /// circadify_NAME_UNIT, with its help text.
    private static func name(_ metric: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "circadify", metricName: metric, unitName: unit, helpText: help)
    }

    private func cameraDown() {
        cameraUp.set(to: 0)
        for gauge in validation.values { gauge.set(to: 0) }
        if exportVitals { export(Estimate()) }
    }

    private func outcomeCounter(_ outcome: String) -> Counter {
        registry.makeCounter(descriptor: Self.name("outcomes", "total", """
            Live readings with a confident pulse (measured), without one (qualityTooLow), and errors by CircadifyError case.
            """), labels: [("outcome", outcome)])
    }

    private static func latencyHistogram(_ stage: PipelineStage, in registry: PrometheusCollectorRegistry)
        -> DurationHistogram {
        registry.makeDurationHistogram(
            descriptor: name("stage_latency", "seconds",
                             "Per-frame time in each pipeline stage, from the buffer timestamp to the analysis updated."),
            labels: [("stage", stage.rawValue)], buckets: latencyBuckets)
    }

    /// Sets the vital gauges from a reading; an unmeasured value removes its series
    /// (absent, not a stale or made-up number).
    private func export(_ estimate: Estimate) {
        let values: [VitalSeries: Double?] = [
            .pulse: estimate.pulse?.value, .pulseConfidence: estimate.pulse?.confidence,
            .breathing: estimate.breathing?.value, .breathingConfidence: estimate.breathing?.confidence,
            .hrv: estimate.hrv,
        ]
        vitals.withLock { gauges in
            for (series, value) in values {
                if let value {
                    let gauge = gauges[series] ?? registry.makeGauge(descriptor: series.descriptor)
                    gauges[series] = gauge
                    gauge.set(to: value)
                } else if let gauge = gauges.removeValue(forKey: series) {
                    registry.unregisterGauge(gauge)
                }
            }
        }
    }
}

private enum VitalSeries: String, Sendable, CaseIterable {
    case pulse = "pulse_bpm"
    case pulseConfidence = "pulse_confidence"
    case breathing = "breathing_per_minute"
    case breathingConfidence = "breathing_confidence"
    case hrv = "hrv_sdnn_milliseconds"

    var descriptor: MetricNameDescriptor {
        MetricNameDescriptor(namespace: "circadify", metricName: rawValue, unitName: "", helpText: help)
    }

    var help: String {
        switch self {
        case .pulse: "Latest pulse estimate, beats per minute (only with --export-vitals)."
        case .pulseConfidence: "Confidence of the latest pulse estimate, 0-1 (only with --export-vitals)."
        case .breathing: "Latest breathing estimate, breaths per minute (only with --export-vitals)."
        case .breathingConfidence: "Confidence of the latest breathing estimate, 0-1 (only with --export-vitals)."
        case .hrv: "Latest heart-rate variability, SDNN in ms (only with --export-vitals)."
        }
    }
}

/// The pipeline's last counters seen, to turn its totals into increments.
struct CounterBaseline: Sendable, Equatable {
    var last = PipelineCounters()

    /// The increments since the last totals, and remembers `counters`. A total
    /// below the last one means a new session started from zero.
    mutating func advance(to counters: PipelineCounters) -> PipelineCounters {
        let restarted = counters.framesReceived < last.framesReceived
            || counters.droppedBySequence < last.droppedBySequence
            || counters.droppedByTimestampGap < last.droppedByTimestampGap
            || counters.corrupt < last.corrupt || counters.ringOverflows < last.ringOverflows
            || counters.samplesDelivered < last.samplesDelivered
            || counters.decodedFromRestartMarkers < last.decodedFromRestartMarkers
        let base = restarted ? PipelineCounters() : last
        last = counters
        return PipelineCounters(
            framesReceived: counters.framesReceived - base.framesReceived,
            samplesDelivered: counters.samplesDelivered - base.samplesDelivered,
            droppedBySequence: counters.droppedBySequence - base.droppedBySequence,
            droppedByTimestampGap: counters.droppedByTimestampGap - base.droppedByTimestampGap,
            corrupt: counters.corrupt - base.corrupt, ringOverflows: counters.ringOverflows - base.ringOverflows,
            decodedFromRestartMarkers: counters.decodedFromRestartMarkers - base.decodedFromRestartMarkers)
    }
}
