/* An RGB picture of a frame for people to look at: the SDK's `imageOutput`
 * and the preview renderer.
 *
 * Nearest-neighbour downscale with a BT.601 Y'CbCr -> RGB conversion that
 * honours the frame's range. It reads only the output's sample points, so a
 * 320x240 preview of a 640x480 frame costs a quarter of the frame's pixels,
 * allocates nothing and may run on the capture thread. */
#ifndef CCORE_PREVIEW_H
#define CCORE_PREVIEW_H

#include <stdint.h>

#include "image.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Writes a `width` x `height` RGB24 picture of `image` into `dst` (row
 *  stride = 3 * width). Output pixel (i, j) is source pixel
 *  (floor((2i + 1) W / 2 width), floor((2j + 1) H / 2 height)); chroma is
 *  taken from the chroma sample covering it. Returns -EINVAL for a zero size,
 *  a NULL argument or an unsupported format. */
int ccore_image_rgb_preview(const ccore_image *image, uint8_t *dst, uint32_t width, uint32_t height);

/** The preview size for a `frame_width` x `frame_height` frame that fits in a
 *  `max_side` square, keeping the aspect ratio, never larger than the frame,
 *  both sides even and at least 2. Zero sizes give 0 x 0. */
void ccore_preview_fit(uint32_t frame_width, uint32_t frame_height, uint32_t max_side, uint32_t *width,
                       uint32_t *height);

#ifdef __cplusplus
}
#endif
#endif
