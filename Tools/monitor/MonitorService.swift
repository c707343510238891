import Circadify
import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// Continuous headless monitoring as a service: `CircadifySDK.startMonitoring(camera:)`
/// on one camera or file, its headless state written as JSON Lines until the service
/// group shuts down (SIGINT, SIGTERM, SIGHUP), then the camera released and its controls
/// restored before `run()` returns.
///
/// A camera that is lost (unplugged, failed, hung) is reopened after a `Backoff`
/// delay, again and again, and the stream says so (`camera` lost / reopened, an
/// `error` line per failed attempt). A camera that is not there at start is waited
/// for the same way, so a board may boot before its camera enumerates. A file that
/// ends stops the service, or starts over with `loop`.
public final class MonitorService: Service {
    public enum Input: Sendable, Equatable {
        /// The first capture-capable camera, looked up at each (re)open.
        case firstCamera
        case device(String)
        /// A Y4M or raw MJPEG file (`fps` for MJPEG), at its own frame rate.
        case file(String, fps: Int, loop: Bool)
    }

    public struct Configuration: Sendable {
        public var input: Input
        public var backoff: Backoff
        /// How often the pipeline's counters reach the metrics.
        public var statisticsInterval: Duration = .seconds(1)
        /// A file's pace: its own frame rate, as a camera (tests replay faster).
        public var replayPace: ReplayPace = .realtime

        public init(input: Input, backoff: Backoff = Backoff()) {
            self.input = input
            self.backoff = backoff
        }
    }

    /// Why the service stopped on its own with a failure (the CLI's exit status).
    public enum Failure: Error, Sendable, Equatable {
        /// Nothing to retry: a file that cannot be read, a missing face detector;
        /// `hint` is what the device node says about it, when there is one.
        case fatal(CircadifyError, hint: String? = nil)
        /// stdout could not be written (errno): the results would be lost.
        case outputFailed(Int32)
    }

    /// The key the monitor gives the SDK: checked for its format, never sent anywhere.
    static let apiKey = "ck_live_CircadifyMonitorService"

    private let configuration: Configuration
    private let metrics: MonitorMetrics?
    private let logger: Logger
    private let output: EventOutput

    /// - Parameters:
    ///   - write: writes one line to the output; returns 0 or the errno that stopped it.
    ///   - clock: the wall-clock time of each line (tests pin it).
    public init(configuration: Configuration, metrics: MonitorMetrics?, logger: Logger,
                write: @escaping @Sendable (String) -> Int32, clock: @escaping @Sendable () -> Date = Date.init) {
        self.configuration = configuration
        self.metrics = metrics
        self.logger = logger
        output = EventOutput(write: write, clock: clock)
    }

    public func run() async throws {
        try await cancelWhenGracefulShutdown { try await self.monitor() }
    }

    private var source: String {
        switch configuration.input {
        case .firstCamera: "first camera"
        case .device(let path): path
        case .file(let path, _, _): path
        }
    }

    @MainActor
    private func makeCamera() -> CircadifyCamera {
        switch configuration.input {
        case .firstCamera: CircadifyCamera(position: .front)
        case .device(let path): CircadifyCamera(devicePath: path)
        case .file(let path, let fps, _): CircadifyCamera(replaying: path, fps: fps, pace: configuration.replayPace)
        }
    }

    @MainActor
    private func monitor() async throws {
        let sdk = try CircadifySDK(apiKey: Self.apiKey)
        let camera = makeCamera()
        camera.onQualityWarning = { [weak self] warning in self?.emit(.warning(warning)) }
        let feed = metrics.map { PipelineFeed(camera: camera, metrics: $0, interval: configuration.statisticsInterval) }
        emit(.serviceStarted(source: source))
        var reason = "shutdown"
        var failure: Error?
        do {
            if try await follow(sdk, on: camera, feed: feed) { reason = "end of input" }
        } catch is CancellationError {
            // The group is shutting down.
        } catch {
            failure = error
            reason = "failed"
            // The stream says why, not only the exit status.
            if case .fatal(let cause, let hint)? = error as? Failure { emit(.error(cause, hint: hint)) }
        }
        // The camera released and its controls restored before the service says it stopped.
        await feed?.stop()
        camera.onQualityWarning = nil
        await sdk.stopMonitoring()
        await camera.release()
        emit(.serviceStopped(reason: reason))
        logger.info("monitor stopped", metadata: ["reason": "\(reason)"])
        if let failure { throw failure }
        if let errno = output.failedWith { throw Failure.outputFailed(errno) }
    }

    /// What the device node says about a camera error (the SDK's messages are fixed).
    private func hint(for error: CircadifyError) -> String? {
        guard case .device(let path) = configuration.input else { return nil }
        return CameraDevice.explain(error, at: path)
    }

