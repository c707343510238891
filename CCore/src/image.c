/* Pixel format facts and packed-buffer views. */
#include "ccore/image.h"

#include <errno.h>
#include <string.h>

const char *ccore_pixel_format_name(ccore_pixel_format format) {
    switch (format) {
    case CCORE_PIXEL_YUYV: return "YUYV";
    case CCORE_PIXEL_NV12: return "NV12";
    case CCORE_PIXEL_YUV420: return "YUV420";
    case CCORE_PIXEL_YUV422P: return "YUV422P";
    case CCORE_PIXEL_YUV444P: return "YUV444P";
    case CCORE_PIXEL_RGB24: return "RGB24";
    case CCORE_PIXEL_GRAY: return "GRAY";
    case CCORE_PIXEL_NONE: break;
    }
    return "NONE";
}

int ccore_frame_size_allowed(uint32_t width, uint32_t height) {
    return width > 0 && height > 0 && width <= CCORE_MAX_FRAME_SIDE && height <= CCORE_MAX_FRAME_SIDE &&
           (uint64_t)width * height <= CCORE_MAX_FRAME_PIXELS;
}

uint64_t ccore_pixel_format_frame_size(ccore_pixel_format format, uint32_t width, uint32_t height) {
    uint64_t luma = (uint64_t)width * height;
    uint64_t half_w = (width + 1) / 2, half_h = (height + 1) / 2;
    switch (format) {
    case CCORE_PIXEL_YUYV: return width % 2 ? 0 : luma * 2; /* a pixel pair shares U and V */
    case CCORE_PIXEL_NV12:
    case CCORE_PIXEL_YUV420: return luma + 2 * half_w * half_h;
    case CCORE_PIXEL_YUV422P: return luma + 2 * half_w * height;
    case CCORE_PIXEL_YUV444P:
    case CCORE_PIXEL_RGB24: return luma * 3;
    case CCORE_PIXEL_GRAY: return luma;
    case CCORE_PIXEL_NONE: break;
    }
    return 0;
}

int ccore_image_wrap_packed(ccore_image *image, ccore_pixel_format format, ccore_color_range range,
                            uint32_t width, uint32_t height, const uint8_t *data) {
    if (!image || !data || width == 0 || height == 0) return -EINVAL;
    memset(image, 0, sizeof *image);
    image->format = format;
    image->range = range;
    image->width = width;
    image->height = height;
    image->plane0 = data;
    uint32_t half_w = (width + 1) / 2, half_h = (height + 1) / 2;
    switch (format) {
    case CCORE_PIXEL_YUYV:
        if (width % 2) return -EINVAL; /* the last pixel's pair, and its V, would lie past the row */
        image->stride0 = width * 2;
        break;
    case CCORE_PIXEL_RGB24: image->stride0 = width * 3; break;
    case CCORE_PIXEL_GRAY: image->stride0 = width; break;
    case CCORE_PIXEL_NV12:
        image->stride0 = width;
        image->plane1 = data + (size_t)width * height;
        image->stride1 = half_w * 2;
        break;
    case CCORE_PIXEL_YUV420:
        image->stride0 = width;
        image->plane1 = data + (size_t)width * height;
        image->stride1 = half_w;
        image->plane2 = image->plane1 + (size_t)half_w * half_h;
        image->stride2 = half_w;
        break;
    case CCORE_PIXEL_YUV422P:
        image->stride0 = width;
        image->plane1 = data + (size_t)width * height;
        image->stride1 = half_w;
        image->plane2 = image->plane1 + (size_t)half_w * height;
        image->stride2 = half_w;
        break;
    case CCORE_PIXEL_YUV444P:
        image->stride0 = width;
        image->plane1 = data + (size_t)width * height;
        image->stride1 = width;
        image->plane2 = image->plane1 + (size_t)width * height;
        image->stride2 = width;
        break;
    default: return -EINVAL;
    }
    return 0;
}

