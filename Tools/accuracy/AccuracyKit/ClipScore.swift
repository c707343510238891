import Circadify
import Foundation
import GroundTruthKit

/// How the pipeline did on one clip against its truth.
package struct ClipScore: Codable {
    package var clip: String
    package var scenario: String
    package var pulsePresent: Bool
    /// Why there is no estimate (the pipeline threw), if so.
    package var failure: String?
    package var heartRate: Double?
    package var truthHeartRate: Double?
    package var confidence: Double?
    package var respiratoryRate: Double?
    package var truthRespiratoryRate: Double?
    package var sdnn: Double?
    package var truthSDNN: Double?
    package var rmssd: Double?
    package var truthRMSSD: Double?
    /// Sliding-window readings against the truth over the same window (bpm, bpm).
    package var windows: [[Double]]
    package var seconds: Double
    /// Time the pipeline took from the last frame to the result (a fresh analyzer), seconds.
    package var analysisSeconds: Double?
    /// Diagnostics: SNR (dB), window consistency, mean skin coverage, breathing sources.
    package var snr: Double?
    package var consistency: Double?
    package var skinCoverage: Double?
    package var breathing: [String]?
    /// The reliability signals behind the confidence (ConfidenceModel.featureNames), for fitting it.
    package var reliability: [Double]?
    /// Shorter scans cut from this clip's frames (`--cuts`), scored on the heart rate alone.
    package var cuts: [ClipScore]?

    package var heartRateError: Double? {
        guard let heartRate, let truthHeartRate else { return nil }
        return heartRate - truthHeartRate
    }

    /// What the confidence bands promise: a pulse read within ±3 bpm of the truth. A clip with
    /// no pulse, or with no reading, is never right.
    package var readRight: Bool { pulsePresent && abs(heartRateError ?? .infinity) <= 3 }

    /// The estimate's pulse and the evidence its confidence was read from.
    /// A value that is not a number (a constant colour's SNR, say) is kept as none: JSON has no
    /// NaN, and the fit must not learn from one.
    mutating func takePulse(of estimate: VitalsEstimate) {
        func finite(_ value: Double?) -> Double? { value.flatMap { $0.isFinite ? $0 : nil } }
        heartRate = finite(estimate.heartRate)
        confidence = finite(estimate.confidence)
        snr = finite(estimate.quality.snr)
        consistency = finite(estimate.quality.consistency)
        skinCoverage = finite(estimate.quality.skinCoverage)
        let features = ConfidenceModel.features(estimate.quality)
        reliability = features.allSatisfy(\.isFinite) ? features : nil
    }
}

