/* Skin-masked ROI means, mean luma and the luma thumbnail.
 *
 * Y'CbCr frames are summed in Y'CbCr and converted to RGB once per ROI: the
 * BT.601 conversion is affine, so the mean of the converted pixels equals the
 * converted mean (clipping aside, which skin pixels inside the mask bounds do
 * not reach). That keeps the inner loops to loads, a mask test and adds. */
#include "ccore/roi.h"

#include <errno.h>
#include <math.h>
#include <string.h>

ccore_skin_bounds ccore_skin_bounds_default(void) {
    /* Cb/Cr box of Chai & Ngan (1999); Y bounds drop near-black and clipped pixels. */
    return (ccore_skin_bounds){.y_min = 40, .y_max = 250, .cb_min = 77, .cb_max = 127, .cr_min = 133, .cr_max = 173};
}

ccore_skin_bounds ccore_skin_bounds_all(void) {
    return (ccore_skin_bounds){.y_min = 0, .y_max = 255, .cb_min = 0, .cb_max = 255, .cr_min = 0, .cr_max = 255};
}

void ccore_ycbcr_to_rgb(float y, float cb, float cr, ccore_color_range range, float rgb[3]) {
    float u = cb - 128.0f, v = cr - 128.0f;
    if (range == CCORE_RANGE_FULL) {
        rgb[0] = y + 1.402f * v;
        rgb[1] = y - 0.344136f * u - 0.714136f * v;
        rgb[2] = y + 1.772f * u;
    } else {
        float l = 1.164383f * (y - 16.0f);
        rgb[0] = l + 1.596027f * v;
        rgb[1] = l - 0.391762f * u - 0.812968f * v;
        rgb[2] = l + 2.017232f * u;
    }
}

/* Full-range JPEG (JFIF) Y'CbCr from RGB in 8.8 fixed point, for the skin test on RGB frames. */
static inline void rgb_to_ycbcr(int r, int g, int b, int *y, int *cb, int *cr) {
    *y = (77 * r + 150 * g + 29 * b) >> 8;
    *cb = ((-43 * r - 85 * g + 128 * b) >> 8) + 128;
    *cr = ((128 * r - 107 * g - 21 * b) >> 8) + 128;
}

typedef struct {
    uint64_t a, b, c; /* Y,Cb,Cr sums (Y'CbCr frames) or R,G,B sums (RGB frames) */
    uint32_t skin;
} accum;

/* Unsigned range test: one compare per bound pair. */
#define IN_RANGE(v, lo, hi) ((unsigned)((v) - (lo)) <= (unsigned)((hi) - (lo)))

static inline void add_ycbcr(accum *acc, const ccore_skin_bounds *s, int y, int cb, int cr) {
    if (IN_RANGE(y, s->y_min, s->y_max) && IN_RANGE(cb, s->cb_min, s->cb_max) && IN_RANGE(cr, s->cr_min, s->cr_max)) {
        acc->a += (unsigned)y;
        acc->b += (unsigned)cb;
        acc->c += (unsigned)cr;
        acc->skin++;
    }
}

typedef struct {
    uint32_t x0, y0, x1, y1;
} pixel_box;

static pixel_box to_pixels(const ccore_rect *r, uint32_t width, uint32_t height) {
    float fx0 = r->x * (float)width, fy0 = r->y * (float)height;
    float fx1 = (r->x + r->width) * (float)width, fy1 = (r->y + r->height) * (float)height;
    pixel_box box;
    box.x0 = fx0 <= 0 ? 0 : fx0 >= (float)width ? width : (uint32_t)lrintf(fx0);
    box.y0 = fy0 <= 0 ? 0 : fy0 >= (float)height ? height : (uint32_t)lrintf(fy0);
    box.x1 = fx1 <= 0 ? 0 : fx1 >= (float)width ? width : (uint32_t)lrintf(fx1);
    box.y1 = fy1 <= 0 ? 0 : fy1 >= (float)height ? height : (uint32_t)lrintf(fy1);
    if (box.x1 < box.x0) box.x1 = box.x0;
    if (box.y1 < box.y0) box.y1 = box.y0;
    return box;
}

