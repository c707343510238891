import Observation

/// The camera a preview shows and a measurement records (seed "Methods").
/// On Linux it is a V4L2 capture node: `.front` is the first capture-capable
/// node (mirrored preview), `.back` the next one (unmirrored), or name one
/// with `init(devicePath:position:)`.
///
/// Face tracking (`startFaceTracking()`) publishes `scanFace`; quality
/// warnings reach `onQualityWarning` on the main actor while the camera runs.
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

    @ObservationIgnored private let explicitPath: String?
    @ObservationIgnored package private(set) var session: CameraSession?
    @ObservationIgnored private var listener: Task<Void, Never>?
    @ObservationIgnored private var trackingRequested = false

    public init(position: Position = .front) {
        self.position = position
        explicitPath = nil
        authorizationStatus = Self.status(of: devicePath)
    }

    /// A named capture node, e.g. "/dev/video2"; `position` says whether its preview is mirrored.
    public init(devicePath: String, position: Position = .front) {
        self.position = position
        explicitPath = devicePath
        authorizationStatus = Self.status(of: devicePath)
    }

    /// The node this camera opens: the named one, else the position's; nil when there is none.
    public var devicePath: String? {
        if let explicitPath { return explicitPath }
        let cameras = (try? CameraDevice.list()) ?? []
        let index = position == .front ? 0 : 1
        return cameras.indices.contains(index) ? cameras[index].path : nil
    }

    /// Refreshes `authorizationStatus` and returns whether the camera may be
    /// used. Linux shows no dialog: access is granted by the node's owner,
    /// group and mode (see the README's "Camera access").
    @discardableResult
    public func requestAccess() async -> Bool {
        authorizationStatus = Self.status(of: devicePath)
        return authorizationStatus == .authorized
    }

    /// Opens the camera and starts streaming.
    /// - Throws: `CircadifyError.cameraNotAvailable` (no camera for this
    ///   position), `.cameraPermissionDenied` (the fix is in its message),
    ///   `.cameraInUse` (another process streams it), `.captureFailed`.
    public func start() async throws {
        guard !isRunning else { return }
        guard let path = devicePath else { throw CircadifyError.cameraNotAvailable }
        authorizationStatus = Self.status(of: path)
        let session = try CameraSession(devicePath: path, mirrored: position == .front)
        try await session.start()
        self.session = session
        isRunning = true
        // Ends with the session's event stream, which ends when capture does.
        listener = Task { [weak self] in
            for await event in session.events { self?.apply(event, from: session) }
        }
        if trackingRequested { await session.setTracking(true) }
    }

    /// Stops streaming, restores the camera's controls and releases it.
    public func stop() {
        guard let session else { return }
        self.session = nil
        isRunning = false
        scanFace = nil
        validationStatus = nil
        Task { await session.stop() }
    }

    /// Stops as `stop()` does and returns once the camera is released and its
    /// controls restored (for callers that reopen it, or exit, right after).
    package func release() async {
        guard let session else { return }
        stop()
        await session.stop()
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

    private func apply(_ event: CameraEvent, from source: CameraSession) {
        // A stopped session's last words must not touch the camera's next one.
        guard source === session else { return }
        switch event {
        case .face(let face):
            scanFace = trackingRequested ? face : nil
        case .warning(let warning):
            onQualityWarning?(warning)
        case .validation(let status):
            validationStatus = status
        case .ended:
            session = nil
            isRunning = false
            scanFace = nil
        }
    }

    private static func status(of path: String?) -> AVAuthorizationStatus {
        guard let path else { return .notDetermined }
        return AVAuthorizationStatus(CameraDevice.access(path: path).0)
    }
}
