/* Skin-masked ROI means, mean luma and the luma thumbnail.
 *
 * Y'CbCr frames are summed in Y'CbCr and converted to RGB once per ROI: the
 * BT.601 conversion is affine, so the mean of the converted pixels equals the
 * converted mean (clipping aside, which skin pixels inside the mask bounds do
 * not reach). That keeps the inner loops to loads, a mask test and adds. */
#include "ccore/roi.h"

#include <errno.h>
#include <math.h>
#include <string.h>

ccore_skin_bounds ccore_skin_bounds_default(void) {
    /* Cb/Cr box of Chai & Ngan (1999); Y bounds drop near-black and clipped pixels. */
    return (ccore_skin_bounds){.y_min = 40, .y_max = 250, .cb_min = 77, .cb_max = 127, .cr_min = 133, .cr_max = 173};
}

ccore_skin_bounds ccore_skin_bounds_all(void) {
    return (ccore_skin_bounds){.y_min = 0, .y_max = 255, .cb_min = 0, .cb_max = 255, .cr_min = 0, .cr_max = 255};
}

void ccore_ycbcr_to_rgb(float y, float cb, float cr, ccore_color_range range, float rgb[3]) {
    if (!rgb) return;
    float u = cb - 128.0f, v = cr - 128.0f;
    if (range == CCORE_RANGE_FULL) {
        rgb[0] = y + 1.402f * v;
        rgb[1] = y - 0.344136f * u - 0.714136f * v;
        rgb[2] = y + 1.772f * u;
    } else {
        float l = 1.164383f * (y - 16.0f);
        rgb[0] = l + 1.596027f * v;
        rgb[1] = l - 0.391762f * u - 0.812968f * v;
        rgb[2] = l + 2.017232f * u;
    }
}

#if defined(__GNUC__) || defined(__clang__)
#define ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define ALWAYS_INLINE inline
#endif

/* Full-range JPEG (JFIF) Y'CbCr from RGB in 8.8 fixed point, for the skin test on RGB frames. */
static inline void rgb_to_ycbcr(int r, int g, int b, int *y, int *cb, int *cr) {
    *y = (77 * r + 150 * g + 29 * b) >> 8;
    *cb = ((-43 * r - 85 * g + 128 * b) >> 8) + 128;
    *cr = ((128 * r - 107 * g - 21 * b) >> 8) + 128;
}

/* Prefetches the bytes [p, p + n) for reading (64-byte lines). A frame from
 * the capture path usually comes from DRAM, and the kernels below jump from
 * row to row, which the hardware prefetchers only follow after a few misses:
 * asking for the rows a few steps ahead while the current one is processed
 * hides most of that latency (ccore-bench yuyv-640x480-s1 on the 2-core dev
 * VM, A/B in one session: about 15.5 us/frame without, 10.5-11.5 with). */
static inline void prefetch_span(const uint8_t *p, size_t n) {
#if defined(__GNUC__) || defined(__clang__)
    if (n == 0) return;
    for (size_t o = 0; o < n; o += 64) __builtin_prefetch(p + o, 0, 3);
    __builtin_prefetch(p + n - 1, 0, 3);
#else
    (void)p, (void)n;
#endif
}

/* ---------- skin-masked ROI sums ----------
 *
 * The inner loops are branch-free: each skin test yields an all-ones or zero
 * mask that is ANDed into the sums, so a ragged face edge costs no branch
 * mispredictions and the loops vectorise. Formats with shared chroma (YUYV,
 * NV12, 4:2:0 / 4:2:2 planar) take two pixels per step, so the chroma test is
 * done once per pair; an ROI edge on an odd x takes its pixel alone. A range
 * test is the unsigned compare (v - lo) <= (hi - lo) modulo 2^32, exactly the
 * per-pixel test this replaces. One row loop serves every format: it is
 * instantiated per format (constant `format`, always inlined), so the format
 * switch inside it is resolved at compile time and the bounds stay in
 * registers across rows. */

typedef struct {
    uint32_t ylo, yspan, blo, bspan, rlo, rspan;
} skin_test;

static skin_test make_skin_test(const ccore_skin_bounds *s) {
    return (skin_test){.ylo = s->y_min, .yspan = (uint32_t)(s->y_max - s->y_min), .blo = s->cb_min,
                       .bspan = (uint32_t)(s->cb_max - s->cb_min), .rlo = s->cr_min,
                       .rspan = (uint32_t)(s->cr_max - s->cr_min)};
}

