/* Enumeration, format negotiation, mmap streaming and camera controls. */
#include "suite.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <linux/videodev2.h>

/* ------------------------------------------------------------------ enumerate */

int test_enumerate(char *reason, size_t reason_size) {
    ccore_device_info devs[64];
    uint32_t count = 0;
    int r = ccore_device_list(devs, 64, &count);
    if (r < 0) FAILF("ccore_device_list: %s (%s)", ccore_error_name(r), ccore_error_string(r));
    const ccore_device_info *d = NULL;
    for (uint32_t i = 0; i < count && i < 64; i++) {
        if (strcmp(devs[i].path, g_nodes.capture) == 0) d = &devs[i];
        if (strcmp(devs[i].path, g_nodes.output) == 0)
            FAILF("ccore_device_list lists the output-only node %s as a camera", g_nodes.output);
    }
    if (!d) FAILF("ccore_device_list found %u device(s) but not the vivid capture node %s", count, g_nodes.capture);

    int fd = open(g_nodes.capture, O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) FAILF("open %s: %s", g_nodes.capture, strerror(errno));
    struct v4l2_capability cap;
    memset(&cap, 0, sizeof cap);
    r = xioctl(fd, VIDIOC_QUERYCAP, &cap);
    close(fd);
    if (r < 0) FAILF("VIDIOC_QUERYCAP: %s", strerror(-r));
    if (strcmp(d->driver, "vivid") != 0) FAILF("driver is '%s', expected 'vivid'", d->driver);
    if (d->card[0] == 0 || strncmp(d->card, (const char *)cap.card, sizeof d->card - 1) != 0)
        FAILF("card name '%s' differs from VIDIOC_QUERYCAP's '%s'", d->card, (const char *)cap.card);
    if (d->bus_info[0] == 0 || strncmp(d->bus_info, (const char *)cap.bus_info, sizeof d->bus_info - 1) != 0)
        FAILF("bus info '%s' differs from VIDIOC_QUERYCAP's '%s'", d->bus_info, (const char *)cap.bus_info);
    if (!(d->capabilities & V4L2_CAP_VIDEO_CAPTURE) || !(d->capabilities & V4L2_CAP_STREAMING))
        FAILF("capabilities 0x%08x lack VIDEO_CAPTURE or STREAMING", d->capabilities);
    if (d->access.status != CCORE_ACCESS_AUTHORIZED || d->access.error != 0)
        FAILF("access for root is %d (error %d, '%s'), expected AUTHORIZED", (int)d->access.status, d->access.error,
              d->access.reason);
    info("listed %s: card '%s', bus '%s', caps 0x%08x", d->path, d->card, d->bus_info, d->capabilities);

    ccore_device_info probe;
    r = ccore_device_probe(g_nodes.capture, &probe);
    if (r != 0 || strcmp(probe.card, d->card) != 0) FAILF("ccore_device_probe(%s) = %s, card '%s'", g_nodes.capture,
                                                           ccore_error_name(r), probe.card);
    r = ccore_device_probe(g_nodes.output, &probe);
    if (r != CCORE_E_NOT_CAPTURE)
        FAILF("ccore_device_probe on the output node %s returned %s, expected CCORE_E_NOT_CAPTURE", g_nodes.output,
              ccore_error_name(r));
    r = ccore_device_probe("/dev/video-ccore-missing", &probe);
    if (r != -ENOENT) FAILF("ccore_device_probe on a missing node returned %s, expected ENOENT", ccore_error_name(r));
    ccore_access missing = ccore_device_access("/dev/video-ccore-missing");
    if (missing.status != CCORE_ACCESS_NOT_DETERMINED)
        FAILF("ccore_device_access on a missing node: status %d, expected NOT_DETERMINED", (int)missing.status);

    /* Modes: every format the driver enumerates, with sizes and intervals. */
    const uint32_t max_modes = 20000;
    ccore_device_mode *modes = calloc(max_modes, sizeof *modes);
    if (!modes) FAILF("out of memory");
    uint32_t n = 0;
    r = ccore_device_modes(g_nodes.capture, modes, max_modes, &n);
    if (r < 0) {
        free(modes);
        FAILF("ccore_device_modes: %s", ccore_error_name(r));
    }
    if (n > max_modes) n = max_modes;
    info("ccore_device_modes: %u modes", n);

    struct {
        uint32_t fourcc;
        int found_640, supported_640, fps25;
    } want[] = {
        {V4L2_PIX_FMT_YUYV, 0, 0, 0},
        {V4L2_PIX_FMT_NV12, 0, 0, 0},
        {V4L2_PIX_FMT_YUV420, 0, 0, 0},
        {V4L2_PIX_FMT_RGB24, 0, 0, 0},
    };
    const size_t nwant = sizeof want / sizeof want[0];
    int unsupported_seen = 0, failed = 0;
    char fc[5];
    for (uint32_t i = 0; i < n; i++) {
        const ccore_device_mode *m = &modes[i];
        if (m->width == 0 || m->height == 0) FAILGO(out, "mode %u (%s) has a zero size", i, fourcc_str(m->fourcc, fc));
        if (!m->supported) unsupported_seen++;
        for (size_t k = 0; k < nwant; k++) {
            if (m->fourcc != want[k].fourcc || m->width != 640 || m->height != 480) continue;
            want[k].found_640 = 1;
            if (m->supported) want[k].supported_640 = 1;
            if (m->interval_numerator && m->interval_denominator == 25 * m->interval_numerator) want[k].fps25 = 1;
        }
        if (m->fourcc == V4L2_PIX_FMT_SBGGR8 && !m->supported)
            FAILGO(out, "Bayer BA81 is reported as unsupported, though libv4lconvert converts it");
        if (m->fourcc == V4L2_PIX_FMT_SBGGR12 && m->supported)
            FAILGO(out, "12-bit Bayer BG12 is reported as supported; neither the core nor libv4lconvert reads it");
    }
    for (size_t k = 0; k < nwant; k++) {
        if (!want[k].found_640) FAILGO(out, "no %s 640x480 mode listed", fourcc_str(want[k].fourcc, fc));
        if (!want[k].supported_640) FAILGO(out, "%s 640x480 listed as unsupported", fourcc_str(want[k].fourcc, fc));
        if (!want[k].fps25)
            FAILGO(out, "%s 640x480 lacks the 1/25 s interval vivid offers", fourcc_str(want[k].fourcc, fc));
    }
    if (!unsupported_seen) FAILGO(out, "no mode marked unsupported, though vivid offers 12-bit Bayer, HSV and RGB332");

    /* Every format VIDIOC_ENUM_FMT reports appears among the modes. */
    fd = open(g_nodes.capture, O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) FAILGO(out, "open %s: %s", g_nodes.capture, strerror(errno));
    struct v4l2_fmtdesc fmt;
    int formats = 0;
    for (uint32_t idx = 0;; idx++) {
        memset(&fmt, 0, sizeof fmt);
        fmt.index = idx;
        fmt.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
        if (xioctl(fd, VIDIOC_ENUM_FMT, &fmt) < 0) break;
        formats++;
        int seen = 0;
        for (uint32_t i = 0; i < n && !seen; i++) seen = modes[i].fourcc == fmt.pixelformat;
        if (!seen) {
            close(fd);
            FAILGO(out, "format %s (%s) from VIDIOC_ENUM_FMT is missing from ccore_device_modes",
                   fourcc_str(fmt.pixelformat, fc), (const char *)fmt.description);
        }
    }
    close(fd);
    char s4[5];
    ccore_fourcc_string(V4L2_PIX_FMT_YUYV, s4);
    if (strcmp(s4, "YUYV") != 0) FAILGO(out, "ccore_fourcc_string(YUYV) = '%s'", s4);
    info("%d driver formats, %d unsupported mode entries", formats, unsupported_seen);
out:
    free(modes);
    return failed;
}