static void sum_yuyv(const ccore_image *im, pixel_box b, const ccore_skin_bounds *s, accum *acc) {
    for (uint32_t y = b.y0; y < b.y1; y++) {
        const uint8_t *row = im->plane0 + (size_t)y * im->stride0;
        for (uint32_t x = b.x0; x < b.x1; x++) {
            const uint8_t *pair = row + (size_t)(x & ~1u) * 2;
            add_ycbcr(acc, s, row[2 * x], pair[1], pair[3]);
        }
    }
}

static void sum_nv12(const ccore_image *im, pixel_box b, const ccore_skin_bounds *s, accum *acc) {
    for (uint32_t y = b.y0; y < b.y1; y++) {
        const uint8_t *luma = im->plane0 + (size_t)y * im->stride0;
        const uint8_t *uv = im->plane1 + (size_t)(y >> 1) * im->stride1;
        for (uint32_t x = b.x0; x < b.x1; x++) {
            const uint8_t *c = uv + (size_t)(x >> 1) * 2;
            add_ycbcr(acc, s, luma[x], c[0], c[1]);
        }
    }
}

static void sum_planar(const ccore_image *im, pixel_box b, unsigned sx, unsigned sy, const ccore_skin_bounds *s,
                       accum *acc) {
    for (uint32_t y = b.y0; y < b.y1; y++) {
        const uint8_t *luma = im->plane0 + (size_t)y * im->stride0;
        const uint8_t *cb = im->plane1 + (size_t)(y >> sy) * im->stride1;
        const uint8_t *cr = im->plane2 + (size_t)(y >> sy) * im->stride2;
        for (uint32_t x = b.x0; x < b.x1; x++) add_ycbcr(acc, s, luma[x], cb[x >> sx], cr[x >> sx]);
    }
}

static void sum_gray(const ccore_image *im, pixel_box b, const ccore_skin_bounds *s, accum *acc) {
    for (uint32_t y = b.y0; y < b.y1; y++) {
        const uint8_t *luma = im->plane0 + (size_t)y * im->stride0;
        for (uint32_t x = b.x0; x < b.x1; x++) add_ycbcr(acc, s, luma[x], 128, 128);
    }
}

static void sum_rgb24(const ccore_image *im, pixel_box b, const ccore_skin_bounds *s, accum *acc) {
    for (uint32_t y = b.y0; y < b.y1; y++) {
        const uint8_t *row = im->plane0 + (size_t)y * im->stride0;
        for (uint32_t x = b.x0; x < b.x1; x++) {
            const uint8_t *p = row + (size_t)x * 3;
            int ly, cb, cr;
            rgb_to_ycbcr(p[0], p[1], p[2], &ly, &cb, &cr);
            if (IN_RANGE(ly, s->y_min, s->y_max) && IN_RANGE(cb, s->cb_min, s->cb_max) &&
                IN_RANGE(cr, s->cr_min, s->cr_max)) {
                acc->a += p[0];
                acc->b += p[1];
                acc->c += p[2];
                acc->skin++;
            }
        }
    }
}

static int format_supported(const ccore_image *image) {
    switch (image->format) {
    case CCORE_PIXEL_YUYV:
    case CCORE_PIXEL_RGB24:
    case CCORE_PIXEL_GRAY: return image->plane0 != NULL;
    case CCORE_PIXEL_NV12: return image->plane0 && image->plane1;
    case CCORE_PIXEL_YUV420:
    case CCORE_PIXEL_YUV422P:
    case CCORE_PIXEL_YUV444P: return image->plane0 && image->plane1 && image->plane2;
    case CCORE_PIXEL_NONE: break;
    }
    return 0;
}