/* All ones when lo <= v <= lo + span (unsigned range test), else zero. */
#define RANGE_MASK(v, lo, span) (-(uint32_t)((uint32_t)(v) - (lo) <= (span)))

/* Sums over one row span of at most SPAN_MAX pixels, where 32 bits cannot
 * overflow (2^16 * 255 < 2^24): Y, Cb, Cr (R, G, B for RGB24) and the count. */
#define SPAN_MAX 65536u
typedef struct {
    uint32_t a, b, c, n;
} span_sums;

static ALWAYS_INLINE void add_pixel(span_sums *s, skin_test t, uint32_t y, uint32_t cb, uint32_t cr) {
    uint32_t m = RANGE_MASK(y, t.ylo, t.yspan) & RANGE_MASK(cb, t.blo, t.bspan) & RANGE_MASK(cr, t.rlo, t.rspan);
    s->a += y & m;
    s->b += cb & m;
    s->c += cr & m;
    s->n -= m; /* m is 0 or -1 */
}

/* Adds one pair of pixels sharing their chroma. */
#define ADD_PAIR(sy, su, sv, n, y0, y1, u, v, t)                                                                   \
    do {                                                                                                           \
        uint32_t c_ = RANGE_MASK(u, (t).blo, (t).bspan) & RANGE_MASK(v, (t).rlo, (t).rspan);                       \
        uint32_t m0_ = c_ & RANGE_MASK(y0, (t).ylo, (t).yspan), m1_ = c_ & RANGE_MASK(y1, (t).ylo, (t).yspan);     \
        sy += ((y0) & m0_) + ((y1) & m1_);                                                                         \
        su += ((u) & m0_) + ((u) & m1_);                                                                           \
        sv += ((v) & m0_) + ((v) & m1_);                                                                           \
        n -= m0_ + m1_;                                                                                            \
    } while (0)

/* YUYV: each macropixel Y0 U Y1 V read as one 32-bit word. */
static ALWAYS_INLINE span_sums row_yuyv(const uint8_t *row, uint32_t x0, uint32_t x1, skin_test t) {
    span_sums s = {0};
    uint32_t x = x0;
    if (x < x1 && (x & 1)) { /* the second pixel of its macropixel */
        add_pixel(&s, t, row[2 * (size_t)x], row[2 * (size_t)x - 1], row[2 * (size_t)x + 1]);
        x++;
    }
    uint32_t sy = 0, su = 0, sv = 0, n = 0, pairs = (x1 - x) / 2;
    const uint8_t *p = row + 2 * (size_t)x;
    for (uint32_t k = 0; k < pairs; k++) {
        uint32_t w;
        memcpy(&w, p + 4 * (size_t)k, 4);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        w = __builtin_bswap32(w);
#endif
        uint32_t y0 = w & 0xff, u = (w >> 8) & 0xff, y1 = (w >> 16) & 0xff, v = w >> 24;
        ADD_PAIR(sy, su, sv, n, y0, y1, u, v, t);
    }
    s.a += sy, s.b += su, s.c += sv, s.n += n;
    x += 2 * pairs;
    if (x < x1) add_pixel(&s, t, row[2 * (size_t)x], row[2 * (size_t)x + 1], row[2 * (size_t)x + 3]);
    return s;
}

/* Two luma bytes and the chroma of their pair: NV12 (Cb Cr interleaved,
 * `interleaved` = 1) or 4:2:0 / 4:2:2 planar (one byte from each plane). */
static ALWAYS_INLINE span_sums row_pairs(const uint8_t *luma, const uint8_t *cb, const uint8_t *cr, int interleaved,
                                         uint32_t x0, uint32_t x1, skin_test t) {
    size_t cstep = interleaved ? 2 : 1;
    span_sums s = {0};
    uint32_t x = x0;
    if (x < x1 && (x & 1)) {
        add_pixel(&s, t, luma[x], cb[(x >> 1) * cstep], cr[(x >> 1) * cstep]);
        x++;
    }
    uint32_t sy = 0, su = 0, sv = 0, n = 0, pairs = (x1 - x) / 2;
    const uint8_t *l = luma + x, *pb = cb + (x >> 1) * cstep, *pr = cr + (x >> 1) * cstep;
    for (uint32_t k = 0; k < pairs; k++) {
        uint32_t y0 = l[2 * (size_t)k], y1 = l[2 * (size_t)k + 1], u = pb[k * cstep], v = pr[k * cstep];
        ADD_PAIR(sy, su, sv, n, y0, y1, u, v, t);
    }
    s.a += sy, s.b += su, s.c += sv, s.n += n;
    x += 2 * pairs;
    if (x < x1) add_pixel(&s, t, luma[x], cb[(x >> 1) * cstep], cr[(x >> 1) * cstep]);
    return s;
}

