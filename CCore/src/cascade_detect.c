/* The face detector: pyramid, sliding window, cascade evaluation, grouping.
 *
 * Every scratch buffer is sized for the largest image at create time and the
 * integral images share one row stride at every level, so each feature's
 * corner offsets are computed once here, not per level or per window. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cascade_internal.h"
#include "ccore/error.h"

/* Raw window hits kept per call; a frame with more (hundreds of faces) keeps
 * the first ones found, on the finest levels. */
enum { HIT_CAPACITY = 8192 };
/* Corners per Haar feature: 4 per rectangle, up to 3 rectangles. */
enum { HAAR_CORNERS = 12 };

/* An LBP feature's grid in integral-image terms (the detector's stride). */
typedef struct {
    int32_t top_left, cell_width, cell_rows;
} lbp_corners;
/* Same-rectangle tolerance of the grouping step (OpenCV's default). */
static const double GROUP_EPS = 0.2;
/* Haar windows this flat (grey-level standard deviation) hold no face. */
static const double HAAR_MIN_STDDEV = 10.0;

struct ccore_face_detector {
    const ccore_cascade *cascade;
    uint32_t max_width, max_height;
    cascade_level_buffers level;
    lbp_corners *lbp;   /* LBP: per feature, where its grid lies */
    int32_t *corners;   /* Haar: per feature, offsets of its rectangles' corners */
    int32_t norm_corners[4]; /* Haar: the window inset by one pixel */
    ccore_face *hits;
    int32_t *parent;
    cascade_cluster *clusters;
    uint32_t *codes; /* LBP stage 0: one row of window codes and leaf sums */
    float *sums;
    char message[160];
};

void ccore_face_params_default(ccore_face_params *params) {
    if (!params) return;
    *params = (ccore_face_params){.scale_factor = 1.1, .min_neighbours = 3, .min_face_size = 0, .max_face_size = 0};
}

static int32_t corner(uint32_t stride, int32_t x, int32_t y) { return y * (int32_t)stride + x; }

static void compute_corners(ccore_face_detector *d) {
    const ccore_cascade *cc = d->cascade;
    uint32_t s = d->level.stride;
    for (uint32_t f = 0; f < cc->feature_count; f++) {
        if (cc->type == CCORE_CASCADE_LBP) {
            const cascade_lbp_feature *lf = &cc->lbp[f];
            d->lbp[f] = (lbp_corners){corner(s, lf->x, lf->y), lf->w, lf->h * (int32_t)s};
        } else {
            const cascade_haar_feature *hf = &cc->haar[f];
            int32_t *c = d->corners + (size_t)f * HAAR_CORNERS;
            for (uint32_t r = 0; r < hf->rect_count; r++) {
                const cascade_haar_rect *q = &hf->rects[r];
                c[4 * r + 0] = corner(s, q->x, q->y);
                c[4 * r + 1] = corner(s, q->x + q->w, q->y);
                c[4 * r + 2] = corner(s, q->x, q->y + q->h);
                c[4 * r + 3] = corner(s, q->x + q->w, q->y + q->h);
            }
        }
    }
    int32_t w = (int32_t)cc->window_width, h = (int32_t)cc->window_height;
    d->norm_corners[0] = corner(s, 1, 1);
    d->norm_corners[1] = corner(s, w - 1, 1);
    d->norm_corners[2] = corner(s, 1, h - 1);
    d->norm_corners[3] = corner(s, w - 1, h - 1);
}

int ccore_face_detector_create(const ccore_cascade *cascade, uint32_t max_width, uint32_t max_height,
                               ccore_face_detector **out) {
    if (!out) return -EINVAL;
    *out = NULL;
    if (!cascade || max_width == 0 || max_height == 0 || max_width > 8192 || max_height > 8192) return -EINVAL;
    ccore_face_detector *d = calloc(1, sizeof *d);
    if (!d) return -ENOMEM;
    d->cascade = cascade;
    d->max_width = max_width;
    d->max_height = max_height;
    d->level.stride = max_width + 1;
    size_t cells = (size_t)(max_width + 1) * (max_height + 1);
    d->level.integral = malloc(cells * sizeof *d->level.integral);
    if (cascade->type == CCORE_CASCADE_HAAR) d->level.squares = malloc(cells * sizeof *d->level.squares);
    d->level.row = malloc(max_width);
    d->level.x_source = malloc(max_width * sizeof *d->level.x_source);
    d->level.x_weight = malloc(max_width * sizeof *d->level.x_weight);
    d->codes = malloc(max_width * sizeof *d->codes);
    d->sums = malloc(max_width * sizeof *d->sums);
    if (cascade->type == CCORE_CASCADE_LBP)
        d->lbp = calloc(cascade->feature_count, sizeof *d->lbp);
    else
        d->corners = calloc((size_t)cascade->feature_count * HAAR_CORNERS, sizeof *d->corners);
    d->hits = malloc(HIT_CAPACITY * sizeof *d->hits);
    d->parent = malloc(HIT_CAPACITY * sizeof *d->parent);
    d->clusters = malloc(HIT_CAPACITY * sizeof *d->clusters);
    if (!d->level.integral || (cascade->type == CCORE_CASCADE_HAAR && !d->level.squares) || !d->level.row ||
        !d->level.x_source || !d->level.x_weight || (!d->lbp && !d->corners) || !d->hits || !d->parent || !d->clusters ||
        !d->codes || !d->sums) {
        ccore_face_detector_destroy(d);
        return -ENOMEM;
    }
    compute_corners(d);
    *out = d;
    return 0;
}

