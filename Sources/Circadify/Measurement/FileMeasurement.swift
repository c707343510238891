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
/// frame (a ground-truth file's, say), learning the skin mask from the face's
/// colour as it goes: the signal pipeline measured apart from the face
/// tracking. The file runs through the core's file source in lockstep, so
/// frame `i` is measured exactly at `regions(i)`.
package enum FileMeasurement {
    /// - Parameters:
    ///   - regions: the regions of frame `i` (forehead, cheeks, ...).
    ///   - timestamps: capture times of the frames, seconds, when the file's own frame rate
    ///     does not tell them (a recording with dropped frames); nil: the file's own, from
    ///     its first frame.
    ///   - limit: stop after this many frames.
    package static func frames(path: String, fps: UInt32 = 30, limit: Int = .max,
                               timestamps: [Double]? = nil, skinModel: SkinToneModel = SkinToneModel(),
                               regions: (Int) -> FrameRegions) async throws(CoreError) -> [SignalFrame] {
        let source = try FrameSource(.file(path), configuration: .lockstepReplay(fps: fps, thumbnailSide: 0))
        defer { Task { await source.stop() } }
        let framesPerSecond = source.format.framesPerSecond
        var frames = [SignalFrame]()
        var skin = SkinToneModel.initial
        var placement: UInt32 = 1
        var firstTime: Double?
        var wanted = regions(0)
        try await source.setRegions(RegionSet(rects: wanted.rects, skin: skin, generation: placement))
        do {
            for try await sample in try await source.samples() {
                let index = frames.count
                var frame = SignalFrame(sample, faceCenterY: wanted.faceCenterY)
                if let timestamps {
                    guard index < timestamps.count else {
                        throw CoreError(code: -22, message: "frame \(index) has no timestamp (\(timestamps.count) given)")
                    }
                    frame.time = timestamps[index]
                } else {
                    // The file's time, from its first frame, as a scan's replay counts it (the
                    // replay's clock starts wherever the machine's was).
                    let origin = firstTime ?? frame.time
                    firstTime = origin
                    frame.time -= origin
                }
                frames.append(frame)
                if frames.count >= limit { break }
                // Relearn the mask once a second from the last second of colour.
                let next = index + 1
                if next >= skinModel.framesToLearn, next % max(1, Int(framesPerSecond)) == 0,
                   let learnt = skinModel.bounds(from: Array(frames.suffix(Int(max(framesPerSecond, 15))))),
                   skinModel.replaces(skin, with: learnt) {
                    skin = learnt
                    placement &+= 1
                }
                wanted = regions(next)
                try await source.setRegions(RegionSet(rects: wanted.rects, skin: skin, generation: placement))
            }
        } catch let error as CoreError {
            throw error
        } catch {
            throw CoreError(code: -5, message: "\(path): \(error)")
        }
        return frames
    }
}

extension FrameSourceConfiguration {
    /// A file replayed frame by frame in lockstep with its consumer, with the
    /// face detector's thumbnail fitted to a `thumbnailSide` square (0: none).
    package static func lockstepReplay(fps: UInt32 = 30, thumbnailSide: UInt32 = UInt32(ScanPipeline.thumbnailSide),
                                       thumbnailEvery: UInt32 = UInt32(ScanPipeline.thumbnailEvery))
        -> FrameSourceConfiguration {
        var configuration = FrameSourceConfiguration()
        configuration.fps = fps
        configuration.realtime = false
        configuration.lockstep = true
        configuration.thumbnailWidth = thumbnailSide
        configuration.thumbnailHeight = 0
        configuration.thumbnailEvery = thumbnailEvery
        return configuration
    }
}

extension ScanSession {
    /// A replay measured to its end exactly as a scan measures it (detector,
    /// tracker, regions, skin model), starting once a face is found: for tools
    /// that score whole files. `timestamps` are the frames' capture times when
    /// the file's frame rate does not tell them.
    package static func measureReplay(path: String, fps: UInt32, timestamps: [Double]? = nil)
        async throws(CircadifyError) -> [SignalFrame] {
        let session = ScanSession(.replay(path: path, fps: fps, pace: .asFastAsProcessed), mirrored: false,
                                  timestamps: timestamps)
        try await session.start(forMeasurement: true)
        do {
            let frames = try await session.measure(duration: nil)
            await session.stop()
            return frames
        } catch {
            await session.stop()
            throw error
        }
    }
}