/* ------------------------------------------------------------------ negotiate */

typedef struct {
    uint32_t fourcc;
    ccore_pixel_format pixel_format;
    uint32_t min_bytes_per_line;
} format_case;

/* Every raw format the core processes that vivid offers; YUYV first (the reference). */
static const format_case k_formats[] = {
    {V4L2_PIX_FMT_YUYV, CCORE_PIXEL_YUYV, 1280},     {V4L2_PIX_FMT_NV12, CCORE_PIXEL_NV12, 640},
    {V4L2_PIX_FMT_YUV420, CCORE_PIXEL_YUV420, 640},  {V4L2_PIX_FMT_YUV422P, CCORE_PIXEL_YUV422P, 640},
    {V4L2_PIX_FMT_RGB24, CCORE_PIXEL_RGB24, 1920},   {V4L2_PIX_FMT_GREY, CCORE_PIXEL_GRAY, 640},
};
#define FORMAT_COUNT (sizeof k_formats / sizeof k_formats[0])

/* Compares the core's negotiated format with what the driver itself reports. */
static int check_against_driver(const ccore_stream_format *f, char *reason, size_t reason_size) {
    int fd = open(g_nodes.capture, O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) FAILF("open %s: %s", g_nodes.capture, strerror(errno));
    struct v4l2_format vf;
    memset(&vf, 0, sizeof vf);
    vf.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    int r = xioctl(fd, VIDIOC_G_FMT, &vf);
    struct v4l2_streamparm parm;
    memset(&parm, 0, sizeof parm);
    parm.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    int rp = xioctl(fd, VIDIOC_G_PARM, &parm);
    close(fd);
    if (r < 0) FAILF("VIDIOC_G_FMT: %s", strerror(-r));
    char a[5], b[5];
    if (vf.fmt.pix.pixelformat != f->fourcc || vf.fmt.pix.width != f->width || vf.fmt.pix.height != f->height ||
        vf.fmt.pix.bytesperline != f->bytes_per_line)
        FAILF("core reports %s %ux%u bpl %u, the driver %s %ux%u bpl %u", fourcc_str(f->fourcc, a), f->width,
              f->height, f->bytes_per_line, fourcc_str(vf.fmt.pix.pixelformat, b), vf.fmt.pix.width,
              vf.fmt.pix.height, vf.fmt.pix.bytesperline);
    if (rp == 0) {
        const struct v4l2_fract *tpf = &parm.parm.capture.timeperframe;
        if ((uint64_t)tpf->numerator * f->interval_denominator != (uint64_t)tpf->denominator * f->interval_numerator)
            FAILF("core reports interval %u/%u, the driver %u/%u", f->interval_numerator, f->interval_denominator,
                  tpf->numerator, tpf->denominator);
    }
    return 0;
}

