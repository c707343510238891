@testable import Circadify
import CCore
import Testing

/// The warnings keep the iOS SDK's shape and say something of their own.
@Suite struct ValidationStatusTests {
    @Test func warningsKeepTheSeedsShape() {
        let w = QualityWarning(.tooDark)
        #expect(w.type == .lighting && w.severity == .high)
        #expect(w.message == "Move into better lighting — your face is too dark")
        #expect(QualityWarning(.headMoving).message == "Hold still")
        #expect(QualityWarning(.headMoving).type == .motion && QualityWarning(.cameraShaking).type == .motion)
        #expect(QualityWarning(.occluded).type == .occlusion)
        #expect(Set(QualityWarning.Kind.allCases.map { QualityWarning($0).message }).count
            == QualityWarning.Kind.allCases.count, "every kind says something of its own")
    }
}

extension QualityOnClips {
    /// The status codes that come from the stream rather than the face: the frame
    /// rate, and the camera still tuning its controls.
    @Suite struct StreamStatusTests {
        @Test func tenFramesPerSecondIsTooFew() async throws {
            let slow = try await QualityReplay.run("still", fps: 10)
            #expect(slow.raised.isEmpty, "a status, not a warning")
            #expect(slow.settledStatus == .frameRateTooLow)
            #expect(slow.statuses.first?.code == .ok, "not before 1.5 s of frames were seen")
            let fifteen = try await QualityReplay.run("lowfps")
            #expect(fifteen.statuses.allSatisfy { $0.code == .ok }, "15 fps is enough")
        }

        /// A file replay never locks the camera's controls: with tuning reported (the
        /// live-camera default) the status says so; a camera's samples flagged locked
        /// end it.
        @Test func cameraTuningUntilTheControlsLock() async throws {
            let replay = try await QualityReplay.run("still", configuration: .init())
            #expect(replay.statuses.allSatisfy { $0.code == .cameraTuning })

            var monitor = QualityMonitor()
            var raw = ccore_frame_sample()
            raw.timestamp_ns = 1_000_000_000
            monitor.add(FrameSample(raw))
            #expect(monitor.report().status.code == .cameraTuning)
            raw.timestamp_ns += 33_000_000
            raw.flags = UInt32(CCORE_SAMPLE_CONTROLS_LOCKED)
            monitor.add(FrameSample(raw))
            #expect(monitor.report().status == ValidationStatus(.ok))
        }
    }
}