static ALWAYS_INLINE span_sums row_444(const uint8_t *luma, const uint8_t *cb, const uint8_t *cr, uint32_t x0,
                                       uint32_t x1, skin_test t) {
    uint32_t sy = 0, su = 0, sv = 0, n = 0;
    for (uint32_t x = x0; x < x1; x++) {
        uint32_t l = luma[x], u = cb[x], v = cr[x];
        uint32_t m = RANGE_MASK(l, t.ylo, t.yspan) & RANGE_MASK(u, t.blo, t.bspan) & RANGE_MASK(v, t.rlo, t.rspan);
        sy += l & m;
        su += u & m;
        sv += v & m;
        n -= m;
    }
    return (span_sums){sy, su, sv, n};
}

/* GRAY: chroma is neutral (128), so its test is the same for every pixel. */
static ALWAYS_INLINE span_sums row_gray(const uint8_t *luma, uint32_t x0, uint32_t x1, skin_test t) {
    uint32_t c = RANGE_MASK(128, t.blo, t.bspan) & RANGE_MASK(128, t.rlo, t.rspan), sy = 0, n = 0;
    for (uint32_t x = x0; x < x1; x++) {
        uint32_t l = luma[x], m = c & RANGE_MASK(l, t.ylo, t.yspan);
        sy += l & m;
        n -= m;
    }
    return (span_sums){sy, 128 * n, 128 * n, n};
}

/* RGB24: the skin test on the pixel's JFIF Y'CbCr, the sums in R, G, B. */
static ALWAYS_INLINE span_sums row_rgb24(const uint8_t *row, uint32_t x0, uint32_t x1, skin_test t) {
    uint32_t sr = 0, sg = 0, sb = 0, n = 0;
    for (uint32_t x = x0; x < x1; x++) {
        const uint8_t *p = row + (size_t)x * 3;
        int r = p[0], g = p[1], b = p[2], ly, cb, cr;
        rgb_to_ycbcr(r, g, b, &ly, &cb, &cr);
        uint32_t m = RANGE_MASK(ly, t.ylo, t.yspan) & RANGE_MASK(cb, t.blo, t.bspan) & RANGE_MASK(cr, t.rlo, t.rspan);
        sr += (uint32_t)r & m;
        sg += (uint32_t)g & m;
        sb += (uint32_t)b & m;
        n -= m;
    }
    return (span_sums){sr, sg, sb, n};
}

#define ROW(im, k, y) ((im)->plane##k + (size_t)(y) * (im)->stride##k)

static ALWAYS_INLINE span_sums sum_row(const ccore_image *im, ccore_pixel_format f, uint32_t y, uint32_t x0,
                                       uint32_t x1, skin_test t) {
    switch (f) {
    case CCORE_PIXEL_YUYV: return row_yuyv(ROW(im, 0, y), x0, x1, t);
    case CCORE_PIXEL_NV12: return row_pairs(ROW(im, 0, y), ROW(im, 1, y >> 1), ROW(im, 1, y >> 1) + 1, 1, x0, x1, t);
    case CCORE_PIXEL_YUV420: return row_pairs(ROW(im, 0, y), ROW(im, 1, y >> 1), ROW(im, 2, y >> 1), 0, x0, x1, t);
    case CCORE_PIXEL_YUV422P: return row_pairs(ROW(im, 0, y), ROW(im, 1, y), ROW(im, 2, y), 0, x0, x1, t);
    case CCORE_PIXEL_YUV444P: return row_444(ROW(im, 0, y), ROW(im, 1, y), ROW(im, 2, y), x0, x1, t);
    case CCORE_PIXEL_GRAY: return row_gray(ROW(im, 0, y), x0, x1, t);
    case CCORE_PIXEL_RGB24: return row_rgb24(ROW(im, 0, y), x0, x1, t);
    case CCORE_PIXEL_NONE: break;
    }
    return (span_sums){0, 0, 0, 0};
}

