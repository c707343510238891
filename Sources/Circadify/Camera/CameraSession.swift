/// What a running camera session tells its owner, in order.
package enum CameraEvent: Sendable {
    /// The tracked face's geometry changed (nil: no face, or tracking off).
    case face(CircadifyScanFace?)
    /// A quality warning became active.
    case warning(QualityWarning)
    /// The validation status changed.
    case validation(ValidationStatus)
    /// Capture ended: nil when stopped on request, else why.
    case ended(CircadifyError?)
}

/// One live camera: the core's capture thread measures every frame while
/// this actor tracks the face on thumbnails, moves the regions, and runs at
/// most one measurement at a time on the same stream the preview shows.
///
/// A measurement settles first (exposure, gain and white balance locked; a
/// face in view), then measures for its duration. A face not found while
/// settling, or lost for longer than `faceLostLimit` while measuring, ends it
/// with faceNotDetected; frames that stop arriving end the session with
/// timeout; an unplugged camera with captureFailed. Stopping (or any failure)
/// stops streaming and restores the camera's controls.
package actor CameraSession {
    package struct Limits: Sendable {
        /// Longest wait for the controls to lock (cameras without those controls never do).
        package var settle = 4.0
        /// Longest wait for a face before measuring starts.
        package var faceWait = 10.0
        /// Longest a face may be out of view while measuring.
        package var faceLostLimit = 5.0
        /// Longest wait for a frame, seconds.
        package var frameTimeout = 3.0
        package init() {}
    }

    package nonisolated let devicePath: String
    package nonisolated let mirrored: Bool
    package nonisolated let events: AsyncStream<CameraEvent>
    private let eventSink: AsyncStream<CameraEvent>.Continuation
    private let limits: Limits
    private let pipeline: ScanPipeline
    private var source: FrameSource?
    private var loop: Task<Void, Never>?
    private var watchdog: Task<Void, Never>?
    private var timedOut = false
    private var started = false
    private var tracking = false
    private var measurement: Measurement?
    private var lastFace: CircadifyScanFace?
    private var lastStatus: ValidationStatus?
    /// The newest thumbnail taken, until the sample loop reaches its frame.
    private var thumbnail: LumaThumbnail?
    private var lastSequence: UInt64 = 0
    /// Media time of the last face detection, seconds.
    private var lastDetection = -Double.infinity
    /// 0.1 s less a 30 fps camera's jitter.
    private static let detectionInterval = 0.09
    private var frameAspect = 4.0 / 3.0

    private struct Measurement {
        var duration: Double
        var reporter: ScanReporter
        var continuation: CheckedContinuation<[SignalFrame], Error>
        var settleStart: Double?
        var measuringFrom: Double?
        var faceLastSeen: Double?
    }

    /// Loads the face detector; the camera is opened by `start()`.
    package init(devicePath: String, mirrored: Bool, limits: Limits = Limits()) throws(CircadifyError) {
        self.devicePath = devicePath
        self.mirrored = mirrored
        self.limits = limits
        pipeline = try ScanPipeline.withFaceDetector()
        (events, eventSink) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(64))
    }

    /// Opens the camera and starts streaming. A session runs once: after it
    /// stops, open a new one.
    package func start() async throws(CircadifyError) {
        guard source == nil else { return }
        guard !started else { throw .captureFailed("this camera session has already run; start a new one") }
        started = true
        var configuration = FrameSourceConfiguration()
        let thumbnail = ScanPipeline.thumbnailSize(frameWidth: Int(configuration.width),
                                                   frameHeight: Int(configuration.height))
        configuration.thumbnailWidth = UInt32(thumbnail.width)
        configuration.thumbnailHeight = UInt32(thumbnail.height)
        configuration.thumbnailEvery = UInt32(ScanPipeline.thumbnailEvery)
        let opened: FrameSource
        let samples: AsyncThrowingStream<FrameSample, Error>
        do {
            opened = try FrameSource(.device(devicePath), configuration: configuration)
            samples = try await opened.samples()
        } catch {
            throw CircadifyError(error, reading: .device(devicePath))
        }
        source = opened
        self.thumbnail = nil
        lastSequence = 0
        lastDetection = -.infinity
        frameAspect = opened.format.height > 0 ? Double(opened.format.width) / Double(opened.format.height) : frameAspect
        timedOut = false
        watchdog = Self.watch(opened, timeout: limits.frameTimeout) { [weak self] in await self?.frameTimeout() }
        loop = Task { await self.run(samples) }
    }

    /// Stops streaming and restores the camera's controls; a measurement in
    /// progress ends with cancelled. Idempotent.
    package func stop() async {
        guard let source else { return }
        self.source = nil
        watchdog?.cancel()
        await source.stop()
        await loop?.value
        loop = nil
    }

    /// Turns face tracking (and with it `CameraEvent.face`) on or off; a
    /// measurement tracks regardless.
    package func setTracking(_ on: Bool) async {
        tracking = on
        if !on, measurement == nil { await clearFace() }
    }

    /// Measures for `duration` seconds once the camera has settled and a face
    /// is in view; returns the frames measured at the face.
    package func measure(duration: Double, progress: @escaping @Sendable (ScanProgress) -> Void)
        async throws(CircadifyError) -> [SignalFrame] {
        guard source != nil else { throw .captureFailed("the camera is not running; start it first") }
        guard measurement == nil else { throw .processingFailed("a measurement is already running on this camera") }
        let reporter = ScanReporter(total: duration, analyzer: VitalsAnalyzer(), progress: progress)
        reporter.phase = .settling
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    if Task.isCancelled { return continuation.resume(throwing: CircadifyError.cancelled) }
                    measurement = Measurement(duration: duration, reporter: reporter, continuation: continuation)
                }
            } onCancel: {
                Task { await self.finishMeasurement(.failure(.cancelled)) }
            }
        } catch let error as CircadifyError {
            throw error
        } catch {
            throw .unknown("\(error)")
        }
    }

    // MARK: - The sample loop

    private func run(_ samples: AsyncThrowingStream<FrameSample, Error>) async {
        var failure: CircadifyError?
        do {
            for try await sample in samples { await handle(sample) }
        } catch let error as CoreError {
            failure = .captureFailed(error.message)
        } catch {
            failure = .captureFailed("\(error)")
        }
        if timedOut { failure = .timeout }
        watchdog?.cancel()
        if let source {
            // Capture ended on its own (unplugged, failed, hung): release the camera.
            self.source = nil
            await source.stop()
        }
        finishMeasurement(.failure(failure ?? .cancelled))
        await clearFace()
        eventSink.yield(.ended(failure))
        eventSink.finish()
    }

    private func handle(_ sample: FrameSample) async {
        let time = Double(sample.timestampNanoseconds) / 1e9
        if let regions = pipeline.consume(sample), let source {
            do {
                try await source.setRegions(regions)
            } catch {
                finishMeasurement(.failure(.processingFailed("the regions were refused: \(error.message)")))
            }
        }
        // Faces are looked for whenever the camera runs: the quality warnings
        // need them while framing too, and a call costs a few milliseconds.
        // About ten a second whatever the camera's rate (a thumbnail every 3rd
        // frame is twenty a second at 60 fps).
        if thumbnail == nil, sample.flags.contains(.thumbnail), let source,
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
        if let thumbnail, thumbnail.sequence <= sample.sequence, let source {
            self.thumbnail = nil
            lastDetection = time
            do {
                if let regions = try pipeline.consume(thumbnail: thumbnail, at: time) {
                    try await source.setRegions(regions)
                }
            } catch let error as CircadifyError {
                finishMeasurement(.failure(error))
            } catch {
                finishMeasurement(.failure(.processingFailed("the regions were refused: \(error)")))
            }
            publishFaceAndQuality()
        }
        if measurement == nil {
            pipeline.forget(before: time - 20)
        } else {
            advanceMeasurement(sample, at: time)
        }
    }

    private func publishFaceAndQuality() {
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

    private func advanceMeasurement(_ sample: FrameSample, at time: Double) {
        guard var m = measurement else { return }
        if pipeline.trackedFace != nil { m.faceLastSeen = time }
        if let from = m.measuringFrom {
            if time - (m.faceLastSeen ?? from) > limits.faceLostLimit { return finishMeasurement(.failure(.faceNotDetected)) }
            if time - from >= m.duration { return finishMeasurement(.success(pipeline.frames)) }
        } else {
            let start = m.settleStart ?? time
            m.settleStart = start
            let settled = sample.flags.contains(.controlsLocked) || time - start >= limits.settle
            if settled, pipeline.trackedFace != nil {
                m.measuringFrom = time
                pipeline.beginMeasurement(at: time)
                m.reporter.phase = .measuring
            } else if time - start >= limits.faceWait {
                return finishMeasurement(.failure(.faceNotDetected))
            }
        }
        measurement = m
        if m.reporter.due(at: time) {
            m.reporter.send(elapsed: m.measuringFrom.map { time - $0 } ?? 0, pipeline: pipeline)
        }
    }

    private func finishMeasurement(_ outcome: Result<[SignalFrame], CircadifyError>) {
        guard let m = measurement else { return }
        measurement = nil
        pipeline.endMeasurement()
        m.continuation.resume(with: outcome.mapError { $0 as Error })
    }

    private func clearFace() async {
        if let regions = pipeline.stopTracking(), let source { try? await source.setRegions(regions) }
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
