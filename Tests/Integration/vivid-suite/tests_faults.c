/* vivid's fault injection: dropped buffers, flagged buffers, failing ioctls, a fatal
 * queue error and a disconnect. Each control is set with raw V4L2 calls on the capture
 * node (on the core's own descriptor when the fault must hit a running stream). */
#include "suite.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/videodev2.h>

/* Everything popped from a source, for exact bookkeeping against its stats. */
typedef struct {
    ccore_frame_sample *samples;
    uint32_t count, capacity;
    uint64_t popped, dropped, errors, overflows;
} tally;

static void tally_add(tally *t, const ccore_frame_sample *s) {
    t->popped++;
    t->dropped += s->dropped_before;
    t->errors += s->errors_before;
    t->overflows += s->overflow_before;
    if (t->count < t->capacity) t->samples[t->count++] = *s;
}

/* Pops until `want` more samples were kept, the source leaves RUNNING, or the timeout. */
static uint32_t tally_collect(ccore_source *src, tally *t, uint32_t want, int timeout_ms) {
    ccore_ring *ring = ccore_source_ring(src);
    uint32_t got = 0;
    int64_t deadline = now_ns() + (int64_t)timeout_ms * 1000000LL;
    ccore_frame_sample s;
    while (got < want && now_ns() < deadline) {
        if (ccore_ring_pop(ring, &s)) {
            tally_add(t, &s);
            got++;
            continue;
        }
        ccore_source_stats st;
        ccore_source_get_stats(src, &st);
        if (st.state != CCORE_SOURCE_RUNNING) break;
        sleep_ms(2);
    }
    return got;
}

static void tally_drain(ccore_source *src, tally *t) {
    ccore_frame_sample s;
    while (ccore_ring_pop(ccore_source_ring(src), &s)) tally_add(t, &s);
}

static int64_t period_of(ccore_source *src) {
    ccore_stream_format f;
    ccore_source_get_format(src, &f);
    return f.interval_denominator ? (int64_t)f.interval_numerator * 1000000000LL / f.interval_denominator : 1;
}

/* Every sample's sequence jump is explained by its dropped/error counters. */
static int check_gaps(const tally *t, uint32_t from, int64_t period, char *reason, size_t reason_size) {
    gap_report rep;
    if (check_sample_gaps(t->samples + from, t->count - from, period, &rep, reason, reason_size)) return 1;
    info("%u samples: %llu frames missing by sequence; consecutive frames up to %.2f intervals apart; %u repeated "
         "sequence numbers, %u gaps counted by timestamp where vivid's jiffies-based sequence lagged",
         t->count - from, (unsigned long long)rep.gaps, rep.max_contiguous_spacing, rep.duplicates,
         rep.clock_disagreements);
    return 0;
}


/* Stats after stop agree exactly with the samples that were popped. */
static int check_totals(ccore_source *src, const tally *t, char *reason, size_t reason_size) {
    ccore_source_stats st;
    ccore_source_get_stats(src, &st);
    if (st.dropped != t->dropped)
        FAILF("stats.dropped %llu, but the samples' dropped_before add up to %llu", (unsigned long long)st.dropped,
              (unsigned long long)t->dropped);
    if (st.error_frames != t->errors)
        FAILF("stats.error_frames %llu, but the samples' errors_before add up to %llu",
              (unsigned long long)st.error_frames, (unsigned long long)t->errors);
    if (st.samples != t->popped || st.ring_overflows != 0)
        FAILF("stats.samples %llu (overflows %llu), %llu samples popped", (unsigned long long)st.samples,
              (unsigned long long)st.ring_overflows, (unsigned long long)t->popped);
    if (st.frames != st.samples + st.error_frames + st.ring_overflows)
        FAILF("frames %llu != samples %llu + error frames %llu + overflows %llu", (unsigned long long)st.frames,
              (unsigned long long)st.samples, (unsigned long long)st.error_frames,
              (unsigned long long)st.ring_overflows);
    return 0;
}

static int open_and_start(uint32_t w, uint32_t h, uint32_t fps, ccore_source **out, char *reason, size_t reason_size) {
    ccore_source_config cfg;
    test_config(&cfg, V4L2_PIX_FMT_YUYV, w, h, fps);
    char msg[256] = "";
    *out = NULL;
    int r = ccore_source_open_device(g_nodes.capture, &cfg, out, msg, sizeof msg);
    if (r != 0) FAILF("open YUYV %ux%u: %s: %s", w, h, ccore_error_name(r), msg);
    r = ccore_source_start(*out);
    if (r != 0) {
        snprintf(reason, reason_size, "start: %s: %s", ccore_error_name(r), ccore_source_error_message(*out));
        ccore_source_destroy(*out);
        *out = NULL;
        return 1;
    }
    return 0;
}

