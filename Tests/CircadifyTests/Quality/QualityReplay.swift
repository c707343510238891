@testable import Circadify
import Foundation
import GroundTruthKit
import Testing

/// The tests that render and replay clips, one at a time: a second or so of
/// work apiece that, run all at once on the test pool's few threads, would
/// starve the timing-sensitive async tests of other suites.
@Suite(.serialized) enum QualityOnClips {}

/// A generated clip run through the real core path (the core's file source in
/// lockstep: file reader, per-frame processor, thumbnails) into a
/// QualityMonitor, with the truth file's face boxes standing in for the face
/// detector and tracker.
struct QualityReplay {
    /// What the monitor said over the clip.
    struct Run {
        var truth: GroundTruthFile
        /// Every warning raised, in order, with the time (s) it was raised.
        var raised: [(kind: QualityWarning.Kind, time: Double)] = []
        /// The status after each observation, with its time (s).
        var statuses: [(code: ValidationStatus.Code, time: Double)] = []
        var final: QualityReport?

        var raisedKinds: Set<QualityWarning.Kind> { Set(raised.map(\.kind)) }
        var expected: Set<QualityWarning.Kind> {
            Set((truth.expectedWarnings ?? []).compactMap(QualityWarning.Kind.init(rawValue:)))
        }
        /// The status that held longest over the clip's second half.
        var settledStatus: ValidationStatus.Code? {
            let half = truth.durationSeconds / 2
            let late = statuses.filter { $0.time >= half }.map(\.code)
            return Dictionary(grouping: late, by: { $0 }).max { $0.value.count < $1.value.count }?.key
        }
    }

    /// Renders `scenario` (320x240, `duration` s, `fps` 0 = the scenario's) and replays
    /// it. `detections` may rewrite the truth's face boxes of the frame at a time (s),
    /// e.g. to hide the face. With `tracker` the tracked face is a `FaceTracker`'s
    /// (`Track.face`, as a scan gives the monitor) fed those boxes, not the truth's.
    static func run(_ scenario: String, seed: UInt32 = 1, duration: Float = 5, fps: Float = 0,
                    configuration: QualityMonitor.Configuration = .init(reportsCameraTuning: false),
                    detections: (@Sendable (Double, [NormalizedRect]) -> [NormalizedRect])? = nil,
                    tracker: FaceTracker.Configuration? = nil) async throws -> Run {
        try await replay(scenario, seed: seed, duration: duration, fps: fps, configuration: configuration,
                         detections: detections, tracker: tracker)
    }

    /// As `run`, but the faces come from the real detector and tracker inside the
    /// scan pipeline, which also places the regions: the monitor as a scan runs it.
    static func runThroughPipeline(_ scenario: String, seed: UInt32 = 1, duration: Float = 5) async throws -> Run {
        do {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("circadify-quality-\(UUID())")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let clip = try render(scenario, seed: seed, duration: duration, fps: 0, into: folder)
            let truth = try GroundTruthFile.load(clip.truth)
            let source = try FrameSource(.file(clip.video.path),
                                         configuration: .lockstepReplay(fps: UInt32(truth.fps.rounded())))
            let pipeline = try ScanPipeline.withFaceDetector(quality: .init(reportsCameraTuning: false))
            var run = Run(truth: truth)
            var origin: Double?
            for try await sample in try await source.samples() {
                var pending = pipeline.consume(sample)
                origin = origin ?? Double(sample.timestampNanoseconds) / 1e9
                let time = Double(sample.timestampNanoseconds) / 1e9 - (origin ?? 0)
                if sample.flags.contains(.thumbnail), let thumbnail = await source.takeThumbnail() {
                    if let relearnt = try pipeline.consume(thumbnail: thumbnail, at: time) { pending = relearnt }
                    let report = pipeline.qualityReport()
                    run.raised += report.raised.map { ($0.kind, time) }
                    run.statuses.append((report.status.code, time))
                    run.final = report
                }
                if let pending { try await source.setRegions(pending) }
            }
            return run
        }
    }

    private static func render(_ scenario: String, seed: UInt32, duration: Float, fps: Float,
                               into folder: URL) throws -> (video: URL, truth: URL) {
        try ClipRenderer.render(scenario: scenario, seed: seed, into: folder, name: scenario) { options in
            options.width = 320
            options.height = 240
            options.duration_s = duration
            options.fps = fps
        }
    }

    private static func replay(_ scenario: String, seed: UInt32, duration: Float, fps: Float,
                               configuration: QualityMonitor.Configuration,
                               detections: ((Double, [NormalizedRect]) -> [NormalizedRect])?,
                               tracker trackerConfiguration: FaceTracker.Configuration?) async throws -> Run {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("circadify-quality-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let clip = try render(scenario, seed: seed, duration: duration, fps: fps, into: folder)
        let truth = try GroundTruthFile.load(clip.truth)
        let source = try FrameSource(.file(clip.video.path), configuration: .lockstepReplay(fps: UInt32(truth.fps.rounded())))
        var monitor = QualityMonitor(configuration: configuration)
        var tracker = trackerConfiguration.map { FaceTracker(configuration: $0) }
        var run = Run(truth: truth)
        var origin: Double?
        func regions(_ index: Int) -> RegionSet {
            RegionSet(rects: truth.regions(frame: index).compactMap(NormalizedRect.init(box:)), skin: .standard)
        }
        try await source.setRegions(regions(0))
        var index = 0
        for try await sample in try await source.samples() {
            monitor.add(sample)
            origin = origin ?? Double(sample.timestampNanoseconds) / 1e9
            let time = Double(sample.timestampNanoseconds) / 1e9 - (origin ?? 0)
            if let thumbnail = await source.takeThumbnail() {
                let frame = Int(thumbnail.sequence)
                var boxes = truth.faceBoxes(frame: frame).compactMap(NormalizedRect.init(box:))
                if let detections { boxes = detections(time, boxes) }
                // The tracked face: the given tracker's, else the truth's first box while it is detected.
                let tracked = tracker != nil
                    ? tracker?.update(detections: boxes, at: time)?.face
                    : boxes.isEmpty ? nil : truth.face.flatMap { $0.isEmpty ? nil : NormalizedRect(box: $0[min(frame, $0.count - 1)]) }
                monitor.observe(FaceObservation(thumbnail: thumbnail, detections: boxes, trackedFace: tracked))
                let report = monitor.report()
                run.raised += report.raised.map { ($0.kind, time) }
                run.statuses.append((report.status.code, time))
                run.final = report
            }
            index += 1
            try await source.setRegions(regions(index))
        }
        let last = monitor.report() // what the frames after the last thumbnail changed
        run.raised += last.raised.map { ($0.kind, truth.durationSeconds) }
        run.final = last
        return run
    }
}
