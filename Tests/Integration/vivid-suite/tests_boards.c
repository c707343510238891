/* What board cameras need from the core: the multi-planar API (vivid loaded with
 * multiplanar=2, like the MPLANE-only CSI/ISP nodes of SoC boards), and starts that fail
 * at VIDIOC_QBUF leaving nothing queued and the source reusable. The loopback colour
 * tests for MPLANE and Bayer live with the other loopback tests. */
#include "suite.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/videodev2.h>

/* The capture buffer type the node speaks (the core picks the same). */
static uint32_t capture_type(int fd) {
    struct v4l2_capability cap;
    memset(&cap, 0, sizeof cap);
    if (xioctl(fd, VIDIOC_QUERYCAP, &cap) < 0) return 0;
    uint32_t caps = (cap.capabilities & V4L2_CAP_DEVICE_CAPS) ? cap.device_caps : cap.capabilities;
    if (caps & V4L2_CAP_VIDEO_CAPTURE) return V4L2_BUF_TYPE_VIDEO_CAPTURE;
    if (caps & V4L2_CAP_VIDEO_CAPTURE_MPLANE) return V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE;
    return 0;
}

/* Buffers of `fd`'s queue the driver holds (queued or done), by VIDIOC_QUERYBUF;
 * -errno when a query fails. */
static int buffers_held(int fd, uint32_t count) {
    uint32_t type = capture_type(fd);
    int held = 0;
    for (uint32_t i = 0; i < count; i++) {
        struct v4l2_buffer b;
        struct v4l2_plane planes[VIDEO_MAX_PLANES];
        memset(&b, 0, sizeof b);
        memset(planes, 0, sizeof planes);
        b.type = type;
        b.memory = V4L2_MEMORY_MMAP;
        b.index = i;
        if (type == V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE) {
            b.m.planes = planes;
            b.length = VIDEO_MAX_PLANES;
        }
        int r = xioctl(fd, VIDIOC_QUERYBUF, &b);
        if (r < 0) return r;
        if (b.flags & (V4L2_BUF_FLAG_QUEUED | V4L2_BUF_FLAG_DONE)) held++;
    }
    return held;
}

/* Samples flow after a restart: the source came out of the failed start reusable. */
static int restart_streams(ccore_source *src, char *reason, size_t reason_size) {
    int r = ccore_source_start(src);
    if (r != 0) FAILF("second start after the failed one: %s: %s", ccore_error_name(r), ccore_source_error_message(src));
    ccore_frame_sample s[10];
    uint32_t got = collect_samples(src, s, 10, 20000);
    if (got < 10) FAILF("the restarted source gave %u of 10 samples", got);
    ccore_source_stats st;
    ccore_source_get_stats(src, &st);
    info("restarted: %u samples, state %s, %llu frames", got, state_name(st.state), (unsigned long long)st.frames);
    return 0;
}

/* A start whose QBUF fails: the error is reported, nothing stays queued, the same
 * source starts cleanly afterwards, and nothing leaks. `pre_queue` >= 0 makes the
 * failure partial: the test queues that buffer itself on the core's descriptor, so the
 * core's QBUF of it fails after the buffers before it went in. Otherwise vivid's
 * inject_vidioc_qbuf_error fails the core's next QBUF. */
