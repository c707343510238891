/// Where a session's frames come from: a camera node, or a video file played
/// as a camera would deliver it.
package enum SessionInput: Sendable, Equatable {
    case device(String)
    case replay(path: String, fps: UInt32, pace: ReplayPace)

    /// What the core is asked to open (for its error mapping).
    var sourceInput: FrameSourceInput {
        switch self {
        case .device(let path): .device(path)
        case .replay(let path, _, _): .file(path)
        }
    }

    var isFile: Bool {
        if case .replay = self { return true }
        return false
    }
}

/// What a running session tells its owner, in order.
package enum CameraEvent: Sendable {
    /// The tracked face's geometry changed (nil: no face, or tracking off).
    case face(CircadifyScanFace?)
    /// A quality warning became active.
    case warning(QualityWarning)
    /// The validation status changed.
    case validation(ValidationStatus)
    /// A new live estimate (while monitoring or measuring), about once a second.
    case live(LiveReading)
    /// A new RGB picture of the stream (while image output is on).
    case image(RGBFrame)
    /// Capture ended: nil when stopped on request or a replay reached its end, else why.
    case ended(CircadifyError?)
}

/// The one scan driver: a camera or a replayed file runs through the core's
/// capture thread while this actor tracks the face on thumbnails, moves the
/// regions, watches quality, keeps a live estimate and runs at most one
/// measurement at a time on the same stream the preview shows.
///
/// A measurement settles first (a camera's exposure, gain and white balance
/// locked; a face in view), then measures for its duration. A face not found
/// while settling, or lost for longer than `faceLostLimit` while measuring,
/// ends it with faceNotDetected; frames that stop arriving end the session
/// with timeout; an unplugged camera with captureFailed; a replay that ends
/// before the measurement does with captureFailed. Stopping (or any failure)
/// stops streaming and restores the camera's controls.
package actor ScanSession {
    package struct Limits: Sendable {
        /// Longest wait for the controls to lock (cameras without those controls never do).
        package var settle = 4.0
        /// Longest wait for a face before measuring starts.
        package var faceWait = 10.0
        /// Longest a face may be out of view while measuring.
        package var faceLostLimit = 5.0
        /// Longest wait for a frame, seconds (a lockstep replay waits for its consumer, never for frames).
        package var frameTimeout = 3.0
        package init() {}
    }

    /// The RGB preview (`imageOutput`) fits this square, every 3rd frame.
    package static let previewSide: UInt32 = 320
    /// The preview renderer's pictures fit this square (a VGA frame whole), every frame.
    package static let displaySide: UInt32 = 640
    /// 0.1 s less a 30 fps camera's jitter.
    private static let detectionInterval = 0.09
    /// Seconds of face frames kept before a measurement for the live readout.
    private static let preRoll = 10.0

    package nonisolated let input: SessionInput
    package nonisolated let mirrored: Bool
    package nonisolated let events: AsyncStream<CameraEvent>
    /// Where each frame's `StageTiming` goes while someone observes it.
    package nonisolated let stageTimings: StageTimingHub
    private let eventSink: AsyncStream<CameraEvent>.Continuation
    private let limits: Limits
    private let quality: QualityMonitor.Configuration
    /// Capture times for a replay's frames when its frame rate does not tell them.
    private let timestamps: [Double]?
    private var pipeline: ScanPipeline?
    private let analyzer = VitalsAnalyzer()
    private var readout = LiveReadout()
    private var source: FrameSource?
    private var loop: Task<Void, Never>?
    private var watchdog: Task<Void, Never>?
    private var timedOut = false
    private var started = false
    private var stopRequested = false
    /// An as-fast-as-processed replay opened for a measurement waits at its first frame
    /// until the measurement is attached: the frames it would handle first are not
    /// measured, and how many there are would depend on the machine's load.
    private var holdsFirstFrame = false
    private var holdRelease: CheckedContinuation<Void, Never>?
    /// Capture has ended (stopped, failed, or the replay is over), and why (nil: on request or at the end).
    package private(set) var hasEnded = false
    package private(set) var endedWith: CircadifyError?
    private var tracking = false
    private var monitoring = false
    private var imageOutput = false
    /// The preview renderers' pictures, fed while anyone subscribes.
    private let feed: PreviewFeed?
    /// The core's preview as last set: on, and every frame at full size for the feed.
    private var previewShape: (on: Bool, feeding: Bool) = (false, false)
    /// The last `imageOutput` picture's frame, so the feed's every-frame previews give it one in three.
    private var lastImageSequence: UInt64?
    private var measurement: Measurement?
    private var lastFace: CircadifyScanFace?
    private var lastStatus: ValidationStatus?
    /// The newest thumbnail taken, until the sample loop reaches its frame.
    private var thumbnail: LumaThumbnail?
    private var lastSequence: UInt64 = 0
    /// Media time of the last face detection, seconds.
    private var lastDetection = -Double.infinity
    private var lastTime = 0.0
    /// A replay's first frame time: its frames are timed from 0, so a replay
    /// gives the same numbers every time whatever the clock reads.
    private var replayOrigin: Int64?
    /// The frames' time: a lone frame's leap ahead or behind not believed, a clock
    /// stepped back carried on from where it was (`SessionClock`). Live readings
    /// are timed from its origin.
    private var clock = SessionClock()
    private var frameAspect = 4.0 / 3.0
    private var frameStep = 1.0 / 30
    /// Whether the core times its stages now (follows `stageTimings.isObserved`).
    private var coreTiming = false
    /// The detector's share of the frame being handled, while timing.
    private var detectorNanoseconds: Int64?
    private var frameIntervalNanoseconds: Int64 = 0
    private var decodes = false
    /// What was negotiated with the camera (or read from the file), once open.
    package private(set) var streamFormat: StreamFormat?
    /// The source's counters as it stopped, for `pipelineCounters()` after the end.
    private var finalCounters: PipelineCounters?
    /// A source being stopped: `source` is already nil, `finalCounters` not yet set.
    private var stopping: FrameSource?
    /// Awaited halfway through releasing a source (stopped, its last counts not yet kept):
    /// a test's look at the session there. Nil in use.
    private var releaseCheckpoint: (@Sendable () async -> Void)?
    private let makePipeline: PipelineFactory

    private struct Measurement {
        /// Seconds to measure; nil: until the replay ends.
        var duration: Double?
        var reporter: ScanReporter
        /// Someone follows its progress, so it keeps a live estimate (`CameraEvent.live` too).
        var followed: Bool
        var continuation: CheckedContinuation<[SignalFrame], Error>
        var settleStart: Double?
        var measuringFrom: Double?
        /// The first frame measured at the face's regions (the regions glide there
        /// a frame or two after the face is found): the duration counts from it.
        var firstFrame: Double?
        var faceLastSeen: Double?
    }

    /// Builds the scan pipeline for a session's quality configuration (the face detector's by default).
    package typealias PipelineFactory = @Sendable (QualityMonitor.Configuration) throws(CircadifyError) -> ScanPipeline

    /// Nothing is opened or loaded here: `start()` does that, off the caller's actor.
    /// - Parameters:
    ///   - quality: the quality monitor's configuration (replays: no camera-tuning status).
    ///   - timestamps: capture times of a replay's frames, seconds (a recording with drops).
    ///   - stageTimings: the observers of its stage timings (a camera's, shared by its sessions).
    ///   - feed: where the preview renderers' pictures go (the camera's).
    ///   - pipeline: builds the scan pipeline (tests give theirs a detector of their own).
    package init(_ input: SessionInput, mirrored: Bool, limits: Limits = Limits(),
                 quality: QualityMonitor.Configuration? = nil, timestamps: [Double]? = nil,
                 stageTimings: StageTimingHub = StageTimingHub(), feed: PreviewFeed? = nil,
                 pipeline: @escaping PipelineFactory = { quality throws(CircadifyError) in
                     try ScanPipeline.withFaceDetector(quality: quality)
                 }) {
        self.input = input
        self.feed = feed
        self.mirrored = mirrored
        self.limits = limits
        self.quality = quality ?? .init(reportsCameraTuning: !input.isFile)
        self.timestamps = timestamps
        self.stageTimings = stageTimings
        makePipeline = pipeline
        (events, eventSink) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(256))
    }

    /// Loads the face detector, opens the camera or file and starts streaming.
    /// A session runs once: after it stops, make a new one.
    /// - Parameter forMeasurement: the caller measures next. An as-fast-as-processed
    ///   replay then waits at its first frame until `measure`, so it is measured from
    ///   its start on any machine, whoever else watches it (tracking for a preview,
    ///   monitoring, image output): only `measure`, `releaseHeldReplay()` (a caller that
    ///   gives up before it measures) and `stop()` let it go on. A preview turned on
    ///   just before once started a loaded machine's measurement late.
    /// - Throws: the camera errors (`cameraNotAvailable`, `cameraPermissionDenied`,
    ///   `cameraInUse`), `captureFailed` (a file that cannot be read, a camera that
    ///   fails to stream), `processingFailed` (no face detector data), or `cancelled`
    ///   when `stop()` came first.
    package func start(forMeasurement: Bool = false) async throws(CircadifyError) {
        guard source == nil else { return }
        guard !started else { throw .captureFailed("this camera session has already run; start a new one") }
        started = true
        if forMeasurement, case .replay(_, _, .asFastAsProcessed) = input { holdsFirstFrame = true }
        do {
            try await open()
        } catch {
            eventSink.finish() // no capture, no events: observers end too
            throw error
        }
    }

    private func open() async throws(CircadifyError) {
        if stopRequested { throw .cancelled }
        let pipeline = try makePipeline(quality)
        self.pipeline = pipeline
        let opened: FrameSource
        let samples: SampleStream
        do {
            opened = try FrameSource(input.sourceInput, configuration: configuration)
            // Observed from the first frame on: timing goes on before the capture thread starts.
            coreTiming = stageTimings.isObserved
            if coreTiming { await opened.setStageTiming(true) }
            samples = try await opened.samples()
        } catch {
            throw CircadifyError(error, reading: input.sourceInput)
        }
        if stopRequested {
            await opened.stop()
            throw .cancelled
        }
        source = opened
        await applyPreviewShape()
        let format = opened.format
        streamFormat = format
        if format.height > 0 { frameAspect = Double(format.width) / Double(format.height) }
        if format.framesPerSecond > 0 {
            frameStep = 1 / format.framesPerSecond
            frameIntervalNanoseconds = Int64((1e9 / format.framesPerSecond).rounded())
        }
        clock = SessionClock(frameInterval: frameStep)
        decodes = format.fourcc == "MJPG"
        if case .device = input {
            watchdog = Self.watch(opened, timeout: limits.frameTimeout) { [weak self] in await self?.frameTimeout() }
        }
        loop = Task { await self.run(samples, pipeline: pipeline) }
    }

    private var configuration: FrameSourceConfiguration {
        var configuration = FrameSourceConfiguration()
        configuration.thumbnailWidth = UInt32(ScanPipeline.thumbnailSide)
        configuration.thumbnailHeight = 0 // fitted to the negotiated format
        configuration.thumbnailEvery = UInt32(ScanPipeline.thumbnailEvery)
        configuration.previewSize = feed == nil ? Self.previewSide : Self.displaySide
        configuration.previewEvery = 3
        if case .replay(_, let fps, let pace) = input {
            configuration.fps = fps
            configuration.realtime = pace == .realtime
            configuration.lockstep = pace == .asFastAsProcessed
        }
        return configuration
    }

    /// Stops streaming and restores the camera's controls; a measurement in
    /// progress ends with cancelled. Idempotent; honoured when `start()` is still
    /// under way (it then throws cancelled). Returns once the camera is released.
    package func stop() async {
        stopRequested = true
        releaseHeldReplay()
        guard let source else {
            if loop == nil { eventSink.finish() } // never streamed: nothing else will end the events
            // Ended on its own: return once its teardown is done.
            await loop?.value
            await watchdog?.value
            return
        }
        self.source = nil
        watchdog?.cancel()
        finishMeasurement(.failure(.cancelled))
        await release(source)
        await loop?.value
        await watchdog?.value
    }

    /// Turns face tracking (and with it `CameraEvent.face`) on or off; a
    /// measurement tracks regardless.
    package func setTracking(_ on: Bool) async {
        tracking = on
        if !on, measurement == nil { await clearFace() }
    }

    /// Turns the live estimate (`CameraEvent.live`) on or off outside measurements.
    package func setMonitoring(_ on: Bool) {
        monitoring = on
        if !on, measurement == nil { readout.reset() }
    }

    /// Turns the RGB pictures (`CameraEvent.image`) on or off.
    package func setImageOutput(_ on: Bool) async {
        imageOutput = on
        await applyPreviewShape()
    }

    /// Sets the core's preview for who wants it: the feed's subscribers a
    /// full-size picture every frame, `imageOutput` alone a small one every 3rd.
    private func applyPreviewShape() async {
        let feeding = feed?.isWanted ?? false
        let shape = (on: imageOutput || feeding, feeding: feeding)
        guard let source, shape != previewShape else { return }
        previewShape = shape
        if shape.on {
            await source.setPreviewShape(maxSide: feeding ? Self.displaySide : Self.previewSide, every: feeding ? 1 : 3)
        }
        await source.setPreview(shape.on)
    }

    /// The newest preview to `imageOutput` (fitted, one frame in three) and the feed.
    private func deliverPreview(at time: Double) async {
        await applyPreviewShape()
        guard previewShape.on, let image = await source?.takePreview() else { return }
        if previewShape.feeding {
            feed?.publish(PreviewSourceFrame(image: image, time: time, face: lastFace, mirrored: mirrored))
        }
        guard imageOutput else { return }
        if previewShape.feeding, let last = lastImageSequence, image.sequence > last, image.sequence - last < 3 { return }
        lastImageSequence = image.sequence
        eventSink.yield(.image(image.fitted(maxSide: Self.previewSide)))
    }

    /// Measures for `duration` seconds once the camera has settled and a face is
    /// in view, and turns the frames into the seed's result.
    /// - Throws: `faceNotDetected`, `qualityTooLow`, `captureFailed`, `timeout`,
    ///   `cancelled` (task cancelled, `cancelMeasurement()`, or `stop()`), and
    ///   `processingFailed` when a measurement already runs on this camera.
    /// - Parameter progress: nil when nobody follows the measurement (see `measure`).
    package func measureVitals(duration: Double, progress: (@Sendable (ScanProgress) -> Void)?)
        async throws(CircadifyError) -> VitalSignsResult {
        let frames = try await measure(duration: duration, progress: progress)
        progress?(ScanProgress(phase: .analyzing, elapsed: duration, total: duration))
        return try ScanOutcome.result(frames: frames, analyzer: analyzer)
    }

    /// The frames of a measurement, analysed as the result is (for tools that score them).
    package func analyze(_ frames: [SignalFrame]) throws(VitalsAnalyzer.Failure) -> VitalsEstimate {
        try analyzer.analyze(frames)
    }

    /// Ends the measurement in progress with cancelled; the camera keeps running.
    package func cancelMeasurement() {
        finishMeasurement(.failure(.cancelled))
    }

    /// Measures for `duration` seconds (nil: a replay to its end); returns the
    /// frames measured at the face.
    /// - Parameter progress: follows the measurement, with a live estimate about once
    ///   a second (also yielded as `CameraEvent.live`). Nil when nobody follows it: then
    ///   no live estimate is made unless monitoring is on (the result is the same).
    package func measure(duration: Double?, progress: (@Sendable (ScanProgress) -> Void)? = nil)
        async throws(CircadifyError) -> [SignalFrame] {
        // Capture that ended before the measurement was asked for says why.
        if hasEnded {
            if let endedWith { throw endedWith }
            if input.isFile { throw replayEndedFirst(duration: duration) }
            throw .captureFailed("\(path) has ended; start the camera again")
        }
        guard source != nil, let pipeline else {
            throw .captureFailed("the camera is not running; start it first")
        }
        guard measurement == nil else {
            throw .processingFailed("a measurement is already running on this camera; wait for it or cancel it")
        }
        if duration == nil, !input.isFile { throw .processingFailed("only a replay can be measured to its end") }
        let reporter = ScanReporter(total: duration ?? .infinity, progress: progress ?? { _ in })
        reporter.phase = .settling
        readout.reset()
        pipeline.forget(before: lastTime - Self.preRoll)
        releaseHeldReplay() // its loop runs once this suspends, with the measurement attached
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    if Task.isCancelled { return continuation.resume(throwing: CircadifyError.cancelled) }
                    measurement = Measurement(duration: duration, reporter: reporter, followed: progress != nil,
                                              continuation: continuation)
                }
            } onCancel: {
                Task { await self.cancelMeasurement() }
            }
        } catch let error as CircadifyError {
            throw error
        } catch {
            throw .unknown("\(error)")
        }
    }

    // MARK: - The sample loop

    /// Lets a replay held for its measurement go on (see `start(forMeasurement:)`);
    /// also for a caller that gives up before it measures.
    package func releaseHeldReplay() {
        holdsFirstFrame = false
        holdRelease?.resume()
        holdRelease = nil
    }

    private func run(_ samples: SampleStream, pipeline: ScanPipeline) async {
        if holdsFirstFrame { await withCheckedContinuation { holdRelease = $0 } }
        var failure: CircadifyError?
        do {
            for try await sample in samples {
                // Once stopped, what is left in the ring is dropped: on a board that fell
                // behind, processing the backlog would hold the camera for seconds.
                if stopRequested { break }
                await handle(sample, pipeline: pipeline)
            }
        } catch let error as CoreError {
            failure = input.isFile ? .captureFailed("\(path): \(error.message)") : .captureFailed(error.message)
        } catch {
            failure = .captureFailed("\(error)")
        }
        if timedOut { failure = .timeout }
        hasEnded = true
        endedWith = failure
        watchdog?.cancel()
        let stoppedOnRequest = source == nil
        if let source {
            // Capture ended on its own (unplugged, failed, hung, end of file): release the camera.
            self.source = nil
            await release(source)
        }
        if let m = measurement {
            if failure == nil, !stoppedOnRequest, m.duration == nil, m.measuringFrom != nil {
                finishMeasurement(.success(pipeline.measuredFrames)) // measured to the replay's end
            } else {
                finishMeasurement(.failure(failure ?? (stoppedOnRequest ? .cancelled : replayTooShort())))
            }
        }
        await clearFace()
        eventSink.yield(.ended(failure))
        eventSink.finish()
    }

    private var path: String {
        switch input {
        case .device(let path), .replay(let path, _, _): path
        }
    }

    /// The error for a replay that reached its end before the measurement was asked
    /// for: a file of a few frames is read before the caller gets there.
    private func replayEndedFirst(duration: Double?) -> CircadifyError {
        let held = ((lastTime + frameStep) * 1000).rounded() / 1000
        let wanted = duration.map { "the \(Self.seconds($0)) s measurement" } ?? "the measurement"
        return .captureFailed("\(path) holds only \(Self.seconds(held, tenths: true)) s of video and ended "
            + "before \(wanted) began; start the camera again to replay it")
    }

    /// The error for a replay that ended before the measurement did.
    private func replayTooShort() -> CircadifyError {
        guard let m = measurement else { return .captureFailed("\(path) ended") }
        guard let from = m.measuringFrom else {
            // A file shorter than the measurement says so; a long enough one without a
            // face gets what a camera would say after its face wait.
            let held = ((lastTime + frameStep) * 1000).rounded() / 1000
            guard held < m.duration ?? .infinity else { return .faceNotDetected }
            return .captureFailed("\(path) holds only \(Self.seconds(held, tenths: true)) s of video, less than the "
                + "\(Self.seconds(m.duration ?? .infinity)) s measurement, and no face was found in it")
        }
        // To the millisecond: 180 frame intervals of 1/30 s are a hair under 6 s.
        let measured = ((lastTime - (m.firstFrame ?? from)) * 1000).rounded() / 1000
        let minimum = ScanOutcome.minimumFaceSeconds
        let advice = measured >= minimum
            ? "a measurement of \(Self.seconds(measured.rounded(.down))) s or less fits in what there is"
            : "a scan needs at least \(Self.seconds(minimum)) s"
        return .captureFailed("""
            \(path) holds only \(Self.seconds(measured, tenths: true)) s of video after the face was found \
            (\(Self.seconds(from, tenths: true)) s in), less than the \(Self.seconds(m.duration ?? .infinity)) s \
            measurement; \(advice)
            """)
    }

    /// "6", "5.9" (`tenths`, rounded down: never more than there is), "1e+19":
    /// a duration for a message, whatever its size.
    private static func seconds(_ value: Double, tenths: Bool = false) -> String {
        guard value.isFinite, abs(value) < 1e9 else { return "\(value)" }
        if tenths { return String((value * 10).rounded(.down) / 10) }
        return value == value.rounded() ? String(Int(value)) : String(value)
    }

    /// The frame counts of the source since it started: live while it runs,
    /// as it stopped after; nil before it opened.
    package func pipelineCounters() async -> PipelineCounters? {
        if let source = source ?? stopping { return PipelineCounters(await source.statistics()) }
        return finalCounters
    }

    /// Stops a source taken out of `source` and keeps its last counts. Until they are
    /// kept, the counters are read from it still: a caller that asks in between (across
    /// the awaits) gets them, not nil.
    private func release(_ source: FrameSource) async {
        stopping = source
        await source.stop()
        await releaseCheckpoint?()
        finalCounters = PipelineCounters(await source.statistics())
        stopping = nil
    }

    /// Has `checkpoint` awaited halfway through each release of a source (tests).
    package func setReleaseCheckpoint(_ checkpoint: (@Sendable () async -> Void)?) {
        releaseCheckpoint = checkpoint
    }

    /// One sample through the driver, timed for `stageTimings` while observed.
    private func handle(_ sample: FrameSample, pipeline: ScanPipeline) async {
        if stageTimings.isObserved != coreTiming { await syncStageTiming() }
        guard stageTimings.isObserved else { return await process(sample, pipeline: pipeline) }
        let taken = StageTimingHub.now()
        detectorNanoseconds = nil
        await process(sample, pipeline: pipeline)
        stageTimings.yield(timing(of: sample, takenAt: taken, doneAt: StageTimingHub.now()))
    }

    /// Switches the core's stage timing on while someone observes, off when nobody does.
    private func syncStageTiming() async {
        guard let source else { return }
        coreTiming = stageTimings.isObserved
        await source.setStageTiming(coreTiming)
    }

    /// The frame's stage times: the core's from its sample, the driver's from
    /// when it took the sample (`taken`) and finished with it (`done`).
    private func timing(of sample: FrameSample, takenAt taken: Int64, doneAt done: Int64) -> StageTiming {
        var timing = StageTiming(sequence: sample.sequence, captureNanoseconds: sample.timestampNanoseconds,
                                 frameIntervalNanoseconds: frameIntervalNanoseconds,
                                 droppedBefore: sample.droppedBefore, corruptBefore: sample.errorsBefore,
                                 overflowBefore: sample.overflowBefore)
        if sample.dequeuedNanoseconds > 0 { // timed on the capture thread
            timing.set(.dequeue, nanoseconds: sample.dequeuedNanoseconds - sample.timestampNanoseconds)
            if decodes { timing.set(.decode, nanoseconds: Int64(sample.decodeNanoseconds)) }
            timing.set(.kernels, nanoseconds: Int64(sample.kernelsNanoseconds))
            if sample.thumbnailNanoseconds > 0 {
                timing.set(.thumbnail, nanoseconds: Int64(sample.thumbnailNanoseconds))
            }
        }
        timing.set(.ringResidence, nanoseconds: taken - sample.processedNanoseconds)
        timing.set(.detector, nanoseconds: detectorNanoseconds)
        timing.set(.analysis, nanoseconds: done - taken - (detectorNanoseconds ?? 0))
        timing.set(.endToEnd, nanoseconds: done - sample.timestampNanoseconds)
        return timing
    }

    private func process(_ raw: FrameSample, pipeline: ScanPipeline) async {
        var sample = raw
        if let timestamps {
            let index = Int(sample.sequence)
            if index < timestamps.count {
                // A time that is not a number (or beyond ±292 years) places the frame nowhere.
                guard let nanoseconds = Int64(exactly: (timestamps[index] * 1e9).rounded()) else { return }
                sample.timestampNanoseconds = nanoseconds
            }
        } else if input.isFile {
            let origin = replayOrigin ?? sample.timestampNanoseconds
            replayOrigin = origin
            sample.timestampNanoseconds -= origin
        }
        let time = clock.advance(to: Double(sample.timestampNanoseconds) / 1e9)
        lastTime = time
        // A clock that stepped back goes on shifted: the pipeline times its frames by the
        // sample. A shifted time beyond ±292 years places the frame nowhere.
        if clock.shift != 0, !clock.holdsLeap {
            guard let shifted = Int64(exactly: (time * 1e9).rounded()) else { return }
            sample.timestampNanoseconds = shifted
        }
        if !clock.holdsLeap, let regions = pipeline.consume(sample) { await publish(regions) }
        // Faces are looked for whenever the camera runs: the quality warnings
        // need them while framing too, and a call costs a few milliseconds.
        // About ten a second whatever the camera's rate (a thumbnail every 3rd
        // frame is twenty a second at 60 fps).
        // A frame whose time is held is not searched either: a face found in it
        // would be placed at the time before the leap.
        if thumbnail == nil, sample.flags.contains(.thumbnail), !clock.holdsLeap, let source,
           time - lastDetection >= Self.detectionInterval || time < lastDetection {
            thumbnail = await source.takeThumbnail()
        }
        // When this loop runs behind the camera (a slow machine) the newest
        // thumbnail is of a later frame: it waits until that frame's sample,
        // so the face is placed at its own time, and the thumbnails published
        // meanwhile are skipped. The detector then runs as often as the
        // machine allows instead of the loop falling ever further behind.
        // (A driver that restarts its frame count would strand it: dropped.)
        if let held = thumbnail, held.sequence > sample.sequence, sample.sequence < lastSequence {
            thumbnail = nil
        }
        lastSequence = sample.sequence
        if let thumbnail, thumbnail.sequence <= sample.sequence, !clock.holdsLeap {
            self.thumbnail = nil
            lastDetection = time
            let detecting = coreTiming ? StageTimingHub.now() : 0
            do {
                if let regions = try pipeline.consume(thumbnail: thumbnail, at: time) { await publish(regions) }
            } catch {
                finishMeasurement(.failure(error))
            }
            publishFaceAndQuality(pipeline)
            if coreTiming { detectorNanoseconds = StageTimingHub.now() - detecting }
        }
        await deliverPreview(at: time)
        if measurement == nil {
            pipeline.forget(before: time - 2 * Self.preRoll)
            if monitoring, let reading = readout.update(frames: pipeline.frames, analyzer: analyzer) {
                yieldLive(reading)
            }
        } else {
            advanceMeasurement(sample, at: time, pipeline: pipeline)
        }
    }

    /// A live reading for observers, timed from the stream's first frame.
    private func yieldLive(_ reading: LiveReading) {
        var reading = reading
        reading.time -= clock.origin ?? 0
        eventSink.yield(.live(reading))
    }

    private func publish(_ regions: RegionSet) async {
        do {
            try await source?.setRegions(regions)
        } catch {
            finishMeasurement(.failure(.processingFailed("the regions were refused: \(error.message)")))
        }
    }

    private func publishFaceAndQuality(_ pipeline: ScanPipeline) {
        let face = tracking || measurement != nil
            ? pipeline.faceLayout?.scanFace(imageAspect: frameAspect, mirrored: mirrored) : nil
        if face != lastFace {
            lastFace = face
            eventSink.yield(.face(face))
        }
        let report = pipeline.qualityReport()
        for warning in report.raised { eventSink.yield(.warning(warning)) }
        if report.status != lastStatus {
            lastStatus = report.status
            eventSink.yield(.validation(report.status))
        }
        measurement?.reporter.hints = report.active.map(\.message)
    }

    private func advanceMeasurement(_ sample: FrameSample, at time: Double, pipeline: ScanPipeline) {
        guard var m = measurement else { return }
        // Only a lone frame that the next ones contradicted (the first, or one stamped
        // a little ahead) leaves the session's time behind it: a measurement begun
        // there begins again now (it had that one frame).
        if let from = m.measuringFrom, time < from {
            m.measuringFrom = time
            m.firstFrame = nil
            m.faceLastSeen = nil
            pipeline.beginMeasurement(at: time)
        }
        if pipeline.trackedFace != nil { m.faceLastSeen = time }
        if let from = m.measuringFrom {
            if time - (m.faceLastSeen ?? from) > limits.faceLostLimit {
                return finishMeasurement(.failure(.faceNotDetected))
            }
            if m.firstFrame == nil, let last = pipeline.frames.last?.time, last >= from { m.firstFrame = last }
            // A measurement of d seconds spans d seconds from its first frame to its
            // last (the analyzer reads a stretch's length from the frames' times).
            if let duration = m.duration, let first = m.firstFrame, time - first >= duration - frameStep / 2 {
                return finishMeasurement(.success(pipeline.measuredFrames))
            }
        } else {
            // Settling counts from the stream's origin at the earliest (a first frame the
            // next ones contradicted, a bogus time, is not where it began), never from
            // ahead of the session's time.
            let start = min(max(m.settleStart ?? time, clock.origin ?? time), time)
            m.settleStart = start
            // A file has no controls to lock and no auto-exposure to wait for.
            let settled = input.isFile || sample.flags.contains(.controlsLocked) || time - start >= limits.settle
            if settled, pipeline.trackedFace != nil {
                m.measuringFrom = time
                pipeline.beginMeasurement(at: time)
                m.reporter.phase = .measuring
            } else if time - start >= limits.faceWait {
                return finishMeasurement(.failure(.faceNotDetected))
            }
        }
        measurement = m
        guard m.reporter.due(at: time) else { return }
        // The estimate runs the whole analyzer on 20 s: only when someone reads it.
        if m.measuringFrom != nil, m.followed || monitoring,
           let reading = readout.update(frames: pipeline.frames, analyzer: analyzer) {
            yieldLive(reading)
        }
        m.reporter.send(elapsed: m.firstFrame.map { time - $0 } ?? 0, reading: readout.reading)
    }

    private func finishMeasurement(_ outcome: Result<[SignalFrame], CircadifyError>) {
        guard let m = measurement else { return }
        measurement = nil
        pipeline?.endMeasurement()
        if !monitoring { readout.reset() }
        m.continuation.resume(with: outcome.mapError { $0 as Error })
    }

    private func clearFace() async {
        if let regions = pipeline?.stopTracking() { await publish(regions) }
        if lastFace != nil {
            lastFace = nil
            eventSink.yield(.face(nil))
        }
    }

    private func frameTimeout() async {
        timedOut = true
        await source?.stop()
    }

    /// Calls `fire` once when `source` delivers no frame for `timeout` seconds.
    private static func watch(_ source: FrameSource, timeout: Double,
                              fire: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
        Task {
            var lastFrames: UInt64 = 0
            var quietSince = ContinuousClock.now
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(250))
                let frames = await source.statistics().frames
                if frames != lastFrames {
                    lastFrames = frames
                    quietSince = .now
                } else if ContinuousClock.now - quietSince > .seconds(timeout) {
                    return await fire()
                }
            }
        }
    }
}