/* Prefetches the bytes row y's span [x0, x1) reads in each plane. */
static ALWAYS_INLINE void prefetch_row(const ccore_image *im, ccore_pixel_format f, uint32_t y, uint32_t x0,
                                       uint32_t x1) {
    switch (f) {
    case CCORE_PIXEL_YUYV: prefetch_span(ROW(im, 0, y) + 2 * (size_t)x0, 2 * (size_t)(x1 - x0) + 2); break;
    case CCORE_PIXEL_RGB24: prefetch_span(ROW(im, 0, y) + 3 * (size_t)x0, 3 * (size_t)(x1 - x0)); break;
    case CCORE_PIXEL_GRAY: prefetch_span(ROW(im, 0, y) + x0, x1 - x0); break;
    case CCORE_PIXEL_NV12:
        prefetch_span(ROW(im, 0, y) + x0, x1 - x0);
        prefetch_span(ROW(im, 1, y >> 1) + (x0 & ~1u), x1 - (x0 & ~1u) + 1);
        break;
    case CCORE_PIXEL_YUV420:
    case CCORE_PIXEL_YUV422P:
    case CCORE_PIXEL_YUV444P: {
        uint32_t sx = f == CCORE_PIXEL_YUV444P ? 0 : 1, cy = f == CCORE_PIXEL_YUV420 ? y >> 1 : y;
        size_t c0 = x0 >> sx, cn = ((x1 - 1) >> sx) - c0 + 1;
        prefetch_span(ROW(im, 0, y) + x0, x1 - x0);
        prefetch_span(ROW(im, 1, cy) + c0, cn);
        prefetch_span(ROW(im, 2, cy) + c0, cn);
        break;
    }
    case CCORE_PIXEL_NONE: break;
    }
}

typedef struct {
    uint64_t a, b, c; /* Y,Cb,Cr sums (Y'CbCr frames) or R,G,B sums (RGB frames) */
    uint32_t skin;
} accum;

typedef struct {
    uint32_t x0, y0, x1, y1;
} pixel_box;

static pixel_box to_pixels(const ccore_rect *r, uint32_t width, uint32_t height) {
    float fx0 = r->x * (float)width, fy0 = r->y * (float)height;
    float fx1 = (r->x + r->width) * (float)width, fy1 = (r->y + r->height) * (float)height;
    pixel_box box;
    box.x0 = fx0 <= 0 ? 0 : fx0 >= (float)width ? width : (uint32_t)lrintf(fx0);
    box.y0 = fy0 <= 0 ? 0 : fy0 >= (float)height ? height : (uint32_t)lrintf(fy0);
    box.x1 = fx1 <= 0 ? 0 : fx1 >= (float)width ? width : (uint32_t)lrintf(fx1);
    box.y1 = fy1 <= 0 ? 0 : fy1 >= (float)height ? height : (uint32_t)lrintf(fy1);
    if (box.x1 < box.x0) box.x1 = box.x0;
    if (box.y1 < box.y0) box.y1 = box.y0;
    return box;
}

/* ROI rows this far ahead are prefetched while the current one is summed. */
#define PREFETCH_ROWS 2

/* Column strips of at most SPAN_MAX pixels (one strip for any real frame),
 * each summed row by row with the rows PREFETCH_ROWS ahead prefetched. */
static ALWAYS_INLINE accum sum_box(const ccore_image *im, ccore_pixel_format f, pixel_box b, skin_test t) {
    accum acc = {0};
    for (uint32_t xs = b.x0, xe; xs < b.x1; xs = xe) {
        xe = b.x1 - xs > SPAN_MAX ? xs + SPAN_MAX : b.x1;
        for (uint32_t y = b.y0; y < b.y1 && y < b.y0 + PREFETCH_ROWS; y++) prefetch_row(im, f, y, xs, xe);
        for (uint32_t y = b.y0; y < b.y1; y++) {
            if (y + PREFETCH_ROWS < b.y1) prefetch_row(im, f, y + PREFETCH_ROWS, xs, xe);
            span_sums s = sum_row(im, f, y, xs, xe, t);
            acc.a += s.a;
            acc.b += s.b;
            acc.c += s.c;
            acc.skin += s.n;
        }
    }
    return acc;
}

#define SUM_BOX(name, format) \
    static accum name(const ccore_image *im, pixel_box b, skin_test t) { return sum_box(im, format, b, t); }
