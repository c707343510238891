import Circadify
import Foundation

/// Runs the camera behind the page: keeps it live (a replayed file loops, a camera that
/// fails is reopened every few seconds), monitors the vitals, feeds the video (the camera's
/// frames with the scan overlay, `CircadifyCameraPreview`) and the events, and runs the
/// scan button's measurements, one at a time, with the overlay in its scanning state.
@MainActor
public final class PreviewController {
    private let sdk: CircadifySDK
    private let camera: CircadifyCamera
    private let preview: CircadifyCameraPreview
    private let video: VideoFanout
    private let events: EventFanout
    private let options: MeasurementOptions
    private let source: String
    /// A replayed file starts again when it ends, so the page stays live.
    private let loops: Bool

    private var scan: Task<Void, Never>?
    private var scanView = PreviewState.Scan(state: "idle")
    private var latest: HeadlessState?
    private var cameraError: CircadifyError?
    private var published: PreviewState?
    private var tasks: [Task<Void, Never>] = []
    private var stopped = false
    private var toldReplayFailure: CircadifyError?

    /// Called when a replayed file ends with an error (a truncated or corrupt frame) and is
    /// played again from the start: once per distinct error, so it is said, not repeated
    /// on every loop.
    public var onReplayFailure: ((CircadifyError) -> Void)?

    /// How often the events carry a new state at most.
    private static let eventInterval = Duration.milliseconds(100)
    /// How long a camera that failed to open rests before the next try.
    private static let retryInterval = Duration.seconds(2)

    public init(sdk: CircadifySDK, camera: CircadifyCamera, video: VideoFanout, events: EventFanout,
                options: MeasurementOptions, source: String, loops: Bool) {
        self.sdk = sdk
        self.camera = camera
        preview = CircadifyCameraPreview(camera: camera, showGuide: true, isScanning: false)
        self.video = video
        self.events = events
        self.options = options
        self.source = source
        self.loops = loops
    }

    /// Opens the camera and starts monitoring, then keeps both up until `stop()`.
    /// - Throws: the camera's `CircadifyError` when it cannot be opened the first time.
    public func start() async throws {
        preview.start()
        camera.addObserver(self) { [weak self] event in
            if case .ended(let failure?) = event { self?.replayEnded(with: failure) }
        }
        try await open()
        let updates = sdk.updates()
        tasks.append(Task { [weak self] in
            for await state in updates { self?.latest = state }
        })
        let frames = preview.frames()
        let video = video
        tasks.append(Task.detached {
            // Encoding runs here, off the main actor and the renderer, once per frame whatever
            // the number of viewers, and not at all while nobody watches.
            let encoder = JPEGEncoder()
            for await frame in frames {
                video.publish { try? encoder.encode(frame, quality: VideoFanout.jpegQuality) }
            }
        })
        tasks.append(Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: Self.eventInterval)
                self?.publishIfChanged()
            }
        })
        tasks.append(Task { [weak self] in await self?.keepLive() })
    }

    /// Whether the camera streams now (false after `stop()`).
    public var cameraIsRunning: Bool { camera.isRunning }

    /// The scan button: starts a measurement, or says why not.
    public func startScan() -> ScanStartReply {
        if scan != nil {
            return .busy("A scan is already running; wait for its result before starting another")
        }
        guard camera.isRunning else {
            return .unavailable("The camera is not running" + (cameraError.map { ": \(Self.message($0))" } ?? ""))
        }
        scanView = PreviewState.Scan(state: "scanning", phase: ScanPhase.starting.rawValue, fraction: 0)
        preview.isScanning = true
        scan = Task { [weak self, sdk, camera, options] in
            let outcome: Result<VitalSignsResult, CircadifyError>
            do {
                outcome = .success(try await sdk.measureVitals(camera: camera, options: options))
            } catch {
                outcome = .failure((error as? CircadifyError) ?? .unknown(String(describing: error)))
            }
            self?.finish(outcome)
        }
        publishIfChanged()
        return .started
    }

    /// Cancels a running scan, stops monitoring and releases the camera.
    public func stop() async {
        stopped = true
        camera.removeObserver(self)
        for task in tasks { task.cancel() }
        tasks.removeAll()
        if let scan {
            sdk.cancel()
            await scan.value
        }
        await sdk.stopMonitoring()
        preview.stop()
        // Returns once the device is free and its controls restored.
        await camera.release()
    }

    private func open() async throws {
        try await camera.start()
        try await sdk.startMonitoring(camera: camera)
        cameraError = nil
    }

    /// Reopens the camera when it stops: at once for a file that ended, every few
    /// seconds for a camera that went away (the page shows why meanwhile).
    private func keepLive() async {
        while !Task.isCancelled, !stopped {
            try? await Task.sleep(for: .milliseconds(250))
            guard !stopped, !camera.isRunning else { continue }
            do {
                try await open()
            } catch {
                cameraError = (error as? CircadifyError) ?? .unknown(String(describing: error))
                if !loops { try? await Task.sleep(for: Self.retryInterval) }
            }
        }
    }

    private func replayEnded(with failure: CircadifyError) {
        guard loops, !stopped, failure != toldReplayFailure else { return }
        toldReplayFailure = failure
        onReplayFailure?(failure)
    }

    private func finish(_ outcome: Result<VitalSignsResult, CircadifyError>) {
        scan = nil
        preview.isScanning = false
        switch outcome {
        case .success(let result):
            scanView = PreviewState.Scan(state: "done", result: PreviewState.Result(result))
        case .failure(let error):
            scanView = PreviewState.Scan(state: "failed", error: PreviewState.Failure(error))
        }
        publishIfChanged()
    }

    private func publishIfChanged() {
        let state = currentState()
        guard state != published else { return }
        published = state
        events.publish(event: "state", data: state.json)
    }

    private func currentState() -> PreviewState {
        let metrics = latest?.metrics
        let progress = latest?.progress
        var view = scanView
        if view.state == "scanning", let progress {
            view.phase = progress.phase.rawValue
            view.fraction = (progress.fraction * 1000).rounded() / 1000
            view.hints = progress.hints
        }
        let pulse = metrics?.cardio.pulseRate.last
        let wave = progress.map(\.pulseWave).flatMap { $0.isEmpty ? nil : $0 } ?? metrics?.cardio.pulseWave ?? []
        return PreviewState(
            status: latest?.processingStatus.rawValue ?? ProcessingStatus.idle.rawValue,
            hint: camera.isRunning ? latest?.validationStatus?.hint : nil,
            hintCode: camera.isRunning ? latest?.validationStatus?.code.rawValue : nil,
            heartRate: (progress?.heartRate ?? pulse?.value).map { ($0 * 10).rounded() / 10 },
            heartRateConfidence: progress?.heartRate == nil ? pulse.map { ($0.confidence * 100).rounded() / 100 } : nil,
            breathingRate: metrics?.breathing.rate.last.map { ($0.value * 10).rounded() / 10 },
            pulseWave: wave.map { ($0 * 1000).rounded() / 1000 },
            source: source,
            cameraError: camera.isRunning ? nil : cameraError.map(Self.message),
            scan: view)
    }

    private static func message(_ error: CircadifyError) -> String {
        error.errorDescription ?? error.caseName
    }
}
