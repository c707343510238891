/* What the common capture loop (source.c) needs from a concrete source: a
 * V4L2 device (source_v4l2.c) or a video file (source_file.c). */
#ifndef CCORE_SOURCE_INTERNAL_H
#define CCORE_SOURCE_INTERNAL_H

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>

#include "ccore/controls.h"
#include "ccore/processor.h"
#include "ccore/source.h"
#include "ccore/videofile.h"

/* One frame handed from a source to the common per-frame path. */
typedef struct {
    ccore_frame frame;
    uint32_t buffer_index; /* V4L2 buffer to requeue */
} source_frame;

typedef struct {
    int (*start)(ccore_source *src);
    /* 0 with a frame; -EAGAIN when there is none yet (or stop was asked);
     * CCORE_E_END at the end of a file; any other negative code is fatal. */
    int (*next_frame)(ccore_source *src, source_frame *frame);
    int (*release_frame)(ccore_source *src, const source_frame *frame);
    void (*stop)(ccore_source *src);
    void (*close)(ccore_source *src);
    /* Undecodable frames: skipped and counted (cameras) or fatal (files). */
    int decode_errors_fatal;
} source_ops;

#define V4L2_MAX_BUFFERS 16
/* Memory planes per buffer the core maps (NV12M: 2, YUV420M / YUV422M: 3). */
#define V4L2_MAX_PLANES 3

struct ccore_v4l2_converter;

struct ccore_source {
    const source_ops *ops;
    ccore_source_config config;
    ccore_stream_format format;
    int is_mjpeg;
    ccore_pixel_format pixel_format;
    ccore_color_range range;
    int64_t frame_interval_ns;

    ccore_ring *ring;
    ccore_processor *processor;

    pthread_t thread;
    int thread_started;
    int wake_fd;   /* eventfd that interrupts the capture thread's poll on stop */
    int sample_fd; /* eventfd the capture thread signals for the consumer */
    int ack_fd;    /* eventfd the consumer signals in lockstep replays */
    _Atomic uint64_t acked;
    _Atomic int stop_requested;
    _Atomic int state;
    _Atomic int error;
    _Atomic uint64_t samples, overflows;
    uint64_t pushed; /* capture thread only */
    _Atomic uint32_t controls_locked;

    /* V4L2 */
    int fd;
    uint32_t buf_type;    /* V4L2_BUF_TYPE_VIDEO_CAPTURE or V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE */
    uint32_t plane_count; /* memory planes per buffer: 1, or one per image plane for the M formats */
    uint32_t plane_bpl[V4L2_MAX_PLANES];
    uint32_t plane_size[V4L2_MAX_PLANES]; /* sizeimage of each memory plane */
    uint32_t buffer_count;
    void *buffer_start[V4L2_MAX_BUFFERS][V4L2_MAX_PLANES];
    size_t buffer_length[V4L2_MAX_BUFFERS][V4L2_MAX_PLANES];
    struct ccore_v4l2_converter *converter; /* non-native formats, NULL for zero-copy ones */
    int streaming;
    int64_t stream_start_ns;
    ccore_auto_lock lock;

    /* Files */
    ccore_videofile *file;
    int64_t file_start_ns;

    /* Written by one thread before it publishes `state` (release), read after. */
    char message[CCORE_SOURCE_MESSAGE_SIZE];
};

/* Allocates the common parts (ring, mailboxes, decoder) once the format is known. */
int ccore_source_init_common(ccore_source *src);
ccore_source *ccore_source_alloc(const ccore_source_config *config, const source_ops *ops);
int ccore_source_fail_open(ccore_source *src, int code, char *message, uint32_t message_size);
int ccore_source_set_message(ccore_source *src, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int64_t ccore_now_ns(void);

extern const source_ops ccore_v4l2_ops;
extern const source_ops ccore_file_ops;

#endif
