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
/* Corners per feature: 4x4 grid for LBP, 4 per rectangle (3) for Haar. */
enum { LBP_CORNERS = 16, HAAR_CORNERS = 12 };
/* Same-rectangle tolerance of the grouping step (OpenCV's default). */
static const double GROUP_EPS = 0.2;
/* Haar windows this flat (grey-level standard deviation) hold no face. */
static const double HAAR_MIN_STDDEV = 10.0;

struct ccore_face_detector {
    const ccore_cascade *cascade;
    uint32_t max_width, max_height;
    cascade_level_buffers level;
    int32_t *corners; /* per feature, offsets into the integral image */
    int32_t norm_corners[4]; /* Haar: the window inset by one pixel */
    ccore_face *hits;
    int32_t *parent;
    cascade_cluster *clusters;
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
            int32_t *c = d->corners + (size_t)f * LBP_CORNERS;
            for (int32_t j = 0; j < 4; j++)
                for (int32_t i = 0; i < 4; i++) c[j * 4 + i] = corner(s, lf->x + i * lf->w, lf->y + j * lf->h);
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
    size_t per_feature = cascade->type == CCORE_CASCADE_LBP ? LBP_CORNERS : HAAR_CORNERS;
    d->corners = calloc((size_t)cascade->feature_count * per_feature, sizeof *d->corners);
    d->hits = malloc(HIT_CAPACITY * sizeof *d->hits);
    d->parent = malloc(HIT_CAPACITY * sizeof *d->parent);
    d->clusters = malloc(HIT_CAPACITY * sizeof *d->clusters);
    if (!d->level.integral || (cascade->type == CCORE_CASCADE_HAAR && !d->level.squares) || !d->level.row ||
        !d->level.x_source || !d->level.x_weight || !d->corners || !d->hits || !d->parent || !d->clusters) {
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
    free(d->corners);
    free(d->hits);
    free(d->parent);
    free(d->clusters);
    free(d);
}

const char *ccore_face_detector_error_message(const ccore_face_detector *d) { return d ? d->message : ""; }

/* Sum of the cell between corners a (top-left), b (top-right), c, e. */
static inline uint32_t cell(const uint32_t *p, const int32_t *k, int a, int b, int c, int e) {
    return p[k[a]] - p[k[b]] - p[k[c]] + p[k[e]];
}

/* The 8-bit multi-block LBP code: outer cells clockwise from the top-left
 * (bit 7) to the left (bit 0), each set when not darker than the centre. */
static inline uint32_t lbp_code(const uint32_t *p, const int32_t *k) {
    uint32_t centre = cell(p, k, 5, 6, 9, 10);
    return (uint32_t)(cell(p, k, 0, 1, 4, 5) >= centre) << 7 | (uint32_t)(cell(p, k, 1, 2, 5, 6) >= centre) << 6 |
           (uint32_t)(cell(p, k, 2, 3, 6, 7) >= centre) << 5 | (uint32_t)(cell(p, k, 6, 7, 10, 11) >= centre) << 4 |
           (uint32_t)(cell(p, k, 10, 11, 14, 15) >= centre) << 3 | (uint32_t)(cell(p, k, 9, 10, 13, 14) >= centre) << 2 |
           (uint32_t)(cell(p, k, 8, 9, 12, 13) >= centre) << 1 | (uint32_t)(cell(p, k, 4, 5, 8, 9) >= centre);
}

/* Whether every LBP stage accepts the window whose integral starts at p. */
static int lbp_window(const ccore_cascade *cc, const int32_t *corners, const uint32_t *p) {
    const cascade_stump *stump = cc->stumps;
    for (uint32_t s = 0; s < cc->stage_count; s++) {
        const cascade_stage *stage = &cc->stages[s];
        float sum = 0;
        for (uint32_t k = 0; k < stage->stump_count; k++, stump++) {
            uint32_t code = lbp_code(p, corners + (size_t)stump->feature * LBP_CORNERS);
            sum += (stump->subset[code >> 5] >> (code & 31)) & 1 ? stump->leaf[0] : stump->leaf[1];
        }
        if (sum < stage->threshold) return 0;
    }
    return 1;
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

/* Slides the window over one level; hits are recorded in input pixels. */
static void scan_level(ccore_face_detector *d, uint32_t level_width, uint32_t level_height, double factor,
                       uint32_t *hit_count) {
    const ccore_cascade *cc = d->cascade;
    /* Coarse levels (small faces) are scanned at every other position: a
     * face fires over a few pixels anyway. Past a 2x shrink every position
     * counts, as one level pixel spans several input pixels. */
    uint32_t step = factor > 2.0 ? 1 : 2;
    uint32_t span_x = level_width - cc->window_width, span_y = level_height - cc->window_height;
    int32_t face_w = (int32_t)lrint(cc->window_width * factor), face_h = (int32_t)lrint(cc->window_height * factor);
    for (uint32_t y = 0; y < span_y; y += step) {
        const uint32_t *row = d->level.integral + (size_t)y * d->level.stride;
        const uint64_t *sq_row = d->level.squares ? d->level.squares + (size_t)y * d->level.stride : NULL;
        for (uint32_t x = 0; x < span_x; x += step) {
            int hit = cc->type == CCORE_CASCADE_LBP ? lbp_window(cc, d->corners, row + x)
                                                    : haar_window(cc, d, row + x, sq_row + x);
            if (!hit || *hit_count == HIT_CAPACITY) continue;
            d->hits[(*hit_count)++] =
                (ccore_face){(int32_t)lrint(x * factor), (int32_t)lrint(y * factor), face_w, face_h, 1};
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
