import CCore

/// Where frames come from.
package enum FrameSourceInput: Sendable, Equatable {
    /// A V4L2 capture node, e.g. "/dev/video0".
    case device(String)
    /// A Y4M or raw MJPEG file.
    case file(String)
}

/// How to open a source. Defaults follow the core's (640x480 at 30 fps, automatic format).
package struct FrameSourceConfiguration: Sendable {
    package var width: UInt32 = 640
    package var height: UInt32 = 480
    package var fps: UInt32 = 30
    /// V4L2 fourcc to force, e.g. "MJPG"; nil chooses automatically.
    package var fourcc: String?
    package var ringCapacity: UInt32 = 256
    package var thumbnailWidth: UInt32 = 160
    package var thumbnailHeight: UInt32 = 120
    package var thumbnailEvery: UInt32 = 3
    /// Lock exposure, gain and white balance after this long (nil: never).
    package var lockControlsAfter: Duration? = .seconds(2)
    /// Power-line frequency for anti-flicker (50 or 60), nil to leave it.
    package var powerLineHertz: UInt32?
    /// Files: pace at the stream's frame rate (true) or as fast as drained (false).
    package var realtime = true

    package init() {}

    var cValue: ccore_source_config {
        var c = ccore_source_config()
        ccore_source_config_init(&c)
        c.width = width
        c.height = height
        c.fps = fps
        c.fourcc = fourcc.map(Self.fourccValue) ?? 0
        c.ring_capacity = ringCapacity
        c.thumbnail_width = thumbnailWidth
        c.thumbnail_height = thumbnailHeight
        c.thumbnail_every = thumbnailEvery
        c.lock_controls_after_ms = lockControlsAfter.map { UInt32(clamping: $0.components.seconds * 1000
            + $0.components.attoseconds / 1_000_000_000_000_000) } ?? 0
        c.power_line_hz = powerLineHertz ?? 0
        c.realtime = realtime ? 1 : 0
        return c
    }

    static func fourccValue(_ text: String) -> UInt32 {
        var value: UInt32 = 0
        for (i, byte) in text.utf8.prefix(4).enumerated() { value |= UInt32(byte) << (8 * UInt32(i)) }
        return value
    }
}

/// What was negotiated with the camera, or read from the file header.
package struct StreamFormat: Sendable, Equatable {
    package var fourcc: String
    package var width: UInt32
    package var height: UInt32
    package var framesPerSecond: Double
    package var bufferCount: UInt32
}

/// Counters of a running source.
package struct SourceStatistics: Sendable, Equatable {
    package enum State: Sendable, Equatable { case opened, running, finished, stopped, failed }
    package var state: State
    package var frames: UInt64
    package var samples: UInt64
    package var dropped: UInt64
    package var errorFrames: UInt64
    package var ringOverflows: UInt64
    package var controlsLocked: Bool
}

/// A luma thumbnail of a recent frame, for the face detector.
package struct LumaThumbnail: Sendable {
    package var width: Int, height: Int, sequence: UInt64
    package var pixels: [UInt8]
}

