/* Per-frame rendering: warp the face layer onto the backdrop, apply the
 * pulse, the light and the sensor noise, then quantise for the file.
 *
 * Linear in the 8-bit sRGB values: the pulse is a small multiplicative
 * change of the skin's values, as a camera's ROI means see it. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <turbojpeg.h>

#include "ccore/jpeg.h"
#include "gt_internal.h"

int gt_worker_init(gt_worker *w, const gt_clip *c) {
    memset(w, 0, sizeof *w);
    size_t n = (size_t)c->opt.width * c->opt.height;
    w->rgb = malloc((n * 3 + 4) * sizeof *w->rgb);
    w->rgb8 = malloc(n * 3);
    w->planes = malloc(n + 2 * ((size_t)(c->opt.width / 2) * (c->opt.height / 2)));
    if (!w->rgb || !w->rgb8 || !w->planes) return -ENOMEM;
    if (c->jpeg_artefacts) {
        w->tj = tjInitDecompress();
        if (!w->tj) return -ENOMEM;
    }
    return 0;
}

void gt_worker_free(gt_worker *w) {
    free(w->rgb);
    free(w->rgb8);
    free(w->planes);
    free(w->jpeg);
    if (w->tj) tjDestroy(w->tj);
    memset(w, 0, sizeof *w);
}

static inline float clamp255(float v) { return v < 0 ? 0 : v > 255 ? 255 : v; }

/* Four floats in one SIMD register (SSE on x86, NEON on ARM). */
typedef float v4 __attribute__((vector_size(16)));
static inline v4 load4(const float *p) {
    v4 v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* Bilinear sample of the layer at index coordinates (u, v); adds colour+alpha
 * and swing to the accumulators, nothing when outside the layer. */
static inline void sample_layer(const gt_face_layer *L, float u, float v, v4 *col, v4 *swing) {
    /* floor without a libm call; valid for u, v > -1024 (further out is rejected anyway) */
    int i0 = (int)(u + 1024.0f) - 1024, j0 = (int)(v + 1024.0f) - 1024;
    if (i0 < 0 || j0 < 0 || i0 >= (int)L->width - 1 || j0 >= (int)L->height - 1) return;
    float ax = u - (float)i0, ay = v - (float)j0;
    float w00 = (1 - ax) * (1 - ay), w01 = ax * (1 - ay), w10 = (1 - ax) * ay, w11 = ax * ay;
    const float *p00 = L->pixels + ((size_t)j0 * L->width + i0) * GT_L_CHANNELS;
    const float *p10 = p00 + (size_t)L->width * GT_L_CHANNELS;
    *col += w00 * load4(p00) + w01 * load4(p00 + GT_L_CHANNELS) + w10 * load4(p10) + w11 * load4(p10 + GT_L_CHANNELS);
    *swing += w00 * load4(p00 + 4) + w01 * load4(p00 + GT_L_CHANNELS + 4) + w10 * load4(p10 + 4) +
              w11 * load4(p10 + GT_L_CHANNELS + 4);
}

/* What the quality scenarios add to a frame: a second face and an occluder. */
typedef struct {
    int second;
    int x0, x1, y0, y1;     /* the second face layer's footprint, frame pixels */
    float u0, v0, step;     /* its layer position at pixel (0, 0), layer pixels per frame pixel */
    int occluded;
    int ox0, ox1, oy0, oy1; /* the occluder, frame pixels */
    v4 occluder;
} extras;

static void extras_init(extras *e, const gt_clip *c, const gt_frame *f) {
    memset(e, 0, sizeof *e);
    const gt_face_layer *L = &c->face;
    const float W = (float)c->opt.width, H = (float)c->opt.height, k = (float)c->oversample;
    if (c->second_face) {
        /* Upright, still, scaled: frame = centre2 + shake + s2 (layer - face centre) / k. */
        float s = c->second_scale, cx = c->second_x + f->shake_x, cy = c->second_y + f->shake_y;
        e->second = 1;
        e->step = k / s;
        e->u0 = c->face_cx - 0.5f + (0.5f - cx) * e->step;
        e->v0 = c->face_cy - 0.5f + (0.5f - cy) * e->step;
        e->x0 = (int)fmaxf(0, floorf(cx - c->face_cx / e->step) - 1);
        e->x1 = (int)fminf(W, ceilf(cx + (L->width - c->face_cx) / e->step) + 1);
        e->y0 = (int)fmaxf(0, floorf(cy - c->face_cy / e->step) - 1);
        e->y1 = (int)fminf(H, ceilf(cy + (L->height - c->face_cy) / e->step) + 1);
    }
    if (f->occluded) {
        gt_box b = gt_clip_region(c, f, gt_occluder_source());
        e->occluded = 1;
        e->ox0 = (int)lroundf(b.x * W), e->ox1 = (int)lroundf((b.x + b.w) * W);
        e->oy0 = (int)lroundf(b.y * H), e->oy1 = (int)lroundf((b.y + b.h) * H);
        e->occluder = (v4){gt_occluder_rgb[0], gt_occluder_rgb[1], gt_occluder_rgb[2], 0};
    }
}

/* The second face composited over the backdrop at one pixel (single tap). */
static v4 second_face(const gt_clip *c, const extras *e, v4 px, float pulse, int x, int y) {
    v4 col = {0, 0, 0, 0}, swing = {0, 0, 0, 0};
    sample_layer(&c->face, e->u0 + x * e->step, e->v0 + y * e->step, &col, &swing);
    return px * (1 - col[GT_L_A]) + col - pulse * swing;
}

void gt_render_frame(const gt_clip *c, gt_worker *w, uint32_t index) {
    const gt_frame *f = &c->frames[index];
    const uint32_t W = c->opt.width, H = c->opt.height;
    const gt_face_layer *L = &c->face;
    const float k = (float)c->oversample;
    const float cs = cosf(f->rot), sn = sinf(f->rot), inv = k / f->scale;
    /* Inverse map frame -> layer: layer = centre + k Q^-1 R^T (frame - anchor - t) / s,
     * Q = diag(squeeze, 1). The -0.5 turns layer coordinates into bilinear indices. */
    const float du_dx = cs * inv / f->squeeze, dv_dx = -sn * inv, du_dy = sn * inv / f->squeeze, dv_dy = cs * inv;
    const float ox = 0.5f - c->anchor_x - f->tx, oy = 0.5f - c->anchor_y - f->ty;
    const float u0 = c->face_cx - 0.5f + du_dx * ox + du_dy * oy, v0 = c->face_cy - 0.5f + dv_dx * ox + dv_dy * oy;
    /* Oversampled: four taps at +-1/4 pixel around each pixel centre. */
    const int taps = c->oversample > 1 ? 4 : 1;
    float tu[4] = {0}, tv[4] = {0};
    if (taps == 4)
        for (int t = 0; t < 4; t++) {
            float dx = (t & 1) ? 0.25f : -0.25f, dy = (t & 2) ? 0.25f : -0.25f;
            tu[t] = du_dx * dx + du_dy * dy, tv[t] = dv_dx * dx + dv_dy * dy;
        }
    const float tap_weight = 1.0f / taps;

    /* The layer's footprint in the frame; outside it only the backdrop shows. */
    float fx_min = 1e30f, fx_max = -1e30f, fy_min = 1e30f, fy_max = -1e30f;
    for (int q = 0; q < 4; q++) {
        float lx = (q & 1) ? (float)L->width : 0, ly = (q & 2) ? (float)L->height : 0;
        float dx = (lx - c->face_cx) * f->scale / k * f->squeeze, dy = (ly - c->face_cy) * f->scale / k;
        float x = c->anchor_x + f->tx + cs * dx - sn * dy, y = c->anchor_y + f->ty + sn * dx + cs * dy;
        fx_min = fminf(fx_min, x), fx_max = fmaxf(fx_max, x), fy_min = fminf(fy_min, y), fy_max = fmaxf(fy_max, y);
    }
    const int x_lo = (int)fmaxf(0, floorf(fx_min) - 1), x_hi = (int)fminf((float)W, ceilf(fx_max) + 1);
    const int y_lo = (int)fmaxf(0, floorf(fy_min) - 1), y_hi = (int)fminf((float)H, ceilf(fy_max) + 1);

    const v4 gain = {f->gain[0], f->gain[1], f->gain[2], 0};
    extras ex;
    extras_init(&ex, c, f);
    const float pulse = f->pulse, sigma = c->opt.noise_sigma * f->noise_gain;
    gt_rng rng = gt_rng_stream(c->opt.seed, 0x100000000ull + index);

    for (uint32_t y = 0; y < H; y++) {
        /* Camera shake moves the backdrop too (its edge rows and columns repeat). */
        int by = (int)y - f->shake_y;
        by = by < 0 ? 0 : by >= (int)H ? (int)H - 1 : by;
        const float *bg = c->backdrop + (size_t)by * W * 3;
        const float *noise = c->noise + (gt_rng_next(&rng) & (GT_NOISE_TABLE - 1));
        float *out = w->rgb + (size_t)y * W * 3;
        /* A rolling shutter reads this row at its own moment of the mains ripple. */
        const v4 row_gain = f->flicker_amp > 0 ? gain * (1 + f->flicker_amp * sinf(f->flicker_phase + f->flicker_dphase * y))
                                               : gain;
        const int row_lo = !c->no_face && (int)y >= y_lo && (int)y < y_hi ? x_lo : (int)W,
                  row_hi = row_lo < (int)W ? x_hi : 0;
        float u = u0 + du_dy * y + du_dx * row_lo, v = v0 + dv_dy * y + dv_dx * row_lo;
        for (int x = 0; x < (int)W; x++) {
            int bx = x;
            if (f->shake_x) bx = x - f->shake_x < 0 ? 0 : x - f->shake_x >= (int)W ? (int)W - 1 : x - f->shake_x;
            v4 px = load4(bg + 3 * bx); /* the 4th lane is junk and never stored */
            if (ex.second && (int)y >= ex.y0 && (int)y < ex.y1 && x >= ex.x0 && x < ex.x1)
                px = second_face(c, &ex, px, pulse, x, (int)y);
            if (x >= row_lo && x < row_hi) {
                v4 col = {0, 0, 0, 0}, swing = {0, 0, 0, 0};
                if (taps == 1) {
                    sample_layer(L, u, v, &col, &swing);
                } else {
                    for (int t = 0; t < 4; t++) sample_layer(L, u + tu[t], v + tv[t], &col, &swing);
                    col *= tap_weight, swing *= tap_weight;
                }
                /* More blood absorbs more light: skin darkens at systole. */
                px = px * (1 - col[GT_L_A]) + col - pulse * swing;
                u += du_dx, v += dv_dx;
            }
            if (ex.occluded && (int)y >= ex.oy0 && (int)y < ex.oy1 && x >= ex.ox0 && x < ex.ox1) px = ex.occluder;
            px *= row_gain;
            if (c->column_gain) px *= c->column_gain[x];
            if (sigma > 0) px += sigma * load4(noise + 3 * x);
            out[3 * x] = clamp255(px[0]), out[3 * x + 1] = clamp255(px[1]), out[3 * x + 2] = clamp255(px[2]);
        }
    }
}

int gt_render_rgb8(const gt_clip *c, gt_worker *w) {
    size_t n = (size_t)c->opt.width * c->opt.height * 3;
    for (size_t i = 0; i < n; i++) w->rgb8[i] = (uint8_t)(w->rgb[i] + 0.5f);
    if (!c->jpeg_artefacts) return 0;
    ccore_image im;
    ccore_image_wrap_packed(&im, CCORE_PIXEL_RGB24, CCORE_RANGE_FULL, c->opt.width, c->opt.height, w->rgb8);
    free(w->jpeg);
    w->jpeg = NULL;
    int rc = ccore_jpeg_encode(&im, c->opt.jpeg_quality, &w->jpeg, &w->jpeg_size);
    if (rc < 0) return rc;
    if (tjDecompress2(w->tj, w->jpeg, (unsigned long)w->jpeg_size, w->rgb8, (int)c->opt.width, 0,
                      (int)c->opt.height, TJPF_RGB, TJFLAG_ACCURATEDCT))
        return -EIO;
    return 0;
}

/* BT.601 studio swing, what CCore assumes for a Y4M without XCOLORRANGE=FULL. */
static inline uint8_t q8(float v) { return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v + 0.5f); }
static inline float luma(float r, float g, float b) { return 16 + (65.481f * r + 128.553f * g + 24.966f * b) / 255; }
static inline float chroma_b(float r, float g, float b) { return 128 + (-37.797f * r - 74.203f * g + 112.0f * b) / 255; }
static inline float chroma_r(float r, float g, float b) { return 128 + (112.0f * r - 93.786f * g - 18.214f * b) / 255; }

