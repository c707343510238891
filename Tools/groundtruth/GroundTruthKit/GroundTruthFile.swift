import Foundation

/// A clip's truth file, as `circadify-groundtruth` writes it (Tools/groundtruth/README.md).
/// Any recording with a file of this shape beside it can be scored.
public struct GroundTruthFile: Decodable, Sendable {
    public struct HeartRatePoint: Decodable, Sendable { public var t: Double, bpm: Double }

    public var scenario: String
    public var seed: Int?
    public var width: Int, height: Int
    public var fps: Double
    public var frameCount: Int
    public var durationSeconds: Double
    public var format: String
    public var pulsePresent: Bool
    /// Who the seed made of the portrait: skin type, face width, glasses, beard (files from
    /// before the wider generator have none).
    public struct Person: Decodable, Sendable {
        public var fitzpatrick: Int
        public var faceWidth: Double
        public var glasses: Bool
        public var beard: Double
        public var variety: Bool
    }
    public var person: Person?
    public var beatTimes: [Double]
    public var heartRate: [HeartRatePoint]
    public var meanHeartRate: Double?
    public var respiratoryRate: Double?
    public var sdnn: Double?
    public var rmssd: Double?
    public var droppedFrames: [Int]?
    /// Capture time of each written frame, when frames were dropped.
    public var frameTimes: [Double]?
    /// Per written frame: forehead, left cheek, right cheek as [x, y, w, h], normalized.
    public var regions: [[[Double]]]?
    /// Per written frame: the face box [x, y, w, h], normalized (empty when the clip has no face).
    public var face: [[Double]]?
    /// Per written frame: the second face's box (two-faces scenario), else nil.
    public var secondFace: [[Double]]?
    /// The capture-quality warnings the clip should raise (QualityWarning.Kind names);
    /// empty for the pulse scenarios, nil in files from before the quality scenarios.
    public var expectedWarnings: [String]?

    public static func load(_ url: URL) throws -> GroundTruthFile {
        try JSONDecoder().decode(GroundTruthFile.self, from: Data(contentsOf: url))
    }

    /// Mean heart rate over [start, end] from the beats inside it (60 / mean interval).
    public func heartRate(from start: Double, to end: Double) -> Double? {
        let beats = beatTimes.filter { $0 >= start && $0 <= end }
        guard beats.count >= 3, let first = beats.first, let last = beats.last else { return nil }
        return 60 / ((last - first) / Double(beats.count - 1))
    }

    /// Frame `i`'s regions (forehead, left cheek, right cheek) as [x, y, w, h], normalized;
    /// empty when the file has none.
    public func regions(frame i: Int) -> [[Double]] {
        guard let regions, !regions.isEmpty else { return [] }
        return regions[min(max(i, 0), regions.count - 1)]
    }

    /// What to measure in frame `i`: its three regions and the whole face box (the skin
    /// mask keeps only its skin), each [x, y, w, h] normalized.
    public func measurementRegions(frame i: Int) -> [[Double]] {
        let box = face.flatMap { $0.isEmpty ? nil : $0[min(max(i, 0), $0.count - 1)] }
        return regions(frame: i) + (box.map { [$0] } ?? [])
    }

    /// Every face box in frame `i` ([x, y, w, h], normalized), largest first, as a face
    /// detector reports its detections.
    public func faceBoxes(frame i: Int) -> [[Double]] {
        func box(_ list: [[Double]]?) -> [Double]? {
            guard let list, !list.isEmpty else { return nil }
            return list[min(max(i, 0), list.count - 1)]
        }
        return [box(face), box(secondFace)].compactMap { $0 }.sorted { $0[2] * $0[3] > $1[2] * $1[3] }
    }

    /// Vertical centre of frame `i`'s face box, normalized; nil when the file has none.
    public func faceCenterY(frame i: Int) -> Double? {
        guard let face, !face.isEmpty else { return nil }
        let box = face[min(max(i, 0), face.count - 1)]
        return box.count == 4 ? box[1] + box[3] / 2 : nil
    }
}
