/* Evaluation of LBP cascades over one row of windows of a pyramid level.
 *
 * Stage by stage across the row rather than window by window: stage 0 (which
 * rejects most windows) runs four windows at a time as vector code, later
 * stages over the survivors with a branch-free compaction. The accept/reject
 * outcome, the hard-to-predict part, never steers a branch, and every
 * window's leaf values are added in stage order, as a per-window loop would. */
#include <string.h>

#include "cascade_internal.h"

void ccore_cascade_lbp_grids(const ccore_cascade *cc, uint32_t stride, cascade_lbp_grid *grids) {
    for (uint32_t f = 0; f < cc->feature_count; f++) {
        const cascade_lbp_feature *lf = &cc->lbp[f];
        grids[f] = (cascade_lbp_grid){lf->y * (int32_t)stride + lf->x, lf->w, lf->h * (int32_t)stride};
    }
}

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

/* Which leaf a code reaches: 0 when its bit of the subset is set, else 1.
 * An index, not a conditional, so it compiles to a load and never to a
 * branch on an unpredictable bit. */
static inline uint32_t leaf_of(const cascade_stump *stump, uint32_t code) {
    return ((stump->subset[code >> 5] >> (code & 31)) & 1) ^ 1;
}

/* Four windows' LBP codes at once (GNU vector extensions, lowered to SSE2
 * or NEON): windows i..i+3 of a row whose origins are `step` apart. A cell
 * lies inside the window (at most 1024 px square), so its sum stays below
 * 2^31 and the wrapped differences compare correctly as signed lanes. */
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

/* Stage 0 over every window of the row: leaf sums into `sums`. */
static inline void lbp_first_stage_row(const ccore_cascade *cc, const cascade_lbp_grid *grids, const uint32_t *row,
                                       size_t positions, size_t step, uint32_t *restrict codes, float *restrict sums) {
    const cascade_stage *stage = &cc->stages[0];
    for (size_t i = 0; i < positions; i++) sums[i] = 0;
    for (uint32_t k = 0; k < stage->stump_count; k++) {
        const cascade_stump *stump = &cc->stumps[stage->first_stump + k];
        const cascade_lbp_grid *f = &grids[stump->feature];
        const uint32_t *top = row + f->top_left;
        size_t i = 0;
        for (; i + 4 <= positions; i += 4) {
            lanes4 four = lbp_codes4(top + i * step, step, f->cell_width, f->cell_rows);
            memcpy(codes + i, &four, sizeof four);
        }
        for (; i < positions; i++) codes[i] = lbp_code(top + i * step, f->cell_width, f->cell_rows);
        for (i = 0; i < positions; i++) {
            sums[i] += stump->leaf[leaf_of(stump, codes[i])];
        }
    }
}

/* One later stage over the row's surviving windows (positions in `alive`,
 * n of them): sums first, then the compaction keeps the windows the stage
 * accepts, in order. Returns how many survive. */
static inline size_t lbp_stage_survivors(const ccore_cascade *cc, const cascade_lbp_grid *grids, uint32_t s,
                                  const uint32_t *row, size_t step, uint32_t *restrict alive, size_t n,
                                  float *restrict sums) {
    const cascade_stage *stage = &cc->stages[s];
    for (size_t j = 0; j < n; j++) sums[j] = 0;
    for (uint32_t k = 0; k < stage->stump_count; k++) {
        const cascade_stump *stump = &cc->stumps[stage->first_stump + k];
        const cascade_lbp_grid *f = &grids[stump->feature];
        const uint32_t *top = row + f->top_left;
        const int32_t w = f->cell_width, rows = f->cell_rows;
        for (size_t j = 0; j < n; j++) {
            uint32_t code = lbp_code(top + alive[j] * step, w, rows);
            sums[j] += stump->leaf[leaf_of(stump, code)];
        }
    }
    size_t kept = 0;
    for (size_t j = 0; j < n; j++) {
        alive[kept] = alive[j];
        kept += sums[j] >= stage->threshold;
    }
    return kept;
}

size_t ccore_cascade_lbp_row(const ccore_cascade *cc, const cascade_lbp_grid *grids, const uint32_t *row, size_t positions,
                       size_t step, const cascade_row_scratch *scratch) {
    uint32_t *restrict alive = scratch->alive;
    float *restrict sums = scratch->sums;
    /* A constant step lets the compiler specialise each case. */
    if (step == 1)
        lbp_first_stage_row(cc, grids, row, positions, 1, scratch->codes, sums);
    else
        lbp_first_stage_row(cc, grids, row, positions, 2, scratch->codes, sums);
    const float threshold = cc->stages[0].threshold;
    size_t n = 0;
    for (size_t i = 0; i < positions; i++) {
        alive[n] = (uint32_t)i;
        n += sums[i] >= threshold;
    }
    for (uint32_t s = 1; s < cc->stage_count && n > 0; s++)
        n = lbp_stage_survivors(cc, grids, s, row, step, alive, n, sums);
    return n;
}