/* Bytes of the shortest row of the luma (or packed) plane; 0 for a width the format
 * cannot have (YUYV's pixels come in pairs). */
static uint64_t packed_row_bytes(ccore_pixel_format format, uint32_t width) {
    switch (format) {
    case CCORE_PIXEL_YUYV: return width % 2 ? 0 : (uint64_t)width * 2;
    case CCORE_PIXEL_RGB24: return (uint64_t)width * 3;
    case CCORE_PIXEL_NONE: return 0;
    default: return width;
    }
}

/* The strides V4L2 derives from the luma stride for one-buffer planar formats. */
static void chroma_strides(ccore_pixel_format format, uint32_t bpl, uint32_t *chroma_bpl, uint32_t *chroma_rows_of,
                           uint32_t height) {
    uint32_t half_h = (height + 1) / 2;
    switch (format) {
    case CCORE_PIXEL_NV12: *chroma_bpl = bpl, *chroma_rows_of = half_h; break;
    case CCORE_PIXEL_YUV420: *chroma_bpl = bpl / 2, *chroma_rows_of = half_h; break;
    case CCORE_PIXEL_YUV422P: *chroma_bpl = bpl / 2, *chroma_rows_of = height; break;
    case CCORE_PIXEL_YUV444P: *chroma_bpl = bpl, *chroma_rows_of = height; break;
    default: *chroma_bpl = 0, *chroma_rows_of = 0; break;
    }
}

/* Bytes one chroma row needs (NV12: U and V interleaved). */
static uint64_t chroma_row_bytes(ccore_pixel_format format, uint32_t width) {
    uint32_t half_w = (width + 1) / 2;
    switch (format) {
    case CCORE_PIXEL_NV12: return (uint64_t)half_w * 2;
    case CCORE_PIXEL_YUV420:
    case CCORE_PIXEL_YUV422P: return half_w;
    case CCORE_PIXEL_YUV444P: return width;
    default: return 0;
    }
}

uint64_t ccore_image_strided_size(ccore_pixel_format format, uint32_t width, uint32_t height,
                                  uint32_t bytes_per_line) {
    uint64_t row = packed_row_bytes(format, width);
    if (row == 0 || width == 0 || height == 0) return 0;
    /* 0: rows packed, chroma rows as long as they need (not half a luma row, which
     * is short by one byte at an odd width). */
    if (bytes_per_line == 0) return ccore_pixel_format_frame_size(format, width, height);
    uint64_t bpl = bytes_per_line;
    if (bpl < row || bpl > UINT32_MAX) return 0;
    uint32_t cbpl, crows;
    chroma_strides(format, (uint32_t)bpl, &cbpl, &crows, height);
    uint64_t total = bpl * height;
    if (crows) {
        if (cbpl < chroma_row_bytes(format, width)) return 0;
        uint64_t planes = format == CCORE_PIXEL_NV12 ? 1 : 2;
        total += planes * (uint64_t)cbpl * crows;
    }
    return total;
}

int ccore_image_wrap_strided(ccore_image *image, ccore_pixel_format format, ccore_color_range range,
                             uint32_t width, uint32_t height, const uint8_t *data, uint32_t bytes_per_line) {
    if (!image || !data || ccore_image_strided_size(format, width, height, bytes_per_line) == 0) return -EINVAL;
    int rc = ccore_image_wrap_packed(image, format, range, width, height, data);
    if (rc < 0 || bytes_per_line == 0) return rc;
    uint32_t cbpl, crows;
    chroma_strides(format, bytes_per_line, &cbpl, &crows, height);
    image->stride0 = bytes_per_line;
    if (crows) {
        image->plane1 = data + (size_t)bytes_per_line * height;
        image->stride1 = cbpl;
        if (format != CCORE_PIXEL_NV12) {
            image->plane2 = image->plane1 + (size_t)cbpl * crows;
            image->stride2 = cbpl;
        }
    }
    return 0;
}