/// A camera or a video file running through the C core. The capture thread
/// measures every frame; `samples()` drains the core's ring into an async
/// stream that ends when a file is finished and throws when capture fails.
package actor FrameSource {
    private let handle: SourceHandle
    package nonisolated let input: FrameSourceInput
    package nonisolated let format: StreamFormat
    private var drain: Task<Void, Never>?
    private var started = false
    private let thumbnailCapacity: Int

    package init(_ input: FrameSourceInput, configuration: FrameSourceConfiguration = .init()) throws(CoreError) {
        self.input = input
        thumbnailCapacity = Int(configuration.thumbnailWidth) * Int(configuration.thumbnailHeight)
        switch input {
        case .device(let path):
            handle = try SourceHandle.open(path: path, config: configuration.cValue, using: ccore_source_open_device)
        case .file(let path):
            handle = try SourceHandle.open(path: path, config: configuration.cValue, using: ccore_source_open_file)
        }
        var f = ccore_stream_format()
        ccore_source_get_format(handle.raw, &f)
        var cc = [CChar](repeating: 0, count: 5)
        ccore_fourcc_string(f.fourcc, &cc)
        let name = f.pixel_format == CCORE_PIXEL_NONE ? stringFromCChars(cc)
            : String(cString: ccore_pixel_format_name(f.pixel_format))
        format = StreamFormat(
            fourcc: name, width: f.width, height: f.height,
            framesPerSecond: f.interval_numerator == 0 ? 0 : Double(f.interval_denominator) / Double(f.interval_numerator),
            bufferCount: f.buffer_count)
    }

    /// Starts capture and returns the stream of samples. Call once.
    package func samples() throws(CoreError) -> AsyncThrowingStream<FrameSample, Error> {
        guard !started else { throw CoreError(code: CoreError.invalidState, message: "the source was already started") }
        try handle.check(ccore_source_start(handle.raw))
        started = true
        let (stream, continuation) = AsyncThrowingStream<FrameSample, Error>.makeStream(bufferingPolicy: .unbounded)
        let handle = self.handle
        drain = Task.detached(priority: .high) {
            await Self.drainRing(of: handle, into: continuation)
        }
        let drainTask = drain
        continuation.onTermination = { _ in drainTask?.cancel() }
        return stream
    }

    /// Stops capture (idempotent). Camera controls are restored.
    package func stop() async {
        drain?.cancel()
        await drain?.value
        ccore_source_stop(handle.raw)
    }

    /// Publishes new regions to the capture thread; effective from the next frame.
    package func setRegions(_ regions: RegionSet) throws(CoreError) {
        var set = try regions.cValue()
        try handle.check(ccore_source_set_rois(handle.raw, &set))
    }

    package func statistics() -> SourceStatistics { Self.statistics(of: handle) }

    /// The newest thumbnail published since the last call, if any.
    package func takeThumbnail() -> LumaThumbnail? {
        guard thumbnailCapacity > 0 else { return nil }
        var pixels = [UInt8](repeating: 0, count: thumbnailCapacity)
        var width: UInt32 = 0, height: UInt32 = 0, sequence: UInt64 = 0
        let got = ccore_source_take_thumbnail(handle.raw, &pixels, UInt32(pixels.count), &width, &height, &sequence)
        guard got == 1 else { return nil }
        return LumaThumbnail(width: Int(width), height: Int(height), sequence: sequence, pixels: pixels)
    }

    private static func statistics(of handle: SourceHandle) -> SourceStatistics {
        var s = ccore_source_stats()
        ccore_source_get_stats(handle.raw, &s)
        let state: SourceStatistics.State
        switch s.state {
        case CCORE_SOURCE_RUNNING: state = .running
        case CCORE_SOURCE_FINISHED: state = .finished
        case CCORE_SOURCE_STOPPED: state = .stopped
        case CCORE_SOURCE_FAILED: state = .failed
        default: state = .opened
        }
        return SourceStatistics(state: state, frames: s.frames, samples: s.samples, dropped: s.dropped,
                                errorFrames: s.error_frames, ringOverflows: s.ring_overflows,
                                controlsLocked: s.controls_locked != 0)
    }

    /// The ring's single consumer. Polls every millisecond when the ring is
    /// empty (the capture thread makes no system call to wake anyone), so a
    /// sample waits at most about 1 ms here.
    private static func drainRing(of handle: SourceHandle,
                                  into continuation: AsyncThrowingStream<FrameSample, Error>.Continuation) async {
        guard let ring = ccore_source_ring(handle.raw) else { return continuation.finish() }
        var sample = ccore_frame_sample()
        while !Task.isCancelled {
            if ccore_ring_pop(ring, &sample) {
                continuation.yield(FrameSample(sample))
                continue
            }
            // Read the state before the final pop: samples pushed before the
            // thread ended are all in the ring by then.
            var stats = ccore_source_stats()
            ccore_source_get_stats(handle.raw, &stats)
            if stats.state == CCORE_SOURCE_FINISHED || stats.state == CCORE_SOURCE_FAILED {
                while ccore_ring_pop(ring, &sample) { continuation.yield(FrameSample(sample)) }
                if stats.state == CCORE_SOURCE_FAILED {
                    continuation.finish(throwing: CoreError(code: stats.error, message: handle.lastErrorMessage))
                } else {
                    continuation.finish()
                }
                return
            }
            try? await Task.sleep(for: .milliseconds(1))
        }
        continuation.finish()
    }
}