/* Opens `fcase` at 640x480, checks what was negotiated against the request and the
 * driver, streams 10 frames and returns the mean RGB of each of vivid's eight 75% colour
 * bars (white, yellow, cyan, green, magenta, red, blue, black; 80 pixels wide each). */
#define BARS 8

static int measure_bars(const format_case *fcase, float mean[BARS][3], char *reason, size_t reason_size) {
    char fc[5], msg[256] = "";
    ccore_frame_sample samples[16];
    fourcc_str(fcase->fourcc, fc);
    ccore_source_config cfg;
    test_config(&cfg, fcase->fourcc, 640, 480, 25);
    ccore_source *src = NULL;
    int r = ccore_source_open_device(g_nodes.capture, &cfg, &src, msg, sizeof msg);
    if (r != 0) FAILF("open %s 640x480: %s: %s", fc, ccore_error_name(r), msg);
    ccore_stream_format f;
    ccore_source_get_format(src, &f);
    int failed = 0;
    if (f.fourcc != fcase->fourcc || f.pixel_format != fcase->pixel_format || f.width != 640 || f.height != 480)
        FAILGO(done, "asked %s 640x480, got %s (pixel format %d) %ux%u", fc, fourcc_str(f.fourcc, msg),
               (int)f.pixel_format, f.width, f.height);
    if (f.bytes_per_line < fcase->min_bytes_per_line)
        FAILGO(done, "%s bytes per line %u < %u", fc, f.bytes_per_line, fcase->min_bytes_per_line);
    if (f.buffer_count < 2 || f.buffer_count > 32) FAILGO(done, "%s buffer count %u", fc, f.buffer_count);
    if (f.interval_numerator == 0 || f.interval_denominator != 25 * f.interval_numerator)
        FAILGO(done, "%s: asked 25 fps (offered by vivid at 640x480), interval reads %u/%u", fc, f.interval_numerator,
               f.interval_denominator);
    if (check_against_driver(&f, reason, reason_size)) {
        failed = 1;
        goto done;
    }

    /* One ROI per bar, 8 pixels in from its edges, in a band below vivid's on-screen text. */
    ccore_roi_set rois;
    memset(&rois, 0, sizeof rois);
    rois.count = BARS;
    rois.generation = 7;
    for (int b = 0; b < BARS; b++) rois.rects[b] = (ccore_rect){(80.0f * b + 8) / 640.0f, 0.55f, 64.0f / 640.0f, 0.35f};
    rois.skin = ccore_skin_bounds_all();
    if ((r = ccore_source_set_rois(src, &rois)) != 0) FAILGO(done, "ccore_source_set_rois: %s", ccore_error_name(r));
    if ((r = ccore_source_start(src)) != 0)
        FAILGO(done, "start %s: %s: %s", fc, ccore_error_name(r), ccore_source_error_message(src));
    uint32_t got = collect_samples(src, samples, 10, 15000);
    if (got < 10) FAILGO(done, "%s: only %u samples in 15 s", fc, got);
    double sum[BARS][3];
    memset(sum, 0, sizeof sum);
    uint32_t expect_pixels = 64u * (uint32_t)(lrintf(0.9f * 480) - lrintf(0.55f * 480));
    for (uint32_t i = 0; i < got; i++) {
        const ccore_frame_sample *s = &samples[i];
        if (s->roi_count != BARS || s->roi_generation != 7 || (s->flags & CCORE_SAMPLE_NO_ROI))
            FAILGO(done, "%s sample %u: roi_count %u generation %u flags 0x%x", fc, i, s->roi_count,
                   s->roi_generation, s->flags);
        if (s->decode_scale != 1) FAILGO(done, "%s: decode scale %u for a raw format", fc, s->decode_scale);
        if (!(s->mean_luma > 1.0f && s->mean_luma < 254.0f))
            FAILGO(done, "%s: mean luma %.1f of vivid's colour bars", fc, s->mean_luma);
        for (int b = 0; b < BARS; b++) {
            const ccore_roi_stats *st = &s->rois[b];
            if (st->skin_fraction < 0.9999f)
                FAILGO(done, "%s: skin fraction %.4f with bounds that accept every pixel", fc, st->skin_fraction);
            if (st->pixel_count + 64 < expect_pixels || st->pixel_count > expect_pixels + 64)
                FAILGO(done, "%s: ROI pixel count %u, expected about %u", fc, st->pixel_count, expect_pixels);
            sum[b][0] += st->r;
            sum[b][1] += st->g;
            sum[b][2] += st->b;
        }
    }
    char bars[400] = "";
    for (int b = 0; b < BARS; b++) {
        for (int c = 0; c < 3; c++) mean[b][c] = (float)(sum[b][c] / got);
        size_t used = strlen(bars);
        snprintf(bars + used, sizeof bars - used, " %.0f/%.0f/%.0f", mean[b][0], mean[b][1], mean[b][2]);
    }
    info("%s 640x480 bpl %u, %u buffers, 1/%u s; bars R/G/B:%s", fc, f.bytes_per_line, f.buffer_count,
         f.interval_denominator / f.interval_numerator, bars);
done:
    ccore_source_destroy(src);
    return failed;
}