static int qbuf_fault(int pre_queue, char *reason, size_t reason_size) {
    int fds0 = count_fds(), maps0 = count_video_maps(), failed = 0;
    ccore_source_config cfg;
    test_config(&cfg, V4L2_PIX_FMT_YUYV, 640, 480, 25);
    ccore_source *src = NULL;
    char msg[CCORE_SOURCE_MESSAGE_SIZE] = "";
    int r = ccore_source_open_device(g_nodes.capture, &cfg, &src, msg, sizeof msg);
    if (r != 0) FAILF("open: %s: %s", ccore_error_name(r), msg);
    int fd = ccore_source_fd(src);
    ccore_stream_format f;
    ccore_source_get_format(src, &f);
    if ((uint32_t)pre_queue >= f.buffer_count && pre_queue >= 0)
        FAILGO(out, "only %u buffers, cannot pre-queue buffer %d", f.buffer_count, pre_queue);
    if (pre_queue >= 0) {
        struct v4l2_buffer b;
        struct v4l2_plane planes[VIDEO_MAX_PLANES];
        memset(&b, 0, sizeof b);
        memset(planes, 0, sizeof planes);
        b.type = capture_type(fd);
        b.memory = V4L2_MEMORY_MMAP;
        b.index = (uint32_t)pre_queue;
        if (b.type == V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE) {
            b.m.planes = planes;
            b.length = 1;
        }
        if ((r = xioctl(fd, VIDIOC_QBUF, &b)) < 0) FAILGO(out, "pre-queueing buffer %d: %s", pre_queue, strerror(-r));
    } else {
        r = raw_control_set_path(g_nodes.capture, "inject_vidioc_qbuf_error", 1);
        if (r < 0) FAILGO(out, "pressing inject_vidioc_qbuf_error: %s", strerror(-r));
    }
    r = ccore_source_start(src);
    const char *m = ccore_source_error_message(src);
    if (r >= 0) FAILGO(out, "start succeeded despite the failing VIDIOC_QBUF");
    if (!strstr(m, "VIDIOC_QBUF")) FAILGO(out, "start failed with %s but the message does not say QBUF: %s",
                                          ccore_error_name(r), m);
    ccore_source_stats st;
    ccore_source_get_stats(src, &st);
    if (st.state != CCORE_SOURCE_OPENED) FAILGO(out, "state %s after a failed start, expected OPENED", state_name(st.state));
    int held = buffers_held(fd, f.buffer_count);
    if (held != 0) FAILGO(out, "%d of %u buffers still queued after the failed start (%s)", held, f.buffer_count, m);
    info("start -> %s: %s; 0 of %u buffers queued", ccore_error_name(r), m, f.buffer_count);
    if (restart_streams(src, reason, reason_size)) {
        failed = 1;
        goto out;
    }
    ccore_source_destroy(src);
    src = NULL;
    if (count_fds() != fds0 || count_video_maps() != maps0)
        FAILGO(out, "leak: fds %d -> %d, /dev/video mappings %d -> %d", fds0, count_fds(), maps0, count_video_maps());
out:
    ccore_source_destroy(src);
    return failed;
}

int test_fault_qbuf_error(char *reason, size_t reason_size) { return qbuf_fault(-1, reason, reason_size); }

int test_fault_qbuf_partial(char *reason, size_t reason_size) { return qbuf_fault(2, reason, reason_size); }

/* vivid as an MPLANE-only node: listed, its modes (the M formats and Bayer usable),
 * and the core streaming YUYV, NV12M (two memory planes) and Bayer through it with
 * the sequence and drop accounting of single-planar capture. */
