import Glibc
import Observation

/// How a replayed file's frames are paced.
public enum ReplayPace: Sendable, Equatable {
    /// At the file's own frame rate, as a camera delivers them.
    case realtime
    /// As fast as the pipeline processes them, one frame at a time, so a replay
    /// gives the same result every time (tests, batch processing). A measurement
    /// that starts the camera itself holds the replay at its first frame until it
    /// is attached; a replay started earlier runs on until it is asked for.
    case asFastAsProcessed
}

/// The camera a preview shows and a measurement records (seed "Methods").
/// On Linux it is a V4L2 capture node: `.front` is the first capture-capable
/// node (mirrored preview), `.back` the next one (unmirrored); or name one with
/// `init(devicePath:position:)`, or replay a video file with
/// `init(replaying:fps:pace:)`, which runs through the very same session.
///
/// Face tracking (`startFaceTracking()`) publishes `scanFace`; quality
/// warnings reach `onQualityWarning` on the main actor while the camera runs.
/// Opening the device, scanning /dev and loading the face detector happen off
/// the main actor.
@MainActor @Observable
public final class CircadifyCamera {
    public enum Position: Sendable { case front, back }

    public let position: Position
    public private(set) var authorizationStatus: AVAuthorizationStatus = .notDetermined
    /// True once `start()` has brought the camera live, false after `stop()`.
    public private(set) var isRunning = false
    /// Called on the main actor with each new quality warning, while framing and while measuring.
    public var onQualityWarning: ((QualityWarning) -> Void)?
    /// The tracked face; nil when no face is found or tracking is off.
    public private(set) var scanFace: CircadifyScanFace?
    /// Headless guidance (SmartSpectra's `validationStatus`): nil until the camera runs.
    public private(set) var validationStatus: ValidationStatus?
    /// The node (or file) this camera opens: the named one, or the position's once
    /// `start()` or `requestAccess()` has looked /dev up; nil when there is none.
    public private(set) var devicePath: String?

    @ObservationIgnored private let source: Source
    @ObservationIgnored package private(set) var session: ScanSession?
    @ObservationIgnored private var listener: Task<Void, Never>?
    /// The last session's release, which the next `start()` waits for.
    @ObservationIgnored private var releasing: Task<Void, Never>?
    /// The opening under way, which a second `start()` or a measurement joins.
    @ObservationIgnored private var opening: Task<Void, Error>?
    /// Counts `stop()` calls: an opening that began before one gives up with `cancelled`.
    @ObservationIgnored private var stops = 0
    /// Awaited by an opening just before it opens the session: a test holds it there. Nil in use.
    @ObservationIgnored package var openCheckpoint: (@MainActor () async -> Void)?
    @ObservationIgnored private var trackingRequested = false
    /// Why the last session ended on its own, for a measurement asked for after it.
    @ObservationIgnored private var endedWith: CircadifyError?
    @ObservationIgnored private var imageOutputRequested = false
    /// Measurements and monitors attached to this camera (see `CircadifySDK`).
    @ObservationIgnored package var measuring = false
    @ObservationIgnored private var observers = [ObjectIdentifier: @MainActor (CameraEvent) -> Void]()
    /// Observers of the stage timings, shared by every session of this camera.
    @ObservationIgnored private nonisolated let stageTimingHub = StageTimingHub()
    /// The session stopped last, for its final counters.
    @ObservationIgnored private var lastSession: ScanSession?
    /// Full-size pictures for `CircadifyCameraPreview`, from whichever session runs.
    @ObservationIgnored package nonisolated let previewFeed = PreviewFeed()

    private enum Source: Equatable {
        case position
        case device(String)
        case replay(path: String, fps: UInt32, pace: ReplayPace)
    }

    /// The position's node is looked up in the background (listing /dev opens every
    /// node), so `devicePath` and `authorizationStatus` fill in a moment after init.
    public init(position: Position = .front) {
        self.position = position
        source = .position
        Task { [weak self] in await self?.refreshStatus() }
    }

    /// A named capture node, e.g. "/dev/video2"; `position` says whether its preview is mirrored.
    public init(devicePath: String, position: Position = .front) {
        self.position = position
        source = .device(devicePath)
        self.devicePath = devicePath
        authorizationStatus = AVAuthorizationStatus(CameraDevice.access(path: devicePath).0)
    }

    /// A camera whose frames come from a Y4M or raw MJPEG file, through the same
    /// session and scan driver as a device: for integrators and tests without a
    /// camera. `fps` is the frame rate of a raw MJPEG file (a Y4M file carries its
    /// own). Not mirrored. When the file ends the camera stops, and a measurement
    /// still running fails with `captureFailed`.
    public init(replaying path: String, fps: Int = 30, pace: ReplayPace = .realtime) {
        position = .back
        source = .replay(path: path, fps: UInt32(clamping: max(fps, 1)), pace: pace)
        devicePath = path
        authorizationStatus = Self.fileStatus(path)
    }

