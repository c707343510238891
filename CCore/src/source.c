/* The capture thread every source shares (frame in -> processor -> ring) and
 * the public lifecycle. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "ccore/error.h"
#include "ccore/preview.h"
#include "source_internal.h"

int64_t ccore_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void ccore_source_config_init(ccore_source_config *c) {
    if (!c) return;
    memset(c, 0, sizeof *c);
    c->width = 640;
    c->height = 480;
    c->fps = 30;
    c->buffer_count = 4;
    c->ring_capacity = 256;
    c->thumbnail_width = 160;
    c->thumbnail_height = 120;
    c->thumbnail_every = 3;
    c->min_roi_pixels = 16;
    c->lock_controls_after_ms = 2000;
    c->realtime = 1;
}

int ccore_source_set_message(ccore_source *src, int code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(src->message, sizeof src->message, fmt, ap);
    va_end(ap);
    return code;
}

ccore_source *ccore_source_alloc(const ccore_source_config *config, const source_ops *ops) {
    ccore_source *src = calloc(1, sizeof *src);
    if (!src) return NULL;
    if (config)
        src->config = *config;
    else
        ccore_source_config_init(&src->config);
    if (src->config.buffer_count < 2) src->config.buffer_count = 2;
    if (src->config.buffer_count > V4L2_MAX_BUFFERS) src->config.buffer_count = V4L2_MAX_BUFFERS;
    if (src->config.ring_capacity < 2) src->config.ring_capacity = 256;
    if (src->config.thumbnail_every == 0) src->config.thumbnail_every = 1;
    if (src->config.fps == 0) src->config.fps = 30;
    src->ops = ops;
    src->fd = -1;
    src->wake_fd = -1;
    src->sample_fd = -1;
    src->ack_fd = -1;
    atomic_init(&src->state, CCORE_SOURCE_OPENED);
    return src;
}

int ccore_source_init_common(ccore_source *src) {
    if (src->format.interval_denominator)
        src->frame_interval_ns =
            (int64_t)src->format.interval_numerator * 1000000000LL / (int64_t)src->format.interval_denominator;
    /* Sizes that follow the negotiated format (see the config's comments). */
    if (src->config.thumbnail_width && !src->config.thumbnail_height)
        ccore_preview_fit(src->format.width, src->format.height, src->config.thumbnail_width,
                          &src->config.thumbnail_width, &src->config.thumbnail_height);
    uint32_t preview_width = 0, preview_height = 0;
    ccore_preview_fit(src->format.width, src->format.height, src->config.preview_size, &preview_width, &preview_height);
    ccore_processor_config pc = {
        .pixel_format = src->pixel_format,
        .is_mjpeg = (uint32_t)src->is_mjpeg,
        .width = src->format.width,
        .height = src->format.height,
        .frame_interval_ns = src->frame_interval_ns,
        .thumbnail_width = src->config.thumbnail_width,
        .thumbnail_height = src->config.thumbnail_height,
        .thumbnail_every = src->config.thumbnail_every,
        .min_roi_pixels = src->config.min_roi_pixels,
        .preview_width = preview_width,
        .preview_height = preview_height,
        .preview_every = src->config.preview_every,
    };
    int rc = ccore_ring_create(sizeof(ccore_frame_sample), src->config.ring_capacity, &src->ring);
    if (rc == 0) rc = ccore_processor_create(&pc, &src->processor);
    if (rc == 0) {
        src->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        src->sample_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        src->ack_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        if (src->wake_fd < 0 || src->sample_fd < 0 || src->ack_fd < 0) rc = -errno;
    }
    if (rc < 0) return ccore_source_set_message(src, rc, "cannot set up the capture pipeline: %s", ccore_error_string(rc));
    return 0;
}

int ccore_source_fail_open(ccore_source *src, int code, char *message, uint32_t message_size) {
    if (message && message_size) snprintf(message, message_size, "%s", src->message);
    ccore_source_destroy(src);
    return code;
}

/* ---- capture thread -------------------------------------------------------- */

/* Wait for room when a file is replayed as fast as possible: a file has no
 * deadline, so it waits for the consumer instead of losing samples. */
static int wait_for_room(ccore_source *src) {
    while (ccore_ring_count(src->ring) >= ccore_ring_capacity(src->ring)) {
        if (atomic_load_explicit(&src->stop_requested, memory_order_relaxed)) return 0;
        struct timespec nap = {0, 500000};
        nanosleep(&nap, NULL);
    }
    return 1;
}

/* Tells the consumer there is something to read: one write to an eventfd,
 * no lock. It can only fail when the counter is about to overflow, and then
 * the consumer has a wake-up pending anyway. */
static void signal_consumer(ccore_source *src) {
    uint64_t one = 1;
    if (write(src->sample_fd, &one, sizeof one) < 0) { /* a wake-up is already pending */ }
}

static int lockstep(const ccore_source *src) { return src->fd < 0 && !src->config.realtime && src->config.lockstep; }

/* Lockstep replays: waits until the consumer has acknowledged every sample
 * pushed so far, or until stop is asked (returns 0 then). */
