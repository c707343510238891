import Foundation
import GroundTruthKit
import Testing
@testable import AccuracyKit

/// A rendered clip scored as the tool scores it: the truth reaches every reading, whichever
/// source gave the regions, and a clip of N seconds holds its whole scans of each cut length.
@Suite(.serialized) struct ClipEvaluatorTests {
    static func clip(seconds: Float) throws -> (folder: URL, video: URL, truth: GroundTruthFile) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("clip-evaluator-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let clip = try ClipRenderer.render(scenario: "still", seed: 1, into: folder, name: "still-1") { options in
            options.duration_s = seconds
            options.width = 160
            options.height = 120
        }
        return (folder, clip.video, try GroundTruthFile.load(clip.truth))
    }

    /// The truth's regions used to come with the replay clock's times: the sliding windows and
    /// every cut looked the truth up minutes past the clip's end and found none. (The
    /// tracker's frames were always timed from the file's start, as a scan times them.)
    @Test func theTruthReachesTheWindowsAndTheCuts() async throws {
        let clip = try Self.clip(seconds: 15)
        defer { try? FileManager.default.removeItem(at: clip.folder) }
        let score = await ClipEvaluator.score(video: clip.video, truth: clip.truth, name: "still-1", regions: .truth,
                                              cuts: [5])
        #expect(score.failure == nil, "\(score.failure ?? "")")
        #expect(!score.windows.isEmpty, "sliding windows scored against the truth")
        let cuts = try #require(score.cuts)
        // 450 frames: three whole 5 s scans (the third ends with the clip's last frame).
        #expect(cuts.map(\.clip) == ["still-1@0+5", "still-1@5+5", "still-1@10+5"])
        #expect(cuts.allSatisfy { $0.truthHeartRate != nil }, "\(cuts.map(\.clip))")
    }
}
