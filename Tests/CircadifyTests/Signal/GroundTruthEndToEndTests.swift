@testable import Circadify
import Foundation
import GroundTruthKit
import Testing

/// Short generated face videos through the whole pipeline: file reader, per-frame
/// processor, signal pipeline. Loose bounds; the accuracy benchmark holds the tight ones.
@Suite struct GroundTruthEndToEndTests {
    static func measure(_ scenario: String, seed: UInt32 = 1, heartRate: Float = 0) async throws
        -> (estimate: VitalsEstimate, truth: GroundTruthFile)
    {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("circadify-e2e-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let clip = try ClipRenderer.render(scenario: scenario, seed: seed, into: folder, name: scenario) { options in
            options.width = 320
            options.height = 240
            options.duration_s = 20
            options.heart_rate_bpm = heartRate
        }
        let truth = try GroundTruthFile.load(clip.truth)
        let frames = try await FileMeasurement.frames(path: clip.video.path, fps: UInt32(truth.fps.rounded()),
                                                timestamps: truth.frameTimes) { i in
            FrameRegions(rects: truth.measurementRegions(frame: i).compactMap(NormalizedRect.init(box:)),
                         faceCenterY: truth.faceCenterY(frame: i))
        }
        #expect(frames.count == truth.frameCount - (truth.droppedFrames?.count ?? 0))
        return (try VitalsAnalyzer().analyze(frames), truth)
    }

    @Test func stillFaceGivesItsHeartRate() async throws {
        let (estimate, truth) = try await Self.measure("still", heartRate: 78)
        let hr = try #require(estimate.heartRate)
        let expected = try #require(truth.meanHeartRate)
        #expect(abs(hr - expected) <= 3, "read \(hr), truth \(expected)")
        #expect(estimate.confidence >= ConfidenceModel.retry, "confidence \(estimate.confidence)")
    }

    @Test func pulseFreeFaceIsNotConfident() async throws {
        let (estimate, truth) = try await Self.measure("nopulse")
        #expect(!truth.pulsePresent)
        #expect(estimate.confidence < ConfidenceModel.retry, "confidence \(estimate.confidence) on a photo")
    }
}
