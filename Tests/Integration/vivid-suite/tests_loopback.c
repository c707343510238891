/* Loopback: frames written to vivid's output node come out of its capture node, and the
 * ROI means the core computes must match what was written.
 *
 * Set-up (DESIGN.md §6): capture input 3 (HDMI) and output 1 (HDMI), the same DV timings
 * on both (the first timings vivid enumerates: 640x480p60), loop_video=1 on the capture
 * node, the same pixel format on both, and vivid's on-screen text switched off (it is
 * drawn over looped frames too). vivid then memcpy()s the output buffer it is about to
 * show into each capture buffer, so the bytes the core reads are the bytes written.
 *
 * Every output frame has two solid fields: the left half in palette[c], the right half in
 * palette[(c + 3) % 8], where c advances every HOLD output frames. The core measures four
 * ROIs with skin bounds that accept every pixel: left half, right half, whole frame and a
 * small box inside the left half. Each sample must match one palette index c (left and
 * right fields both), the whole frame their average, and c may only move forwards. */
#include "suite.h"
#include "vivid_loopback.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/videodev2.h>

#define PALETTE 8
#define HOLD 4
#define OUT_BUFFERS 8
#define WANT_SAMPLES 180

static const uint8_t k_palette[PALETTE][3] = {
    {200, 60, 60}, {60, 200, 60}, {60, 60, 200}, {200, 200, 60},
    {60, 200, 200}, {200, 60, 200}, {128, 128, 128}, {230, 150, 40},
};

/* BT.601 studio-swing Y'CbCr of an 8-bit RGB colour, rounded to 8 bits. */
static void rgb_to_ycbcr601(const uint8_t rgb[3], uint8_t out[3]) {
    double r = rgb[0], g = rgb[1], b = rgb[2];
    double y = 16.0 + (65.481 * r + 128.553 * g + 24.966 * b) / 255.0;
    double cb = 128.0 + (-37.797 * r - 74.203 * g + 112.0 * b) / 255.0;
    double cr = 128.0 + (112.0 * r - 93.786 * g - 18.214 * b) / 255.0;
    out[0] = (uint8_t)lrint(y);
    out[1] = (uint8_t)lrint(cb);
    out[2] = (uint8_t)lrint(cr);
}

/* Renders a frame with two solid halves into `dst` (the output format's layout). */
static void render(uint8_t *dst, uint32_t fourcc, uint32_t w, uint32_t h, uint32_t bpl, const uint8_t left[3],
                   const uint8_t right[3]) {
    uint8_t yl[3], yr[3];
    rgb_to_ycbcr601(left, yl);
    rgb_to_ycbcr601(right, yr);
    uint32_t half = w / 2;
    switch (fourcc) {
    case V4L2_PIX_FMT_YUYV:
        for (uint32_t y = 0; y < h; y++) {
            uint8_t *row = dst + (size_t)y * bpl;
            for (uint32_t x = 0; x < w; x += 2) {
                const uint8_t *c = x < half ? yl : yr;
                row[2 * x + 0] = c[0];
                row[2 * x + 1] = c[1];
                row[2 * x + 2] = c[0];
                row[2 * x + 3] = c[2];
            }
        }
        break;
    case V4L2_PIX_FMT_NV12:
    case V4L2_PIX_FMT_NV12M: { /* NV12M: the same two planes, handed over one after the other */
        for (uint32_t y = 0; y < h; y++) {
            uint8_t *row = dst + (size_t)y * bpl;
            memset(row, yl[0], half);
            memset(row + half, yr[0], w - half);
        }
        uint8_t *uv = dst + (size_t)bpl * h;
        for (uint32_t y = 0; y < h / 2; y++) {
            uint8_t *row = uv + (size_t)y * bpl;
            for (uint32_t x = 0; x < w; x += 2) {
                const uint8_t *c = x < half ? yl : yr;
                row[x] = c[1];
                row[x + 1] = c[2];
            }
        }
        break;
    }
    case V4L2_PIX_FMT_RGB24:
        for (uint32_t y = 0; y < h; y++) {
            uint8_t *row = dst + (size_t)y * bpl;
            for (uint32_t x = 0; x < w; x++) memcpy(row + 3 * x, x < half ? left : right, 3);
        }
        break;
    case V4L2_PIX_FMT_SBGGR8: /* rows alternate B G B G ... and G R G R ... */
        for (uint32_t y = 0; y < h; y++) {
            uint8_t *row = dst + (size_t)y * bpl;
            for (uint32_t x = 0; x < w; x++) {
                const uint8_t *c = x < half ? left : right;
                row[x] = (y % 2 == 0) ? (x % 2 == 0 ? c[2] : c[1]) : (x % 2 == 0 ? c[1] : c[0]);
            }
        }
        break;
    }
}

