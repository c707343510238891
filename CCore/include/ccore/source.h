/* A frame source: a V4L2 camera or a video file, each driven by its own
 * capture thread that turns every frame into a ccore_frame_sample.
 *
 * Per frame the thread works on the frame in place (the mmap'ed driver
 * buffer, or the file reader's buffer), decodes MJPEG at a reduced scale,
 * measures the published ROIs, publishes a luma thumbnail every k-th frame
 * and pushes the sample into the SPSC ring. It allocates nothing, takes no
 * lock and makes no system call but the V4L2 ones (or file reads, for files).
 *
 * Lifecycle: open -> start -> (samples flow) -> stop -> destroy. Stop and
 * destroy are safe on every path, including after a failure. */
#ifndef CCORE_SOURCE_H
#define CCORE_SOURCE_H

#include <stdint.h>

#include "image.h"
#include "ring.h"
#include "sample.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ccore_source ccore_source;

typedef struct {
    /** Requested frame size; the driver may adjust it (read it back). */
    uint32_t width;
    uint32_t height;
    /** Requested frame rate. For MJPEG files, the rate of the stream. */
    uint32_t fps;
    /** V4L2 fourcc to force ('YUYV', 'MJPG', ...); 0 = choose automatically. */
    uint32_t fourcc;
    /** mmap buffers to request (the driver may grant more). */
    uint32_t buffer_count;
    /** Ring capacity in samples (rounded up to a power of two). */
    uint32_t ring_capacity;
    /** Thumbnail size for the face detector; 0 disables thumbnails. With
     *  thumbnail_height 0 the thumbnail fits a thumbnail_width square at the
     *  negotiated frame's aspect ratio (a camera may settle on another size
     *  than asked, a file may be portrait). */
    uint32_t thumbnail_width;
    uint32_t thumbnail_height;
    /** Publish a thumbnail every k-th frame. */
    uint32_t thumbnail_every;
    /** Smallest ROI side, in decoded pixels, an MJPEG decode scale may leave. */
    uint32_t min_roi_pixels;
    /** Lock auto exposure / gain / white balance after this many ms of
     *  streaming; 0 = never touch them. Restored on stop. */
    uint32_t lock_controls_after_ms;
    /** Power-line frequency to set (50 or 60); 0 = leave as is. */
    uint32_t power_line_hz;
    /** Files: 1 = release frames at the stream's frame rate, 0 = as fast as
     *  the consumer drains them (the ring then applies back-pressure instead
     *  of overflowing, so a file replay never loses a sample). */
    uint32_t realtime;
    /** Files replayed with realtime = 0: the capture thread hands over one
     *  sample and waits until the consumer calls ccore_source_ack before it
     *  reads the next frame, so regions published while handling sample n
     *  apply exactly from frame n + 1 (a replay gives the same result every
     *  time). Ignored for cameras and realtime replays. */
    uint32_t lockstep;
    /** RGB preview (imageOutput): fits a preview_size square at the frame's
     *  aspect ratio, every preview_every-th frame, while switched on with
     *  ccore_source_set_preview; 0 = no preview. */
    uint32_t preview_size;
    uint32_t preview_every;
} ccore_source_config;

/** Sensible defaults: 640x480 at 30 fps, automatic format, 4 buffers, ring
 *  of 256, 160x120 thumbnail every 3rd frame, lock controls after 2 s, no
 *  lockstep, no preview. */
void ccore_source_config_init(ccore_source_config *config);

typedef enum {
    CCORE_SOURCE_OPENED = 0,
    CCORE_SOURCE_RUNNING = 1,
    /** A file source delivered all its frames. */
    CCORE_SOURCE_FINISHED = 2,
    CCORE_SOURCE_STOPPED = 3,
    /** Streaming ended with an error (see error / error message). */
    CCORE_SOURCE_FAILED = 4,
} ccore_source_state;

typedef struct {
    ccore_source_state state;
    /** The error that ended streaming, 0 if none. */
    int32_t error;
    /** Frames received from the driver or file (including flagged ones). */
    uint64_t frames;
    /** Samples pushed into the ring. */
    uint64_t samples;
    /** Frames the driver dropped (sequence and timestamp gaps). */
    uint64_t dropped;
    /** Frames skipped as flagged (V4L2_BUF_FLAG_ERROR) or undecodable. */
    uint64_t error_frames;
    /** Samples the ring refused because it was full. */
    uint64_t ring_overflows;
    /** 1 once exposure / gain / white balance are locked. */
    uint32_t controls_locked;
    uint32_t reserved;
    /** Of `dropped`, the frames counted from timestamp gaps (the driver's
     *  sequence showed none); the rest were counted from sequence gaps. */
    uint64_t dropped_by_timestamp;
    /** MJPEG frames decoded from the rows they needed on, by the camera's
     *  restart markers, rather than from their top (ccore_jpeg_decode_part). */
    uint64_t box_decodes;
} ccore_source_stats;

/** What was negotiated (cameras) or read from the header (files). */
typedef struct {
    /** The device's (or file's) fourcc, e.g. 'NM12' for two-buffer NV12 or 'BA81' for Bayer. */
    uint32_t fourcc;
    /** What the kernels read: CCORE_PIXEL_NONE for MJPEG, CCORE_PIXEL_RGB24 for the
     *  formats converted through libv4lconvert, the layout (NV12 for NM12, ...) otherwise. */
    ccore_pixel_format pixel_format;
    uint32_t width;
    uint32_t height;
    /** The driver's bytesperline of the first (luma or only) plane; it may exceed a row. */
    uint32_t bytes_per_line;
    uint32_t interval_numerator;
    uint32_t interval_denominator;
    uint32_t buffer_count;
    /** Frames in a file, 0 when unknown or for cameras. */
    uint64_t frame_count;
} ccore_stream_format;

