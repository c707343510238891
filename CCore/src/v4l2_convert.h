/* Formats the per-frame kernels cannot read in place (Bayer and other sensor
 * or packed RGB/YUV orders) converted through libv4lconvert into one RGB24
 * buffer allocated at open and reused for every frame. */
#ifndef CCORE_V4L2_CONVERT_H
#define CCORE_V4L2_CONVERT_H

#include <stddef.h>
#include <stdint.h>

#include "ccore/image.h"

typedef struct ccore_v4l2_converter ccore_v4l2_converter;

/* 1 when libv4lconvert turns this uncompressed fourcc into RGB24. */
int ccore_v4l2_convertible(uint32_t fourcc);

/* Prepares the conversion of width x height frames of `fourcc` whose rows are
 * `*bytes_per_line` apart (0: packed) and `*size_image` bytes long (0: as the rows
 * need), both set to what is used, and checks it with one trial conversion.
 * Errors: -ENOMEM, CCORE_E_NO_FORMAT (with `message`) for a size beyond the core's
 * limits, a stride shorter than a row or a frame shorter than its rows. */
int ccore_v4l2_converter_create(uint32_t fourcc, uint32_t width, uint32_t height, uint32_t *bytes_per_line,
                                uint32_t *size_image, ccore_v4l2_converter **out, char *message, size_t message_size);

/* Converts one frame into the reused buffer and points `image` at it (full
 * range RGB24). No allocation. CCORE_E_CORRUPT when the frame is shorter than
 * its rows span or libv4lconvert refuses it. */
int ccore_v4l2_converter_run(ccore_v4l2_converter *c, const uint8_t *data, size_t size, ccore_image *image);

void ccore_v4l2_converter_destroy(ccore_v4l2_converter *c);

#endif