    /// Refreshes `authorizationStatus` and returns whether the camera may be
    /// used. Linux shows no dialog: access is granted by the node's owner,
    /// group and mode (see the README's "Camera access").
    @discardableResult
    public func requestAccess() async -> Bool {
        await refreshStatus()
        return authorizationStatus == .authorized
    }

    /// Opens the camera and starts streaming.
    /// - Throws: `CircadifyError.cameraNotAvailable` (no camera for this
    ///   position), `.cameraPermissionDenied` (the fix is in its message),
    ///   `.cameraInUse` (another process streams it), `.captureFailed`,
    ///   `.processingFailed` (the face detector's data is missing), `.cancelled`
    ///   (`stop()` was called before it finished).
    public func start() async throws {
        try await open()
    }

    /// As `start()`, with the typed error; `forMeasurement`: a measurement follows at
    /// once (an as-fast-as-processed replay waits for it, see `ScanSession.start`).
    /// A second caller while the camera opens (a `start()` twice, or a measurement
    /// asked for meanwhile) waits for that opening and shares its outcome.
    package func open(forMeasurement: Bool = false) async throws(CircadifyError) {
        if let opening { return try await Self.outcome(of: opening) }
        guard session == nil else { return }
        // Counted now, not when the task first runs: a stop() in between must cancel it.
        let generation = stops
        let task = Task { @MainActor in try await self.openSession(forMeasurement: forMeasurement, generation: generation) }
        opening = task
        defer { if opening == task { opening = nil } }
        try await Self.outcome(of: task)
    }

    private static func outcome(of task: Task<Void, Error>) async throws(CircadifyError) {
        do { try await task.value } catch { throw error as? CircadifyError ?? .unknown("\(error)") }
    }

    private func openSession(forMeasurement: Bool, generation: Int) async throws(CircadifyError) {
        // A camera stopped a moment ago is released before it is opened again.
        await releasing?.value
        guard stops == generation else { throw .cancelled }
        guard let input = await resolveInput() else { throw .cameraNotAvailable }
        await openCheckpoint?()
        // stop() during any of these waits: nothing is open yet, and nothing will be.
        guard stops == generation else { throw .cancelled }
        endedWith = nil
        let session = ScanSession(input, mirrored: position == .front && !isReplay,
                                  stageTimings: stageTimingHub, feed: previewFeed)
        self.session = session
        listen(to: session)
        if trackingRequested { await session.setTracking(true) }
        if imageOutputRequested { await session.setImageOutput(true) }
        do {
            try await session.start(forMeasurement: forMeasurement)
        } catch {
            if self.session === session { detach(session) }
            throw error
        }
        // stop() during start: the session was told and start threw; but a stop
        // followed by another start may have replaced it meanwhile.
        guard self.session === session else { throw .cancelled }
        isRunning = true
    }

    /// A camera let go while it runs (a view gone without its `stop()`) stops streaming
    /// and releases the device, as `stop()` would; nothing waits for the release.
    deinit {
        listener?.cancel()
        if let session { Task { await session.stop() } }
    }

    /// Stops streaming, restores the camera's controls and releases it. A
    /// measurement in progress ends with `cancelled`, and a `start()` under way
    /// throws `cancelled`. The release finishes in the background; a `start()`
    /// right after waits for it.
    public func stop() {
        stops += 1
        opening = nil // a start() after this one opens afresh
        guard let session else { return }
        end(session, failure: nil)
    }

    /// Stops as `stop()` does and returns once the camera is released and its
    /// controls restored (for callers that reopen it, or exit, right after).
    package func release() async {
        stop()
        await releasing?.value
    }

    /// Begins updating `scanFace` (the preview's guide does this on its own).
    public func startFaceTracking() {
        trackingRequested = true
        if let session { Task { await session.setTracking(true) } }
    }

    /// Stops tracking and clears `scanFace`.
    public func stopFaceTracking() {
        trackingRequested = false
        scanFace = nil
        if let session { Task { await session.setTracking(false) } }
    }

    /// Lets a replay opened for a measurement that then never came go on (see `open(forMeasurement:)`).
    package func releaseHeldReplay() async {
        await session?.releaseHeldReplay()
    }

    /// One measurement on this camera's running session: settle, find the face,
    /// record `duration` seconds, analyse. One at a time per camera.
    /// - Parameter progress: nil when nobody follows it (no live estimate is made then).
    /// - Throws: `processingFailed` when one already runs here; the session's errors.
    package func measure(duration: Double, progress: (@Sendable (ScanProgress) -> Void)?)
        async throws(CircadifyError) -> VitalSignsResult {
        guard let session else { throw endedWith ?? .captureFailed("the camera is not running; start it first") }
        guard !measuring else {
            throw .processingFailed("a measurement is already running on this camera; wait for it or cancel it")
        }
        measuring = true
        defer { measuring = false }
        do {
            return try await session.measureVitals(duration: duration, progress: progress)
        } catch {
            // A camera that stopped under the measurement is not running any more when it throws.
            // (Asked first: the camera must still hold the session when it ends it, with no hop between.)
            let ended = await session.hasEnded, failure = await session.endedWith
            if ended, self.session === session { end(session, failure: failure) }
            throw error
        }
    }

