import Observation

/// The Circadify SDK (seed "Methods"): measures vital signs on a
/// `CircadifyCamera` and, like SmartSpectra's headless mode, exposes the live
/// state of processing as observable properties.
///
/// Everything runs on the device: the API key is checked for its format and
/// then forgotten; nothing is uploaded. Results are never made up: what cannot
/// be measured is `nil` or a thrown `CircadifyError`.
///
/// Observe `metrics`, `validationStatus`, `processingStatus`, `error`,
/// `imageOutput` and `progress` with `withObservationTracking` on the main
/// actor, or from any task with `updates()` and `images()`.
@MainActor @Observable
public final class CircadifySDK {
    /// Live pulse and breathing series while monitoring or measuring; nil before the first estimate.
    public private(set) var metrics: Metrics?
    /// What most stands in the way of a measurement right now, with a hint.
    public private(set) var validationStatus: ValidationStatus?
    public private(set) var processingStatus: ProcessingStatus = .idle
    /// Why the last run failed; cleared when the next one starts.
    public private(set) var error: CircadifyError?
    /// The latest picture of the camera, while `imageOutputEnabled`.
    public private(set) var imageOutput: RGBImage?
    /// The running measurement's phase, share done, live heart rate and pulse wave; nil outside one.
    public private(set) var progress: ScanProgress?
    /// Turns `imageOutput` on (about ten pictures a second) or off.
    public var imageOutputEnabled = false {
        didSet {
            camera?.setImageOutput(imageOutputEnabled)
            if !imageOutputEnabled { imageOutput = nil }
        }
    }

    /// The camera measured or monitored; nil when neither runs.
    @ObservationIgnored private var camera: CircadifyCamera?
    @ObservationIgnored private var measurement: Task<VitalSignsResult, Error>?
    @ObservationIgnored private var isMeasuring = false
    @ObservationIgnored private var isMonitoring = false
    @ObservationIgnored private var cancelRequested = false
    /// The measurement waiting for its camera to open, by number (see `open(_:for:)`).
    @ObservationIgnored private var openWaiter: (id: Int, continuation: CheckedContinuation<Void, Error>)?
    /// The number of the last measurement begun: the one running while `isMeasuring`.
    @ObservationIgnored private var measurementNumber = 0
    /// Measurements waiting for a cancelled one to finish throwing (see `measureVitals`), by
    /// number; each is resumed with true to go on, false when it is cancelled itself.
    @ObservationIgnored private var endWaiters = [Int: CheckedContinuation<Bool, Never>]()
    @ObservationIgnored private var nextEndWaiter = 0
    /// Counts `startMonitoring` and `stopMonitoring` calls: a start that finds the number
    /// changed after an await was stopped (and maybe started again) meanwhile.
    @ObservationIgnored private var monitoringNumber = 0
    @ObservationIgnored private var stateSubscribers = [Int: AsyncStream<HeadlessState>.Continuation]()
    @ObservationIgnored private var imageSubscribers = [Int: AsyncStream<RGBImage>.Continuation]()
    @ObservationIgnored private var nextSubscriber = 0

    /// - Throws: `CircadifyError.missingApiKey` for an empty key,
    ///   `.invalidApiKey` for a malformed one. A key is `ck_live_` or `ck_test_`
    ///   followed by at least 16 ASCII letters and digits. It is checked here and
    ///   never stored or sent anywhere.
    nonisolated public init(apiKey: String) throws {
        try Self.check(apiKey: apiKey)
    }

    /// The key's format; see `init(apiKey:)`.
    nonisolated package static func check(apiKey: String) throws(CircadifyError) {
        if apiKey.isEmpty { throw .missingApiKey }
        for prefix in ["ck_live_", "ck_test_"] where apiKey.hasPrefix(prefix) {
            let rest = apiKey.utf8.dropFirst(prefix.utf8.count)
            let alphanumeric = rest.allSatisfy { (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0) }
            if rest.count >= 16, alphanumeric { return }
        }
        throw .invalidApiKey
    }

    // MARK: - Permission

    /// Access to the default camera (the first capture node) without asking for
    /// anything. Reads /dev; prefer the camera's observable `authorizationStatus`
    /// when you have a `CircadifyCamera`.
    nonisolated public func checkCameraPermission() -> AVAuthorizationStatus {
        let cameras = (try? CameraDevice.list()) ?? []
        return cameras.first.map { AVAuthorizationStatus($0.access) } ?? .notDetermined
    }

