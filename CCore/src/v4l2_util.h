/* Private helpers shared by the V4L2 modules (device, controls, capture). */
#ifndef CCORE_V4L2_UTIL_H
#define CCORE_V4L2_UTIL_H

#include <errno.h>
#include <stdint.h>
#include <sys/ioctl.h>

#include "ccore/image.h"

/* ioctl that retries when a signal interrupts it; returns 0 or -errno. */
static inline int xioctl(int fd, unsigned long request, void *arg) {
    int r;
    do r = ioctl(fd, request, arg);
    while (r == -1 && errno == EINTR);
    return r == -1 ? -errno : 0;
}

/* The raw format a V4L2 fourcc maps to; CCORE_PIXEL_NONE for MJPEG and
 * anything the core cannot process. */
ccore_pixel_format ccore_v4l2_pixel_format(uint32_t fourcc);

/* 1 for the compressed formats the core decodes (MJPEG, JPEG). */
int ccore_v4l2_is_mjpeg(uint32_t fourcc);

/* 1 when the core reads the fourcc natively (raw in place, or MJPEG). */
int ccore_v4l2_fourcc_supported(uint32_t fourcc);

/* The capture buffer type to use with a node's (device) capabilities:
 * V4L2_BUF_TYPE_VIDEO_CAPTURE when it speaks the single-planar API,
 * V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE when only the multi-planar one, 0 when
 * it does not capture video. */
uint32_t ccore_v4l2_capture_type(uint32_t capabilities);

#endif