    /// RGB pictures of the stream for `CameraEvent.image` observers (the SDK's `imageOutput`).
    package func setImageOutput(_ on: Bool) {
        imageOutputRequested = on
        if let session { Task { await session.setImageOutput(on) } }
    }

    /// Each frame's time in every `PipelineStage`, for a latency profiler or
    /// metrics: from the moment this returns, every frame the camera's pipeline
    /// handles (across `stop()` and `start()`) is reported, off the main actor.
    /// Timing costs a few clock readings per frame and is switched off again
    /// once every such stream has ended (its reader stopped iterating).
    /// - Parameter limit: timings kept for a reader that falls behind (the
    ///   newest are kept; a stream never slows the pipeline down).
    public nonisolated func stageTimings(bufferingNewest limit: Int = 1024) -> AsyncStream<StageTiming> {
        stageTimingHub.stream(bufferingNewest: limit)
    }

    /// The running (or, once stopped, the last) session's frame counts: frames
    /// received, dropped by sequence and by timestamp gap, corrupt, ring
    /// overflows. Nil before the camera first started.
    public func pipelineCounters() async -> PipelineCounters? {
        guard let session = session ?? lastSession else { return nil }
        return await session.pipelineCounters()
    }

    /// Calls `handler` with every event of this camera's sessions until removed.
    package func addObserver(_ owner: AnyObject, _ handler: @escaping @MainActor (CameraEvent) -> Void) {
        observers[ObjectIdentifier(owner)] = handler
    }

    package func removeObserver(_ owner: AnyObject) {
        observers[ObjectIdentifier(owner)] = nil
    }

    private var isReplay: Bool {
        if case .replay = source { return true }
        return false
    }

    private func listen(to session: ScanSession) {
        // Ends with the session's event stream, which ends when capture does.
        listener = Task { [weak self] in
            for await event in session.events { self?.apply(event, from: session) }
        }
    }

    /// Forgets `session` and has it released (stopped, or its teardown awaited
    /// when it ended on its own) before the next `start()` or `release()` returns.
    private func detach(_ session: ScanSession) {
        self.session = nil
        lastSession = session
        isRunning = false
        scanFace = nil
        validationStatus = nil
        let previous = releasing
        releasing = Task {
            await previous?.value
            await session.stop()
        }
    }

    private func apply(_ event: CameraEvent, from source: ScanSession) {
        // A stopped session's last words must not touch the camera's next one.
        guard source === session else { return }
        switch event {
        case .face(let face):
            scanFace = trackingRequested ? face : nil
        case .warning(let warning):
            onQualityWarning?(warning)
        case .validation(let status):
            validationStatus = status
        case .ended(let failure):
            endedWith = failure
            return end(source, failure: failure)
        case .live, .image:
            break
        }
        for observer in observers.values { observer(event) }
    }

    /// Forgets `session`, has it released, and tells the observers it ended: once, here,
    /// since after a `stop()` its own `.ended` comes later, to a camera that has forgotten it.
    private func end(_ session: ScanSession, failure: CircadifyError?) {
        detach(session)
        for observer in observers.values { observer(.ended(failure)) }
    }

    /// The session input, looking /dev up off the main actor for a position.
    private func resolveInput() async -> SessionInput? {
        switch source {
        case .device(let path):
            authorizationStatus = AVAuthorizationStatus(CameraDevice.access(path: path).0)
            return .device(path)
        case .replay(let path, let fps, let pace):
            authorizationStatus = Self.fileStatus(path)
            return .replay(path: path, fps: fps, pace: pace)
        case .position:
            await refreshStatus()
            return devicePath.map { .device($0) }
        }
    }

    private func refreshStatus() async {
        switch source {
        case .device(let path):
            authorizationStatus = AVAuthorizationStatus(CameraDevice.access(path: path).0)
        case .replay(let path, _, _):
            authorizationStatus = Self.fileStatus(path)
        case .position:
            let index = position == .front ? 0 : 1
            let found = await Task.detached { () -> (String, AVAuthorizationStatus)? in
                let cameras = (try? CameraDevice.list()) ?? []
                guard cameras.indices.contains(index) else { return nil }
                return (cameras[index].path, AVAuthorizationStatus(cameras[index].access))
            }.value
            devicePath = found?.0
            authorizationStatus = found?.1 ?? .notDetermined
        }
    }

    /// A replayed file's access: readable, there but not readable, or missing.
    private static func fileStatus(_ path: String) -> AVAuthorizationStatus {
        if Glibc.access(path, R_OK) == 0 { return .authorized }
        return errno == ENOENT ? .notDetermined : .denied
    }
}