    /// Whether the default camera may be used. Linux shows no dialog: access is
    /// the node's owner, group and mode (the README's "Camera access" has the
    /// fix). Unlike `CircadifyCamera.requestAccess()` it updates no camera's state.
    nonisolated public func requestCameraPermission() async -> Bool {
        await Task.detached { self.checkCameraPermission() == .authorized }.value
    }

    // MARK: - Measurement

    /// Records the session `camera` already streams (starting the camera if it
    /// is not running, and leaving it running afterwards) for `options.duration`
    /// seconds once the camera has settled and a face is in view, and returns the
    /// result with a fresh `sessionId`.
    ///
    /// A measurement `cancel()`led a moment ago (or whose task was cancelled) is waited
    /// for (it ends within a frame or two), so "cancel, then measure again" works at once;
    /// a `cancel()` meanwhile cancels the waiting one too. While monitoring runs,
    /// a measurement that fails sets `error` and monitoring goes on (`.running`).
    ///
    /// - Throws: `CircadifyError`: `processingFailed` for options out of range
    ///   (naming the field, before anything is recorded), when a measurement
    ///   already runs on this SDK or this camera, or when this SDK monitors another
    ///   camera (measure that one, or `stopMonitoring()` first); the camera's errors from
    ///   `start()`; `faceNotDetected`; `qualityTooLow` (no usable pulse: the
    ///   confidence would be below 0.4); `timeout` (frames stopped);
    ///   `captureFailed` (the camera went away, or a replayed file ended first);
    ///   `cancelled` (`cancel()` or the calling task's cancellation).
    public func measureVitals(camera: CircadifyCamera,
                              options: MeasurementOptions = MeasurementOptions()) async throws -> VitalSignsResult {
        try options.validate()
        while isMeasuring, cancelRequested || measurement?.isCancelled == true {
            if Task.isCancelled { throw CircadifyError.cancelled }
            let id = nextEndWaiter
            nextEndWaiter += 1
            let goOn = await withTaskCancellationHandler {
                await withCheckedContinuation { endWaiters[id] = $0 }
            } onCancel: {
                Task { @MainActor [weak self] in self?.resumeEndWaiter(id, goOn: false) }
            }
            if !goOn { throw CircadifyError.cancelled }
        }
        guard !isMeasuring else {
            throw CircadifyError.processingFailed(
                "this CircadifySDK is already measuring; wait for that measurement or cancel() it")
        }
        // Following a second camera would leave the monitored one with nobody to report or stop it.
        guard !isMonitoring || self.camera === camera else {
            throw CircadifyError.processingFailed(
                "this CircadifySDK monitors another camera; measure that one, or stopMonitoring() first")
        }
        isMeasuring = true
        measurementNumber += 1
        cancelRequested = false
        error = nil
        if !isMonitoring { metrics = nil } // a fresh series for a fresh measurement
        progress = ScanProgress(phase: .starting, elapsed: 0, total: options.duration)
        attach(camera)
        setStatus(.starting)
        defer {
            isMeasuring = false
            measurement = nil
            progress = nil
            detachIfIdle()
            for id in endWaiters.keys { resumeEndWaiter(id, goOn: true) }
        }
        // Progress reaches the observable state in order, all of it before the outcome.
        let (updates, sink) = AsyncStream<ScanProgress>.makeStream(bufferingPolicy: .bufferingNewest(16))
        let follower = Task { [weak self] in
            for await update in updates { self?.apply(update) }
        }
        do {
            if !camera.isRunning { try await open(camera, for: measurementNumber) }
            if cancelRequested || Task.isCancelled {
                await camera.releaseHeldReplay() // cancelled before it measured: the camera runs on
                throw CircadifyError.cancelled
            }
            let task = Task { @MainActor in
                try await camera.measure(duration: options.duration) { sink.yield($0) }
            }
            measurement = task
            let result = try await withTaskCancellationHandler { try await task.value } onCancel: { task.cancel() }
            sink.finish()
            await follower.value
            progress = nil
            setStatus(isMonitoring ? .running : .idle)
            return result
        } catch {
            sink.finish()
            await follower.value
            progress = nil
            let failure = (error as? CircadifyError) ?? .unknown("\(error)")
            if failure == .cancelled {
                setStatus(isMonitoring ? .running : .idle)
            } else {
                self.error = failure
                setStatus(isMonitoring ? .running : .error) // monitoring goes on
            }
            throw failure
        }
    }

