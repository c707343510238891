/* One level of the detector's image pyramid: a bilinear shrink of the luma
 * plane straight into its integral image(s), row by row, so no full-size
 * shrunk copy is kept. Fixed-point weights (11 bits), like a usual linear
 * resize, so levels match what other cascade implementations see. */
#include <math.h>
#include <stddef.h>

#include "cascade_internal.h"

enum { WEIGHT_BITS = 11, WEIGHT_ONE = 1 << WEIGHT_BITS };

/* Source position of a destination coordinate with centres aligned:
 * src = (dst + 0.5) * scale - 0.5, clamped to the edge pixels. */
static void source_position(uint32_t dst, double scale, uint32_t src_size, int32_t *index, int32_t *weight) {
    double s = ((double)dst + 0.5) * scale - 0.5;
    int32_t i = (int32_t)floor(s);
    int32_t w = (int32_t)lrint((s - i) * WEIGHT_ONE);
    if (i < 0) {
        i = 0;
        w = 0;
    }
    if (i >= (int32_t)src_size - 1) {
        i = (int32_t)src_size - 1;
        w = 0;
    }
    if (w == WEIGHT_ONE) { /* rounding up lands exactly on the next pixel */
        i++;
        w = 0;
    }
    *index = i;
    *weight = w;
}

static void shrink_row(const uint8_t *luma, uint32_t height, uint32_t luma_stride,
                       uint32_t part_width, double scale_y, uint32_t y, const cascade_level_buffers *b) {
    int32_t sy, wy;
    source_position(y, scale_y, height, &sy, &wy);
    const uint8_t *top = luma + (size_t)sy * luma_stride;
    const uint8_t *bottom = wy ? top + luma_stride : top;
    for (uint32_t x = 0; x < part_width; x++) {
        int32_t sx = b->x_source[x], wx = b->x_weight[x];
        int32_t nx = wx ? sx + 1 : sx;
        uint32_t t = (uint32_t)(top[sx] * (WEIGHT_ONE - wx) + top[nx] * wx);
        uint32_t u = (uint32_t)(bottom[sx] * (WEIGHT_ONE - wx) + bottom[nx] * wx);
        uint32_t v = t * (uint32_t)(WEIGHT_ONE - wy) + u * (uint32_t)wy;
        b->row[x] = (uint8_t)((v + (1u << (2 * WEIGHT_BITS - 1))) >> (2 * WEIGHT_BITS));
    }
}

void ccore_cascade_build_level(const uint8_t *luma, uint32_t width, uint32_t height, uint32_t luma_stride,
                         uint32_t level_width, uint32_t level_height, cascade_level_part part,
                         const cascade_level_buffers *b) {
    const int same_size = level_width == width && level_height == height;
    double scale_x = (double)width / level_width, scale_y = (double)height / level_height;
    uint32_t part_width = part.width, part_height = part.height;
    if (!same_size)
        for (uint32_t x = 0; x < part_width; x++)
            source_position(part.x0 + x, scale_x, width, &b->x_source[x], &b->x_weight[x]);
    /* Row 0 and column 0 of an integral image are zero. */
    for (uint32_t x = 0; x <= part_width; x++) b->integral[x] = 0;
    if (b->squares)
        for (uint32_t x = 0; x <= part_width; x++) b->squares[x] = 0;
    for (uint32_t y = 0; y < part_height; y++) {
        const uint8_t *row = luma + (size_t)(part.y0 + y) * luma_stride + part.x0;
        if (!same_size) {
            shrink_row(luma, height, luma_stride, part_width, scale_y, part.y0 + y, b);
            row = b->row;
        }
        /* Unsigned wrap-around is fine: any rectangle's sum fits in 32 bits,
         * and differences of wrapped corner values give it exactly. */
        const uint32_t *above = b->integral + (size_t)y * b->stride;
        uint32_t *sums = b->integral + (size_t)(y + 1) * b->stride;
        uint32_t run = 0;
        sums[0] = 0;
        for (uint32_t x = 0; x < part_width; x++) {
            run += row[x];
            sums[x + 1] = above[x + 1] + run;
        }
        if (b->squares) {
            const uint64_t *sq_above = b->squares + (size_t)y * b->stride;
            uint64_t *sq = b->squares + (size_t)(y + 1) * b->stride;
            uint64_t sq_run = 0;
            sq[0] = 0;
            for (uint32_t x = 0; x < part_width; x++) {
                sq_run += (uint64_t)row[x] * row[x];
                sq[x + 1] = sq_above[x + 1] + sq_run;
            }
        }
    }
}
