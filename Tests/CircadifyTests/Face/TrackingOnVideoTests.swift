import Foundation
import GroundTruthKit
import Testing
@testable import Circadify

/// The real detector and tracker on generated clips whose head motion is known:
/// the measured face follows a moving head, and stays put on a still one.
@Suite(.serialized) struct TrackingOnVideoTests {
    struct Trace {
        /// Per frame: the tracked box (nil before the first face), and how many region sets were published.
        var boxes: [NormalizedRect?] = []
        var publications: [Int] = []
        var truth: GroundTruthFile
    }

    /// Renders `scenario` and runs it through the scan pipeline frame by frame.
    static func track(_ scenario: String, seconds: Float = 8) async throws -> Trace {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("circadify-track-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let clip = try ClipRenderer.render(scenario: scenario, seed: 2, into: folder, name: scenario) {
            $0.duration_s = seconds
        }
        var trace = Trace(truth: try GroundTruthFile.load(clip.truth))
        let source = try FrameSource(.file(clip.video.path), configuration: .lockstepReplay())
        let pipeline = try ScanPipeline.withFaceDetector(quality: .init(reportsCameraTuning: false))
        for try await sample in try await source.samples() {
            var pending = pipeline.consume(sample)
            if sample.flags.contains(.thumbnail), let thumbnail = await source.takeThumbnail(),
               let relearnt = try pipeline.consume(thumbnail: thumbnail, at: Double(sample.timestampNanoseconds) / 1e9) {
                pending = relearnt
            }
            if let pending { try await source.setRegions(pending) }
            trace.boxes.append(pipeline.faceLayout?.face)
            trace.publications.append(pending == nil ? 0 : 1)
        }
        return trace
    }

    @Test func theRegionsFollowAMovingHead() async throws {
        let trace = try await Self.track("head-moving")
        let faces = try #require(trace.truth.face)
        let faceWidth = faces[0][2]
        let truthX = faces.map { $0[0] + $0[2] / 2 }
        #expect((truthX.max() ?? 0) - (truthX.min() ?? 0) > 0.5 * faceWidth, "the clip must really move the head")
        // The detector's box and the truth's face box are drawn differently; what must
        // hold is that they move together, within a few frames: for some lag of at most
        // 5 frames, a constant offset and a small residual.
        func spread(lag: Int) throws -> (sd: Double, worst: Double) {
            var residuals = [Double]()
            for i in 30..<trace.boxes.count {
                let box = try #require(trace.boxes[i], "face lost at frame \(i)")
                residuals.append(Double(box.centerX) - truthX[i - lag])
            }
            let mean = residuals.reduce(0, +) / Double(residuals.count)
            let sd = (residuals.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(residuals.count)).squareRoot()
            return (sd / faceWidth, (residuals.map { abs($0 - mean) }.max() ?? 1) / faceWidth)
        }
        let best = try (0...5).map { try spread(lag: $0) }.min { $0.sd < $1.sd }
        let fit = try #require(best)
        #expect(fit.sd < 0.06, "tracked centre strays \(fit.sd) face widths from the head")
        #expect(fit.worst < 0.2, "worst stray \(fit.worst) face widths")
    }

    @Test func theRegionsStayPutOnAStillHead() async throws {
        let trace = try await Self.track("still")
        let faces = try #require(trace.truth.face)
        let faceWidth = faces[0][2]
        // Jitter adds path: the tracked centre may travel no further than the head
        // itself (its small natural sway) plus a little.
        var tracked = 0.0, head = 0.0
        for i in 31..<trace.boxes.count {
            let a = try #require(trace.boxes[i - 1]), b = try #require(trace.boxes[i])
            tracked += Double(abs(b.centerX - a.centerX) + abs(b.centerY - a.centerY))
            head += abs(faces[i][0] + faces[i][2] / 2 - faces[i - 1][0] - faces[i - 1][2] / 2)
                + abs(faces[i][1] + faces[i][3] / 2 - faces[i - 1][1] - faces[i - 1][3] / 2)
        }
        print("still: tracked path \(tracked / faceWidth), head path \(head / faceWidth) face widths")
        #expect(tracked <= head + 0.1 * faceWidth, "tracked \(tracked / faceWidth), head \(head / faceWidth)")
    }
}