    /// Cancels the measurement in progress: `measureVitals` throws
    /// `CircadifyError.cancelled` (within about two frame intervals) and the
    /// camera keeps running, ready for the next one.
    public func cancel() {
        guard isMeasuring else { return }
        cancelRequested = true
        measurement?.cancel()
        // A measurement asked for since an earlier cancel, still waiting for that one to end.
        for id in endWaiters.keys { resumeEndWaiter(id, goOn: false) }
        if let id = openWaiter?.id { resumeOpenWaiter(id, .failure(.cancelled)) }
    }

    /// Opens `camera` for the measurement, or gives up at `cancel()` or the task's
    /// cancellation without waiting for the device and the face detector: the camera
    /// then opens on in the background and runs, as after a cancel once it is open.
    private func open(_ camera: CircadifyCamera, for id: Int) async throws {
        Task { @MainActor [weak self] in
            let outcome: Result<Void, CircadifyError>
            do throws(CircadifyError) { try await camera.open(forMeasurement: true); outcome = .success(()) } catch {
                outcome = .failure(error)
            }
            guard let self else { return await camera.releaseHeldReplay() }
            // Its measurement was cancelled (whether or not it has finished throwing), and no
            // later one runs on this camera, which may be waiting to measure it: a replay held for it goes on.
            let laterOneRuns = isMeasuring && measurementNumber != id && self.camera === camera
            if !resumeOpenWaiter(id, outcome), case .success = outcome, !laterOneRuns { await camera.releaseHeldReplay() }
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { openWaiter = (id, $0) }
        } onCancel: {
            Task { @MainActor [weak self] in
                guard let self else { return }
                // The task's cancel is this measurement's cancel(): a measurement asked for
                // next waits for it to end (see `measureVitals`).
                if measurementNumber == id, isMeasuring { cancelRequested = true }
                resumeOpenWaiter(id, .failure(.cancelled))
            }
        }
    }

    /// Resumes the measurement waiting (as `id`) for a cancelled one to end.
    private func resumeEndWaiter(_ id: Int, goOn: Bool) {
        endWaiters.removeValue(forKey: id)?.resume(returning: goOn)
    }

    /// Resumes measurement `id`, waiting for its camera to open; false when it waits no more.
    @discardableResult
    private func resumeOpenWaiter(_ id: Int, _ outcome: Result<Void, CircadifyError>) -> Bool {
        guard let waiter = openWaiter, waiter.id == id else { return false }
        openWaiter = nil
        waiter.continuation.resume(with: outcome.mapError { $0 as Error })
        return true
    }

    // MARK: - Continuous monitoring (SmartSpectra's start()/stop())

    /// Starts continuous headless monitoring on `camera` (started if it is not
    /// running): `metrics` gains a pulse and a breathing estimate about once a
    /// second from the newest 20 s of video, `validationStatus` follows the
    /// picture. Runs until `stopMonitoring()`, or until the camera stops (then
    /// `processingStatus` is `.error` with `error` set, or `.idle`).
    /// - Throws: the camera's errors from `start()`; `processingFailed` when this
    ///   SDK already monitors another camera; `cancelled` when the camera is stopped,
    ///   or `stopMonitoring()` is called, before monitoring runs (the status is then `.idle`,
    ///   or whatever a `startMonitoring` called since has made it).
    public func startMonitoring(camera: CircadifyCamera) async throws {
        if isMonitoring, self.camera === camera { return }
        guard !isMonitoring, !isMeasuring || self.camera === camera else {
            throw CircadifyError.processingFailed("this CircadifySDK already follows another camera; stop it first")
        }
        monitoringNumber += 1
        let number = monitoringNumber
        isMonitoring = true
        error = nil
        metrics = nil
        attach(camera)
        setStatus(.starting)
        do {
            if !camera.isRunning { try await camera.open() }
            guard isMonitoring, monitoringNumber == number, let session = camera.session else {
                throw CircadifyError.cancelled
            }
            await session.setMonitoring(true)
            // The camera stopped (or stopMonitoring() came) while the session was told.
            guard isMonitoring, monitoringNumber == number, camera.session === session else {
                // Untold, unless a later start monitors this same session.
                if !(isMonitoring && self.camera === camera && camera.session === session) {
                    await session.setMonitoring(false)
                }
                throw CircadifyError.cancelled
            }
            setStatus(.running)
        } catch {
            // Stopped while it started, maybe started again since: the state is the later call's.
            guard monitoringNumber == number else { throw CircadifyError.cancelled }
            isMonitoring = false
            let failure = (error as? CircadifyError) ?? .unknown("\(error)")
            if failure != .cancelled {
                self.error = failure
                setStatus(.error)
            } else if !isMeasuring {
                setStatus(.idle) // stopped while starting: nothing runs
            }
            detachIfIdle()
            throw failure
        }
    }

