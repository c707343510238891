import CCore

/// What the core's file reader makes of a video file's header, without reading a frame.
package enum VideoFileHeader {
    /// The frame rate the reader plays a Y4M file at (its header's F, 30 without one); nil
    /// for anything it would not open as Y4M: MJPEG, a missing or malformed file, a FIFO
    /// or a device (the reader never blocks on those, it refuses them).
    package static func y4mFrameRate(path: String) -> Double? {
        var file: OpaquePointer?
        guard ccore_videofile_open(path, 30, &file, nil, 0) == 0, let file else { return nil }
        defer { ccore_videofile_close(file) }
        var info = ccore_videofile_info()
        ccore_videofile_get_info(file, &info)
        guard info.kind == CCORE_VIDEOFILE_Y4M, info.fps_denominator > 0 else { return nil }
        return Double(info.fps_numerator) / Double(info.fps_denominator)
    }
}