int test_negotiate(char *reason, size_t reason_size) {
    float means[FORMAT_COUNT][BARS][3];
    char fc[5], msg[256];
    for (size_t k = 0; k < FORMAT_COUNT; k++)
        if (measure_bars(&k_formats[k], means[k], reason, reason_size)) return 1;
    /* The same colour bars through every format: the core's conversions agree with the
     * YUYV reference.
     * - Other Y'CbCr layouts carry the very same 8-bit values (the bars are 80 pixels wide,
     *   so chroma subsampling never mixes two of them): 0.5, float rounding only.
     * - RGB24: vivid rounds the bars to 8-bit R'G'B' and, separately, to 8-bit Y'CbCr;
     *   each rounding moves R, G or B by up to 1.6 after the BT.601 matrix: 4.
     * - Grey carries luma only, full range by V4L2's default for luma-only formats, and
     *   vivid computes it with the Rec. 709 weights: R = G = B = Y' = 0.2126 R' + 0.7152 G'
     *   + 0.0722 B' of the RGB24 bars (0.5 rounding in vivid, 0.5 in its integer weights): 1.5. */
    size_t rgb = 0;
    for (size_t k = 0; k < FORMAT_COUNT; k++)
        if (k_formats[k].pixel_format == CCORE_PIXEL_RGB24) rgb = k;
    for (size_t k = 1; k < FORMAT_COUNT; k++)
        for (int b = 0; b < BARS; b++) {
            const float *ref = means[0][b];
            float luma = 0.2126f * means[rgb][b][0] + 0.7152f * means[rgb][b][1] + 0.0722f * means[rgb][b][2];
            for (int c = 0; c < 3; c++) {
                ccore_pixel_format pf = k_formats[k].pixel_format;
                float want = pf == CCORE_PIXEL_GRAY ? luma : ref[c];
                float tol = pf == CCORE_PIXEL_GRAY ? 1.5f : pf == CCORE_PIXEL_RGB24 ? 4.0f : 0.5f;
                if (fabsf(means[k][b][c] - want) > tol)
                    FAILF("colour bar %d through %s gives %c=%.2f, expected %.2f +- %.1f", b,
                          fourcc_str(k_formats[k].fourcc, fc), "RGB"[c], means[k][b][c], want, tol);
            }
        }
    /* The bars are what vivid draws: white > 150 in all channels, black < 10. */
    for (int c = 0; c < 3; c++)
        if (means[0][0][c] < 150.0f || means[0][BARS - 1][c] > 10.0f)
            FAILF("the ROIs missed vivid's colour bars: white bar %c=%.1f, black bar %.1f", "RGB"[c], means[0][0][c],
                  means[0][BARS - 1][c]);

    /* Full-range Y'CbCr: with vivid's Quantization control at Full Range the driver says so
     * in the format, and the core must convert accordingly: each bar then matches RGB24's
     * R'G'B' within the same 4 as above (read as limited range, the white bar would come out
     * 1.164 x 191 - 19 = 204 instead of 191, the black one -19 instead of 0). */
    int rq = raw_control_set_path(g_nodes.capture, "quantization", 1);
    if (rq < 0) FAILF("setting vivid's quantization control to Full Range: %s", strerror(-rq));
    float full[BARS][3];
    int failed_full = measure_bars(&k_formats[0], full, reason, reason_size);
    raw_control_set_path(g_nodes.capture, "quantization", 0);
    if (failed_full) return 1;
    for (size_t k = 0; k < FORMAT_COUNT; k++) {
        if (k_formats[k].pixel_format != CCORE_PIXEL_RGB24) continue;
        for (int b = 0; b < BARS; b++)
            for (int c = 0; c < 3; c++)
                if (fabsf(full[b][c] - means[k][b][c]) > 4.0f)
                    FAILF("full-range YUYV bar %d gives %c=%.2f, RGB24 %.2f: the full-range quantization was not "
                          "honoured",
                          b, "RGB"[c], full[b][c], means[k][b][c]);
    }

    /* Automatic format choice, and a size the driver must adjust. */
    ccore_source_config cfg;
    test_config(&cfg, 0, 640, 480, 25);
    ccore_source *src = NULL;
    int r = ccore_source_open_device(g_nodes.capture, &cfg, &src, msg, sizeof msg);
    if (r != 0) FAILF("open with automatic format: %s: %s", ccore_error_name(r), msg);
    ccore_stream_format f;
    ccore_source_get_format(src, &f);
    int ok = f.pixel_format != CCORE_PIXEL_NONE || f.fourcc == V4L2_PIX_FMT_MJPEG;
    int failed = check_against_driver(&f, reason, reason_size);
    ccore_source_destroy(src);
    if (failed) return 1;
    if (!ok) FAILF("automatic choice picked %s, which the core cannot process", fourcc_str(f.fourcc, fc));
    info("automatic choice: %s %ux%u", fourcc_str(f.fourcc, fc), f.width, f.height);

    test_config(&cfg, V4L2_PIX_FMT_YUYV, 1000, 700, 25);
    r = ccore_source_open_device(g_nodes.capture, &cfg, &src, msg, sizeof msg);
    if (r != 0) FAILF("open YUYV 1000x700: %s: %s", ccore_error_name(r), msg);
    ccore_source_get_format(src, &f);
    failed = check_against_driver(&f, reason, reason_size);
    ccore_source_destroy(src);
    if (failed) return 1;
    info("1000x700 requested, driver adjusted to %ux%u", f.width, f.height);
    return 0;
}