int test_mplane_stream(char *reason, size_t reason_size) {
    int failed = 0, fds0 = count_fds(), maps0 = count_video_maps();
    ccore_device_mode *modes = NULL;
    ccore_source *src = NULL;
    char fc[5], msg[CCORE_SOURCE_MESSAGE_SIZE] = "";
    ccore_device_info info_;
    int r = ccore_device_probe(g_nodes.capture, &info_);
    if (r != 0) FAILF("ccore_device_probe on the MPLANE node: %s", ccore_error_name(r));
    if (!(info_.capabilities & V4L2_CAP_VIDEO_CAPTURE_MPLANE) || (info_.capabilities & V4L2_CAP_VIDEO_CAPTURE))
        FAILF("capabilities 0x%08x: vivid was not loaded multi-planar only", info_.capabilities);
    ccore_device_info devs[16];
    uint32_t count = 0, listed = 0;
    if ((r = ccore_device_list(devs, 16, &count)) != 0) FAILF("ccore_device_list: %s", ccore_error_name(r));
    for (uint32_t i = 0; i < count && i < 16; i++) listed |= strcmp(devs[i].path, g_nodes.capture) == 0;
    if (!listed) FAILF("ccore_device_list leaves out the MPLANE capture node %s", g_nodes.capture);

    const uint32_t max_modes = 20000;
    modes = calloc(max_modes, sizeof *modes);
    if (!modes) FAILF("out of memory");
    uint32_t n = 0;
    if ((r = ccore_device_modes(g_nodes.capture, modes, max_modes, &n)) != 0)
        FAILGO(out, "ccore_device_modes: %s", ccore_error_name(r));
    int nv12m = 0, bayer = 0;
    for (uint32_t i = 0; i < n && i < max_modes; i++) {
        if (modes[i].fourcc == V4L2_PIX_FMT_NV12M && modes[i].supported) nv12m = 1;
        if (modes[i].fourcc == V4L2_PIX_FMT_SBGGR8 && modes[i].supported) bayer = 1;
    }
    if (!nv12m || !bayer) FAILGO(out, "modes of the MPLANE node: NV12M usable %d, BA81 usable %d (%u modes)", nv12m, bayer, n);
    info("MPLANE node %s: %u modes, NV12M and BA81 usable", g_nodes.capture, n);

    static const struct {
        uint32_t fourcc; /* 0 = the core's own choice */
        ccore_pixel_format pixel_format;
        uint32_t planes;
    } cases[] = {
        {0, CCORE_PIXEL_YUYV, 1},
        {V4L2_PIX_FMT_NV12M, CCORE_PIXEL_NV12, 2},
        {V4L2_PIX_FMT_YUV420M, CCORE_PIXEL_YUV420, 3},
        {V4L2_PIX_FMT_SBGGR8, CCORE_PIXEL_RGB24, 1},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        ccore_source_config cfg;
        test_config(&cfg, cases[k].fourcc, 640, 480, 25);
        if ((r = ccore_source_open_device(g_nodes.capture, &cfg, &src, msg, sizeof msg)) != 0)
            FAILGO(out, "open %s: %s: %s", cases[k].fourcc ? fourcc_str(cases[k].fourcc, fc) : "(auto)",
                   ccore_error_name(r), msg);
        ccore_stream_format f;
        ccore_source_get_format(src, &f);
        fourcc_str(f.fourcc, fc);
        if (f.pixel_format != cases[k].pixel_format || f.width != 640 || f.height != 480)
            FAILGO(out, "negotiated %s (pixel format %d) %ux%u, expected pixel format %d 640x480", fc, f.pixel_format,
                   f.width, f.height, cases[k].pixel_format);
        if (count_video_maps() - maps0 != (int)(f.buffer_count * cases[k].planes))
            FAILGO(out, "%s: %d /dev/video mappings for %u buffers of %u planes", fc, count_video_maps() - maps0,
                   f.buffer_count, cases[k].planes);
        ccore_roi_set rois;
        memset(&rois, 0, sizeof rois);
        rois.count = 1;
        rois.generation = 1;
        rois.rects[0] = (ccore_rect){0.25f, 0.25f, 0.5f, 0.5f};
        rois.skin = ccore_skin_bounds_all();
        ccore_source_set_rois(src, &rois);
        if ((r = ccore_source_start(src)) != 0)
            FAILGO(out, "start %s: %s: %s", fc, ccore_error_name(r), ccore_source_error_message(src));
        ccore_frame_sample s[30];
        uint32_t got = collect_samples(src, s, 30, 30000);
        ccore_source_stats st;
        ccore_source_get_stats(src, &st);
        if (got < 30) FAILGO(out, "%s: %u of 30 samples (state %s: %s)", fc, got, state_name(st.state),
                             ccore_source_error_message(src));
        int64_t period = (int64_t)f.interval_numerator * 1000000000LL / (f.interval_denominator ? f.interval_denominator : 25);
        gap_report gaps;
        if (check_sample_gaps(s, got, period, &gaps, reason, reason_size)) {
            failed = 1;
            goto out;
        }
        if (s[got - 1].roi_count != 1 || s[got - 1].rois[0].pixel_count != 320 * 240)
            FAILGO(out, "%s: last sample measured %u ROIs of %u pixels, expected 1 of %u", fc, s[got - 1].roi_count,
                   s[got - 1].rois[0].pixel_count, 320 * 240);
        info("%s over MPLANE (%u plane%s): %u samples, %llu frames, %llu dropped, %llu flagged; ROI RGB %.1f %.1f %.1f",
             fc, cases[k].planes, cases[k].planes == 1 ? "" : "s", got, (unsigned long long)st.frames,
             (unsigned long long)st.dropped, (unsigned long long)st.error_frames, s[got - 1].rois[0].r,
             s[got - 1].rois[0].g, s[got - 1].rois[0].b);
        if (st.error_frames > st.frames / 10)
            FAILGO(out, "%s: %llu of %llu frames flagged as damaged", fc, (unsigned long long)st.error_frames,
                   (unsigned long long)st.frames);
        ccore_source_destroy(src);
        src = NULL;
    }
    if (count_fds() != fds0 || count_video_maps() != maps0)
        FAILGO(out, "leak: fds %d -> %d, /dev/video mappings %d -> %d", fds0, count_fds(), maps0, count_video_maps());
out:
    ccore_source_destroy(src);
    free(modes);
    return failed;
}

int test_mplane_loopback_yuyv(char *reason, size_t reason_size) {
    return loopback_test(V4L2_PIX_FMT_YUYV, CCORE_PIXEL_YUYV, 2.0f, reason, reason_size);
}

/* Two memory planes, each with its own bytesperline; tolerance as for NV12. */
int test_mplane_loopback_nv12m(char *reason, size_t reason_size) {
    return loopback_test(V4L2_PIX_FMT_NV12M, CCORE_PIXEL_NV12, 2.0f, reason, reason_size);
}

/* Bayer over MPLANE through libv4lconvert; tolerance as for test_loopback_bayer. */
int test_mplane_loopback_bayer(char *reason, size_t reason_size) {
    return loopback_test(V4L2_PIX_FMT_SBGGR8, CCORE_PIXEL_RGB24, 1.0f, reason, reason_size);
}
