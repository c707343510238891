/* Replay of a recorded video through the same per-frame path as a camera,
 * paced at the stream's frame rate or as fast as the consumer drains it. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "ccore/error.h"
#include "source_internal.h"

int ccore_source_open_file(const char *path, const ccore_source_config *config, ccore_source **out, char *message,
                           uint32_t message_size) {
    if (!path || !out) return -EINVAL;
    *out = NULL;
    ccore_source *src = ccore_source_alloc(config, &ccore_file_ops);
    if (!src) return -ENOMEM;
    int rc = ccore_videofile_open(path, src->config.fps, &src->file, src->message, sizeof src->message);
    if (rc < 0) return ccore_source_fail_open(src, rc, message, message_size);
    ccore_videofile_info info;
    ccore_videofile_get_info(src->file, &info);
    src->is_mjpeg = info.kind == CCORE_VIDEOFILE_MJPEG;
    src->pixel_format = info.pixel_format;
    src->range = info.range;
    src->format.fourcc = src->is_mjpeg ? 0x47504a4d /* 'MJPG' */ : 0;
    src->format.pixel_format = info.pixel_format;
    src->format.width = info.width;
    src->format.height = info.height;
    src->format.interval_numerator = info.fps_denominator;
    src->format.interval_denominator = info.fps_numerator;
    if ((rc = ccore_source_init_common(src)) < 0) return ccore_source_fail_open(src, rc, message, message_size);
    *out = src;
    return 0;
}

static int file_start(ccore_source *src) {
    src->file_start_ns = ccore_now_ns();
    return 0;
}

/* Sleeps until `deadline`, or until a stop request, which writes wake_fd
 * (ccore_source_stop). One wake-up a frame: sleeping in fixed slices to look
 * for a stop woke an idle core a second time each frame, for nothing. */
static int sleep_until(ccore_source *src, int64_t deadline) {
    for (;;) {
        if (atomic_load_explicit(&src->stop_requested, memory_order_acquire)) return -EAGAIN;
        int64_t left = deadline - ccore_now_ns();
        if (left <= 0) return 0;
        struct timespec wait = {(time_t)(left / 1000000000), (long)(left % 1000000000)};
        struct pollfd stop = {.fd = src->wake_fd, .events = POLLIN};
        ppoll(&stop, 1, &wait, NULL);
    }
}

static int file_next_frame(ccore_source *src, source_frame *sf) {
    ccore_videofile_frame vf;
    int rc = ccore_videofile_next(src->file, &vf);
    if (rc == CCORE_E_END) return rc;
    if (rc < 0) return ccore_source_set_message(src, rc, "%s", ccore_videofile_error_message(src->file));
    /* Frame i is stamped as if captured at start + i intervals, on the same clock as camera buffers. */
    int64_t ts = src->file_start_ns + (int64_t)vf.index * src->frame_interval_ns;
    if (src->config.realtime && sleep_until(src, ts) < 0) return -EAGAIN;
    memset(sf, 0, sizeof *sf);
    ccore_frame *f = &sf->frame;
    f->sequence = vf.index;
    f->timestamp_ns = ts;
    f->image = vf.image;
    f->jpeg = vf.jpeg;
    f->jpeg_size = vf.jpeg_size;
    return 0;
}

static void file_stop(ccore_source *src) { (void)src; }

static void file_close(ccore_source *src) {
    ccore_videofile_close(src->file);
    src->file = NULL;
}

const source_ops ccore_file_ops = {
    .start = file_start,
    .next_frame = file_next_frame,
    .release_frame = NULL,
    .stop = file_stop,
    .close = file_close,
    .decode_errors_fatal = 1,
};