/* ------------------------------------------------------------------ stream */

int test_stream(char *reason, size_t reason_size) {
    enum { WANT = 300 };
    static ccore_frame_sample s[WANT];
    ccore_source_config cfg;
    test_config(&cfg, V4L2_PIX_FMT_YUYV, 640, 480, 25);
    ccore_source *src = NULL;
    char msg[256] = "";
    int failed = 0;
    int fds0 = count_fds(), maps0 = count_video_maps();
    int r = ccore_source_open_device(g_nodes.capture, &cfg, &src, msg, sizeof msg);
    if (r != 0) FAILF("open: %s: %s", ccore_error_name(r), msg);
    ccore_stream_format f;
    ccore_source_get_format(src, &f);
    int64_t period = (int64_t)f.interval_numerator * 1000000000LL / (f.interval_denominator ? f.interval_denominator : 1);
    if (period <= 0) FAILGO(done, "interval %u/%u", f.interval_numerator, f.interval_denominator);
    if (count_video_maps() - maps0 < (int)f.buffer_count)
        FAILGO(done, "%d /dev/video mappings for %u buffers", count_video_maps() - maps0, f.buffer_count);

    ccore_roi_set rois;
    memset(&rois, 0, sizeof rois);
    rois.count = 3;
    rois.generation = 42;
    rois.rects[0] = (ccore_rect){0.35f, 0.15f, 0.30f, 0.12f};
    rois.rects[1] = (ccore_rect){0.25f, 0.45f, 0.15f, 0.15f};
    rois.rects[2] = (ccore_rect){0.60f, 0.45f, 0.15f, 0.15f};
    rois.skin = ccore_skin_bounds_all();
    ccore_source_set_rois(src, &rois);

    int64_t t_start = now_ns();
    if ((r = ccore_source_start(src)) != 0)
        FAILGO(done, "start: %s: %s", ccore_error_name(r), ccore_source_error_message(src));
    ccore_source_stats st;
    ccore_source_get_stats(src, &st);
    if (st.state != CCORE_SOURCE_RUNNING) FAILGO(done, "state after start is %s", state_name(st.state));

    /* Pop as a consumer would, checking freshness on arrival. */
    ccore_ring *ring = ccore_source_ring(src);
    uint32_t got = 0, thumbs = 0;
    int64_t worst_age = 0, deadline = t_start + 60LL * 1000000000LL;
    static uint8_t thumb[640 * 480];
    while (got < WANT && now_ns() < deadline) {
        if (!ccore_ring_pop(ring, &s[got])) {
            uint32_t tw = 0, th = 0;
            uint64_t tseq = 0;
            if (ccore_source_take_thumbnail(src, thumb, sizeof thumb, &tw, &th, &tseq) == 1) {
                if (tw == 0 || th == 0 || tw > 640 || th > 480) FAILGO(done, "thumbnail of %ux%u", tw, th);
                thumbs++;
            }
            ccore_source_get_stats(src, &st);
            if (st.state != CCORE_SOURCE_RUNNING)
                FAILGO(done, "state became %s (%s) after %u samples", state_name(st.state),
                       ccore_source_error_message(src), got);
            sleep_ms(2);
            continue;
        }
        int64_t age = now_ns() - s[got].timestamp_ns;
        if (age > worst_age) worst_age = age;
        got++;
    }
    if (got < WANT) FAILGO(done, "only %u of %d samples in 60 s", got, WANT);
    int64_t t_end = now_ns();

    uint64_t dropped_sum = s[0].dropped_before, errors_sum = 0, overflow_sum = 0;
    gap_report rep;
    if (check_sample_gaps(s, got, period, &rep, reason, reason_size)) {
        failed = 1;
        goto done;
    }
    for (uint32_t i = 0; i < got; i++) {
        const ccore_frame_sample *x = &s[i];
        errors_sum += x->errors_before;
        overflow_sum += x->overflow_before;
        /* vivid stamps the end of exposure: 0.9 of a frame period after it fills the buffer. */
        if (x->timestamp_ns < t_start - period || x->timestamp_ns > t_end + 2 * period)
            FAILGO(done, "sample %u timestamp %.3f s outside the streaming window [%.3f, %.3f]", i,
                   x->timestamp_ns / 1e9, t_start / 1e9, t_end / 1e9);
        if (x->processed_ns < x->timestamp_ns - 2 * period || x->processed_ns > t_end)
            FAILGO(done, "sample %u processed at %.6f s, frame at %.6f s", i, x->processed_ns / 1e9,
                   x->timestamp_ns / 1e9);
        if (x->roi_count != 3 || x->roi_generation != 42)
            FAILGO(done, "sample %u: roi_count %u generation %u", i, x->roi_count, x->roi_generation);
        if (x->decode_scale != 1) FAILGO(done, "sample %u: decode scale %u", i, x->decode_scale);
        if (i > 0) dropped_sum += x->dropped_before;
        if (x->dropped_before && !(x->flags & CCORE_SAMPLE_GAP))
            FAILGO(done, "sample %u: dropped_before=%u but no GAP flag", i, x->dropped_before);
        if ((x->flags & CCORE_SAMPLE_GAP) && !(x->dropped_before || x->errors_before || x->overflow_before))
            FAILGO(done, "sample %u: GAP flag without any *_before count", i);
    }
    /* Mean frame spacing matches the negotiated interval (vivid paces by jiffies). */
    double spacing = (double)(s[got - 1].timestamp_ns - s[0].timestamp_ns) / (double)(s[got - 1].sequence - s[0].sequence);
    if (fabs(spacing - (double)period) > 0.05 * (double)period)
        FAILGO(done, "mean frame spacing %.2f ms, negotiated interval %.2f ms", spacing / 1e6, period / 1e6);
    if (worst_age > 1000000000LL) FAILGO(done, "a sample arrived %.0f ms after its frame", worst_age / 1e6);
    if (thumbs == 0) FAILGO(done, "no luma thumbnail published in %u frames", got);

    if ((r = ccore_source_stop(src)) != 0) FAILGO(done, "stop: %s", ccore_error_name(r));
    drain_ring(src);
    ccore_source_get_stats(src, &st);
    if (st.state != CCORE_SOURCE_STOPPED || st.error != 0)
        FAILGO(done, "after stop: state %s error %d", state_name(st.state), st.error);
    if (st.error_frames != 0 || st.ring_overflows != 0)
        FAILGO(done, "error_frames %llu ring_overflows %llu in a clean stream",
               (unsigned long long)st.error_frames, (unsigned long long)st.ring_overflows);
    if (st.frames != st.samples + st.error_frames + st.ring_overflows)
        FAILGO(done, "frames %llu != samples %llu + error frames %llu + overflows %llu",
               (unsigned long long)st.frames, (unsigned long long)st.samples, (unsigned long long)st.error_frames,
               (unsigned long long)st.ring_overflows);
    if (st.samples < got) FAILGO(done, "stats count %llu samples, %u were popped", (unsigned long long)st.samples, got);
    /* Samples pushed after the last one popped may carry drops too: compare up to what was popped. */
    if (st.dropped < dropped_sum)
        FAILGO(done, "stats.dropped %llu < dropped_before summed over samples %llu", (unsigned long long)st.dropped,
               (unsigned long long)dropped_sum);
    if (errors_sum != 0 || overflow_sum != 0)
        FAILGO(done, "errors_before sum %llu, overflow_before sum %llu", (unsigned long long)errors_sum,
               (unsigned long long)overflow_sum);
    info("%u samples, seq %llu..%llu, %llu dropped by the driver (%.1f%%), spacing %.2f ms, worst age %.1f ms, "
         "%u thumbnails; consecutive frames up to %.2f intervals apart, %u repeated sequence numbers, %u gaps "
         "counted by timestamp where vivid's sequence lagged",
         got, (unsigned long long)s[0].sequence, (unsigned long long)s[got - 1].sequence,
         (unsigned long long)rep.gaps, 100.0 * (double)rep.gaps / (double)(s[got - 1].sequence - s[0].sequence + 1),
         spacing / 1e6, worst_age / 1e6, thumbs, rep.max_contiguous_spacing, rep.duplicates, rep.clock_disagreements);
done:
    ccore_source_destroy(src);
    if (!failed && (count_fds() != fds0 || count_video_maps() != maps0))
        FAILF("leak after destroy: fds %d -> %d, /dev/video mappings %d -> %d", fds0, count_fds(), maps0,
              count_video_maps());
    return failed;
}

