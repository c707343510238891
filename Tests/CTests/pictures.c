/* Test pictures shared by the JPEG tests. */
#include <stdlib.h>

#include "ccore/image.h"
#include "ctest.h"

uint8_t *ctest_textured_rgb(uint32_t w, uint32_t h, uint32_t seed) {
    uint8_t *rgb = malloc((size_t)w * h * 3);
    if (!rgb) return NULL;
    uint32_t state = seed * 2654435761u + 1;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            state = state * 1664525u + 1013904223u;
            uint8_t *p = rgb + ((size_t)y * w + x) * 3;
            p[0] = (uint8_t)(150 + (x * 3 + y) % 60 + (state >> 28));
            p[1] = (uint8_t)(100 + (x + y * 5) % 50 + (state >> 29));
            p[2] = (uint8_t)(70 + (x * y) % 40 + (state >> 30));
        }
    return rgb;
}

int ctest_encode_textured(uint32_t w, uint32_t h, uint32_t seed, ccore_jpeg_subsampling subsampling, int quality,
                          uint8_t **jpeg, size_t *size) {
    uint8_t *rgb = ctest_textured_rgb(w, h, seed);
    if (!rgb) return -1;
    ccore_image image;
    int rc = ccore_image_wrap_packed(&image, CCORE_PIXEL_RGB24, CCORE_RANGE_FULL, w, h, rgb);
    if (rc == 0) rc = ccore_jpeg_encode_rgb(&image, quality, subsampling, jpeg, size);
    free(rgb);
    return rc;
}
