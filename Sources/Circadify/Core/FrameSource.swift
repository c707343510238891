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
    /// The face detector's thumbnail. With `thumbnailHeight` 0 it fits a
    /// `thumbnailWidth` square at the negotiated frame's aspect ratio.
    package var thumbnailWidth: UInt32 = 160
    package var thumbnailHeight: UInt32 = 120
    package var thumbnailEvery: UInt32 = 3
    /// Lock exposure, gain and white balance after this long (nil: never).
    package var lockControlsAfter: Duration? = .seconds(2)
    /// Power-line frequency for anti-flicker (50 or 60), nil to leave it.
    package var powerLineHertz: UInt32?
    /// Files: pace at the stream's frame rate (true) or as fast as drained (false).
    package var realtime = true
    /// Files replayed as fast as drained: one frame at a time, each read only
    /// once the consumer asks for the next sample (see `SampleStream`).
    package var lockstep = false
    /// RGB preview (`imageOutput`): fits this square, 0 for none; produced
    /// every `previewEvery`-th frame while switched on.
    package var previewSize: UInt32 = 0
    package var previewEvery: UInt32 = 3

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
        c.lockstep = lockstep ? 1 : 0
        c.preview_size = previewSize
        c.preview_every = previewEvery
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
    /// Of `dropped`, those counted from timestamp gaps (the sequence showed none).
    package var droppedByTimestamp: UInt64
    package var errorFrames: UInt64
    package var ringOverflows: UInt64
    package var controlsLocked: Bool
    /// MJPEG frames decoded from the rows they needed on, by the camera's restart markers.
    package var boxDecodes: UInt64 = 0
}

/// A luma thumbnail of a recent frame, for the face detector.
package struct LumaThumbnail: Sendable {
    package var width: Int, height: Int, sequence: UInt64
    package var pixels: [UInt8]
}

/// An RGB picture of a recent frame, for people to look at.
package struct RGBFrame: Sendable, Equatable {
    package var width: Int, height: Int, sequence: UInt64
    /// RGB24, rows top to bottom, 3 * width bytes each.
    package var pixels: [UInt8]

    package init(width: Int, height: Int, sequence: UInt64, pixels: [UInt8]) {
        self.width = width
        self.height = height
        self.sequence = sequence
        self.pixels = pixels
    }
}

/// A camera or a video file running through the C core. The capture thread
/// measures every frame; `samples()` hands them out one at a time from the
/// core's ring (see `SampleStream`): the sequence ends when a file is
/// finished or the source stopped, and throws when capture fails.
package actor FrameSource {
    private let handle: SourceHandle
    private let wakeup: SampleWakeup
    package nonisolated let input: FrameSourceInput
    package nonisolated let format: StreamFormat
    /// The face detector's thumbnail size, as fitted to the negotiated format.
    package nonisolated let thumbnailSize: (width: Int, height: Int)
    private var started = false
    private let previewCapacity: Int

    package init(_ input: FrameSourceInput, configuration: FrameSourceConfiguration = .init()) throws(CoreError) {
        self.input = input
        switch input {
        case .device(let path):
            handle = try SourceHandle.open(path: path, config: configuration.cValue, using: ccore_source_open_device)
        case .file(let path):
            handle = try SourceHandle.open(path: path, config: configuration.cValue, using: ccore_source_open_file)
        }
        wakeup = SampleWakeup(fd: ccore_source_sample_fd(handle.raw))
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
        thumbnailSize = Self.fitted(configuration.thumbnailWidth, configuration.thumbnailHeight, to: f)
        let preview = Self.fitted(configuration.previewSize, 0, to: f)
        previewCapacity = preview.width * preview.height * 3
    }

    /// The size the core gives a thumbnail or preview: as configured, or fitted
    /// to a `side` square at the frame's aspect when `height` is 0.
    private static func fitted(_ side: UInt32, _ height: UInt32, to f: ccore_stream_format) -> (width: Int, height: Int) {
        guard side > 0 else { return (0, 0) }
        if height > 0 { return (Int(side), Int(height)) }
        var w: UInt32 = 0, h: UInt32 = 0
        ccore_preview_fit(f.width, f.height, side, &w, &h)
        return (Int(w), Int(h))
    }

    /// Starts capture and returns its samples. Call once.
    package func samples() throws(CoreError) -> SampleStream {
        guard !started else { throw CoreError(code: CoreError.invalidState, message: "the source was already started") }
        try handle.check(ccore_source_start(handle.raw))
        started = true
        return SampleStream(handle: handle, wakeup: wakeup)
    }

    /// Stops capture (idempotent): the sample sequence ends, camera controls are restored.
    package func stop() {
        ccore_source_stop(handle.raw)
        wakeup.fire()
    }

    /// Publishes new regions to the capture thread; effective from the next frame.
    package func setRegions(_ regions: RegionSet) throws(CoreError) {
        var set = try regions.cValue()
        try handle.check(ccore_source_set_rois(handle.raw, &set))
    }

    package func statistics() -> SourceStatistics { Self.statistics(of: handle) }

    /// The newest thumbnail published since the last call, if any.
    package func takeThumbnail() -> LumaThumbnail? {
        takePicture(bytes: thumbnailSize.width * thumbnailSize.height, using: ccore_source_take_thumbnail)
            .map { LumaThumbnail(width: $0.width, height: $0.height, sequence: $0.sequence, pixels: $0.pixels) }
    }

    /// Switches the core's stage timing on or off (see `StageTiming`).
    package func setStageTiming(_ on: Bool) {
        ccore_source_set_stage_timing(handle.raw, on ? 1 : 0)
    }

    /// Switches the RGB preview on or off (a source opened with a preview size).
    package func setPreview(_ on: Bool) {
        ccore_source_set_preview(handle.raw, on ? 1 : 0)
    }

    /// From the next frame, previews fitted to a `maxSide` square (at most the
    /// configured `previewSize`) every `every`-th frame.
    package func setPreviewShape(maxSide: UInt32, every: UInt32) {
        ccore_source_set_preview_shape(handle.raw, max(maxSide, 1), max(every, 1))
    }

    /// The newest RGB preview published since the last call, if any.
    package func takePreview() -> RGBFrame? {
        takePicture(bytes: previewCapacity, using: ccore_source_take_preview)
    }

    private typealias Taker = (OpaquePointer?, UnsafeMutablePointer<UInt8>?, UInt32, UnsafeMutablePointer<UInt32>?,
                               UnsafeMutablePointer<UInt32>?, UnsafeMutablePointer<UInt64>?) -> Int32

    /// One of the core's latest-picture mailboxes, read into a fresh array.
    private func takePicture(bytes: Int, using take: Taker) -> RGBFrame? {
        guard bytes > 0 else { return nil }
        var pixels = [UInt8](repeating: 0, count: bytes)
        var width: UInt32 = 0, height: UInt32 = 0, sequence: UInt64 = 0
        guard take(handle.raw, &pixels, UInt32(bytes), &width, &height, &sequence) == 1 else { return nil }
        return RGBFrame(width: Int(width), height: Int(height), sequence: sequence, pixels: pixels)
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
                                droppedByTimestamp: s.dropped_by_timestamp, errorFrames: s.error_frames, ringOverflows: s.ring_overflows,
                                controlsLocked: s.controls_locked != 0, boxDecodes: s.box_decodes)
    }
}