SUM_BOX(sum_box_yuyv, CCORE_PIXEL_YUYV)
SUM_BOX(sum_box_nv12, CCORE_PIXEL_NV12)
SUM_BOX(sum_box_yuv420, CCORE_PIXEL_YUV420)
SUM_BOX(sum_box_yuv422p, CCORE_PIXEL_YUV422P)
SUM_BOX(sum_box_yuv444p, CCORE_PIXEL_YUV444P)
SUM_BOX(sum_box_gray, CCORE_PIXEL_GRAY)
SUM_BOX(sum_box_rgb24, CCORE_PIXEL_RGB24)

static int format_supported(const ccore_image *image) {
    switch (image->format) {
    case CCORE_PIXEL_YUYV: return image->plane0 != NULL && image->width % 2 == 0; /* whole pixel pairs */
    case CCORE_PIXEL_RGB24:
    case CCORE_PIXEL_GRAY: return image->plane0 != NULL;
    case CCORE_PIXEL_NV12: return image->plane0 && image->plane1;
    case CCORE_PIXEL_YUV420:
    case CCORE_PIXEL_YUV422P:
    case CCORE_PIXEL_YUV444P: return image->plane0 && image->plane1 && image->plane2;
    case CCORE_PIXEL_NONE: break;
    }
    return 0;
}

int ccore_roi_measure(const ccore_image *image, const ccore_roi_set *rois, ccore_roi_stats *stats) {
    if (!image || !rois || !stats || !format_supported(image)) return -EINVAL;
    accum (*sum)(const ccore_image *, pixel_box, skin_test) = NULL;
    switch (image->format) {
    case CCORE_PIXEL_YUYV: sum = sum_box_yuyv; break;
    case CCORE_PIXEL_NV12: sum = sum_box_nv12; break;
    case CCORE_PIXEL_YUV420: sum = sum_box_yuv420; break;
    case CCORE_PIXEL_YUV422P: sum = sum_box_yuv422p; break;
    case CCORE_PIXEL_YUV444P: sum = sum_box_yuv444p; break;
    case CCORE_PIXEL_GRAY: sum = sum_box_gray; break;
    case CCORE_PIXEL_RGB24: sum = sum_box_rgb24; break;
    case CCORE_PIXEL_NONE: return -EINVAL;
    }
    skin_test t = make_skin_test(&rois->skin);
    uint32_t count = rois->count > CCORE_MAX_ROIS ? CCORE_MAX_ROIS : rois->count;
    for (uint32_t i = 0; i < count; i++) {
        pixel_box b = to_pixels(&rois->rects[i], image->width, image->height);
        accum acc = sum(image, b, t);
        ccore_roi_stats *out = &stats[i];
        memset(out, 0, sizeof *out);
        out->pixel_count = (b.x1 - b.x0) * (b.y1 - b.y0);
        if (acc.skin == 0) continue;
        out->skin_fraction = (float)acc.skin / (float)out->pixel_count;
        double n = acc.skin;
        if (image->format == CCORE_PIXEL_RGB24) {
            out->r = (float)(acc.a / n);
            out->g = (float)(acc.b / n);
            out->b = (float)(acc.c / n);
        } else {
            float rgb[3];
            ccore_ycbcr_to_rgb((float)(acc.a / n), (float)(acc.b / n), (float)(acc.c / n), image->range, rgb);
            out->r = rgb[0];
            out->g = rgb[1];
            out->b = rgb[2];
        }
    }
    return 0;
}

/* ---------- mean luma and thumbnail ----------
 *
 * Both sample luma at cell centres x_i = floor((2i + 1) * W / (2n)). The
 * columns' byte offsets are computed once per call into a table on the stack,
 * by exact quotient + remainder stepping (no division per sample); the row
 * index takes one division per grid / thumbnail row. Each pixel layout gets
 * its own loop, instantiated from one inline body with a constant `step`: the
 * luma byte every `step` bytes (1: planar, NV12, GRAY; 2: YUYV) or, for
 * RGB24 (step 3), computed from the pixel. No per-pixel format switch. */

/* Exact stepping of floor((2i + 1) * total / (2 * n)) for i = 0, 1, ... */
typedef struct {
    uint32_t q, r;   /* current quotient and remainder */
    uint32_t dq, dr; /* per-step increments: 2 * total = dq * den + dr */
    uint32_t den;    /* 2 * n */
} cell_steps;

