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

/// Where a scan is: opening the source, waiting for exposure and face to settle,
/// collecting the measurement, computing the result.
package enum ScanPhase: String, Sendable { case starting, settling, measuring, analyzing }

/// A snapshot of a running scan, delivered several times a second.
package struct ScanProgress: Sendable {
    package var phase: ScanPhase
    package var elapsed: Double           // seconds of the measurement so far
    package var total: Double             // the requested duration
    package var pulseWave: [Float]        // the last few seconds of band-passed pulse, newest last, roughly -1...1; empty until there is one
    package var heartRate: Double?        // live estimate, nil until there is one
    package var hints: [String]           // active quality hints' messages (may be empty)

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
    @MainActor
    package static func run(_ request: ScanRequest, progress: @escaping @Sendable (ScanProgress) -> Void)
        async throws(CircadifyError) -> VitalSignsResult {
        progress(ScanProgress(phase: .starting, elapsed: 0, total: request.duration))
        let camera: CircadifyCamera
        switch request.input {
        case .file(let path, let fps):
            camera = CircadifyCamera(replaying: path, fps: Int(fps), pace: request.realtime ? .realtime : .asFastAsProcessed)
        case .device(let path):
            camera = CircadifyCamera(devicePath: path, position: .back)
        }
        do {
            try await camera.open()
            let result = try await camera.measure(duration: request.duration, progress: progress)
            await camera.release()
            return result
        } catch {
            await camera.release()
            throw Task.isCancelled ? .cancelled : error
        }
    }
}
