@testable import Circadify
import Foundation
import GroundTruthKit
import Testing

/// Searching near the tracked face: the same boxes as a whole-frame search,
/// for a fraction of the work, with the whole frame still searched about once
/// a second and at once when the face leaves its window.
@Suite struct FaceFinderTests {
    /// A search area finds exactly what the whole image has there, on the same grid.
    @Test func anAreaAroundAFaceFindsTheSameBox() throws {
        let luma = try FaceDetectorTests.image("two-faces.jpg")
        let detector = try FaceDetector(maxWidth: luma.width, maxHeight: luma.height)
        let whole = try detector.detect(luma: luma.pixels, width: luma.width, height: luma.height)
        #expect(whole.count == 2)
        for face in whole {
            let area = PixelRect(x: max(0, face.x - face.width / 2), y: max(0, face.y - face.height / 2),
                                 width: min(luma.width - max(0, face.x - face.width / 2), face.width * 2),
                                 height: min(luma.height - max(0, face.y - face.height / 2), face.height * 2))
            let near = try detector.detect(luma: luma.pixels, width: luma.width, height: luma.height,
                                           minFaceSize: face.width * 6 / 10, maxFaceSize: face.width * 16 / 10,
                                           area: area)
            #expect(near == [face], "area \(area): \(near) against \(face)")
        }
        // An area with no face finds none; one reaching outside the image is refused.
        let corner = PixelRect(x: 0, y: 0, width: 60, height: 60)
        #expect(try detector.detect(luma: luma.pixels, width: luma.width, height: luma.height, area: corner).isEmpty)
        #expect(throws: CoreError.self) {
            try detector.detect(luma: luma.pixels, width: luma.width, height: luma.height,
                                area: PixelRect(x: luma.width - 10, y: 0, width: 20, height: 20))
        }
    }

    /// On a moving head, the scan pipeline tracks the same boxes with the finder as
    /// with a whole-frame search on every thumbnail, while searching the whole frame
    /// only about once a second.
    @Test func trackingMatchesAWholeFrameSearchForAFractionOfIt() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("circadify-finder-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let clip = try ClipRenderer.render(scenario: "head-moving", seed: 3, into: folder, name: "move") {
            $0.width = 320; $0.height = 240; $0.duration_s = 6
        }
        var everyCall = FaceFinder.Configuration()
        everyCall.fullScanInterval = 0
        let (wholeBoxes, _) = try await track(clip.video.path, finder: everyCall)
        let (finderBoxes, finder) = try await track(clip.video.path, finder: .init())
        #expect(finderBoxes == wholeBoxes)
        let calls = finder.fullScans + finder.windowScans
        #expect(calls >= 55, "\(calls) detector calls in 6 s")
        #expect(finder.fullScans <= 12, "\(finder.fullScans) whole-frame searches of \(calls) calls")
    }

    /// The detections of every thumbnail, and the finder's counts.
    private func track(_ path: String, finder configuration: FaceFinder.Configuration) async throws
        -> ([[NormalizedRect]], FaceFinder) {
        let detector = try FaceDetector(maxWidth: 320, maxHeight: 320)
        let finder = FaceFinder(detector: detector, configuration: configuration,
                                keep: { ScanPipeline.withoutEnclosingBoxes($0) })
        let pipeline = ScanPipeline(quality: .init(reportsCameraTuning: false)) { thumbnail, tracked, time throws(CoreError) in
            try finder.find(in: thumbnail, tracked: tracked, at: time)
        }
        let source = try FrameSource(.file(path), configuration: .lockstepReplay())
        var boxes = [[NormalizedRect]]()
        for try await sample in try await source.samples() {
            var pending = pipeline.consume(sample)
            if sample.flags.contains(.thumbnail), let thumbnail = await source.takeThumbnail() {
                if let moved = try pipeline.consume(thumbnail: thumbnail, at: Double(sample.sequence) / 30) {
                    pending = moved
                }
                boxes.append(pipeline.lastDetections)
            }
            if let pending { try await source.setRegions(pending) }
        }
        return (boxes, finder)
    }
}
