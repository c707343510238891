/* RGB preview downscale (see ccore/preview.h). */
#include "ccore/preview.h"

#include <errno.h>
#include <stddef.h>

/* BT.601 in 16.16 fixed point; limited range stretches 16-235 / 16-240 first. */
static inline uint8_t clamp8(int32_t v) { return v < 0 ? 0 : v > 255 ? 255 : (uint8_t)v; }

static inline void ycc_rgb(int32_t y, int32_t cb, int32_t cr, int full, uint8_t *out) {
    int32_t c = full ? y << 16 : (y - 16) * 76309; /* 255/219 */
    int32_t u = cb - 128, v = cr - 128;
    int32_t ru = full ? 91881 : 104597, gu = full ? 22554 : 25675, gv = full ? 46802 : 53279,
            bu = full ? 116130 : 132201;
    out[0] = clamp8((c + ru * v + 32768) >> 16);
    out[1] = clamp8((c - gu * u - gv * v + 32768) >> 16);
    out[2] = clamp8((c + bu * u + 32768) >> 16);
}

void ccore_preview_fit(uint32_t fw, uint32_t fh, uint32_t max_side, uint32_t *width, uint32_t *height) {
    uint32_t w = 0, h = 0;
    if (fw && fh && max_side) {
        if (fw >= fh) {
            w = fw < max_side ? fw : max_side;
            h = (uint32_t)(((uint64_t)fh * w + fw / 2) / fw);
        } else {
            h = fh < max_side ? fh : max_side;
            w = (uint32_t)(((uint64_t)fw * h + fh / 2) / fh);
        }
        w &= ~1u;
        h &= ~1u;
        if (w < 2) w = 2;
        if (h < 2) h = 2;
    }
    if (width) *width = w;
    if (height) *height = h;
}

int ccore_image_rgb_preview(const ccore_image *im, uint8_t *dst, uint32_t width, uint32_t height) {
    if (!im || !dst || width == 0 || height == 0 || im->width == 0 || im->height == 0 || !im->plane0) return -EINVAL;
    switch (im->format) {
    case CCORE_PIXEL_YUYV: if (im->width % 2) return -EINVAL; break; /* whole pixel pairs */
    case CCORE_PIXEL_RGB24: case CCORE_PIXEL_GRAY: break;
    case CCORE_PIXEL_NV12: if (!im->plane1) return -EINVAL; break;
    case CCORE_PIXEL_YUV420: case CCORE_PIXEL_YUV422P: case CCORE_PIXEL_YUV444P:
        if (!im->plane1 || !im->plane2) return -EINVAL;
        break;
    default: return -EINVAL;
    }
    int full = im->range == CCORE_RANGE_FULL;
    for (uint32_t j = 0; j < height; j++) {
        uint32_t y = (uint32_t)(((2ull * j + 1) * im->height) / (2ull * height));
        const uint8_t *row0 = im->plane0 + (size_t)y * im->stride0;
        uint8_t *out = dst + (size_t)j * width * 3;
        for (uint32_t i = 0; i < width; i++, out += 3) {
            uint32_t x = (uint32_t)(((2ull * i + 1) * im->width) / (2ull * width));
            switch (im->format) {
            case CCORE_PIXEL_YUYV: {
                const uint8_t *p = row0 + (size_t)(x & ~1u) * 2;
                ycc_rgb(p[(x & 1) ? 2 : 0], p[1], p[3], full, out);
                break;
            }
            case CCORE_PIXEL_NV12: {
                const uint8_t *uv = im->plane1 + (size_t)(y / 2) * im->stride1 + (size_t)(x / 2) * 2;
                ycc_rgb(row0[x], uv[0], uv[1], full, out);
                break;
            }
            case CCORE_PIXEL_YUV420:
            case CCORE_PIXEL_YUV422P:
            case CCORE_PIXEL_YUV444P: {
                uint32_t cy = im->format == CCORE_PIXEL_YUV420 ? y / 2 : y;
                uint32_t cx = im->format == CCORE_PIXEL_YUV444P ? x : x / 2;
                ycc_rgb(row0[x], im->plane1[(size_t)cy * im->stride1 + cx], im->plane2[(size_t)cy * im->stride2 + cx],
                        full, out);
                break;
            }
            case CCORE_PIXEL_RGB24:
                out[0] = row0[3 * (size_t)x];
                out[1] = row0[3 * (size_t)x + 1];
                out[2] = row0[3 * (size_t)x + 2];
                break;
            default: /* GRAY */
                ycc_rgb(row0[x], 128, 128, full, out);
                break;
            }
        }
    }
    return 0;
}