/** Bytes that hold any message a source writes whole (an access denial names
 *  the path and the udev rule, see CCORE_ACCESS_REASON_SIZE): pass a buffer of
 *  this size to the open calls. A smaller one gets the message cut short. */
#define CCORE_SOURCE_MESSAGE_SIZE 1280

/** Opens a V4L2 capture node (single- or multi-planar API): checks capabilities, negotiates format and
 *  frame interval, requests and maps the buffers (every plane). Formats the
 *  kernels read in place (YUYV, NV12/NV12M, YUV420/YUV420M, YUV422P/YUV422M,
 *  RGB24, GREY; rows padded to any bytesperline) stay zero-copy; MJPEG is
 *  decoded at a reduced scale; Bayer and the other formats libv4lconvert
 *  knows are converted to RGB24 into one buffer allocated here (their
 *  ccore_stream_format reports the device's fourcc with pixel format RGB24).
 *  Errors: -ENOENT (no node),
 *  -EACCES (no permission), -EBUSY (another process streams it),
 *  CCORE_E_NOT_CAPTURE, CCORE_E_NO_FORMAT, or the failing ioctl's -errno.
 *  On error *out is NULL and, if `message` is non-NULL, a description is
 *  written there (up to message_size bytes). */
int ccore_source_open_device(const char *path, const ccore_source_config *config, ccore_source **out,
                             char *message, uint32_t message_size);

/** Opens a Y4M file (4:2:0, 4:2:2, 4:4:4 or mono, 8-bit) or a raw MJPEG
 *  stream (concatenated JPEG images, frame rate from config->fps). The kind
 *  is detected from the content. Errors as ccore_source_open_device plus
 *  CCORE_E_CORRUPT / CCORE_E_TRUNCATED / CCORE_E_UNSUPPORTED for bad headers. */
int ccore_source_open_file(const char *path, const ccore_source_config *config, ccore_source **out,
                           char *message, uint32_t message_size);

/** Starts streaming and the capture thread (named "ccore-capture", as `top -H` shows it). */
int ccore_source_start(ccore_source *source);

/** Stops the thread and streaming, restores locked controls. Idempotent. */
int ccore_source_stop(ccore_source *source);

/** Stops if needed, unmaps buffers, closes the device. NULL is fine. */
void ccore_source_destroy(ccore_source *source);

/** The ring the samples arrive in (the caller is its single consumer). */
ccore_ring *ccore_source_ring(ccore_source *source);

/** Publishes a new ROI set to the capture thread (single publisher). */
int ccore_source_set_rois(ccore_source *source, const ccore_roi_set *rois);

/** Copies the newest luma thumbnail, if one was published since the last
 *  call, into `dst` (at least width*height bytes) and returns 1; returns 0
 *  when there is nothing new. `sequence` gets the frame's sequence number. */
int ccore_source_take_thumbnail(ccore_source *source, uint8_t *dst, uint32_t dst_size, uint32_t *width,
                                uint32_t *height, uint64_t *sequence);

/** A file descriptor (eventfd) that becomes readable when samples arrive in
 *  the ring or the source finishes or fails: a consumer waits on it (poll,
 *  epoll, a dispatch source) instead of polling the ring. Reading it resets
 *  it; drain the ring after each wake-up. Owned by the source. */
int ccore_source_sample_fd(const ccore_source *source);

/** Lockstep replays: the consumer is done with the sample it popped last; the
 *  capture thread may read the next frame. A no-op for other sources. */
int ccore_source_ack(ccore_source *source);

/** Switches stage timing on or off (off at open): while on, each sample
 *  carries dequeued_ns, decode_ns, kernels_ns and thumbnail_ns (see
 *  ccore_frame_sample) for a latency profiler; while off the capture thread
 *  does not read the clock for them. Any thread, any time. */
int ccore_source_set_stage_timing(ccore_source *source, int on);

/** Switches the RGB preview on or off (needs preview_size at open). */
int ccore_source_set_preview(ccore_source *source, int on);

/** Any thread: from the next frame, previews fitted to a `max_side` square
 *  (never larger than the preview_size square given at open) every `every`-th
 *  frame; the sizes are reported by ccore_source_take_preview. -EINVAL for a
 *  zero argument or a source opened without a preview. */
int ccore_source_set_preview_shape(ccore_source *source, uint32_t max_side, uint32_t every);

/** Draws the newest RGB24 preview published since the last call into `dst`
 *  (at least width*height*3 bytes) and returns 1; 0 when there is nothing new.
 *  The conversion runs on the calling thread, not the capture thread. */
int ccore_source_take_preview(ccore_source *source, uint8_t *dst, uint32_t dst_size, uint32_t *width,
                              uint32_t *height, uint64_t *sequence);

void ccore_source_get_stats(const ccore_source *source, ccore_source_stats *out);
void ccore_source_get_format(const ccore_source *source, ccore_stream_format *out);

/** Detail of the last error (opening, streaming or a control call). */
const char *ccore_source_error_message(const ccore_source *source);

/** The V4L2 file descriptor, -1 for file sources (for controls and tests). */
int ccore_source_fd(const ccore_source *source);

#ifdef __cplusplus
}
#endif
#endif
