/* The in-memory form of a trained cascade, shared by the loader, the
 * detector and the clustering step. Internal to CCore. */
#ifndef CCORE_CASCADE_INTERNAL_H
#define CCORE_CASCADE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "ccore/cascade.h"

/* Multi-block LBP: a 3x3 grid of w x h cells whose top-left is (x, y) in the
 * window. The code has one bit per outer cell: set when that cell's sum is at
 * least the centre cell's. */
typedef struct {
    int32_t x, y, w, h;
} cascade_lbp_feature;

/* Haar: up to three weighted rectangles in the window. */
typedef struct {
    int32_t x, y, w, h;
    float weight;
} cascade_haar_rect;

typedef struct {
    cascade_haar_rect rects[3];
    uint32_t rect_count;
} cascade_haar_feature;

/* A one-split weak classifier (every frontal-face cascade is made of these).
 * LBP: the 8-bit code picks a bit of `subset`; set -> leaf[0], clear -> leaf[1].
 * Haar: normalised feature value < threshold -> leaf[0], else leaf[1]. */
typedef struct {
    uint32_t feature;
    float threshold;
    uint32_t subset[8];
    float leaf[2];
} cascade_stump;

/* A stage rejects the window when its stumps' leaf sum is below threshold. */
typedef struct {
    uint32_t first_stump, stump_count;
    float threshold;
} cascade_stage;

struct ccore_cascade {
    ccore_cascade_features type;
    uint32_t window_width, window_height;
    uint32_t stage_count, stump_count, feature_count;
    cascade_stage *stages;
    cascade_stump *stumps;
    cascade_lbp_feature *lbp;   /* LBP cascades */
    cascade_haar_feature *haar; /* Haar cascades */
};

/* Clustering of raw window hits (cascade_group.c): merges hits whose sides
 * lie within `eps` of each other, keeps clusters of more than min_neighbours
 * hits that are not nested in a stronger one, and writes them largest first
 * to `out` (at most max_out). `parent` and `sums` are scratch of n entries. */
typedef struct {
    int64_t x, y, width, height;
    int32_t count;
    int32_t label;
} cascade_cluster;

uint32_t ccore_cascade_group(const ccore_face *hits, uint32_t n, uint32_t min_neighbours, double eps, int32_t *parent,
                       cascade_cluster *sums, ccore_face *out, uint32_t max_out);

/* One pyramid level (cascade_pyramid.c): shrinks the luma plane to
 * level_width x level_height (bilinear, pixel centres aligned) and writes its
 * integral image, (level_width + 1) x (level_height + 1) sums at row stride
 * `stride`, plus the integral of squares when `squares` is non-NULL.
 * `row`, `x_source` and `x_weight` are scratch of level_width entries. */
typedef struct {
    uint32_t *integral;
    uint64_t *squares;
    uint32_t stride;
    uint8_t *row;
    int32_t *x_source, *x_weight;
} cascade_level_buffers;

/* The pyramid level of a width x height image shrunk to level_width x
 * level_height, built for its columns x0 ..< x0 + part_width and rows
 * y0 ..< y0 + part_height only: the integral image then covers that part,
 * sampled on the same grid as the whole level. */
typedef struct {
    uint32_t x0, y0, width, height;
} cascade_level_part;

void ccore_cascade_build_level(const uint8_t *luma, uint32_t width, uint32_t height, uint32_t luma_stride,
                         uint32_t level_width, uint32_t level_height, cascade_level_part part,
                         const cascade_level_buffers *buffers);

/* LBP evaluation (cascade_lbp.c). A feature's 3x3 grid in integral-image
 * terms for a given row stride: offset of its top-left corner, cell width,
 * and cell height times the stride. */
typedef struct {
    int32_t top_left, cell_width, cell_rows;
} cascade_lbp_grid;

/* Per-row scratch of max-width entries each. */
typedef struct {
    uint32_t *codes;
    float *sums;
    uint32_t *alive; /* window positions that passed every stage so far */
} cascade_row_scratch;

void ccore_cascade_lbp_grids(const ccore_cascade *cc, uint32_t stride, cascade_lbp_grid *grids);

/* Runs the whole cascade on `positions` windows of one level row whose
 * origins are `step` apart, the first at `row`. Returns how many windows
 * every stage accepted; their position indices are in scratch->alive. */
size_t ccore_cascade_lbp_row(const ccore_cascade *cc, const cascade_lbp_grid *grids, const uint32_t *row, size_t positions,
                       size_t step, const cascade_row_scratch *scratch);

/* Haar evaluation (cascade_haar.c): corner offsets of each feature's
 * rectangles (4 per rectangle, up to 3) and of the window inset by one. */
enum { CASCADE_HAAR_CORNERS = 12 };

typedef struct {
    int32_t *corners;
    int32_t inset[4];
} cascade_haar_offsets;

void ccore_cascade_haar_corners(const ccore_cascade *cc, uint32_t stride, cascade_haar_offsets *out);

/* Whether every stage accepts the window whose integral / integral of
 * squares start at p / sq. */
int ccore_cascade_haar_window(const ccore_cascade *cc, const cascade_haar_offsets *o, const uint32_t *p, const uint64_t *sq);

#endif
