/// A scan of a video file: every frame through the core's per-frame
/// processor on this task, the face found on every thumbnail and the regions
/// placed for the very next frame, so a file gives the same result each time
/// and as fast as the machine allows (or, `realtime`, at the file's own frame
/// rate). The measurement covers the file's first `duration` seconds; a
/// shorter file is an error, not a shorter scan.
package enum FileScan {
    /// - Parameter timestamps: capture times of the file's frames, seconds, when
    ///   its frame rate does not tell them (a recording with dropped frames).
    package static func run(path: String, fps: UInt32, duration: Double, realtime: Bool = false,
                            timestamps: [Double]? = nil, pipeline: ScanPipeline,
                            report: ScanReporter) async throws(CircadifyError) -> [SignalFrame] {
        let replay: FileReplay
        do {
            replay = try FileReplay(path: path, fps: fps, thumbnailWidth: ScanPipeline.thumbnailWidth,
                                    thumbnailEvery: ScanPipeline.thumbnailEvery)
        } catch {
            throw CircadifyError(error, reading: .file(path))
        }
        pipeline.beginMeasurement(at: 0)
        var pending: RegionSet?
        var covered = 0.0
        let frameStep = replay.framesPerSecond > 0 ? 1 / replay.framesPerSecond : 1 / 30
        report.phase = .measuring
        let clock = ContinuousClock(), started = clock.now
        while true {
            if Task.isCancelled { throw .cancelled }
            let sample: FrameSample?
            do {
                sample = try replay.next(regions: pending)
            } catch {
                throw .captureFailed("\(path): \(error.message)")
            }
            pending = nil
            guard var sample else { break }
            if let timestamps {
                let index = Int(sample.sequence)
                guard index < timestamps.count else {
                    throw .processingFailed("frame \(index) of \(path) has no timestamp (\(timestamps.count) given)")
                }
                sample.timestampNanoseconds = Int64((timestamps[index] * 1e9).rounded())
            }
            let time = Double(sample.timestampNanoseconds) / 1e9
            if let moved = pipeline.consume(sample) { pending = moved }
            if sample.flags.contains(.thumbnail), let thumbnail = replay.takeThumbnail() {
                if let relearnt = try pipeline.consume(thumbnail: thumbnail, at: time) { pending = relearnt }
                report.hints = pipeline.qualityReport().active.map(\.message)
            }
            covered = time + frameStep
            if covered >= duration - frameStep / 2 { break }
            if report.due(at: time) {
                report.send(elapsed: covered, pipeline: pipeline)
                await Task.yield()
            }
            if realtime {
                do {
                    try await clock.sleep(until: started.advanced(by: .seconds(covered)))
                } catch {
                    throw .cancelled
                }
            }
        }
        guard covered >= duration - frameStep / 2 else {
            let seconds = (covered * 10).rounded(.down) / 10
            let advice = seconds >= ScanOutcome.minimumFaceSeconds
                ? "pass --duration \(Int(seconds)) or less to scan what there is"
                : "a scan needs at least \(Int(ScanOutcome.minimumFaceSeconds)) s"
            let asked = duration.rounded() == duration ? "\(Int(duration))" : "\(duration)"
            throw .captureFailed("\(path) holds only \(seconds) s of video, less than the \(asked) s scan; \(advice)")
        }
        return pipeline.frames
    }
}
