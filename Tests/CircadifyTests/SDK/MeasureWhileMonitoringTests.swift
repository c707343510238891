import Foundation
import Testing
@testable import Circadify

/// `measureVitals`, `startMonitoring` and `stopMonitoring` on one SDK over each other: the
/// SDK follows one camera, and what it says stays true of that camera.
@MainActor @Suite(.serialized) struct MeasureWhileMonitoringTests {
    static let key = "ck_test_0123456789abcdef"

    /// Monitoring B, a measurement asked for on A is refused: following A would have left B's
    /// monitoring with nobody to hear it end (B stopping left the SDK `.running`).
    @Test func aMeasurementOnAnotherCameraIsRefused() async throws {
        let clip = try await ReplayClip.render("still", seconds: 20)
        defer { clip.cleanUp() }
        let sdk = try CircadifySDK(apiKey: Self.key)
        let b = CircadifyCamera(replaying: clip.path, pace: .realtime)
        let a = CircadifyCamera(replaying: clip.path, pace: .realtime)
        try await sdk.startMonitoring(camera: b)
        await #expect(throws: CircadifyError.processingFailed(
            "this CircadifySDK monitors another camera; measure that one, or stopMonitoring() first")) {
            _ = try await sdk.measureVitals(camera: a, options: MeasurementOptions(duration: 5))
        }
        #expect(!a.isRunning, "the refused measurement opened nothing")
        #expect(sdk.processingStatus == .running && sdk.error == nil)
        b.stop()
        #expect(sdk.processingStatus == .idle, "B's end still reaches the SDK")
        await b.release()
    }

    /// `startMonitoring(B)` still opening, then `stopMonitoring()` and `startMonitoring(C)`:
    /// B's call throws `cancelled` when its camera is up (it used to succeed and set B's
    /// session monitoring, which nothing would switch off), and the SDK follows C.
    @Test func aStartStoppedWhileItOpensGivesWayToTheNextOne() async throws {
        let clip = try await ReplayClip.render("still", seconds: 10)
        defer { clip.cleanUp() }
        let sdk = try CircadifySDK(apiKey: Self.key)
        let b = CircadifyCamera(replaying: clip.path, pace: .realtime)
        let c = CircadifyCamera(replaying: clip.path, pace: .realtime)
        let held = HeldOpening(b)
        let first = Task { try await sdk.startMonitoring(camera: b) }
        try #require(await held.waitUntilHeld())
        await sdk.stopMonitoring()
        try await sdk.startMonitoring(camera: c)
        held.release()
        await #expect(throws: CircadifyError.cancelled) { try await first.value }
        #expect(b.isRunning, "B opened on, as a camera does after a cancel")
        #expect(sdk.processingStatus == .running && sdk.error == nil)
        b.stop()
        #expect(sdk.processingStatus == .running, "B is not what the SDK follows")
        c.stop()
        #expect(sdk.processingStatus == .idle, "C is")
        await b.release()
        await c.release()
    }

    /// A measurement that fails while monitoring runs sets `error` and leaves monitoring
    /// `.running`, its series still growing (the status used to say `.error` while the
    /// metrics went on, and a second `startMonitoring` did not clear it).
    @Test func aFailedMeasurementLeavesMonitoringRunning() async throws {
        let clip = try await ReplayClip.render("nopulse", seconds: 40)
        defer { clip.cleanUp() }
        let sdk = try CircadifySDK(apiKey: Self.key)
        let camera = CircadifyCamera(replaying: clip.path, pace: .realtime)
        try await sdk.startMonitoring(camera: camera)
        await #expect(throws: CircadifyError.qualityTooLow) {
            _ = try await sdk.measureVitals(camera: camera, options: MeasurementOptions(duration: 6))
        }
        #expect(sdk.processingStatus == .running && sdk.error == .qualityTooLow)
        #expect(camera.isRunning)
        // A live reading about once a second (no pulse on this face: its wave and breathing).
        let before = sdk.metrics
        for _ in 0..<250 where sdk.metrics == before { try await Task.sleep(for: .milliseconds(20)) }
        #expect(sdk.metrics != before, "monitoring goes on")
        await sdk.stopMonitoring()
        #expect(sdk.processingStatus == .idle)
        await camera.release()
    }
}