static int wait_for_ack(ccore_source *src) {
    while (atomic_load_explicit(&src->acked, memory_order_acquire) < src->pushed) {
        if (atomic_load_explicit(&src->stop_requested, memory_order_acquire)) return 0;
        struct pollfd fds[2] = {{.fd = src->ack_fd, .events = POLLIN}, {.fd = src->wake_fd, .events = POLLIN}};
        if (poll(fds, 2, 100) > 0 && (fds[0].revents & POLLIN)) {
            uint64_t n;
            if (read(src->ack_fd, &n, sizeof n) < 0) { /* spurious: check the count again */ }
        }
    }
    return 1;
}

/* Runs the per-frame path and delivers the sample; negative only when the
 * source treats the frame's failure as fatal. */
static int deliver(ccore_source *src, const source_frame *f) {
    ccore_frame_sample s;
    int rc = ccore_processor_process(src->processor, &f->frame, &s);
    if (rc < 0)
        return src->ops->decode_errors_fatal
                   ? ccore_source_set_message(src, rc, "%s", ccore_processor_error_message(src->processor))
                   : 0;
    if (rc == 0) return 0;
    if (atomic_load_explicit(&src->controls_locked, memory_order_relaxed)) s.flags |= CCORE_SAMPLE_CONTROLS_LOCKED;
    if (src->fd < 0 && !src->config.realtime && !wait_for_room(src)) return 0;
    s.processed_ns = ccore_now_ns();
    if (ccore_ring_push(src->ring, &s)) {
        atomic_fetch_add_explicit(&src->samples, 1, memory_order_relaxed);
        src->pushed++;
        signal_consumer(src);
        if (lockstep(src)) wait_for_ack(src);
    } else {
        ccore_processor_sample_lost(src->processor, &s);
        atomic_fetch_add_explicit(&src->overflows, 1, memory_order_relaxed);
    }
    return 0;
}

static void lock_controls_when_settled(ccore_source *src) {
    if (src->fd < 0 || src->config.lock_controls_after_ms == 0 ||
        atomic_load_explicit(&src->controls_locked, memory_order_relaxed))
        return;
    if (atomic_load_explicit(&src->samples, memory_order_relaxed) == 0 ||
        ccore_now_ns() - src->stream_start_ns < (int64_t)src->config.lock_controls_after_ms * 1000000LL)
        return;
    /* Done once; a device without automatic controls counts as locked too. */
    ccore_controls_lock_auto(src->fd, &src->lock);
    atomic_store_explicit(&src->controls_locked, 1, memory_order_relaxed);
}

static void finish(ccore_source *src, int state, int error) {
    atomic_store_explicit(&src->error, error, memory_order_relaxed);
    atomic_store_explicit(&src->state, state, memory_order_release);
    signal_consumer(src);
}

/* The name `top`, `perf` and /proc show for the thread (at most 15 characters). */
#define CAPTURE_THREAD_NAME "ccore-capture"

static void *capture_thread(void *arg) {
    ccore_source *src = arg;
    pthread_setname_np(pthread_self(), CAPTURE_THREAD_NAME);
    while (!atomic_load_explicit(&src->stop_requested, memory_order_acquire)) {
        source_frame f;
        int rc = src->ops->next_frame(src, &f);
        if (rc == -EAGAIN) continue;
        if (rc == CCORE_E_END) {
            finish(src, CCORE_SOURCE_FINISHED, 0);
            return NULL;
        }
        if (rc < 0) {
            finish(src, CCORE_SOURCE_FAILED, rc);
            return NULL;
        }
        int prc = deliver(src, &f);
        int rrc = src->ops->release_frame ? src->ops->release_frame(src, &f) : 0;
        if (prc < 0 || rrc < 0) {
            finish(src, CCORE_SOURCE_FAILED, prc < 0 ? prc : rrc);
            return NULL;
        }
        lock_controls_when_settled(src);
    }
    return NULL;
}

/* ---- public lifecycle ------------------------------------------------------ */

int ccore_source_start(ccore_source *src) {
    if (!src) return -EINVAL;
    if (atomic_load(&src->state) != CCORE_SOURCE_OPENED || src->thread_started)
        return ccore_source_set_message(src, CCORE_E_STATE, "start: the source was already started");
    int rc = src->ops->start(src);
    if (rc < 0) return rc;
    atomic_store(&src->state, CCORE_SOURCE_RUNNING);
    rc = pthread_create(&src->thread, NULL, capture_thread, src);
    if (rc != 0) {
        src->ops->stop(src);
        atomic_store(&src->state, CCORE_SOURCE_FAILED);
        return ccore_source_set_message(src, -rc, "cannot start the capture thread: %s", strerror(rc));
    }
    src->thread_started = 1;
    return 0;
}

