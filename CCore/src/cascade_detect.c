/* The face detector: pyramid levels, the sliding window, then grouping.
 *
 * Every scratch buffer is sized for the largest image at create time and the
 * integral images share one row stride at every level, so each feature's
 * corner offsets are computed once here, not per level or per window. The
 * cascades themselves are evaluated in cascade_lbp.c and cascade_haar.c. */
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
/* Same-rectangle tolerance of the grouping step (OpenCV's default). */
static const double GROUP_EPS = 0.2;

struct ccore_face_detector {
    const ccore_cascade *cascade;
    uint32_t max_width, max_height;
    cascade_level_buffers level;
    cascade_lbp_grid *lbp;     /* LBP: per feature, where its grid lies */
    cascade_haar_offsets haar; /* Haar: per feature, its rectangles' corners */
    ccore_face *hits;
    int32_t *parent;
    cascade_cluster *clusters;
    cascade_row_scratch row; /* LBP: one row of windows in flight */
    char message[160];
};

void ccore_face_params_default(ccore_face_params *params) {
    if (!params) return;
    *params = (ccore_face_params){.scale_factor = 1.1, .min_neighbours = 3, .min_face_size = 0, .max_face_size = 0};
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
    d->row.codes = malloc(max_width * sizeof *d->row.codes);
    d->row.sums = malloc(max_width * sizeof *d->row.sums);
    d->row.alive = malloc(max_width * sizeof *d->row.alive);
    if (cascade->type == CCORE_CASCADE_LBP)
        d->lbp = calloc(cascade->feature_count, sizeof *d->lbp);
    else
        d->haar.corners = calloc((size_t)cascade->feature_count * CASCADE_HAAR_CORNERS, sizeof *d->haar.corners);
    d->hits = malloc(HIT_CAPACITY * sizeof *d->hits);
    d->parent = malloc(HIT_CAPACITY * sizeof *d->parent);
    d->clusters = malloc(HIT_CAPACITY * sizeof *d->clusters);
    if (!d->level.integral || (cascade->type == CCORE_CASCADE_HAAR && !d->level.squares) || !d->level.row ||
        !d->level.x_source || !d->level.x_weight || (!d->lbp && !d->haar.corners) || !d->hits || !d->parent ||
        !d->clusters || !d->row.codes || !d->row.sums || !d->row.alive) {
        ccore_face_detector_destroy(d);
        return -ENOMEM;
    }
    if (cascade->type == CCORE_CASCADE_LBP)
        ccore_cascade_lbp_grids(cascade, d->level.stride, d->lbp);
    else
        ccore_cascade_haar_corners(cascade, d->level.stride, &d->haar);
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
    free(d->haar.corners);
    free(d->hits);
    free(d->parent);
    free(d->clusters);
    free(d->row.codes);
    free(d->row.sums);
    free(d->row.alive);
    free(d);
}

const char *ccore_face_detector_error_message(const ccore_face_detector *d) { return d ? d->message : ""; }

static void record_hit(ccore_face_detector *d, uint32_t x, uint32_t y, double factor, int32_t face_w, int32_t face_h,
                       uint32_t *hit_count) {
    if (*hit_count == HIT_CAPACITY) return;
    d->hits[(*hit_count)++] = (ccore_face){(int32_t)lrint(x * factor), (int32_t)lrint(y * factor), face_w, face_h, 1};
}

/* Slides the window over the built part of one level; hits are recorded in input pixels. */
static void scan_level(ccore_face_detector *d, cascade_level_part part, double factor, uint32_t *hit_count) {
    const ccore_cascade *cc = d->cascade;
    /* Levels shrunk at most 2x (the smaller faces) are scanned at every
     * other position: a face fires over a few neighbouring positions anyway.
     * Past a 2x shrink one level pixel spans several input pixels, so every
     * position counts. */
    uint32_t step = factor > 2.0 ? 1 : 2;
    uint32_t span_x = part.width - cc->window_width, span_y = part.height - cc->window_height;
    uint32_t positions = (span_x + step - 1) / step;
    int32_t face_w = (int32_t)lrint(cc->window_width * factor), face_h = (int32_t)lrint(cc->window_height * factor);
    for (uint32_t y = 0; y < span_y; y += step) {
        const uint32_t *row = d->level.integral + (size_t)y * d->level.stride;
        if (cc->type == CCORE_CASCADE_LBP) {
            size_t alive = ccore_cascade_lbp_row(cc, d->lbp, row, positions, step, &d->row);
            for (size_t j = 0; j < alive; j++)
                record_hit(d, part.x0 + d->row.alive[j] * step, part.y0 + y, factor, face_w, face_h, hit_count);
        } else {
            const uint64_t *sq_row = d->level.squares + (size_t)y * d->level.stride;
            for (uint32_t x = 0; x < span_x; x += step)
                if (ccore_cascade_haar_window(cc, &d->haar, row + x, sq_row + x))
                    record_hit(d, part.x0 + x, part.y0 + y, factor, face_w, face_h, hit_count);
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
    uint32_t rx0 = 0, ry0 = 0, rx1 = width, ry1 = height; /* the search area, input pixels */
    if (params->roi_width || params->roi_height) {
        if (!params->roi_width || !params->roi_height || params->roi_x >= width || params->roi_y >= height ||
            params->roi_width > width - params->roi_x || params->roi_height > height - params->roi_y)
            return invalid(d, -EINVAL, "the search area is empty or reaches outside the image");
        rx0 = params->roi_x, ry0 = params->roi_y;
        rx1 = rx0 + params->roi_width, ry1 = ry0 + params->roi_height;
    }
    const ccore_cascade *cc = d->cascade;
    uint32_t hits = 0;
    for (double factor = 1.0;; factor *= params->scale_factor) {
        double face_w = (double)lrint(cc->window_width * factor), face_h = (double)lrint(cc->window_height * factor);
        long level_w = lrint(width / factor), level_h = lrint(height / factor);
        if (level_w <= (long)cc->window_width || level_h <= (long)cc->window_height) break;
        if (params->max_face_size && (face_w > params->max_face_size || face_h > params->max_face_size)) break;
        if (face_w < params->min_face_size || face_h < params->min_face_size) continue;
        /* The search area on this level, on the whole level's grid (and its
         * every-other-position lattice), so a window finds exactly what a
         * whole-image search finds there. */
        uint32_t step = factor > 2.0 ? 1 : 2;
        cascade_level_part part = {(uint32_t)floor(rx0 / factor) / step * step,
                                   (uint32_t)floor(ry0 / factor) / step * step, 0, 0};
        uint32_t px1 = (uint32_t)ceil(rx1 / factor), py1 = (uint32_t)ceil(ry1 / factor);
        if (px1 > (uint32_t)level_w) px1 = (uint32_t)level_w;
        if (py1 > (uint32_t)level_h) py1 = (uint32_t)level_h;
        if (px1 <= part.x0 + cc->window_width || py1 <= part.y0 + cc->window_height) continue;
        part.width = px1 - part.x0;
        part.height = py1 - part.y0;
        ccore_cascade_build_level(luma, width, height, stride, (uint32_t)level_w, (uint32_t)level_h, part, &d->level);
        scan_level(d, part, factor, &hits);
    }
    *count = ccore_cascade_group(d->hits, hits, params->min_neighbours, GROUP_EPS, d->parent, d->clusters, out, max_out);
    d->message[0] = '\0';
    return 0;
}