void ccore_face_detector_destroy(ccore_face_detector *d) {
    if (!d) return;
    free(d->level.integral);
    free(d->level.squares);
    free(d->level.row);
    free(d->level.x_source);
    free(d->level.x_weight);
    free(d->lbp);
    free(d->corners);
    free(d->hits);
    free(d->parent);
    free(d->clusters);
    free(d->codes);
    free(d->sums);
    free(d);
}

const char *ccore_face_detector_error_message(const ccore_face_detector *d) { return d ? d->message : ""; }

/* The 8-bit multi-block LBP code of the 3x3 grid whose top-left corner is
 * at `top` in the integral image, cells `w` columns wide and `rows` (cell
 * height x stride) tall: outer cells clockwise from the top-left (bit 7) to
 * the left (bit 0), each bit set when that cell is not darker than the
 * centre. The 16 grid corners are addressed arithmetically, not through a
 * table, which halves the memory reads of the hot loop. */
static inline uint32_t lbp_code(const uint32_t *top, int32_t w, int32_t rows) {
    const uint32_t *r0 = top, *r1 = r0 + rows, *r2 = r1 + rows, *r3 = r2 + rows;
    int32_t c1 = w, c2 = 2 * w, c3 = 3 * w;
    uint32_t a0 = r0[0], a1 = r0[c1], a2 = r0[c2], a3 = r0[c3];
    uint32_t b0 = r1[0], b1 = r1[c1], b2 = r1[c2], b3 = r1[c3];
    uint32_t d0 = r2[0], d1 = r2[c1], d2 = r2[c2], d3 = r2[c3];
    uint32_t e0 = r3[0], e1 = r3[c1], e2 = r3[c2], e3 = r3[c3];
    uint32_t centre = b1 - b2 - d1 + d2;
    return (uint32_t)(a0 - a1 - b0 + b1 >= centre) << 7 | (uint32_t)(a1 - a2 - b1 + b2 >= centre) << 6 |
           (uint32_t)(a2 - a3 - b2 + b3 >= centre) << 5 | (uint32_t)(b2 - b3 - d2 + d3 >= centre) << 4 |
           (uint32_t)(d2 - d3 - e2 + e3 >= centre) << 3 | (uint32_t)(d1 - d2 - e1 + e2 >= centre) << 2 |
           (uint32_t)(d0 - d1 - e0 + e1 >= centre) << 1 | (uint32_t)(b0 - b1 - d0 + d1 >= centre);
}

/* Whether LBP stages first_stage.. accept the window whose integral starts at p. */
static int lbp_window(const ccore_cascade *cc, const lbp_corners *corners, uint32_t first_stage, const uint32_t *p) {
    const cascade_stump *stump = cc->stumps + cc->stages[first_stage].first_stump;
    for (uint32_t s = first_stage; s < cc->stage_count; s++) {
        const cascade_stage *stage = &cc->stages[s];
        float sum = 0;
        for (uint32_t k = 0; k < stage->stump_count; k++, stump++) {
            const lbp_corners *f = &corners[stump->feature];
            uint32_t code = lbp_code(p + f->top_left, f->cell_width, f->cell_rows);
            sum += (stump->subset[code >> 5] >> (code & 31)) & 1 ? stump->leaf[0] : stump->leaf[1];
        }
        if (sum < stage->threshold) return 0;
    }
    return 1;
}

/* Four windows' LBP codes at once (GNU vector extensions, lowered to SSE2
 * or NEON): windows i..i+3 of a row whose origins are `step` apart. Cell
 * sums stay below 2^31 (255 x a cell of a level at most 8192 wide), so the
 * wrapped differences compare correctly as signed lanes. */
typedef int32_t lanes4 __attribute__((vector_size(16)));

static inline lanes4 load_lanes(const uint32_t *p, size_t step) {
    lanes4 a;
    if (step == 1) {
        memcpy(&a, p, sizeof a);
        return a;
    }
    lanes4 b;
    memcpy(&a, p, sizeof a);
    memcpy(&b, p + 4, sizeof b);
    return __builtin_shufflevector(a, b, 0, 2, 4, 6);
}