int ccore_roi_measure(const ccore_image *image, const ccore_roi_set *rois, ccore_roi_stats *stats) {
    if (!image || !rois || !stats || !format_supported(image)) return -EINVAL;
    uint32_t count = rois->count > CCORE_MAX_ROIS ? CCORE_MAX_ROIS : rois->count;
    for (uint32_t i = 0; i < count; i++) {
        pixel_box b = to_pixels(&rois->rects[i], image->width, image->height);
        accum acc = {0};
        switch (image->format) {
        case CCORE_PIXEL_YUYV: sum_yuyv(image, b, &rois->skin, &acc); break;
        case CCORE_PIXEL_NV12: sum_nv12(image, b, &rois->skin, &acc); break;
        case CCORE_PIXEL_YUV420: sum_planar(image, b, 1, 1, &rois->skin, &acc); break;
        case CCORE_PIXEL_YUV422P: sum_planar(image, b, 1, 0, &rois->skin, &acc); break;
        case CCORE_PIXEL_YUV444P: sum_planar(image, b, 0, 0, &rois->skin, &acc); break;
        case CCORE_PIXEL_GRAY: sum_gray(image, b, &rois->skin, &acc); break;
        case CCORE_PIXEL_RGB24: sum_rgb24(image, b, &rois->skin, &acc); break;
        case CCORE_PIXEL_NONE: return -EINVAL;
        }
        ccore_roi_stats *out = &stats[i];
        memset(out, 0, sizeof *out);
        out->pixel_count = (b.x1 - b.x0) * (b.y1 - b.y0);
        if (acc.skin == 0) continue;
        out->skin_fraction = (float)acc.skin / (float)out->pixel_count;
        double n = acc.skin;
        if (image->format == CCORE_PIXEL_RGB24) {
            out->r = (float)(acc.a / n);
            out->g = (float)(acc.b / n);
            out->b = (float)(acc.c / n);
        } else {
            float rgb[3];
            ccore_ycbcr_to_rgb((float)(acc.a / n), (float)(acc.b / n), (float)(acc.c / n), image->range, rgb);
            out->r = rgb[0];
            out->g = rgb[1];
            out->b = rgb[2];
        }
    }
    return 0;
}

/* Luma of one pixel, whatever the layout. */
static inline int luma_at(const ccore_image *im, uint32_t x, uint32_t y) {
    const uint8_t *row = im->plane0 + (size_t)y * im->stride0;
    switch (im->format) {
    case CCORE_PIXEL_YUYV: return row[2 * x];
    case CCORE_PIXEL_RGB24: {
        const uint8_t *p = row + (size_t)x * 3;
        return (77 * p[0] + 150 * p[1] + 29 * p[2]) >> 8;
    }
    default: return row[x];
    }
}

float ccore_image_mean_luma(const ccore_image *image) {
    if (!image || !format_supported(image) || image->width == 0 || image->height == 0) return 0;
    uint32_t gx = image->width < 64 ? image->width : 64;
    uint32_t gy = image->height < 48 ? image->height : 48;
    uint64_t sum = 0;
    for (uint32_t j = 0; j < gy; j++) {
        uint32_t y = (uint32_t)(((uint64_t)(2 * j + 1) * image->height) / (2 * gy));
        for (uint32_t i = 0; i < gx; i++) {
            uint32_t x = (uint32_t)(((uint64_t)(2 * i + 1) * image->width) / (2 * gx));
            sum += (unsigned)luma_at(image, x, y);
        }
    }
    return (float)sum / (float)(gx * gy);
}

int ccore_image_luma_thumbnail(const ccore_image *image, uint8_t *dst, uint32_t width, uint32_t height) {
    if (!image || !dst || width == 0 || height == 0 || !format_supported(image)) return -EINVAL;
    /* Each output pixel averages the 2x2 source pixels at its cell's centre:
     * a cheap guard against aliasing that keeps the cost at 4 reads per
     * output pixel instead of reading the whole frame. */
    uint32_t max_x = image->width - 1, max_y = image->height - 1;
    for (uint32_t j = 0; j < height; j++) {
        uint32_t y = (uint32_t)(((uint64_t)(2 * j + 1) * image->height) / (2 * height));
        uint32_t y2 = y < max_y ? y + 1 : y;
        uint8_t *out = dst + (size_t)j * width;
        for (uint32_t i = 0; i < width; i++) {
            uint32_t x = (uint32_t)(((uint64_t)(2 * i + 1) * image->width) / (2 * width));
            uint32_t x2 = x < max_x ? x + 1 : x;
            int s = luma_at(image, x, y) + luma_at(image, x2, y) + luma_at(image, x, y2) + luma_at(image, x2, y2);
            out[i] = (uint8_t)((s + 2) >> 2);
        }
    }
    return 0;
}