static inline cell_steps cell_steps_init(uint32_t total, uint32_t n) {
    uint64_t den = 2 * (uint64_t)n, step = 2 * (uint64_t)total;
    return (cell_steps){.q = (uint32_t)(total / den), .r = (uint32_t)(total % den), .dq = (uint32_t)(step / den),
                        .dr = (uint32_t)(step % den), .den = (uint32_t)den};
}

static inline void cell_steps_next(cell_steps *s) {
    s->q += s->dq;
    s->r += s->dr;
    if (s->r >= s->den) {
        s->r -= s->den;
        s->q++;
    }
}

static inline uint32_t cell_centre(uint32_t i, uint32_t total, uint32_t n) {
    return (uint32_t)(((uint64_t)(2 * i + 1) * total) / (2 * (uint64_t)n));
}

/* Luma of the pixel at byte offset `o` of a row; `step` is a constant after inlining. */
static inline unsigned luma_at(const uint8_t *row, uint32_t o, unsigned step) {
    if (step == 3) return (77u * row[o] + 150u * row[o + 1] + 29u * row[o + 2]) >> 8;
    return row[o];
}

static unsigned luma_step(ccore_pixel_format format) {
    switch (format) {
    case CCORE_PIXEL_YUYV: return 2;
    case CCORE_PIXEL_RGB24: return 3;
    default: return 1;
    }
}

#define GRID_X 64
#define GRID_Y 48
#define GRID_AHEAD 8 /* grid rows prefetched ahead: each takes a few ns, a DRAM miss ~100 */

static ALWAYS_INLINE uint64_t luma_grid(const ccore_image *im, uint32_t gx, uint32_t gy, unsigned step) {
    uint32_t off[GRID_X];
    cell_steps cx = cell_steps_init(im->width, gx);
    for (uint32_t i = 0; i < gx; i++, cell_steps_next(&cx)) off[i] = cx.q * step;
    size_t row_bytes = (size_t)im->width * step;
    uint64_t sum = 0;
    for (uint32_t j = 0; j < gy; j++) {
        /* Grid row j + GRID_AHEAD (and, at the start, the rows before it). */
        for (uint32_t k = j == 0 ? 0 : j + GRID_AHEAD; k <= j + GRID_AHEAD && k < gy; k++)
            prefetch_span(im->plane0 + (size_t)cell_centre(k, im->height, gy) * im->stride0, row_bytes);
        const uint8_t *row = im->plane0 + (size_t)cell_centre(j, im->height, gy) * im->stride0;
        uint32_t s = 0;
        for (uint32_t i = 0; i < gx; i++) s += luma_at(row, off[i], step);
        sum += s;
    }
    return sum;
}

float ccore_image_mean_luma(const ccore_image *image) {
    if (!image || !format_supported(image) || image->width == 0 || image->height == 0) return 0;
    uint32_t gx = image->width < GRID_X ? image->width : GRID_X;
    uint32_t gy = image->height < GRID_Y ? image->height : GRID_Y;
    uint64_t sum;
    switch (luma_step(image->format)) {
    case 2: sum = luma_grid(image, gx, gy, 2); break;
    case 3: sum = luma_grid(image, gx, gy, 3); break;
    default: sum = luma_grid(image, gx, gy, 1); break;
    }
    return (float)sum / (float)(gx * gy);
}

/* Thumbnail columns go in chunks of at most THUMB_CHUNK output pixels whose
 * source byte offsets are tabled once per chunk; the row loop then only loads
 * and adds, and its iterations are independent. A 160-wide thumbnail is one
 * chunk. The right neighbour x + 1 is clamped to the last column: since x
 * grows with i, the clamped columns are a suffix of the row, handled apart. */
#define THUMB_CHUNK 256
#define THUMB_AHEAD 4 /* output rows whose source rows are prefetched ahead */