static inline lanes4 lbp_codes4(const uint32_t *top, size_t step, int32_t w, int32_t rows) {
    const uint32_t *r0 = top, *r1 = r0 + rows, *r2 = r1 + rows, *r3 = r2 + rows;
    int32_t c1 = w, c2 = 2 * w, c3 = 3 * w;
    lanes4 a0 = load_lanes(r0, step), a1 = load_lanes(r0 + c1, step), a2 = load_lanes(r0 + c2, step),
           a3 = load_lanes(r0 + c3, step);
    lanes4 b0 = load_lanes(r1, step), b1 = load_lanes(r1 + c1, step), b2 = load_lanes(r1 + c2, step),
           b3 = load_lanes(r1 + c3, step);
    lanes4 d0 = load_lanes(r2, step), d1 = load_lanes(r2 + c1, step), d2 = load_lanes(r2 + c2, step),
           d3 = load_lanes(r2 + c3, step);
    lanes4 e0 = load_lanes(r3, step), e1 = load_lanes(r3 + c1, step), e2 = load_lanes(r3 + c2, step),
           e3 = load_lanes(r3 + c3, step);
    lanes4 centre = b1 - b2 - d1 + d2;
    /* A comparison gives -1 (all bits) or 0 per lane: mask in each bit. */
    return ((a0 - a1 - b0 + b1 >= centre) & 128) | ((a1 - a2 - b1 + b2 >= centre) & 64) |
           ((a2 - a3 - b2 + b3 >= centre) & 32) | ((b2 - b3 - d2 + d3 >= centre) & 16) |
           ((d2 - d3 - e2 + e3 >= centre) & 8) | ((d1 - d2 - e1 + e2 >= centre) & 4) |
           ((d0 - d1 - e0 + e1 >= centre) & 2) | ((b0 - b1 - d0 + d1 >= centre) & 1);
}

/* Stage 0 of an LBP cascade over one row of windows at once: it rejects
 * most windows, so it dominates the cost; computing its codes four windows
 * at a time, feature by feature, replaces a hard-to-predict accept/reject
 * branch per window by straight-line vector code. Leaf sums are added in the
 * same order as lbp_window, so the outcome is identical. */
static inline void lbp_first_stage_row(const ccore_cascade *cc, const lbp_corners *corners, const uint32_t *row,
                                       size_t positions, size_t step, uint32_t *restrict codes, float *restrict sums) {
    const cascade_stage *stage = &cc->stages[0];
    for (size_t i = 0; i < positions; i++) sums[i] = 0;
    for (uint32_t k = 0; k < stage->stump_count; k++) {
        const cascade_stump *stump = &cc->stumps[stage->first_stump + k];
        const lbp_corners *f = &corners[stump->feature];
        const uint32_t *top = row + f->top_left;
        size_t i = 0;
        for (; i + 4 <= positions; i += 4) {
            lanes4 four = lbp_codes4(top + i * step, step, f->cell_width, f->cell_rows);
            memcpy(codes + i, &four, sizeof four);
        }
        for (; i < positions; i++) codes[i] = lbp_code(top + i * step, f->cell_width, f->cell_rows);
        for (i = 0; i < positions; i++) {
            uint32_t code = codes[i];
            sums[i] += (stump->subset[code >> 5] >> (code & 31)) & 1 ? stump->leaf[0] : stump->leaf[1];
        }
    }
}

/* Whether every Haar stage accepts the window; feature values are compared
 * in units of the window's contrast (area x standard deviation). */
static int haar_window(const ccore_cascade *cc, const ccore_face_detector *d, const uint32_t *p, const uint64_t *sq) {
    const int32_t *n = d->norm_corners;
    double area = (double)(cc->window_width - 2) * (cc->window_height - 2);
    double sum = (double)(uint32_t)(p[n[0]] - p[n[1]] - p[n[2]] + p[n[3]]);
    double squares = (double)(sq[n[0]] - sq[n[1]] - sq[n[2]] + sq[n[3]]);
    double spread = area * squares - sum * sum;
    if (spread <= 0) return 0;
    float norm = (float)sqrt(spread);
    if (norm <= HAAR_MIN_STDDEV * area) return 0;
    const cascade_stump *stump = cc->stumps;
    for (uint32_t s = 0; s < cc->stage_count; s++) {
        const cascade_stage *stage = &cc->stages[s];
        float total = 0;
        for (uint32_t k = 0; k < stage->stump_count; k++, stump++) {
            const cascade_haar_feature *f = &cc->haar[stump->feature];
            const int32_t *c = d->corners + (size_t)stump->feature * HAAR_CORNERS;
            float value = 0;
            for (uint32_t r = 0; r < f->rect_count; r++, c += 4)
                value += f->rects[r].weight * (float)(uint32_t)(p[c[0]] - p[c[1]] - p[c[2]] + p[c[3]]);
            total += value < stump->threshold * norm ? stump->leaf[0] : stump->leaf[1];
        }
        if (total < stage->threshold) return 0;
    }
    return 1;
}

