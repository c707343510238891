import Foundation

/// The camera's live picture with the Circadify scan overlay (seed "Scan
/// Overlay"). Linux has no SwiftUI, so this is a renderer: it draws the
/// overlay onto the frames of the camera's session — the very stream a
/// measurement records — and hands out the result as RGBA frames (for your
/// own display), JPEG frames (one encode per frame, shared by every viewer:
/// an MJPEG stream) and JPEG or PNG snapshots.
///
/// The overlay, when `showGuide` is on: a thin guide oval where the face is
/// (or should sit), and a heat-glow over the forehead and both cheeks that
/// follows the camera's `scanFace`, breathing slowly in gold while framing and
/// running hotter and faster while `isScanning`. The front camera's picture
/// is mirrored (a selfie view), the back camera's and a replay's are not.
///
/// `start()` and `stop()` stand for the view appearing and disappearing: with
/// `showGuide` on they call `camera.startFaceTracking()` and
/// `stopFaceTracking()`. Start the camera itself as usual; the preview renders
/// whenever it runs, across stops and restarts. Rendering runs on its own task,
/// off the capture thread and the main actor, keeping only the newest picture:
/// a slow viewer drops frames and never slows capture or a measurement.
@MainActor
public final class CircadifyCameraPreview {
    /// The camera whose session is rendered.
    public let camera: CircadifyCamera
    /// Draw the tracking heat-glow and guide oval. Changing it while live turns face tracking on or off.
    public var showGuide: Bool {
        didSet {
            guard showGuide != oldValue else { return }
            engine.update { $0.showGuide = showGuide }
            guard isLive else { return }
            if showGuide { camera.startFaceTracking() } else { camera.stopFaceTracking() }
        }
    }
    /// The glow's hotter, faster measuring state: bind it to "a measurement is running".
    public var isScanning: Bool {
        didSet { engine.update { $0.isScanning = isScanning } }
    }
    /// The glow's colours and timings.
    public var style: CircadifyScanStyle {
        didSet { engine.update { $0.style = style } }
    }
    /// Quality (1-100) of `jpegFrames()`. Default 80.
    public var jpegQuality = 80 {
        didSet { engine.update { $0.jpegQuality = min(max(jpegQuality, 1), 100) } }
    }
    /// True between `start()` and `stop()`.
    public private(set) var isLive = false

    private let engine: PreviewEngine

    public init(camera: CircadifyCamera, showGuide: Bool = true, isScanning: Bool = false,
                style: CircadifyScanStyle = CircadifyScanStyle()) {
        self.camera = camera
        self.showGuide = showGuide
        self.isScanning = isScanning
        self.style = style
        engine = PreviewEngine(.init(showGuide: showGuide, isScanning: isScanning, style: style, jpegQuality: 80))
    }

    deinit {
        engine.stop()
        // A preview dropped while live (no `stop()`, as a view that simply goes away)
        // still turns off the tracking its guide turned on.
        let trackingOurs = isLive ? showGuide : false
        if trackingOurs {
            Task { @MainActor [camera] in camera.stopFaceTracking() }
        }
    }

    /// The preview appears: rendering begins (as soon as the camera runs) and,
    /// with `showGuide`, face tracking is turned on.
    public func start() {
        guard !isLive else { return }
        isLive = true
        if showGuide { camera.startFaceTracking() }
        engine.start(camera.previewFeed)
    }

    /// The preview disappears: rendering stops and, with `showGuide`, face tracking too.
    public func stop() {
        guard isLive else { return }
        isLive = false
        engine.stop()
        if showGuide { camera.stopFaceTracking() }
    }

    /// Every rendered frame from now on; a reader that falls behind gets the newest.
    public nonisolated func frames() -> AsyncStream<CircadifyPreviewFrame> {
        engine.frames()
    }

    /// Every rendered frame from now on as a JPEG (at `jpegQuality`), encoded
    /// once per frame for all readers; a reader that falls behind gets the newest.
    /// Ready for a multipart/x-mixed-replace (MJPEG) response.
    public nonisolated func jpegFrames() -> AsyncStream<Data> {
        engine.jpegFrames()
    }

    /// The newest rendered frame; nil before the first.
    public nonisolated var latestFrame: CircadifyPreviewFrame? {
        engine.latest
    }

    /// The newest rendered frame as a JPEG.
    /// - Throws: `CircadifyError.processingFailed` before the first frame, or when encoding fails.
    public nonisolated func jpegSnapshot(quality: Int = 90) throws -> Data {
        let frame = try snapshotFrame()
        do {
            return try JPEGEncoder().encode(frame, quality: quality)
        } catch {
            throw CircadifyError.processingFailed("the snapshot could not be encoded: \(error.message)")
        }
    }

    /// The newest rendered frame as a PNG (RGBA).
    /// - Throws: `CircadifyError.processingFailed` before the first frame.
    public nonisolated func pngSnapshot() throws -> Data {
        PNGEncoder.encode(try snapshotFrame())
    }

    /// Frames rendered and JPEG encodes made since init (tests, the web page's diagnostics).
    package nonisolated var renderCounts: (rendered: UInt64, encoded: UInt64) { engine.counts }

    private nonisolated func snapshotFrame() throws -> CircadifyPreviewFrame {
        guard let frame = engine.latest, frame.width > 0 else {
            throw CircadifyError.processingFailed(
                "the preview has no frame yet: start() it and the camera, then wait for the first frame")
        }
        return frame
    }
}