/* Y4M 4:2:0 (C420jpeg: chroma sited between the four luma samples, so each
 * chroma value is the mean of its 2x2 block). */
static void to_planes(const gt_clip *c, gt_worker *w) {
    const uint32_t W = c->opt.width, H = c->opt.height, cw = W / 2;
    uint8_t *yp = w->planes, *cbp = yp + (size_t)W * H, *crp = cbp + (size_t)cw * (H / 2);
    const int from8 = c->jpeg_artefacts; /* the JPEG round trip left its result in rgb8 */
    for (uint32_t y = 0; y < H; y += 2)
        for (uint32_t x = 0; x < W; x += 2) {
            float sr = 0, sg = 0, sb = 0;
            for (uint32_t k = 0; k < 4; k++) {
                size_t i = ((size_t)(y + (k >> 1)) * W + x + (k & 1)) * 3;
                float r, g, b;
                if (from8) r = w->rgb8[i], g = w->rgb8[i + 1], b = w->rgb8[i + 2];
                else r = w->rgb[i], g = w->rgb[i + 1], b = w->rgb[i + 2];
                yp[(size_t)(y + (k >> 1)) * W + x + (k & 1)] = q8(luma(r, g, b));
                sr += r, sg += g, sb += b;
            }
            sr *= 0.25f, sg *= 0.25f, sb *= 0.25f;
            cbp[(size_t)(y / 2) * cw + x / 2] = q8(chroma_b(sr, sg, sb));
            crp[(size_t)(y / 2) * cw + x / 2] = q8(chroma_r(sr, sg, sb));
        }
}

