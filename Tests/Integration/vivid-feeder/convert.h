/* Converts the clip's planar 4:2:0 frames to the packed 4:2:2 the output node takes. */
#ifndef VIVID_FEEDER_CONVERT_H
#define VIVID_FEEDER_CONVERT_H

#include <stdint.h>

#include "ccore/image.h"

/* Writes `src` (CCORE_PIXEL_YUV420, even width and height) as YUYV rows of `bytesperline`
 * bytes into `dst`. Each chroma row serves the two luma rows it covers; values are copied,
 * not rescaled, so studio swing stays studio swing. */
void i420_to_yuyv(const ccore_image *src, uint8_t *dst, uint32_t bytesperline);

#endif
