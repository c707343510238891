/// The regions to measure in one frame, and where the face is.
package struct FrameRegions: Sendable, Equatable {
    package var rects: [NormalizedRect]
    /// Vertical centre of the face, normalized; nil when unknown.
    package var faceCenterY: Double?

    package init(rects: [NormalizedRect], faceCenterY: Double? = nil) {
        self.rects = rects; self.faceCenterY = faceCenterY
    }
}

/// Reads a video file into the signal pipeline's frames at regions given per
/// frame, learning the skin mask from the face's colour as it goes.
package enum FileMeasurement {
    /// - Parameters:
    ///   - regions: the regions of frame `i` (forehead, cheeks, ...).
    ///   - timestamps: capture times of the frames, seconds, when the file's own frame rate
    ///     does not tell them (a recording with dropped frames); nil for index / rate.
    ///   - limit: stop after this many frames.
    package static func frames(path: String, fps: UInt32 = 30, limit: Int = .max,
                               timestamps: [Double]? = nil, skinModel: SkinToneModel = SkinToneModel(),
                               regions: (Int) -> FrameRegions) throws(CoreError) -> [SignalFrame] {
        let replay = try FileReplay(path: path, fps: fps, thumbnailWidth: 0) // no detector here
        var frames = [SignalFrame]()
        var skin = SkinToneModel.initial
        var index = 0
        while index < limit {
            let wanted = regions(index)
            // Relearn the mask once a second from the last second of colour.
            if index >= skinModel.framesToLearn, index % max(1, Int(replay.framesPerSecond)) == 0,
               let learnt = skinModel.bounds(from: Array(frames.suffix(Int(max(replay.framesPerSecond, 15))))) {
                skin = learnt
            }
            guard let sample = try replay.next(regions: RegionSet(rects: wanted.rects, skin: skin)) else { break }
            var frame = SignalFrame(sample, faceCenterY: wanted.faceCenterY)
            if let timestamps {
                guard index < timestamps.count else {
                    throw CoreError(code: -22, message: "frame \(index) has no timestamp (\(timestamps.count) given)")
                }
                frame.time = timestamps[index]
            }
            frames.append(frame)
            index += 1
        }
        return frames
    }
}