static ALWAYS_INLINE void thumb_rows(const ccore_image *im, uint8_t *dst, uint32_t width, uint32_t height,
                                     unsigned step) {
    uint32_t off[THUMB_CHUNK];
    uint32_t max_x = im->width - 1, max_y = im->height - 1;
    size_t row_bytes = (size_t)im->width * step;
    cell_steps cx = cell_steps_init(im->width, width);
    for (uint32_t i0 = 0; i0 < width; i0 += THUMB_CHUNK) {
        uint32_t n = width - i0 < THUMB_CHUNK ? width - i0 : THUMB_CHUNK, inner = 0;
        for (uint32_t i = 0; i < n; i++, cell_steps_next(&cx)) {
            off[i] = cx.q * step;
            if (cx.q < max_x) inner = i + 1; /* columns [0, inner) have x + 1 inside */
        }
        for (uint32_t j = 0; j < height; j++) {
            /* The source rows of output row j + THUMB_AHEAD (and, at the start, of the rows before it). */
            for (uint32_t k = j == 0 ? 0 : j + THUMB_AHEAD; i0 == 0 && k <= j + THUMB_AHEAD && k < height; k++) {
                uint32_t ny = cell_centre(k, im->height, height);
                prefetch_span(im->plane0 + (size_t)ny * im->stride0, row_bytes);
                if (ny < max_y) prefetch_span(im->plane0 + (size_t)(ny + 1) * im->stride0, row_bytes);
            }
            uint32_t y = cell_centre(j, im->height, height), y2 = y < max_y ? y + 1 : y;
            const uint8_t *r0 = im->plane0 + (size_t)y * im->stride0, *r1 = im->plane0 + (size_t)y2 * im->stride0;
            uint8_t *out = dst + (size_t)j * width + i0;
            uint32_t i = 0;
#define THUMB_PX(k)                                                                                               \
    do {                                                                                                          \
        uint32_t o = off[i + (k)];                                                                                \
        unsigned s = luma_at(r0, o, step) + luma_at(r0, o + step, step) + luma_at(r1, o, step) +                  \
                     luma_at(r1, o + step, step);                                                                 \
        out[i + (k)] = (uint8_t)((s + 2) >> 2);                                                                   \
    } while (0)
            for (; i + 4 <= inner; i += 4) { /* unrolled: the loop is short and front-end bound otherwise */
                THUMB_PX(0);
                THUMB_PX(1);
                THUMB_PX(2);
                THUMB_PX(3);
            }
            for (; i < inner; i++) THUMB_PX(0);
#undef THUMB_PX
            for (; i < n; i++) {
                uint32_t o = off[i];
                unsigned s = 2 * (luma_at(r0, o, step) + luma_at(r1, o, step));
                out[i] = (uint8_t)((s + 2) >> 2);
            }
        }
    }
}

/* The same values for a thumbnail of exactly half the frame's size (320x240
 * of 640x480, the detector's): cell centres fall on x = 2i + 1, y = 2j + 1,
 * so output pixel i sums the luma pairs (2i + 1, 2i + 2) of two rows. Sixteen
 * outputs at a time as vector code (GNU vector extensions, lowered to SSE2 or
 * NEON): the luma bytes split into even and odd ones, widened, added. Only
 * the last column and row reach the clamped edge. */
typedef uint8_t u8x16 __attribute__((vector_size(16)));
typedef uint16_t u16x16 __attribute__((vector_size(32)));