/* ------------------------------------------------------------------ controls */

int test_controls(char *reason, size_t reason_size) {
    int failed = 0;
    int fd = open(g_nodes.capture, O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) FAILF("open %s: %s", g_nodes.capture, strerror(errno));
    int64_t v = -1;

    /* Query by ID agrees with the driver. */
    struct v4l2_query_ext_ctrl q;
    memset(&q, 0, sizeof q);
    q.id = V4L2_CID_BRIGHTNESS;
    if (xioctl(fd, VIDIOC_QUERY_EXT_CTRL, &q) < 0) FAILGO(out, "vivid has no Brightness control");
    ccore_control_info ci;
    int r = ccore_control_query(fd, V4L2_CID_BRIGHTNESS, &ci);
    if (r != 0 || ci.id != V4L2_CID_BRIGHTNESS || strcmp(ci.name, q.name) != 0 || ci.minimum != q.minimum ||
        ci.maximum != q.maximum || ci.default_value != q.default_value || ci.type != q.type)
        FAILGO(out, "ccore_control_query(Brightness) = %s: '%s' [%lld, %lld] def %lld; driver '%s' [%lld, %lld] def %lld",
               ccore_error_name(r), ci.name, (long long)ci.minimum, (long long)ci.maximum,
               (long long)ci.default_value, q.name, (long long)q.minimum, (long long)q.maximum,
               (long long)q.default_value);
    r = ccore_control_query(fd, V4L2_CID_USER_BASE + 0x7ff, &ci);
    if (r != -EINVAL) FAILGO(out, "query of a control vivid lacks returned %s, expected EINVAL", ccore_error_name(r));

    /* Get / set round trip. */
    if ((r = ccore_control_set(fd, V4L2_CID_BRIGHTNESS, 100)) != 0) FAILGO(out, "set Brightness: %s", ccore_error_name(r));
    if ((r = ccore_control_get(fd, V4L2_CID_BRIGHTNESS, &v)) != 0 || v != 100)
        FAILGO(out, "get Brightness after setting 100: %s, %lld", ccore_error_name(r), (long long)v);
    raw_control_get_id(fd, V4L2_CID_BRIGHTNESS, V4L2_CTRL_TYPE_INTEGER, &v);
    if (v != 100) FAILGO(out, "driver reads Brightness %lld after the core set 100", (long long)v);
    ccore_control_set(fd, V4L2_CID_BRIGHTNESS, q.default_value);

    /* Find by name: a standard control and one of vivid's private ones. */
    memset(&q, 0, sizeof q);
    q.id = V4L2_CID_AUTOGAIN;
    if (xioctl(fd, VIDIOC_QUERY_EXT_CTRL, &q) < 0) FAILGO(out, "vivid has no V4L2_CID_AUTOGAIN control");
    char upper[32];
    snprintf(upper, sizeof upper, "%s", q.name);
    for (char *c = upper; *c; c++) *c = (char)toupper((unsigned char)*c);
    r = ccore_control_find(fd, upper, &ci);
    if (r != 0 || ci.id != V4L2_CID_AUTOGAIN)
        FAILGO(out, "ccore_control_find('%s') = %s, id 0x%x", upper, ccore_error_name(r), ci.id);
    uint32_t drop_id = 0;
    if (raw_control_find(fd, "Percentage of Dropped Buffers", &drop_id, NULL) != 0)
        FAILGO(out, "vivid has no 'Percentage of Dropped Buffers' control");
    r = ccore_control_find(fd, "Percentage of Dropped Buffers", &ci);
    if (r != 0 || ci.id != drop_id)
        FAILGO(out, "ccore_control_find('Percentage of Dropped Buffers') = %s, id 0x%x (driver 0x%x)",
               ccore_error_name(r), ci.id, drop_id);
    r = ccore_control_find(fd, "No Such Control", &ci);
    if (r >= 0) FAILGO(out, "ccore_control_find of a missing name succeeded");
    info("'%s' is the automatic control vivid has", q.name);

    /* Lock and restore, with the user's value on (1) and off (0). */
    for (int user = 1; user >= 0; user--) {
        raw_control_set_id(fd, V4L2_CID_AUTOGAIN, V4L2_CTRL_TYPE_BOOLEAN, user);
        ccore_auto_lock lock;
        memset(&lock, 0, sizeof lock);
        int n = ccore_controls_lock_auto(fd, &lock);
        if (n < 0) FAILGO(out, "ccore_controls_lock_auto (user value %d): %s", user, ccore_error_name(n));
        raw_control_get_id(fd, V4L2_CID_AUTOGAIN, V4L2_CTRL_TYPE_BOOLEAN, &v);
        if (v != 0) FAILGO(out, "%s still %lld after locking (user value %d)", q.name, (long long)v, user);
        int listed = 0;
        for (uint32_t i = 0; i < lock.count && i < CCORE_AUTO_LOCK_MAX; i++) listed |= lock.ids[i] == V4L2_CID_AUTOGAIN;
        if (user == 1 && (n < 1 || !listed)) FAILGO(out, "lock_auto returned %d and did not record %s", n, q.name);
        if ((r = ccore_controls_restore(fd, &lock)) < 0) FAILGO(out, "restore: %s", ccore_error_name(r));
        raw_control_get_id(fd, V4L2_CID_AUTOGAIN, V4L2_CTRL_TYPE_BOOLEAN, &v);
        if (v != user) FAILGO(out, "%s is %lld after restore, the user had %d", q.name, (long long)v, user);
        if ((r = ccore_controls_restore(fd, &lock)) < 0) FAILGO(out, "second restore: %s", ccore_error_name(r));
        raw_control_get_id(fd, V4L2_CID_AUTOGAIN, V4L2_CTRL_TYPE_BOOLEAN, &v);
        if (v != user) FAILGO(out, "%s is %lld after a second restore", q.name, (long long)v);
    }
    raw_control_set_id(fd, V4L2_CID_AUTOGAIN, V4L2_CTRL_TYPE_BOOLEAN, 1);
    close(fd);
    fd = -1;

    /* The capture thread locks after its settling period and restores on stop. */
    ccore_source_config cfg;
    test_config(&cfg, V4L2_PIX_FMT_YUYV, 640, 480, 25);
    cfg.lock_controls_after_ms = 400;
    ccore_source *src = NULL;
    char msg[256] = "";
    r = ccore_source_open_device(g_nodes.capture, &cfg, &src, msg, sizeof msg);
    if (r != 0) FAILGO(out, "open with lock_controls_after_ms: %s: %s", ccore_error_name(r), msg);
    if ((r = ccore_source_start(src)) != 0)
        FAILGO(src_out, "start: %s: %s", ccore_error_name(r), ccore_source_error_message(src));
    ccore_frame_sample s;
    int64_t first_ts = 0, locked_ts = 0, deadline = now_ns() + 10LL * 1000000000LL;
    ccore_ring *ring = ccore_source_ring(src);
    while (!locked_ts && now_ns() < deadline) {
        if (!ccore_ring_pop(ring, &s)) {
            sleep_ms(2);
            continue;
        }
        if (!first_ts) first_ts = s.timestamp_ns;
        if (s.flags & CCORE_SAMPLE_CONTROLS_LOCKED) locked_ts = s.timestamp_ns;
    }
    if (!locked_ts) FAILGO(src_out, "no sample flagged CONTROLS_LOCKED within 10 s (lock after 400 ms)");
    if (locked_ts - first_ts < 300000000LL)
        FAILGO(src_out, "controls locked %.0f ms into the stream, asked 400 ms", (locked_ts - first_ts) / 1e6);
    ccore_source_stats st;
    ccore_source_get_stats(src, &st);
    if (!st.controls_locked) FAILGO(src_out, "stats.controls_locked is 0 while samples say locked");
    fd = open(g_nodes.capture, O_RDWR | O_NONBLOCK | O_CLOEXEC);
    raw_control_get_id(fd, V4L2_CID_AUTOGAIN, V4L2_CTRL_TYPE_BOOLEAN, &v);
    if (v != 0) FAILGO(src_out, "%s is %lld while the source has its controls locked", q.name, (long long)v);
    if ((r = ccore_source_stop(src)) != 0) FAILGO(src_out, "stop: %s", ccore_error_name(r));
    raw_control_get_id(fd, V4L2_CID_AUTOGAIN, V4L2_CTRL_TYPE_BOOLEAN, &v);
    if (v != 1) FAILGO(src_out, "%s is %lld after stop; the user had 1", q.name, (long long)v);
    info("source locked %s %.0f ms into the stream and restored it on stop", q.name, (locked_ts - first_ts) / 1e6);
src_out:
    ccore_source_destroy(src);
out:
    if (fd >= 0) close(fd);
    return failed;
}