static void record_hit(ccore_face_detector *d, uint32_t x, uint32_t y, double factor, int32_t face_w, int32_t face_h,
                       uint32_t *hit_count) {
    if (*hit_count == HIT_CAPACITY) return;
    d->hits[(*hit_count)++] = (ccore_face){(int32_t)lrint(x * factor), (int32_t)lrint(y * factor), face_w, face_h, 1};
}

/* Slides the window over one level; hits are recorded in input pixels. */
static void scan_level(ccore_face_detector *d, uint32_t level_width, uint32_t level_height, double factor,
                       uint32_t *hit_count) {
    const ccore_cascade *cc = d->cascade;
    /* Coarse levels (small faces) are scanned at every other position: a
     * face fires over a few pixels anyway. Past a 2x shrink every position
     * counts, as one level pixel spans several input pixels. */
    uint32_t step = factor > 2.0 ? 1 : 2;
    uint32_t span_x = level_width - cc->window_width, span_y = level_height - cc->window_height;
    uint32_t positions = (span_x + step - 1) / step;
    int32_t face_w = (int32_t)lrint(cc->window_width * factor), face_h = (int32_t)lrint(cc->window_height * factor);
    for (uint32_t y = 0; y < span_y; y += step) {
        const uint32_t *row = d->level.integral + (size_t)y * d->level.stride;
        if (cc->type == CCORE_CASCADE_LBP) {
            /* A constant step lets the compiler vectorise each case. */
            if (step == 1)
                lbp_first_stage_row(cc, d->lbp, row, positions, 1, d->codes, d->sums);
            else
                lbp_first_stage_row(cc, d->lbp, row, positions, 2, d->codes, d->sums);
            for (uint32_t i = 0; i < positions; i++)
                if (d->sums[i] >= cc->stages[0].threshold && lbp_window(cc, d->lbp, 1, row + i * step))
                    record_hit(d, i * step, y, factor, face_w, face_h, hit_count);
        } else {
            const uint64_t *sq_row = d->level.squares + (size_t)y * d->level.stride;
            for (uint32_t x = 0; x < span_x; x += step)
                if (haar_window(cc, d, row + x, sq_row + x)) record_hit(d, x, y, factor, face_w, face_h, hit_count);
        }
    }
}

static int invalid(ccore_face_detector *d, int code, const char *what) {
    snprintf(d->message, sizeof d->message, "%s", what);
    return code;
}

int ccore_face_detector_detect(ccore_face_detector *d, const uint8_t *luma, uint32_t width, uint32_t height,
                               uint32_t stride, const ccore_face_params *params, ccore_face *out, uint32_t max_out,
                               uint32_t *count) {
    if (!d) return -EINVAL;
    if (!luma || !params || !count || (max_out > 0 && !out))
        return invalid(d, -EINVAL, "missing image, parameters, output or count");
    *count = 0;
    if (width == 0 || height == 0 || stride < width) return invalid(d, -EINVAL, "empty image or stride below width");
    if (width > d->max_width || height > d->max_height) {
        snprintf(d->message, sizeof d->message, "image %ux%u exceeds the detector's %ux%u", width, height, d->max_width,
                 d->max_height);
        return -E2BIG;
    }
    if (!(params->scale_factor > 1.0 && params->scale_factor <= 4.0))
        return invalid(d, -EINVAL, "scale factor must be above 1 and at most 4");
    if (params->max_face_size && params->min_face_size > params->max_face_size)
        return invalid(d, -EINVAL, "minimum face size above the maximum");
    const ccore_cascade *cc = d->cascade;
    uint32_t hits = 0;
    for (double factor = 1.0;; factor *= params->scale_factor) {
        double face_w = (double)lrint(cc->window_width * factor), face_h = (double)lrint(cc->window_height * factor);
        long level_w = lrint(width / factor), level_h = lrint(height / factor);
        if (level_w <= (long)cc->window_width || level_h <= (long)cc->window_height) break;
        if (params->max_face_size && (face_w > params->max_face_size || face_h > params->max_face_size)) break;
        if (face_w < params->min_face_size || face_h < params->min_face_size) continue;
        cascade_build_level(luma, width, height, stride, (uint32_t)level_w, (uint32_t)level_h, &d->level);
        scan_level(d, (uint32_t)level_w, (uint32_t)level_h, factor, &hits);
    }
    *count = cascade_group(d->hits, hits, params->min_neighbours, GROUP_EPS, d->parent, d->clusters, out, max_out);
    d->message[0] = '\0';
    return 0;
}
