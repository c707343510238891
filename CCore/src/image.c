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
    case CCORE_PIXEL_YUYV: return luma * 2;
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
    case CCORE_PIXEL_YUYV: image->stride0 = width * 2; break;
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
