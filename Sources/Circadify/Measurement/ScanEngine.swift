/// What to measure: a camera or a video file, for how long.
package struct ScanRequest: Sendable {
    package enum Input: Sendable, Equatable { case device(String), file(path: String, fps: UInt32) }
    package var input: Input
    package var duration: Double          // seconds of measurement, default 30
    /// Files: pace the frames at the file's own rate, as a camera delivers them (else as fast as they can be read).
    package var realtime: Bool
    package init(input: Input, duration: Double = 30, realtime: Bool = false) {
        self.input = input
        self.duration = duration
        self.realtime = realtime
    }
}

/// Where a measurement is: opening the camera, waiting for its exposure and
/// the face to settle, recording, computing the result.
public enum ScanPhase: String, Sendable, Equatable { case starting, settling, measuring, analyzing }

/// A snapshot of a running measurement, several times a second of video.
public struct ScanProgress: Sendable, Equatable {
    public var phase: ScanPhase
    /// Seconds of the measurement recorded so far.
    public var elapsed: Double
    /// The measurement's duration, seconds.
    public var total: Double
    /// The last few seconds of the band-passed pulse wave, newest last, scaled to
    /// -1...1; empty until there is one.
    public var pulseWave: [Float]
    /// The live heart-rate estimate, bpm; nil until there is a confident one.
    public var heartRate: Double?
    /// The messages of the quality warnings in force (may be empty).
    public var hints: [String]

    /// Share of the measurement recorded, 0...1.
    public var fraction: Double { total > 0 && total.isFinite ? min(max(elapsed / total, 0), 1) : 0 }

    package init(phase: ScanPhase, elapsed: Double, total: Double, pulseWave: [Float] = [],
                 heartRate: Double? = nil, hints: [String] = []) {
        self.phase = phase
        self.elapsed = elapsed
        self.total = total
        self.pulseWave = pulseWave
        self.heartRate = heartRate
        self.hints = hints
    }
}

/// One whole measurement from a camera or a file, as the `circadify scan` command runs it:
/// a `CircadifyCamera` on the node or the file, opened, measured, released. Files and
/// cameras go through the same camera object, session and scan driver.
///
/// Errors: `faceNotDetected` (no face), `qualityTooLow` (no pulse, or confidence below
/// 0.4), `captureFailed` (missing, truncated or corrupt file; camera unplugged; a file
/// shorter than the requested duration after the face is found),
/// `cameraNotAvailable` / `cameraPermissionDenied` / `cameraInUse` (camera),
/// `cancelled`, `timeout` (frames stop arriving).
package enum ScanEngine {
    /// Runs a whole measurement; cancellation of the calling task stops it and throws
    /// .cancelled (the camera is released and its controls restored before it returns).
    /// - Parameter progress: follows the measurement, live heart rate included; nil when
    ///   nobody does, and then no live estimate is made (the result is the same).
    @MainActor
    package static func run(_ request: ScanRequest, progress: (@Sendable (ScanProgress) -> Void)?)
        async throws(CircadifyError) -> VitalSignsResult {
        progress?(ScanProgress(phase: .starting, elapsed: 0, total: request.duration))
        let camera: CircadifyCamera
        switch request.input {
        case .file(let path, let fps):
            camera = CircadifyCamera(replaying: path, fps: Int(fps), pace: request.realtime ? .realtime : .asFastAsProcessed)
        case .device(let path):
            camera = CircadifyCamera(devicePath: path, position: .back)
        }
        do {
            try await camera.open(forMeasurement: true)
            let result = try await camera.measure(duration: request.duration, progress: progress)
            await camera.release()
            return result
        } catch {
            await camera.release()
            throw Task.isCancelled ? .cancelled : error
        }
    }
}
