import CCore

/// A video file read frame by frame on the caller's thread, through the same
/// per-frame processor a camera's capture thread runs, with the regions set
/// for each frame. Where `FrameSource` replays a file as a camera would (its
/// own thread, regions arriving whenever they are published), this gives
/// frame-exact regions: the accuracy benchmark and the tests use it to
/// measure at regions known for every frame. One owner; `deinit` closes all.
package final class FileReplay {
    private let file: OpaquePointer
    private let processor: OpaquePointer
    package let width: Int
    package let height: Int
    package let framesPerSecond: Double
    private var regions: RegionSet?
    private var thumbnailBuffer: [UInt8]

    /// Thumbnail size and period for a frame size; (0, 0, _) for none.
    package typealias ThumbnailPlan = (_ frameWidth: Int, _ frameHeight: Int) -> (width: Int, height: Int, every: Int)

    /// `fps` is the frame rate of a raw MJPEG stream (Y4M files carry theirs);
    /// `thumbnails` says which luma thumbnails the processor publishes.
    package init(path: String, fps: UInt32 = 30,
                 thumbnails: ThumbnailPlan = { _, _ in (0, 0, 0) }) throws(CoreError) {
        var handle: OpaquePointer?
        var message = [CChar](repeating: 0, count: 512)
        let rc = message.withUnsafeMutableBufferPointer { buffer in
            ccore_videofile_open(path, fps, &handle, buffer.baseAddress, UInt32(buffer.count))
        }
        guard rc == 0, let handle else { throw CoreError(code: rc, message: stringFromCChars(message)) }
        var info = ccore_videofile_info()
        ccore_videofile_get_info(handle, &info)
        var config = ccore_processor_config()
        config.pixel_format = info.pixel_format
        config.is_mjpeg = info.kind == CCORE_VIDEOFILE_MJPEG ? 1 : 0
        config.width = info.width
        config.height = info.height
        config.frame_interval_ns = info.fps_numerator == 0 ? 0
            : Int64(info.fps_denominator) * 1_000_000_000 / Int64(info.fps_numerator)
        config.min_roi_pixels = 16
        let plan = thumbnails(Int(info.width), Int(info.height))
        if plan.width > 0, plan.height > 0 {
            config.thumbnail_width = UInt32(plan.width)
            config.thumbnail_height = UInt32(plan.height)
            config.thumbnail_every = UInt32(max(1, plan.every))
        }
        thumbnailBuffer = [UInt8](repeating: 0, count: max(0, plan.width * plan.height))
        var made: OpaquePointer?
        let created = ccore_processor_create(&config, &made)
        guard created == 0, let made else {
            ccore_videofile_close(handle)
            throw CoreError(code: created, message: "cannot set up the per-frame processor")
        }
        file = handle
        processor = made
        width = Int(info.width)
        height = Int(info.height)
        framesPerSecond = info.fps_numerator == 0 ? 0 : Double(info.fps_numerator) / Double(info.fps_denominator)
    }

    deinit {
        ccore_processor_destroy(processor)
        ccore_videofile_close(file)
    }

    /// Measures the next frame at `regions` (the previous frame's when nil); nil after
    /// the last frame. A truncated or corrupt frame throws, naming the frame.
    package func next(regions newRegions: RegionSet? = nil) throws(CoreError) -> FrameSample? {
        if let newRegions, newRegions != regions {
            regions = newRegions
            var set = try newRegions.cValue()
            let rc = ccore_processor_set_rois(processor, &set)
            if rc < 0 { throw CoreError(code: rc, message: "the regions were refused") }
        }
        var frame = ccore_videofile_frame()
        let rc = ccore_videofile_next(file, &frame)
        if rc == CCORE_E_END { return nil }
        if rc < 0 { throw CoreError(code: rc, message: String(cString: ccore_videofile_error_message(file))) }
        var input = ccore_frame()
        input.sequence = frame.index
        input.timestamp_ns = framesPerSecond > 0 ? Int64((Double(frame.index) / framesPerSecond * 1e9).rounded()) : 0
        input.image = frame.image
        input.jpeg = frame.jpeg
        input.jpeg_size = frame.jpeg_size
        var sample = ccore_frame_sample()
        let produced = ccore_processor_process(processor, &input, &sample)
        if produced < 0 {
            throw CoreError(code: produced, message: String(cString: ccore_processor_error_message(processor)))
        }
        return FrameSample(sample)
    }

    /// The thumbnail the last frame published, if it published one.
    package func takeThumbnail() -> LumaThumbnail? {
        guard !thumbnailBuffer.isEmpty else { return nil }
        var width: UInt32 = 0, height: UInt32 = 0, sequence: UInt64 = 0
        let got = ccore_processor_take_thumbnail(processor, &thumbnailBuffer, UInt32(thumbnailBuffer.count),
                                                 &width, &height, &sequence)
        guard got == 1 else { return nil }
        return LumaThumbnail(width: Int(width), height: Int(height), sequence: sequence, pixels: thumbnailBuffer)
    }
}