    /// Stops monitoring (the camera keeps running; stop it yourself when done).
    public func stopMonitoring() async {
        guard isMonitoring else { return }
        isMonitoring = false
        monitoringNumber += 1
        setStatus(.stopping)
        await camera?.session?.setMonitoring(false)
        setStatus(isMeasuring ? .running : .idle)
        detachIfIdle()
    }

    // MARK: - Off the main actor

    /// The headless state, now and after every change, for code off the main
    /// actor. Keeps up to 64 states for a slow reader (oldest dropped first).
    public func updates() -> AsyncStream<HeadlessState> {
        let (stream, continuation) = AsyncStream<HeadlessState>.makeStream(bufferingPolicy: .bufferingNewest(64))
        let id = nextSubscriber
        nextSubscriber += 1
        stateSubscribers[id] = continuation
        continuation.yield(state)
        continuation.onTermination = { _ in Task { @MainActor [weak self] in self?.stateSubscribers[id] = nil } }
        return stream
    }

    /// Each new `imageOutput` picture while `imageOutputEnabled`; a slow reader gets the newest.
    public func images() -> AsyncStream<RGBImage> {
        let (stream, continuation) = AsyncStream<RGBImage>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let id = nextSubscriber
        nextSubscriber += 1
        imageSubscribers[id] = continuation
        continuation.onTermination = { _ in Task { @MainActor [weak self] in self?.imageSubscribers[id] = nil } }
        return stream
    }

    /// The headless properties as one value.
    public var state: HeadlessState {
        HeadlessState(metrics: metrics, validationStatus: validationStatus, processingStatus: processingStatus,
                      error: error, progress: progress)
    }

    // MARK: - Following the camera

    private func attach(_ camera: CircadifyCamera) {
        if self.camera !== camera {
            self.camera?.removeObserver(self)
            self.camera = camera
            camera.addObserver(self) { [weak self] event in self?.apply(event) }
        }
        validationStatus = camera.validationStatus
        camera.setImageOutput(imageOutputEnabled)
    }

    private func detachIfIdle() {
        guard !isMeasuring, !isMonitoring, let camera else { return }
        camera.removeObserver(self)
        if imageOutputEnabled { camera.setImageOutput(false) }
        self.camera = nil
    }

    private func apply(_ event: CameraEvent) {
        switch event {
        case .validation(let status):
            validationStatus = status
        case .live(let reading):
            var updated = metrics ?? Metrics()
            updated.append(reading, at: reading.time)
            metrics = updated
        case .image(let frame):
            guard imageOutputEnabled else { return }
            let image = RGBImage(frame)
            imageOutput = image
            for subscriber in imageSubscribers.values { subscriber.yield(image) }
            return
        case .ended(let failure):
            validationStatus = nil // no picture to judge any more
            if isMonitoring {
                isMonitoring = false
                if let failure {
                    error = failure
                    setStatus(.error)
                } else if !isMeasuring {
                    setStatus(.idle)
                }
                detachIfIdle()
            }
        case .face, .warning:
            return
        }
        broadcast()
    }

    private func apply(_ update: ScanProgress) {
        progress = update
        switch update.phase {
        case .measuring: setStatus(.running)
        case .analyzing: setStatus(.stopping)
        case .starting, .settling: broadcast()
        }
    }

    private func setStatus(_ status: ProcessingStatus) {
        if processingStatus != status { processingStatus = status }
        broadcast()
    }

    private func broadcast() {
        guard !stateSubscribers.isEmpty else { return }
        let now = state
        for subscriber in stateSubscribers.values { subscriber.yield(now) }
    }
}