static inline u8x16 load16(const uint8_t *p) {
    u8x16 v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* Sixteen luma bytes of consecutive pixels from p: every byte, or every other one of YUYV. */
static ALWAYS_INLINE u8x16 luma16(const uint8_t *p, unsigned step) {
    if (step == 1) return load16(p);
    u8x16 c0 = load16(p), c1 = load16(p + 16);
    return __builtin_shufflevector(c0, c1, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
}

/* The 16 luma pairs starting at p, split: the first and the second of each pair. */
static ALWAYS_INLINE void luma_pairs16(const uint8_t *p, unsigned step, u8x16 *first, u8x16 *second) {
    u8x16 a = luma16(p, step), b = luma16(p + 16 * step, step);
    *first = __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    *second = __builtin_shufflevector(a, b, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
}

static ALWAYS_INLINE void thumb_half(const ccore_image *im, uint8_t *dst, uint32_t width, uint32_t height,
                                     unsigned step) {
    uint32_t max_y = im->height - 1, last = width - 1;
    for (uint32_t j = 0; j < height; j++) {
        uint32_t y = 2 * j + 1, y2 = y < max_y ? y + 1 : y;
        /* Pixel x = 1 of the two source rows: output i sums pixels 2i and 2i + 1 from there. */
        const uint8_t *r0 = im->plane0 + (size_t)y * im->stride0 + step;
        const uint8_t *r1 = im->plane0 + (size_t)y2 * im->stride0 + step;
        uint8_t *out = dst + (size_t)j * width;
        uint32_t i = 0;
        for (; i + 16 <= last; i += 16) {
            u8x16 a0, a1, b0, b1;
            luma_pairs16(r0 + 2 * i * step, step, &a0, &a1);
            luma_pairs16(r1 + 2 * i * step, step, &b0, &b1);
            u16x16 s = __builtin_convertvector(a0, u16x16) + __builtin_convertvector(a1, u16x16) +
                       __builtin_convertvector(b0, u16x16) + __builtin_convertvector(b1, u16x16) + 2;
            u8x16 o = __builtin_convertvector(s >> 2, u8x16);
            memcpy(out + i, &o, sizeof o);
        }
        for (; i < last; i++) {
            unsigned s = r0[2 * i * step] + r0[(2 * i + 1) * step] + r1[2 * i * step] + r1[(2 * i + 1) * step];
            out[i] = (uint8_t)((s + 2) >> 2);
        }
        unsigned s = 2 * (r0[2 * last * step] + r1[2 * last * step]); /* x = W - 1: its right neighbour clamped */
        out[last] = (uint8_t)((s + 2) >> 2);
    }
}

/* The same values for a thumbnail of the frame's own size (320x240 of a 640x480
 * MJPEG frame decoded at 1/2, the detector's): cell centres fall on the pixels
 * themselves, so output pixel (i, j) sums pixels i and i + 1 of rows j and
 * j + 1. Sixteen outputs at a time, as thumb_half; only the last column and row
 * reach the clamped edge. */
static ALWAYS_INLINE void thumb_same(const ccore_image *im, uint8_t *dst, uint32_t width, uint32_t height,
                                     unsigned step) {
    uint32_t last = width - 1;
    for (uint32_t j = 0; j < height; j++) {
        uint32_t j2 = j + 1 < height ? j + 1 : j;
        const uint8_t *r0 = im->plane0 + (size_t)j * im->stride0, *r1 = im->plane0 + (size_t)j2 * im->stride0;
        uint8_t *out = dst + (size_t)j * width;
        uint32_t i = 0;
        for (; i + 16 <= last; i += 16) {
            u16x16 sum = __builtin_convertvector(luma16(r0 + i * step, step), u16x16) +
                         __builtin_convertvector(luma16(r0 + (i + 1) * step, step), u16x16) +
                         __builtin_convertvector(luma16(r1 + i * step, step), u16x16) +
                         __builtin_convertvector(luma16(r1 + (i + 1) * step, step), u16x16) + 2;
            u8x16 o = __builtin_convertvector(sum >> 2, u8x16);
            memcpy(out + i, &o, sizeof o);
        }
        for (; i < last; i++) {
            unsigned sum = r0[i * step] + r0[(i + 1) * step] + r1[i * step] + r1[(i + 1) * step];
            out[i] = (uint8_t)((sum + 2) >> 2);
        }
        unsigned sum = 2 * (r0[last * step] + r1[last * step]); /* x = W - 1: its right neighbour clamped */
        out[last] = (uint8_t)((sum + 2) >> 2);
    }
}

int ccore_image_luma_thumbnail(const ccore_image *image, uint8_t *dst, uint32_t width, uint32_t height) {
    if (!image || !dst || width == 0 || height == 0 || !format_supported(image)) return -EINVAL;
    /* Each output pixel averages the 2x2 source pixels at its cell's centre:
     * a cheap guard against aliasing that keeps the cost at 4 reads per
     * output pixel instead of reading the whole frame. Half the frame's rows
     * are read (307 KB of a 640x480 YUYV frame). Sampling one row per
     * thumbnail row (a horizontal pair only) would halve that: an A/B run of
     * ccore-bench on the 2-core dev VM gave about 12.5 instead of 19-21 us
     * per 160x120 thumbnail, 2-3 us per frame at one thumbnail every 3
     * frames. The per-frame target (DESIGN.md section 7) is met without it
     * (about 9 us/frame), so the thumbnail keeps its 2x2 filter and values. */
    unsigned step = luma_step(image->format);
    if (step != 3 && image->width == width && image->height == height) {
        if (step == 2)
            thumb_same(image, dst, width, height, 2);
        else
            thumb_same(image, dst, width, height, 1);
        return 0;
    }
    if (step != 3 && image->width == 2 * width && image->height == 2 * height) {
        if (step == 2)
            thumb_half(image, dst, width, height, 2);
        else
            thumb_half(image, dst, width, height, 1);
        return 0;
    }
    switch (step) {
    case 2: thumb_rows(image, dst, width, height, 2); break;
    case 3: thumb_rows(image, dst, width, height, 3); break;
    default: thumb_rows(image, dst, width, height, 1); break;
    }
    return 0;
}
