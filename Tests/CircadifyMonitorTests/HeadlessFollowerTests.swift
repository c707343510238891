import Circadify
import CircadifyMonitor
import Testing

/// The SDK's headless states turned into estimate and validation events.
struct HeadlessFollowerTests {
    static func metrics(pulse: [(Double, Double, Double)], breathing: [(Double, Double, Double)] = [],
                        hrv: Double? = nil) -> Metrics {
        var metrics = Metrics()
        metrics.cardio.pulseRate = pulse.map { Metrics.Sample(value: $0.0, confidence: $0.1, time: $0.2) }
        metrics.breathing.rate = breathing.map { Metrics.Sample(value: $0.0, confidence: $0.1, time: $0.2) }
        metrics.cardio.hrv = hrv
        return metrics
    }

    @Test func eachNewReadingIsOneEstimateWithWhatIsNewInIt() {
        var follower = HeadlessFollower()
        #expect(follower.events(metrics: nil, validation: nil).isEmpty)
        let first = Self.metrics(pulse: [(72, 0.9, 5)])
        #expect(follower.events(metrics: first, validation: nil) == [
            .estimate(Estimate(mediaTime: 5, pulse: .init(value: 72, confidence: 0.9))),
        ])
        // The same state again (another property changed) is not a new reading.
        #expect(follower.events(metrics: first, validation: nil).isEmpty)
        // A reading whose pulse was not confident: the series did not grow, so no pulse.
        var unsure = first
        unsure.cardio.pulseWave = [0.5, -0.5]
        #expect(follower.events(metrics: unsure, validation: nil) == [.estimate(Estimate())])
        let second = Self.metrics(pulse: [(72, 0.9, 5), (73, 0.8, 6)], breathing: [(15, 0.7, 6)], hrv: 40)
        #expect(follower.events(metrics: second, validation: nil) == [
            .estimate(Estimate(mediaTime: 6, pulse: .init(value: 73, confidence: 0.8),
                               breathing: .init(value: 15, confidence: 0.7), hrv: 40)),
        ])
    }

    @Test func validationIsReportedWhenItChanges() {
        var follower = HeadlessFollower()
        #expect(follower.events(metrics: nil, validation: ValidationStatus(.noFace)) == [.validation(ValidationStatus(.noFace))])
        #expect(follower.events(metrics: nil, validation: ValidationStatus(.noFace)).isEmpty)
        #expect(follower.events(metrics: nil, validation: ValidationStatus(.ok)) == [.validation(ValidationStatus(.ok))])
        #expect(follower.events(metrics: nil, validation: nil).isEmpty)
    }

    /// A new session (a reopened camera, a looped file): its clock starts at 0 again
    /// and its status is reported even when it is the same as before.
    @Test func aResetReportsTheNextSessionAfresh() {
        var follower = HeadlessFollower()
        _ = follower.events(metrics: Self.metrics(pulse: [(70, 0.9, 20)]), validation: ValidationStatus(.ok))
        follower.reset()
        #expect(follower.events(metrics: Self.metrics(pulse: [(71, 0.9, 5)]), validation: ValidationStatus(.ok)) == [
            .validation(ValidationStatus(.ok)),
            .estimate(Estimate(mediaTime: 5, pulse: .init(value: 71, confidence: 0.9))),
        ])
    }
}