/* ------------------------------------------------------------------ dropped buffers */

/* Fraction of sequence numbers missing from samples [from, to). */
static double missing_fraction(const tally *t, uint32_t from, uint32_t to, uint64_t *gaps, uint64_t *span) {
    *gaps = 0;
    *span = t->samples[to - 1].sequence - t->samples[from].sequence;
    for (uint32_t i = from + 1; i < to; i++)
        if (t->samples[i].sequence > t->samples[i - 1].sequence)
            *gaps += t->samples[i].sequence - t->samples[i - 1].sequence - 1;
    return *span ? (double)*gaps / (double)*span : 0.0;
}

int test_fault_dropped_buffers(char *reason, size_t reason_size) {
    enum { BASE = 150, WANT = 600, PERCENT = 30 };
    static ccore_frame_sample buf[2 * BASE + WANT + 256];
    tally t = {.samples = buf, .capacity = sizeof buf / sizeof buf[0]};
    ccore_source *src = NULL;
    int failed = 0;
    /* 320x180 is the size vivid's webcam input offers at 60 fps. */
    if (open_and_start(320, 180, 60, &src, reason, reason_size)) return 1;
    int64_t period = period_of(src);
    int fd = ccore_source_fd(src);
    uint32_t id = 0, type = 0;
    if (raw_control_find(fd, "percentage_of_dropped_buffers", &id, &type) != 0)
        FAILGO(out, "vivid has no percentage_of_dropped_buffers control");

    /* Baselines before and after: what the guest drops by itself (vivid skips the ticks
     * it runs late for, which under QEMU's TCG depends on the host's load). */
    uint32_t got = tally_collect(src, &t, BASE, 30000);
    if (got < BASE) FAILGO(out, "baseline: %u of %d samples", got, BASE);
    if (check_gaps(&t, 0, period, reason, reason_size)) {
        failed = 1;
        goto out;
    }
    uint64_t b1_gaps, b1_span;
    double b1 = missing_fraction(&t, 0, t.count, &b1_gaps, &b1_span);

    int r = raw_control_set_id(fd, id, type, PERCENT);
    if (r < 0) FAILGO(out, "setting percentage_of_dropped_buffers=%d: %s", PERCENT, strerror(-r));
    /* Let a few ticks pass so that every frame in the window was produced under the new rate. */
    sleep_ms(100);
    tally_drain(src, &t);
    uint32_t from = t.count;
    got = tally_collect(src, &t, WANT, 60000);
    raw_control_set_id(fd, id, type, 0);
    if (got < WANT) FAILGO(out, "only %u of %d samples with %d%% drops", got, WANT, PERCENT);
    if (check_gaps(&t, from, period, reason, reason_size)) {
        failed = 1;
        goto out;
    }
    uint64_t gaps, span;
    double observed = missing_fraction(&t, from, t.count, &gaps, &span);

    sleep_ms(100);
    tally_drain(src, &t);
    uint32_t from2 = t.count;
    got = tally_collect(src, &t, BASE, 30000);
    if (got < BASE) FAILGO(out, "second baseline: %u of %d samples", got, BASE);
    if (check_gaps(&t, from2, period, reason, reason_size)) {
        failed = 1;
        goto out;
    }
    uint64_t b2_gaps, b2_span;
    double b2 = missing_fraction(&t, from2, t.count, &b2_gaps, &b2_span);

    /* vivid drops each tick it runs with probability p (get_random_u32_below(100) < p); ticks
     * it skips for running late add to that: missing = b + (1 - b) p, never less than p.
     * Binomial spread 4.5 sigma on the window; the late-tick share b is bounded by the larger
     * baseline plus 3 sigma of its own estimate. */
    double p = PERCENT / 100.0;
    double b = b1 > b2 ? b1 : b2;
    double b_span = (double)(b1 > b2 ? b1_span : b2_span);
    double b_hi = b + 3.0 * sqrt((b > 0.01 ? b : 0.01) * (1.0 - b) / b_span);
    double sigma = sqrt(p * (1.0 - p) / (double)span);
    double lower = p - 4.5 * sigma, upper = p + (1.0 - p) * b_hi + 4.5 * sigma;
    info("320x180 at 60 fps: baselines %.1f%% (%llu of %llu) and %.1f%% (%llu of %llu) missing; with %d%%: %.1f%% "
         "(%llu of %llu); accepted %.1f%% .. %.1f%%",
         100 * b1, (unsigned long long)b1_gaps, (unsigned long long)b1_span, 100 * b2, (unsigned long long)b2_gaps,
         (unsigned long long)b2_span, PERCENT, 100 * observed, (unsigned long long)gaps, (unsigned long long)span,
         100 * lower, 100 * upper);
    if (observed < lower || observed > upper)
        FAILGO(out, "%.1f%% of frames missing with percentage_of_dropped_buffers=%d (baselines %.1f%%, %.1f%%), "
               "expected %.1f%% .. %.1f%%",
               100 * observed, PERCENT, 100 * b1, 100 * b2, 100 * lower, 100 * upper);

    if ((r = ccore_source_stop(src)) != 0) FAILGO(out, "stop: %s", ccore_error_name(r));
    tally_drain(src, &t);
    if (check_totals(src, &t, reason, reason_size)) {
        failed = 1;
        goto out;
    }
out:
    ccore_source_destroy(src);
    return failed;
}

