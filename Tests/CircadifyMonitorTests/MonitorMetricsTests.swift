import Circadify
import CircadifyMonitor
import Prometheus
import Testing

/// What each event and counter does to the exported metrics, read back from the
/// registry's exposition text as Prometheus would scrape it.
struct MonitorMetricsTests {
    /// The value of one sample line, e.g. `circadify_outcomes_total{outcome="measured"}`; nil when absent.
    static func value(_ series: String, in metrics: MonitorMetrics) -> Double? {
        for line in metrics.registry.emitToString().split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: " ")
            if parts.count == 2, parts[0] == series { return Double(parts[1]) }
        }
        return nil
    }

    @Test func everyMetricIsThereFromTheStartWithHelpAndType() {
        let metrics = MonitorMetrics()
        let text = metrics.registry.emitToString()
        for name in ["circadify_frames_total", "circadify_frames_dropped_total", "circadify_frames_corrupt_total",
                     "circadify_ring_overflows_total", "circadify_frames_decoded_from_restart_markers_total",
                     "circadify_stage_latency_seconds", "circadify_outcomes_total",
                     "circadify_validation_status", "circadify_camera_up", "circadify_camera_reopens_total"] {
            #expect(text.contains("# HELP \(name) "), "\(name) has no help")
            #expect(text.contains("# TYPE \(name) "), "\(name) has no type")
        }
        #expect(Self.value("circadify_outcomes_total{outcome=\"measured\"}", in: metrics) == 0)
        #expect(Self.value("circadify_frames_dropped_total{by=\"timestamp_gap\"}", in: metrics) == 0)
        for stage in PipelineStage.allCases {
            #expect(Self.value("circadify_stage_latency_seconds_count{stage=\"\(stage.rawValue)\"}", in: metrics) == 0)
        }
    }

    @Test func readingsCountAsMeasuredOrQualityTooLow() {
        let metrics = MonitorMetrics()
        metrics.record(.estimate(Estimate(mediaTime: 5, pulse: .init(value: 70, confidence: 0.9))))
        metrics.record(.estimate(Estimate(mediaTime: 6, pulse: .init(value: 71, confidence: 0.8))))
        metrics.record(.estimate(Estimate()))
        #expect(Self.value("circadify_outcomes_total{outcome=\"measured\"}", in: metrics) == 2)
        #expect(Self.value("circadify_outcomes_total{outcome=\"qualityTooLow\"}", in: metrics) == 1)
    }

    @Test func errorsCountByTheirCase() {
        let metrics = MonitorMetrics()
        metrics.record(.cameraLost(source: "/dev/video0", error: .captureFailed("gone"), retryIn: .seconds(1)))
        metrics.record(.error(.cameraNotAvailable, attempt: 1, retryIn: .seconds(1)))
        metrics.record(.error(.cameraNotAvailable, attempt: 2, retryIn: .seconds(2)))
        metrics.record(.error(.unknown("odd"), attempt: 3, retryIn: .seconds(4)))
        #expect(Self.value("circadify_outcomes_total{outcome=\"captureFailed\"}", in: metrics) == 1)
        #expect(Self.value("circadify_outcomes_total{outcome=\"cameraNotAvailable\"}", in: metrics) == 2)
        #expect(Self.value("circadify_outcomes_total{outcome=\"unknown\"}", in: metrics) == 1)
    }

    /// One code at 1, the others 0; none while the camera is lost.
    @Test func theValidationStatusIsOneHot() {
        let metrics = MonitorMetrics()
        metrics.record(.cameraOpened(source: "/dev/video0"))
        metrics.record(.validation(ValidationStatus(.noFace)))
        metrics.record(.validation(ValidationStatus(.tooDark)))
        for code in ValidationStatus.Code.allCases {
            #expect(Self.value("circadify_validation_status{code=\"\(code.rawValue)\"}", in: metrics)
                == (code == .tooDark ? 1 : 0))
        }
        #expect(Self.value("circadify_camera_up", in: metrics) == 1)
        metrics.record(.cameraLost(source: "/dev/video0", error: .timeout, retryIn: .seconds(1)))
        #expect(Self.value("circadify_camera_up", in: metrics) == 0)
        #expect(Self.value("circadify_validation_status{code=\"tooDark\"}", in: metrics) == 0)
        metrics.record(.cameraReopened(source: "/dev/video0", attempts: 2, downtime: .seconds(3)))
        #expect(Self.value("circadify_camera_up", in: metrics) == 1)
        #expect(Self.value("circadify_camera_reopens_total", in: metrics) == 1)
    }

    /// No vital sign leaves the board unless the operator asks for it.
    @Test func vitalsAreNotExportedByDefault() {
        let metrics = MonitorMetrics()
        metrics.record(.estimate(Estimate(mediaTime: 5, pulse: .init(value: 70, confidence: 0.9),
                                          breathing: .init(value: 14, confidence: 0.7), hrv: 40)))
        let text = metrics.registry.emitToString()
        for name in ["circadify_pulse", "circadify_breathing", "circadify_hrv"] {
            #expect(!text.contains(name), "\(name) exported without --export-vitals")
        }
    }

    /// Opted in: the latest values; an unmeasured one disappears rather than stay stale.
    @Test func exportedVitalsFollowTheLatestReading() {
        let metrics = MonitorMetrics(exportVitals: true)
        metrics.record(.estimate(Estimate(mediaTime: 5, pulse: .init(value: 70, confidence: 0.9),
                                          breathing: .init(value: 14, confidence: 0.7), hrv: 40)))
        #expect(Self.value("circadify_pulse_bpm", in: metrics) == 70)
        #expect(Self.value("circadify_pulse_confidence", in: metrics) == 0.9)
        #expect(Self.value("circadify_breathing_per_minute", in: metrics) == 14)
        #expect(Self.value("circadify_breathing_confidence", in: metrics) == 0.7)
        #expect(Self.value("circadify_hrv_sdnn_milliseconds", in: metrics) == 40)
        metrics.record(.estimate(Estimate(mediaTime: 6, pulse: .init(value: 72, confidence: 0.8))))
        #expect(Self.value("circadify_pulse_bpm", in: metrics) == 72)
        #expect(Self.value("circadify_breathing_per_minute", in: metrics) == nil)
        #expect(Self.value("circadify_hrv_sdnn_milliseconds", in: metrics) == nil)
        metrics.record(.cameraLost(source: "/dev/video0", error: .timeout, retryIn: .seconds(1)))
        #expect(Self.value("circadify_pulse_bpm", in: metrics) == nil, "a lost camera measures nothing")
    }

    /// The pipeline's totals become increments; a new session counts from zero again.
    @Test func countersAddWhatIsNewAcrossSessions() {
        let metrics = MonitorMetrics()
        metrics.countersRestarted()
        metrics.record(PipelineCounters(framesReceived: 100, samplesDelivered: 100, droppedBySequence: 2,
                                        droppedByTimestampGap: 1, corrupt: 1, ringOverflows: 0))
        metrics.record(PipelineCounters(framesReceived: 150, samplesDelivered: 149, droppedBySequence: 3,
                                        droppedByTimestampGap: 1, corrupt: 1, ringOverflows: 4, decodedFromRestartMarkers: 90))
        metrics.record(PipelineCounters(framesReceived: 150, samplesDelivered: 149, droppedBySequence: 3,
                                        droppedByTimestampGap: 1, corrupt: 1, ringOverflows: 4, decodedFromRestartMarkers: 90))
        #expect(Self.value("circadify_frames_total", in: metrics) == 150)
        #expect(Self.value("circadify_frames_dropped_total{by=\"sequence\"}", in: metrics) == 3)
        #expect(Self.value("circadify_frames_dropped_total{by=\"timestamp_gap\"}", in: metrics) == 1)
        #expect(Self.value("circadify_frames_corrupt_total", in: metrics) == 1)
        #expect(Self.value("circadify_ring_overflows_total", in: metrics) == 4)
        #expect(Self.value("circadify_frames_decoded_from_restart_markers_total", in: metrics) == 90)
        metrics.countersRestarted() // a reopened camera
        metrics.record(PipelineCounters(framesReceived: 30, samplesDelivered: 30, decodedFromRestartMarkers: 20))
        #expect(Self.value("circadify_frames_total", in: metrics) == 180)
        #expect(Self.value("circadify_frames_decoded_from_restart_markers_total", in: metrics) == 110)
        // A session that restarted unannounced shows up as totals going down.
        metrics.record(PipelineCounters(framesReceived: 10, samplesDelivered: 10))
        #expect(Self.value("circadify_frames_total", in: metrics) == 190)
        #expect(Self.value("circadify_ring_overflows_total", in: metrics) == 4)
        #expect(Self.value("circadify_frames_decoded_from_restart_markers_total", in: metrics) == 110)
    }

    @Test func stageTimingsFillTheLatencyHistograms() {
        let metrics = MonitorMetrics()
        var timing = StageTiming(sequence: 1, captureNanoseconds: 1_000_000, frameIntervalNanoseconds: 33_333_333)
        timing.set(.kernels, nanoseconds: 30_000)
        timing.set(.endToEnd, nanoseconds: 3_000_000)
        metrics.record(timing)
        #expect(Self.value("circadify_stage_latency_seconds_count{stage=\"kernels\"}", in: metrics) == 1)
        #expect(Self.value("circadify_stage_latency_seconds_bucket{stage=\"kernels\",le=\"0.0001\"}", in: metrics) == 1)
        #expect(Self.value("circadify_stage_latency_seconds_bucket{stage=\"end_to_end\",le=\"0.002\"}", in: metrics) == 0)
        #expect(Self.value("circadify_stage_latency_seconds_bucket{stage=\"end_to_end\",le=\"0.005\"}", in: metrics) == 1)
        #expect(Self.value("circadify_stage_latency_seconds_sum{stage=\"end_to_end\"}", in: metrics) == 0.003)
        // Stages the frame did not go through are not recorded as zero.
        #expect(Self.value("circadify_stage_latency_seconds_count{stage=\"decode\"}", in: metrics) == 0)
    }
}