int gt_encode_frame(const gt_clip *c, gt_worker *w) {
    int rc = 0;
    if (c->opt.format == GT_FORMAT_Y4M) {
        if (c->jpeg_artefacts && (rc = gt_render_rgb8(c, w)) < 0) return rc;
        to_planes(c, w);
        return 0;
    }
    /* MJPEG: the encode itself is the compression the scenario asks for. */
    size_t n = (size_t)c->opt.width * c->opt.height * 3;
    for (size_t i = 0; i < n; i++) w->rgb8[i] = (uint8_t)(w->rgb[i] + 0.5f);
    ccore_image im;
    ccore_image_wrap_packed(&im, CCORE_PIXEL_RGB24, CCORE_RANGE_FULL, c->opt.width, c->opt.height, w->rgb8);
    free(w->jpeg);
    w->jpeg = NULL;
    rc = ccore_jpeg_encode(&im, c->opt.jpeg_quality, &w->jpeg, &w->jpeg_size);
    if (rc < 0 || c->opt.restart_interval == 0) return rc;
    /* Restart markers written in losslessly: the same pixels, as a webcam that sends them. */
    uint8_t *marked = NULL;
    size_t marked_size = 0;
    rc = ccore_jpeg_set_restart_interval(w->jpeg, w->jpeg_size, c->opt.restart_interval, &marked, &marked_size);
    if (rc < 0) return rc;
    free(w->jpeg);
    w->jpeg = marked;
    w->jpeg_size = marked_size;
    return 0;
}