/* ------------------------------------------------------------------ V4L2_BUF_FLAG_ERROR */

int test_fault_buf_flag_error(char *reason, size_t reason_size) {
    enum { PRESSES = 5 };
    static ccore_frame_sample buf[2048];
    tally t = {.samples = buf, .capacity = sizeof buf / sizeof buf[0]};
    ccore_source *src = NULL;
    int failed = 0;
    if (open_and_start(320, 180, 60, &src, reason, reason_size)) return 1;
    int fd = ccore_source_fd(src);
    uint32_t id = 0, type = 0;
    if (raw_control_find(fd, "inject_v4l2_buf_flag_error", &id, &type) != 0)
        FAILGO(out, "vivid has no inject_v4l2_buf_flag_error control");
    if (tally_collect(src, &t, 30, 20000) < 30) FAILGO(out, "no stream before the injection");

    /* One press flags the next buffer vivid completes. Wait for two completions after
     * each press so that no two presses land on the same buffer. */
    for (int k = 0; k < PRESSES; k++) {
        ccore_source_stats st;
        ccore_source_get_stats(src, &st);
        uint64_t f0 = st.frames;
        int r = raw_control_set_id(fd, id, type, 1);
        if (r < 0) FAILGO(out, "pressing inject_v4l2_buf_flag_error: %s", strerror(-r));
        int64_t deadline = now_ns() + 5LL * 1000000000LL;
        do {
            tally_drain(src, &t);
            sleep_ms(2);
            ccore_source_get_stats(src, &st);
        } while (st.frames < f0 + 2 && st.state == CCORE_SOURCE_RUNNING && now_ns() < deadline);
        if (st.state != CCORE_SOURCE_RUNNING)
            FAILGO(out, "a flagged buffer ended the stream: state %s, error %s (%s)", state_name(st.state),
                   ccore_error_name(st.error), ccore_source_error_message(src));
        if (st.frames < f0 + 2) FAILGO(out, "stream stalled after press %d", k + 1);
    }
    uint32_t before = t.count;
    uint32_t got = tally_collect(src, &t, 60, 20000);
    if (got < 60) FAILGO(out, "stream did not go on after the flagged frames: %u samples", got);
    ccore_source_stats st;
    ccore_source_get_stats(src, &st);
    if (st.state != CCORE_SOURCE_RUNNING) FAILGO(out, "state %s after flagged frames", state_name(st.state));
    int r = ccore_source_stop(src);
    if (r != 0) FAILGO(out, "stop: %s", ccore_error_name(r));
    tally_drain(src, &t);
    ccore_source_get_stats(src, &st);
    if (st.error_frames != PRESSES)
        FAILGO(out, "error_frames %llu after %d flagged buffers", (unsigned long long)st.error_frames, PRESSES);
    if (check_gaps(&t, 0, period_of(src), reason, reason_size)) {
        failed = 1;
        goto out;
    }
    if (check_totals(src, &t, reason, reason_size)) {
        failed = 1;
        goto out;
    }
    info("%d flagged buffers skipped and counted, %u samples afterwards (%u in all)", PRESSES, t.count - before, t.count);
out:
    ccore_source_destroy(src);
    return failed;
}

