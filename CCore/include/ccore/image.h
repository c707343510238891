/* A borrowed view of one video frame's pixels, whatever their layout.
 *
 * The view never owns memory: for raw V4L2 formats it points straight into
 * the mmap'ed driver buffer (zero-copy), for MJPEG into the decoder's
 * preallocated planes. */
#ifndef CCORE_IMAGE_H
#define CCORE_IMAGE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    CCORE_PIXEL_NONE = 0,
    CCORE_PIXEL_YUYV = 1,    /* packed 4:2:2, Y0 U Y1 V */
    CCORE_PIXEL_NV12 = 2,    /* Y plane + interleaved UV plane, 4:2:0 */
    CCORE_PIXEL_YUV420 = 3,  /* three planes, 4:2:0 (I420) */
    CCORE_PIXEL_YUV422P = 4, /* three planes, 4:2:2 */
    CCORE_PIXEL_YUV444P = 5, /* three planes, 4:4:4 */
    CCORE_PIXEL_RGB24 = 6,   /* packed R G B */
    CCORE_PIXEL_GRAY = 7,    /* Y plane only */
} ccore_pixel_format;

/** How Y'CbCr values map to RGB: studio swing (16-235) or full swing. */
typedef enum {
    CCORE_RANGE_LIMITED = 0,
    CCORE_RANGE_FULL = 1,
} ccore_color_range;

typedef struct {
    ccore_pixel_format format;
    ccore_color_range range;
    uint32_t width;
    uint32_t height;
    /** Plane pointers; unused planes are NULL. Packed formats use plane 0. */
    const uint8_t *plane0;
    const uint8_t *plane1;
    const uint8_t *plane2;
    /** Bytes per row of each plane. */
    uint32_t stride0;
    uint32_t stride1;
    uint32_t stride2;
} ccore_image;

/* The largest frame the core accepts from any header (a camera's format, a
 * Y4M or JPEG header): 8192 pixels on a side and 40 megapixels (8K UHD is
 * 33.2). Checked before any frame-sized allocation or decode, so a hostile
 * header cannot make the core allocate or decode more than about 120 MB. */
#define CCORE_MAX_FRAME_SIDE 8192u
#define CCORE_MAX_FRAME_PIXELS 40000000u

/** 1 when a width x height frame is within the limits above (and not empty). */
int ccore_frame_size_allowed(uint32_t width, uint32_t height);

/** Name of a pixel format ("YUYV", "NV12", ...). */
const char *ccore_pixel_format_name(ccore_pixel_format format);

/** Bytes a tightly packed frame of this format and size occupies; 0 for an unknown
 *  format or a size it cannot have (YUYV at an odd width: its pixels come in pairs). */
uint64_t ccore_pixel_format_frame_size(ccore_pixel_format format, uint32_t width, uint32_t height);

/** Fills `image` as a tightly packed view of `data` (plane strides = width-based).
 *  Returns -EINVAL for an unknown format or odd size where chroma needs even. */
int ccore_image_wrap_packed(ccore_image *image, ccore_pixel_format format, ccore_color_range range,
                            uint32_t width, uint32_t height, const uint8_t *data);

/** Fills `image` as a view of one buffer whose luma rows are `bytes_per_line`
 *  apart, V4L2's single-buffer layout: each plane follows the previous one,
 *  NV12's interleaved chroma rows and 4:4:4's chroma planes have the luma's
 *  stride, YUV420's and YUV422P's chroma planes half of it. Drivers pad rows
 *  (ISP nodes to 16, 32 or 64 bytes); 0 means tightly packed (chroma rows as
 *  long as they need, as ccore_image_wrap_packed lays them). -EINVAL for an
 *  unknown format, a zero size, YUYV at an odd width or a stride shorter than a row. */
int ccore_image_wrap_strided(ccore_image *image, ccore_pixel_format format, ccore_color_range range,
                             uint32_t width, uint32_t height, const uint8_t *data, uint32_t bytes_per_line);

/** Bytes the view ccore_image_wrap_strided builds spans (all planes, padding
 *  included): a buffer shorter than that is damaged. 0 when the layout is invalid. */
uint64_t ccore_image_strided_size(ccore_pixel_format format, uint32_t width, uint32_t height,
                                  uint32_t bytes_per_line);

#ifdef __cplusplus
}
#endif
#endif
