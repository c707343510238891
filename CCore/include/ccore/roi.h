/* Per-frame pixel kernels: skin-masked ROI means, mean luma, luma thumbnail.
 *
 * They read only the pixels they need (the ROIs, a sparse grid, the
 * thumbnail's sample points) straight from the frame, allocate nothing and
 * are safe to call from the capture thread. */
#ifndef CCORE_ROI_H
#define CCORE_ROI_H

#include <stdint.h>

#include "image.h"
#include "sample.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Measures every ROI of `rois` on `image` into `stats[0 ..< rois->count]`.
 *  ROIs are clipped to the frame; an empty one gets pixel_count 0.
 *  Returns -EINVAL for an unsupported image format. */
int ccore_roi_measure(const ccore_image *image, const ccore_roi_set *rois, ccore_roi_stats *stats);

/** Mean luma (0-255) sampled on a grid of at most 64x48 points: the pixels
 *  (floor((2i + 1) W / 2gx), floor((2j + 1) H / 2gy)). RGB24 luma is
 *  (77 R + 150 G + 29 B) >> 8. */
float ccore_image_mean_luma(const ccore_image *image);

/** Writes a `width` x `height` luma thumbnail of `image` into `dst`
 *  (row stride = width). Output pixel (i, j) is the rounded mean,
 *  (a + b + c + d + 2) >> 2, of the 2x2 source pixels (x, y), (x + 1, y),
 *  (x, y + 1), (x + 1, y + 1) at its cell's centre, x = floor((2i + 1) W /
 *  2 width), y = floor((2j + 1) H / 2 height), the +1 neighbours clamped to
 *  the last column / row: a cheap anti-aliasing filter, not a full box
 *  filter, that reads two source rows per thumbnail row. Luma as for
 *  ccore_image_mean_luma. Returns -EINVAL for a zero size or unsupported format. */
int ccore_image_luma_thumbnail(const ccore_image *image, uint8_t *dst, uint32_t width, uint32_t height);

/** RGB of one Y'CbCr triple under BT.601, honouring the range (not clamped). */
void ccore_ycbcr_to_rgb(float y, float cb, float cr, ccore_color_range range, float rgb[3]);

#ifdef __cplusplus
}
#endif
#endif
