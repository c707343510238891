#include "convert.h"

#include <stddef.h>

void i420_to_yuyv(const ccore_image *src, uint8_t *dst, uint32_t bytesperline) {
    for (uint32_t y = 0; y < src->height; y++) {
        const uint8_t *luma = src->plane0 + (size_t)y * src->stride0;
        const uint8_t *cb = src->plane1 + (size_t)(y / 2) * src->stride1;
        const uint8_t *cr = src->plane2 + (size_t)(y / 2) * src->stride2;
        uint8_t *row = dst + (size_t)y * bytesperline;
        for (uint32_t x = 0; x < src->width; x += 2) {
            row[2 * x + 0] = luma[x];
            row[2 * x + 1] = cb[x / 2];
            row[2 * x + 2] = luma[x + 1];
            row[2 * x + 3] = cr[x / 2];
        }
    }
}
