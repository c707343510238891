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
    private var thumbnailCapacity = 0

    /// `fps` is the frame rate of a raw MJPEG stream (Y4M files carry theirs).
    /// A luma thumbnail of every `thumbnailEvery`-th frame (for the face detector and
    /// the quality monitor, `takeThumbnail()`) is `thumbnailWidth` wide at the frame's
    /// aspect ratio, never larger than the frame; 0 makes none.
    package init(path: String, fps: UInt32 = 30, thumbnailWidth: Int = 320, thumbnailEvery: Int = 6)
        throws(CoreError) {
        guard thumbnailWidth >= 0, thumbnailEvery >= 1 else {
            throw CoreError(code: -22, message: "thumbnail width must be >= 0 and its period >= 1 frame, got "
                + "\(thumbnailWidth) every \(thumbnailEvery)")
        }
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
        if thumbnailWidth > 0, info.width >= 2, info.height >= 2 {
            let w = min(thumbnailWidth, Int(info.width))
            let h = min(Int(info.height), max(2, Int((Double(w) * Double(info.height) / Double(info.width)).rounded())))
            config.thumbnail_width = UInt32(w)
            config.thumbnail_height = UInt32(h)
            config.thumbnail_every = UInt32(thumbnailEvery)
        }
        var made: OpaquePointer?
        let created = ccore_processor_create(&config, &made)
        guard created == 0, let made else {
            ccore_videofile_close(handle)
            throw CoreError(code: created, message: "cannot set up the per-frame processor")
        }
        file = handle
        processor = made
        thumbnailCapacity = Int(config.thumbnail_width) * Int(config.thumbnail_height)
        width = Int(info.width)
        height = Int(info.height)
        framesPerSecond = info.fps_numerator == 0 ? 0 : Double(info.fps_numerator) / Double(info.fps_denominator)
    }

    deinit {
        ccore_processor_destroy(processor)
        ccore_videofile_close(file)
    }

    /// The newest thumbnail made since the last call (it belongs to the frame its
    /// `sequence` names, i.e. the sample of the same sequence), nil when there is none.
    package func takeThumbnail() -> LumaThumbnail? {
        guard thumbnailCapacity > 0 else { return nil }
        var pixels = [UInt8](repeating: 0, count: thumbnailCapacity)
        var width: UInt32 = 0, height: UInt32 = 0, sequence: UInt64 = 0
        let got = ccore_processor_take_thumbnail(processor, &pixels, UInt32(pixels.count), &width, &height, &sequence)
        guard got == 1 else { return nil }
        return LumaThumbnail(width: Int(width), height: Int(height), sequence: sequence, pixels: pixels)
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
}