    /// Monitors until cancelled; true when a file reached its end (and `loop` is off).
    @MainActor
    private func follow(_ sdk: CircadifySDK, on camera: CircadifyCamera, feed: PipelineFeed?) async throws -> Bool {
        var states = sdk.updates().makeAsyncIterator()
        var follower = HeadlessFollower()
        var backoff = configuration.backoff
        var lostSince: ContinuousClock.Instant?
        var openedOnce = false
        var loops = 0
        /// Attempts to open since the camera last streamed.
        var attempt = 0
        while true {
            try checkOutput()
            try Task.checkCancellation()
            // Every state of the last session has been read (its end was the last one).
            follower.reset()
            unsureSaid = false
            attempt += 1
            do {
                try await sdk.startMonitoring(camera: camera)
            } catch var error as CircadifyError {
                try Task.checkCancellation()
                // Not shut down, yet cancelled: the camera stopped while it was being started.
                if error == .cancelled { error = sdk.error ?? .captureFailed("\(source) stopped as it started") }
                guard !configuration.input.isFile, Self.isWorthRetrying(error) else {
                    throw Failure.fatal(error, hint: hint(for: error))
                }
                let delay = backoff.next()
                let hint = hint(for: error)
                emit(.error(error, attempt: attempt, retryIn: delay, hint: hint))
                logger.warning("camera not open", metadata: ["error": "\(error.caseName)", "retry-in": "\(delay)",
                                                              "reason": "\(hint ?? error.errorDescription ?? error.caseName)"])
                lostSince = lostSince ?? .now
                try await Task.sleep(for: delay)
                continue
            }
            if !openedOnce {
                emit(.cameraOpened(source: source))
                logger.info("monitoring", metadata: ["source": "\(source)"])
            } else if let since = lostSince {
                emit(.cameraReopened(source: source, attempts: attempt, downtime: .now - since))
                logger.notice("camera reopened", metadata: ["attempts": "\(attempt)"])
            }
            openedOnce = true
            lostSince = nil
            backoff.reset()
            attempt = 0
            feed?.sessionStarted()

            let ended = await followUntilEnd(&states, with: &follower)
            await feed?.sessionEnded()
            try Task.checkCancellation()
            try checkOutput()
            if case .file(_, _, let loop) = configuration.input {
                if let ended { throw Failure.fatal(ended, hint: hint(for: ended)) }
                guard loop else { return true }
                loops += 1
                emit(.inputRestarted(loops: loops))
                continue
            }
            let delay = backoff.next()
            emit(.cameraLost(source: source, error: ended, retryIn: delay))
            logger.warning("camera lost", metadata: ["error": "\(ended?.caseName ?? "none")", "retry-in": "\(delay)",
                                                      "reason": "\(ended.map { $0.errorDescription ?? $0.caseName } ?? "none")"])
            lostSince = .now
            try await Task.sleep(for: delay)
        }
    }

    /// Writes the events of each state until monitoring ends; returns why (nil: it
    /// ended on its own without an error, as a file does at its end).
    @MainActor
    private func followUntilEnd(_ states: inout AsyncStream<HeadlessState>.Iterator,
                                with follower: inout HeadlessFollower) async -> CircadifyError? {
        // States queued before this start (the previous run's end) must not end this one.
        var running = false
        while let state = await states.next(isolation: MainActor.shared) {
            for event in follower.events(for: state) { emit(event) }
            if output.failedWith != nil { return nil } // nobody reads the results any more
            switch state.processingStatus {
            case .running: running = true
            case .error where running: return state.error
            case .idle where running: return nil
            default: break
            }
        }
        return nil // cancelled
    }

    /// Failures that a camera coming back (or its permissions being fixed) can cure.
    static func isWorthRetrying(_ error: CircadifyError) -> Bool {
        switch error {
        case .cameraNotAvailable, .cameraPermissionDenied, .cameraInUse, .captureFailed, .timeout: true
        default: false
        }
    }

    /// The last estimate line had nothing confident in it. Until a pulse is clear (and on a
    /// pulse-free face for good) the SDK retries four times a second: each such reading is
    /// counted, but written once, not four lines of nulls a second.
    @MainActor private var unsureSaid = false

    @MainActor
    private func emit(_ event: MonitorEvent) {
        metrics?.record(event)
        if case .estimate(let estimate) = event {
            let unsure = estimate == Estimate()
            defer { unsureSaid = unsure }
            if unsure, unsureSaid { return }
        }
        output.write(event)
    }

    private func checkOutput() throws {
        if let errno = output.failedWith { throw Failure.outputFailed(errno) }
    }
}

extension MonitorService.Input {
    var isFile: Bool {
        if case .file = self { return true }
        return false
    }
}

/// The JSON Lines writer; remembers the first failed write (the output is gone).
final class EventOutput: Sendable {
    private let writeLine: @Sendable (String) -> Int32
    private let clock: @Sendable () -> Date
    private let failure = Mutex<Int32?>(nil)

    init(write: @escaping @Sendable (String) -> Int32, clock: @escaping @Sendable () -> Date) {
        writeLine = write
        self.clock = clock
    }

    var failedWith: Int32? { failure.withLock { $0 } }

    func write(_ event: MonitorEvent) {
        guard failedWith == nil else { return }
        let status = writeLine(event.jsonLine(at: clock()) + "\n")
        if status != 0 { failure.withLock { $0 = status } }
    }
}