int loopback_test(uint32_t fourcc, ccore_pixel_format pixel_format, float tolerance, char *reason,
                  size_t reason_size) {
    enum { W = 640, H = 480 };
    int failed = 0;
    char fc[5], msg[256] = "";
    fourcc_str(fourcc, fc);
    vivid_output o = {.fd = -1};
    ccore_source *src = NULL;
    uint8_t *frames = NULL;
    static ccore_frame_sample s[WANT_SAMPLES];

    /* Capture node: HDMI input, 640x480p60, loop on, no on-screen text. */
    struct v4l2_dv_timings timings;
    int r = vivid_loopback_capture_on(g_nodes.capture, 0, &timings, msg, sizeof msg);
    if (r < 0) FAILGO(out, "%s", msg);
    if (timings.bt.width != W || timings.bt.height != H || timings.bt.interlaced)
        FAILGO(out, "the first DV timings are %ux%u%s, expected 640x480p", timings.bt.width, timings.bt.height,
               timings.bt.interlaced ? "i" : "p");

    /* Output node: HDMI output, same timings and format; mmap output streaming. */
    if ((r = vivid_output_open(&o, g_nodes.output, &timings, fourcc, OUT_BUFFERS, msg, sizeof msg)) < 0)
        FAILGO(out, "%s", msg);
    uint32_t bpl = o.bytesperline;
    info("output %s %ux%u bpl %u size %u (%u plane%s, %s API)", fc, o.width, o.height, bpl, o.sizeimage, o.planes,
         o.planes == 1 ? "" : "s", o.mplane ? "multi-planar" : "single-planar");
    if (fourcc == V4L2_PIX_FMT_NV12M && o.plane_size[0] != bpl * H)
        FAILGO(out, "NV12M luma plane of %u bytes, the renderer expects %u", o.plane_size[0], bpl * H);

    /* Pre-rendered frames: one per palette index. */
    frames = malloc((size_t)PALETTE * o.sizeimage);
    if (!frames) FAILGO(out, "out of memory");
    for (int c = 0; c < PALETTE; c++)
        render(frames + (size_t)c * o.sizeimage, fourcc, W, H, bpl, k_palette[c], k_palette[(c + 3) % PALETTE]);
    uint64_t written = 0;
    for (uint32_t i = 0; i < o.count; i++, written++)
        if ((r = vivid_output_queue(&o, i, frames + (size_t)((written / HOLD) % PALETTE) * o.sizeimage)) < 0)
            FAILGO(out, "VIDIOC_QBUF output: %s", strerror(-r));
    if ((r = vivid_output_start(&o)) < 0) FAILGO(out, "VIDIOC_STREAMON output: %s", strerror(-r));

    /* The core on the capture node. */
    ccore_source_config cfg;
    test_config(&cfg, fourcc, W, H, 60);
    r = ccore_source_open_device(g_nodes.capture, &cfg, &src, msg, sizeof msg);
    if (r != 0) FAILGO(out, "core open %s 640x480 on the HDMI input: %s: %s", fc, ccore_error_name(r), msg);
    ccore_stream_format f;
    ccore_source_get_format(src, &f);
    if (f.fourcc != fourcc || f.pixel_format != pixel_format || f.width != W || f.height != H)
        FAILGO(out, "core negotiated %s %ux%u", fourcc_str(f.fourcc, msg), f.width, f.height);
    if (!o.mplane) {
        struct v4l2_format cf;
        memset(&cf, 0, sizeof cf);
        cf.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
        xioctl(ccore_source_fd(src), VIDIOC_G_FMT, &cf);
        info("capture %s %ux%u at 1/%.2f s: colorspace %u, ycbcr_enc %u, quantization %u", fc, f.width, f.height,
             f.interval_numerator ? (double)f.interval_denominator / f.interval_numerator : 0.0,
             cf.fmt.pix.colorspace, cf.fmt.pix.ycbcr_enc, cf.fmt.pix.quantization);
    }
    ccore_roi_set rois;
    memset(&rois, 0, sizeof rois);
    rois.count = 4;
    rois.generation = 3;
    rois.rects[0] = (ccore_rect){0.0f, 0.0f, 0.5f, 1.0f};
    rois.rects[1] = (ccore_rect){0.5f, 0.0f, 0.5f, 1.0f};
    rois.rects[2] = (ccore_rect){0.0f, 0.0f, 1.0f, 1.0f};
    rois.rects[3] = (ccore_rect){0.1f, 0.3f, 0.2f, 0.4f};
    rois.skin = ccore_skin_bounds_all();
    if ((r = ccore_source_set_rois(src, &rois)) != 0) FAILGO(out, "set_rois: %s", ccore_error_name(r));
    if ((r = ccore_source_start(src)) != 0)
        FAILGO(out, "core start: %s: %s", ccore_error_name(r), ccore_source_error_message(src));

    /* Keep the output fed while the core captures. */
    ccore_ring *ring = ccore_source_ring(src);
    uint32_t got = 0, min_queued = o.count;
    uint32_t queued = o.count;
    int64_t deadline = now_ns() + 40LL * 1000000000LL;
    while (got < WANT_SAMPLES && now_ns() < deadline) {
        int busy = 0;
        uint32_t index;
        while (vivid_output_dequeue(&o, &index) == 0) {
            queued--;
            if (queued < min_queued) min_queued = queued;
            if ((r = vivid_output_queue(&o, index, frames + (size_t)((written / HOLD) % PALETTE) * o.sizeimage)) < 0)
                FAILGO(out, "VIDIOC_QBUF output: %s", strerror(-r));
            written++;
            queued++;
            busy = 1;
        }
        while (got < WANT_SAMPLES && ccore_ring_pop(ring, &s[got])) {
            got++;
            busy = 1;
        }
        if (!busy) {
            ccore_source_stats st;
            ccore_source_get_stats(src, &st);
            if (st.state != CCORE_SOURCE_RUNNING)
                FAILGO(out, "capture state %s: %s", state_name(st.state), ccore_source_error_message(src));
            sleep_ms(1);
        }
    }
    if (got < WANT_SAMPLES) FAILGO(out, "only %u of %d samples in 40 s", got, WANT_SAMPLES);

    /* Match every sample against the palette. */
    const uint32_t half_pixels = (W / 2) * H;
    int last_c = -1, seen[PALETTE] = {0}, unmatched_start = 0;
    float worst = 0;
    for (uint32_t i = 0; i < got; i++) {
        const ccore_frame_sample *x = &s[i];
        if (x->roi_count != 4 || x->roi_generation != 3)
            FAILGO(out, "sample %u: roi_count %u generation %u", i, x->roi_count, x->roi_generation);
        if (x->rois[0].pixel_count != half_pixels || x->rois[1].pixel_count != half_pixels ||
            x->rois[2].pixel_count != 2 * half_pixels)
            FAILGO(out, "sample %u: pixel counts %u, %u, %u; expected %u, %u, %u", i, x->rois[0].pixel_count,
                   x->rois[1].pixel_count, x->rois[2].pixel_count, half_pixels, half_pixels, 2 * half_pixels);
        for (int k = 0; k < 4; k++)
            if (x->rois[k].skin_fraction < 0.9999f)
                FAILGO(out, "sample %u ROI %d: skin fraction %.4f with bounds accepting every pixel", i, k,
                       x->rois[k].skin_fraction);
        int best = -1;
        float best_err = 1e9f;
        for (int c = 0; c < PALETTE; c++) {
            const uint8_t *L = k_palette[c], *R = k_palette[(c + 3) % PALETTE];
            float e = 0;
            float got_rgb[4][3] = {{x->rois[0].r, x->rois[0].g, x->rois[0].b},
                                   {x->rois[1].r, x->rois[1].g, x->rois[1].b},
                                   {x->rois[2].r, x->rois[2].g, x->rois[2].b},
                                   {x->rois[3].r, x->rois[3].g, x->rois[3].b}};
            for (int ch = 0; ch < 3; ch++) {
                float want[4] = {L[ch], R[ch], (L[ch] + R[ch]) / 2.0f, L[ch]};
                for (int k = 0; k < 4; k++) e = fmaxf(e, fabsf(got_rgb[k][ch] - want[k]));
            }
            if (e < best_err) {
                best_err = e;
                best = c;
            }
        }
        if (best_err > tolerance) {
            /* vivid shows its test pattern until the first looped frame; allow that at the start only. */
            if (last_c < 0 && i < 3) {
                unmatched_start++;
                continue;
            }
            FAILGO(out,
                   "sample %u (seq %llu): left %.1f %.1f %.1f, right %.1f %.1f %.1f, whole %.1f %.1f %.1f match no "
                   "written frame (nearest: index %d, off by %.2f > %.2f); output queue low-water mark %u",
                   i, (unsigned long long)x->sequence, x->rois[0].r, x->rois[0].g, x->rois[0].b, x->rois[1].r,
                   x->rois[1].g, x->rois[1].b, x->rois[2].r, x->rois[2].g, x->rois[2].b, best, best_err, tolerance,
                   min_queued);
        }
        if (best_err > worst) worst = best_err;
        if (last_c >= 0) {
            int step = (best - last_c + PALETTE) % PALETTE;
            /* HOLD output frames per colour at the capture's own rate: one step at a time,
             * more only across frames the capture side lost. */
            int allowed = 1 + (int)((x->dropped_before + x->errors_before + HOLD - 1) / HOLD) + 1;
            if (step > allowed)
                FAILGO(out, "sample %u jumped from colour %d to %d (allowed %d steps)", i, last_c, best, allowed);
        }
        last_c = best;
        seen[best]++;
    }
    int distinct = 0;
    for (int c = 0; c < PALETTE; c++) distinct += seen[c] > 0;
    if (distinct < PALETTE) FAILGO(out, "only %d of %d written colours came back in %u samples", distinct, PALETTE, got);
    info("%s loopback: %u samples, all %d colours, worst error %.3f (tolerance %.2f), %d start-up frames skipped, "
         "%llu frames written, output queue low-water %u",
         fc, got, distinct, worst, tolerance, unmatched_start, (unsigned long long)written, min_queued);
out:
    if (src) ccore_source_destroy(src);
    vivid_output_close(&o);
    free(frames);
    /* Leave the capture node as the other tests expect it. */
    vivid_loopback_capture_off(g_nodes.capture);
    return failed;
}