/* ------------------------------------------------------------------ failing ioctls */

/* After a failure the node must still work: open, start, a few samples. */
static int check_recovers(char *reason, size_t reason_size) {
    ccore_source *src = NULL;
    if (open_and_start(320, 180, 60, &src, reason, reason_size)) return 1;
    ccore_frame_sample s[5];
    uint32_t got = collect_samples(src, s, 5, 10000);
    ccore_source_destroy(src);
    if (got < 5) FAILF("after the injected error a new stream gave %u samples", got);
    return 0;
}

int test_fault_streamon_error(char *reason, size_t reason_size) {
    int fds0 = count_fds(), maps0 = count_video_maps(), failed = 0;
    ccore_source_config cfg;
    test_config(&cfg, V4L2_PIX_FMT_YUYV, 640, 480, 25);
    ccore_source *src = NULL;
    char msg[256] = "";
    int r = ccore_source_open_device(g_nodes.capture, &cfg, &src, msg, sizeof msg);
    if (r != 0) FAILF("open: %s: %s", ccore_error_name(r), msg);
    r = raw_control_set_path(g_nodes.capture, "inject_vidioc_streamon_error", 1);
    if (r < 0) FAILGO(out, "pressing inject_vidioc_streamon_error: %s", strerror(-r));
    r = ccore_source_start(src);
    const char *m = ccore_source_error_message(src);
    if (r >= 0) FAILGO(out, "start succeeded despite the injected VIDIOC_STREAMON error");
    if (!m || !m[0]) FAILGO(out, "start failed with %s but left no message", ccore_error_name(r));
    ccore_source_stats st;
    ccore_source_get_stats(src, &st);
    if (st.state == CCORE_SOURCE_RUNNING) FAILGO(out, "state RUNNING after a failed start");
    info("start -> %s (%d): %s; state %s", ccore_error_name(r), r, m, state_name(st.state));
    int64_t t0 = now_ns();
    ccore_source_stop(src);
    ccore_source_destroy(src);
    src = NULL;
    if (now_ns() - t0 > 1000000000LL) FAILGO(out, "stop + destroy after a failed start took %.0f ms", (now_ns() - t0) / 1e6);
    if (count_fds() != fds0 || count_video_maps() != maps0)
        FAILGO(out, "leak after a failed start: fds %d -> %d, /dev/video mappings %d -> %d", fds0, count_fds(), maps0,
               count_video_maps());
    if (check_recovers(reason, reason_size)) return 1;
out:
    ccore_source_destroy(src);
    return failed;
}

int test_fault_reqbufs_error(char *reason, size_t reason_size) {
    int fds0 = count_fds(), maps0 = count_video_maps();
    int r = raw_control_set_path(g_nodes.capture, "inject_vidioc_reqbufs_error", 1);
    if (r < 0) FAILF("pressing inject_vidioc_reqbufs_error: %s", strerror(-r));
    ccore_source_config cfg;
    test_config(&cfg, V4L2_PIX_FMT_YUYV, 640, 480, 25);
    ccore_source *src = (ccore_source *)(uintptr_t)1;
    char msg[256] = "";
    r = ccore_source_open_device(g_nodes.capture, &cfg, &src, msg, sizeof msg);
    if (r == 0) {
        /* Buffers may be requested at start instead: then start must fail. */
        r = ccore_source_start(src);
        snprintf(msg, sizeof msg, "%s", ccore_source_error_message(src));
        ccore_source_destroy(src);
        if (r >= 0) FAILF("open and start succeeded despite the injected VIDIOC_REQBUFS error");
        info("start -> %s (%d): %s", ccore_error_name(r), r, msg);
    } else {
        if (src != NULL) FAILF("open failed (%s) but did not set *out to NULL", ccore_error_name(r));
        info("open -> %s (%d): %s", ccore_error_name(r), r, msg);
    }
    if (!msg[0]) FAILF("failure %s came without a message", ccore_error_name(r));
    if (count_fds() != fds0 || count_video_maps() != maps0)
        FAILF("leak after the failed open: fds %d -> %d, /dev/video mappings %d -> %d", fds0, count_fds(), maps0,
              count_video_maps());
    return check_recovers(reason, reason_size);
}

/* ------------------------------------------------------------------ stream-ending faults */