/// Runs one clip through the pipeline and scores it.
package enum ClipEvaluator {
    package enum RegionSource: String, Sendable {
        /// The face detector and tracker place the regions, as in a scan.
        case tracker
        /// The truth file's regions: the signal pipeline alone.
        case truth
    }

    /// Measures `video` (or reads its frames from `cache`, keeping them there when
    /// measured) and scores it.
    package static func score(video: URL?, truth: GroundTruthFile, name: String, regions source: RegionSource,
                              cache: URL? = nil, cuts: [Double] = []) async -> ClipScore {
        let started = Date()
        var score = ClipScore(clip: name, scenario: truth.scenario, pulsePresent: truth.pulsePresent,
                              truthHeartRate: truth.meanHeartRate, truthRespiratoryRate: truth.respiratoryRate,
                              truthSDNN: truth.sdnn, truthRMSSD: truth.rmssd, windows: [], seconds: 0)
        // A clip whose truth lists no face at all (the no-face scenario) has nothing to
        // measure: the guide-oval fallback would read the backdrop.
        if let faces = truth.face, faces.isEmpty {
            score.failure = "no face in the clip (the truth lists none): nothing to measure"
            score.seconds = Date().timeIntervalSince(started)
            return score
        }
        do {
            let frames: [SignalFrame]
            let cached = cache.map { FrameCache.framesURL($0, clip: name, source: source) }
            if let cached, FileManager.default.fileExists(atPath: cached.path) {
                frames = try FrameCache.load(cached)
            } else if let video {
                frames = try await measure(video: video, truth: truth, source: source)
                if let cached { try FrameCache.save(frames, to: cached) }
            } else {
                throw AccuracyError("\(name): no video and no cached frames")
            }
            if !cuts.isEmpty { score.cuts = cutScores(frames, truth: truth, name: name, lengths: cuts) }
            let analysisStart = Date()
            let estimate = try VitalsAnalyzer().analyze(frames)
            score.analysisSeconds = Date().timeIntervalSince(analysisStart)
            score.takePulse(of: estimate)
            score.respiratoryRate = estimate.respiratoryRate
            score.sdnn = estimate.sdnn
            score.rmssd = estimate.rmssd
            score.breathing = estimate.breathingReadings.map {
                String(format: "%@ %.1f q%.2f", $0.source.rawValue, $0.breathsPerMinute, $0.quality)
            }
            let window = VitalsAnalyzer.Configuration().window
            // Track times count from the first frame; truth times from the clip's start. (A
            // trace drops a lone first frame and shortens gaps over 5 s, which these clips lack.)
            let offset = frames.first.map { $0.time } ?? 0
            let origin = truth.frameTimes?.first ?? 0
            for reading in estimate.heartRateTrack {
                let end = reading.time + (offset - origin)
                if let truthRate = truth.heartRate(from: max(0, end - window), to: end) {
                    score.windows.append([reading.bpm, truthRate])
                }
            }
        } catch {
            score.failure = "\(error)"
        }
        score.seconds = Date().timeIntervalSince(started)
        return score
    }

    /// Shorter scans made of the clip's frames: for each length, every whole stretch of it from
    /// the first frame on, back to back (a 30 s clip gives three 10 s scans of 300 frames). Each is scored on
    /// its heart rate against the truth's over the same stretch, and keeps its reliability
    /// signals, so the confidence can be fitted on scans of every length a user may ask for.
    package static func cutScores(_ frames: [SignalFrame], truth: GroundTruthFile, name: String, lengths: [Double]) -> [ClipScore] {
        guard let first = frames.first?.time, let last = frames.last?.time else { return [] }
        let origin = truth.frameTimes?.first ?? 0
        var scores = [ClipScore]()
        // A scan of N seconds holds the frames from its start up to the one before N s: the last
        // frame covers a frame interval of its own. Half an interval of slack for rounding.
        let interval = 1 / max(truth.fps, 1), slack = interval / 2
        for length in lengths {
            var start = first
            while start + length <= last + interval + slack {
                let slice = frames.filter { $0.time >= start - slack && $0.time < start + length - slack }
                var score = ClipScore(clip: String(format: "%@@%.0f+%.0f", name, start - first, length), scenario: truth.scenario,
                                      pulsePresent: truth.pulsePresent,
                                      truthHeartRate: truth.heartRate(from: start - origin, to: start + length - origin),
                                      windows: [], seconds: 0)
                do {
                    let estimate = try VitalsAnalyzer().analyze(slice)
                    score.takePulse(of: estimate)
                } catch {
                    score.failure = "\(error)"
                }
                scores.append(score)
                start += length
            }
        }
        return scores
    }

    static func measure(video: URL, truth: GroundTruthFile, source: RegionSource) async throws -> [SignalFrame] {
        switch source {
        case .truth:
            return try await FileMeasurement.frames(
                path: video.path, fps: UInt32(truth.fps.rounded()), timestamps: truth.frameTimes
            ) { i in regions(truth, frame: i) }
        case .tracker:
            return try await ScanSession.measureReplay(path: video.path, fps: UInt32(truth.fps.rounded()),
                                                       timestamps: truth.frameTimes)
        }
    }

    /// The truth's regions for a frame (the fixed guide-oval regions when it has none).
    static func regions(_ truth: GroundTruthFile, frame i: Int) -> FrameRegions {
        let rects = truth.measurementRegions(frame: i).compactMap(NormalizedRect.init(box:))
        return FrameRegions(rects: rects.isEmpty ? RegionSet.centeredFace.rects : rects,
                            faceCenterY: truth.faceCenterY(frame: i))
    }
}