/* Tolerance for Y'CbCr formats: the test rounds each of Y', Cb, Cr to 8 bits (error <= 0.5),
 * which the BT.601 inverse turns into at most 1.164*0.5 + 2.017*0.5 = 1.59 in B (less in R, G);
 * the fields are uniform and their border sits on an even column, so chroma subsampling adds
 * nothing. 2.0 leaves room for float rounding in the core's sums. */
int test_loopback_yuyv(char *reason, size_t reason_size) {
    return loopback_test(V4L2_PIX_FMT_YUYV, CCORE_PIXEL_YUYV, 2.0f, reason, reason_size);
}

int test_loopback_nv12(char *reason, size_t reason_size) {
    return loopback_test(V4L2_PIX_FMT_NV12, CCORE_PIXEL_NV12, 2.0f, reason, reason_size);
}

/* RGB24 is copied byte for byte: the means must be the written values. */
int test_loopback_rgb24(char *reason, size_t reason_size) {
    return loopback_test(V4L2_PIX_FMT_RGB24, CCORE_PIXEL_RGB24, 0.05f, reason, reason_size);
}

/* Bayer BGGR through libv4lconvert: each 2x2 cell carries the exact 8-bit R, G, G, B, and
 * the demosaic interpolates the missing two channels of each pixel from its neighbours
 * (averages of 2 or 4). Inside a uniform field that gives the written colour up to the
 * rounding of the averages (<= 0.5 per pixel). Only the column on each side of the centre
 * edge interpolates across it, off by at most half the fields' difference (<= 85 levels
 * for this palette): over a 320-column half that moves the mean by <= 85/320 = 0.27. The
 * frame's border rows and columns are filled from the same field, so they add nothing.
 * 0.5 + 0.27 < 1.0. */
int test_loopback_bayer(char *reason, size_t reason_size) {
    return loopback_test(V4L2_PIX_FMT_SBGGR8, CCORE_PIXEL_RGB24, 1.0f, reason, reason_size);
}