/* Presses `control` on the core's descriptor mid-stream and checks that the core reports
 * the failure within a second, stops promptly and releases everything. */
static int stream_ending_fault(const char *control, const int *accepted, size_t naccepted, char *reason,
                               size_t reason_size) {
    int fds0 = count_fds(), maps0 = count_video_maps(), failed = 0;
    ccore_source *src = NULL;
    if (open_and_start(640, 480, 25, &src, reason, reason_size)) return 1;
    ccore_frame_sample s[20];
    if (collect_samples(src, s, 20, 20000) < 20) FAILGO(out, "no stream before the fault");
    int fd = ccore_source_fd(src);
    uint32_t id = 0, type = 0;
    if (raw_control_find(fd, control, &id, &type) != 0) FAILGO(out, "vivid has no %s control", control);
    int64_t t0 = now_ns();
    int r = raw_control_set_id(fd, id, type, 1);
    if (r < 0) FAILGO(out, "pressing %s: %s", control, strerror(-r));
    ccore_source_stats st;
    int64_t deadline = t0 + 3LL * 1000000000LL;
    do {
        drain_ring(src);
        ccore_source_get_stats(src, &st);
        if (st.state == CCORE_SOURCE_FAILED) break;
        sleep_ms(1);
    } while (now_ns() < deadline);
    double react_ms = (now_ns() - t0) / 1e6;
    if (st.state != CCORE_SOURCE_FAILED)
        FAILGO(out, "state still %s %.0f ms after %s", state_name(st.state), react_ms, control);
    if (react_ms > 1000) FAILGO(out, "the core took %.0f ms to report %s", react_ms, control);
    int ok = 0;
    for (size_t i = 0; i < naccepted; i++) ok |= st.error == accepted[i];
    char m[256];
    snprintf(m, sizeof m, "%s", ccore_source_error_message(src) ? ccore_source_error_message(src) : "");
    if (!ok) FAILGO(out, "error %s (%d) after %s: %s", ccore_error_name(st.error), st.error, control, m);
    if (!m[0]) FAILGO(out, "no error message after %s", control);
    int64_t t1 = now_ns();
    ccore_source_stop(src);
    double stop_ms = (now_ns() - t1) / 1e6;
    ccore_source_get_stats(src, &st);
    int64_t t2 = now_ns();
    ccore_source_destroy(src);
    src = NULL;
    double destroy_ms = (now_ns() - t2) / 1e6;
    info("%s: FAILED with %s after %.0f ms (\"%s\"); stop %.1f ms, destroy %.1f ms", control,
         ccore_error_name(st.error), react_ms, m, stop_ms, destroy_ms);
    if (stop_ms > 1000 || destroy_ms > 1000)
        FAILGO(out, "stop took %.0f ms and destroy %.0f ms after %s", stop_ms, destroy_ms, control);
    if (count_fds() != fds0 || count_video_maps() != maps0)
        FAILGO(out, "leak after %s: fds %d -> %d, /dev/video mappings %d -> %d", control, fds0, count_fds(), maps0,
               count_video_maps());
out:
    ccore_source_destroy(src);
    return failed;
}

int test_fault_fatal_streaming_error(char *reason, size_t reason_size) {
    /* vb2_queue_error(): poll reports POLLERR and DQBUF fails with EIO. */
    static const int accepted[] = {CCORE_E_STREAM, -EIO};
    if (stream_ending_fault("inject_fatal_streaming_error", accepted, 2, reason, reason_size)) return 1;
    return check_recovers(reason, reason_size);
}

int test_fault_disconnect(char *reason, size_t reason_size) {
    static const int accepted[] = {-ENODEV, CCORE_E_STREAM};
    if (stream_ending_fault("disconnect", accepted, 2, reason, reason_size)) return 1;
    /* vivid re-registers its nodes once the last descriptor is closed. */
    int64_t deadline = now_ns() + 3LL * 1000000000LL;
    int back = 0;
    while (!back && now_ns() < deadline) {
        int fd = open(g_nodes.capture, O_RDWR | O_NONBLOCK | O_CLOEXEC);
        if (fd >= 0) {
            struct v4l2_capability cap;
            back = xioctl(fd, VIDIOC_QUERYCAP, &cap) == 0;
            close(fd);
        }
        if (!back) sleep_ms(20);
    }
    info("after the core closed its descriptor vivid %s", back ? "reconnected its nodes" : "did not reconnect (yet)");
    return 0;
}