int ccore_source_stop(ccore_source *src) {
    if (!src) return -EINVAL;
    if (src->thread_started) {
        atomic_store_explicit(&src->stop_requested, 1, memory_order_release);
        uint64_t one = 1;
        if (src->wake_fd >= 0 && write(src->wake_fd, &one, sizeof one) < 0) { /* the poll timeout still ends it */ }
        pthread_join(src->thread, NULL);
        src->thread_started = 0;
    }
    src->ops->stop(src);
    int state = atomic_load(&src->state);
    if (state == CCORE_SOURCE_RUNNING || state == CCORE_SOURCE_OPENED) atomic_store(&src->state, CCORE_SOURCE_STOPPED);
    if (src->sample_fd >= 0) signal_consumer(src); /* a waiting consumer sees the stop */
    return 0;
}

void ccore_source_destroy(ccore_source *src) {
    if (!src) return;
    ccore_source_stop(src);
    src->ops->close(src);
    if (src->wake_fd >= 0) close(src->wake_fd);
    if (src->sample_fd >= 0) close(src->sample_fd);
    if (src->ack_fd >= 0) close(src->ack_fd);
    ccore_processor_destroy(src->processor);
    ccore_ring_destroy(src->ring);
    free(src);
}

ccore_ring *ccore_source_ring(ccore_source *src) { return src ? src->ring : NULL; }

int ccore_source_set_rois(ccore_source *src, const ccore_roi_set *rois) {
    if (!src) return -EINVAL;
    int rc = ccore_processor_set_rois(src->processor, rois);
    if (rc < 0) return ccore_source_set_message(src, rc, "invalid ROI set: at most %d rectangles with finite, positive size",
                                                CCORE_MAX_ROIS);
    return 0;
}

int ccore_source_take_thumbnail(ccore_source *src, uint8_t *dst, uint32_t dst_size, uint32_t *width,
                                uint32_t *height, uint64_t *sequence) {
    if (!src) return -EINVAL;
    return ccore_processor_take_thumbnail(src->processor, dst, dst_size, width, height, sequence);
}

int ccore_source_sample_fd(const ccore_source *src) { return src ? src->sample_fd : -1; }

int ccore_source_ack(ccore_source *src) {
    if (!src) return -EINVAL;
    if (!lockstep(src)) return 0;
    atomic_fetch_add_explicit(&src->acked, 1, memory_order_release);
    uint64_t one = 1;
    if (write(src->ack_fd, &one, sizeof one) < 0) { /* a wake-up is already pending */ }
    return 0;
}

int ccore_source_set_stage_timing(ccore_source *src, int on) {
    if (!src) return -EINVAL;
    ccore_processor_set_stage_timing(src->processor, on);
    return 0;
}

int ccore_source_set_preview(ccore_source *src, int on) {
    if (!src) return -EINVAL;
    ccore_processor_set_preview(src->processor, on);
    return 0;
}

int ccore_source_set_preview_shape(ccore_source *src, uint32_t max_side, uint32_t every) {
    if (!src || max_side == 0 || every == 0) return -EINVAL;
    uint32_t width = 0, height = 0, limit_width = 0, limit_height = 0;
    ccore_preview_fit(src->format.width, src->format.height, max_side, &width, &height);
    ccore_preview_fit(src->format.width, src->format.height, src->config.preview_size, &limit_width, &limit_height);
    if (width > limit_width || height > limit_height) {
        width = limit_width;
        height = limit_height;
    }
    return ccore_processor_set_preview_shape(src->processor, width, height, every);
}

int ccore_source_take_preview(ccore_source *src, uint8_t *dst, uint32_t dst_size, uint32_t *width, uint32_t *height,
                              uint64_t *sequence) {
    if (!src) return -EINVAL;
    return ccore_processor_take_preview(src->processor, dst, dst_size, width, height, sequence);
}

void ccore_source_get_stats(const ccore_source *csrc, ccore_source_stats *out) {
    ccore_source *src = (ccore_source *)csrc;
    if (!out) return;
    memset(out, 0, sizeof *out);
    if (!src) {
        out->state = CCORE_SOURCE_FAILED;
        out->error = -EINVAL;
        return;
    }
    out->state = atomic_load_explicit(&src->state, memory_order_acquire);
    out->error = atomic_load_explicit(&src->error, memory_order_relaxed);
    ccore_processor_counters c = {0};
    if (src->processor) ccore_processor_get_counters(src->processor, &c);
    out->frames = c.frames;
    out->dropped = c.dropped;
    out->dropped_by_timestamp = c.dropped_by_timestamp;
    out->error_frames = c.error_frames;
    out->box_decodes = c.box_decodes;
    out->samples = atomic_load_explicit(&src->samples, memory_order_relaxed);
    out->ring_overflows = atomic_load_explicit(&src->overflows, memory_order_relaxed);
    out->controls_locked = atomic_load_explicit(&src->controls_locked, memory_order_relaxed);
}

void ccore_source_get_format(const ccore_source *src, ccore_stream_format *out) {
    if (!out) return;
    if (src)
        *out = src->format;
    else
        memset(out, 0, sizeof *out);
}

const char *ccore_source_error_message(const ccore_source *src) { return src ? src->message : ""; }

int ccore_source_fd(const ccore_source *src) { return src ? src->fd : -1; }
