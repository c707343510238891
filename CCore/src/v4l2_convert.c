/* libv4lconvert for the formats the kernels cannot read in place.
 *
 * libv4lconvert is used as a pure converter: it never sees the camera. Given
 * the real descriptor it would look the device up in its quirks database,
 * and when it decides a device "needs conversion" it adds software white
 * balance, gain and gamma whose values live in a shared memory segment any
 * libv4l program can change. Per-frame white balance or gain would modulate
 * the very skin colour the pulse is read from, so the converter is built on
 * device operations that answer for no device: every ioctl fails, except that
 * each control it probes reports as present in hardware, which keeps all of
 * its software processing (and the shared segment) off. */
#include "v4l2_convert.h"

#include <errno.h>
#include <libv4l-plugin.h>
#include <libv4lconvert.h>
#include <linux/videodev2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ccore/device.h"
#include "ccore/error.h"
#include "ccore/image.h"

struct ccore_v4l2_converter {
    struct v4lconvert_data *data;
    struct v4l2_format src, dst;
    uint8_t *rgb;
    size_t rgb_size;
    uint32_t width, height;
    uint32_t frame_bytes; /* what a frame's rows span: each one must hold that much */
};

/* Uncompressed formats libv4lconvert converts to RGB24 (its supported_src list,
 * without the compressed and vendor-specific ones and without what the core
 * reads natively). */
static const uint32_t convertible[] = {
    V4L2_PIX_FMT_SBGGR8,  V4L2_PIX_FMT_SGBRG8,  V4L2_PIX_FMT_SGRBG8,  V4L2_PIX_FMT_SRGGB8,
    V4L2_PIX_FMT_SBGGR10, V4L2_PIX_FMT_SGBRG10, V4L2_PIX_FMT_SGRBG10, V4L2_PIX_FMT_SRGGB10,
    V4L2_PIX_FMT_SBGGR10P, V4L2_PIX_FMT_SGBRG10P, V4L2_PIX_FMT_SGRBG10P, V4L2_PIX_FMT_SRGGB10P,
    V4L2_PIX_FMT_SBGGR16, V4L2_PIX_FMT_SGBRG16, V4L2_PIX_FMT_SGRBG16, V4L2_PIX_FMT_SRGGB16,
    V4L2_PIX_FMT_UYVY,    V4L2_PIX_FMT_YVYU,    V4L2_PIX_FMT_NV16,    V4L2_PIX_FMT_NV61,
    V4L2_PIX_FMT_YVU420,  V4L2_PIX_FMT_BGR24,   V4L2_PIX_FMT_RGB565,  V4L2_PIX_FMT_BGR32,
    V4L2_PIX_FMT_RGB32,   V4L2_PIX_FMT_XBGR32,  V4L2_PIX_FMT_XRGB32,  V4L2_PIX_FMT_ABGR32,
    V4L2_PIX_FMT_ARGB32,
};

int ccore_v4l2_convertible(uint32_t fourcc) {
    for (size_t i = 0; i < sizeof convertible / sizeof convertible[0]; i++)
        if (convertible[i] == fourcc) return 1;
    return 0;
}

static int no_device_ioctl(void *priv, int fd, unsigned long request, void *arg) {
    (void)priv, (void)fd;
    if (request == VIDIOC_QUERYCTRL) {
        struct v4l2_queryctrl *q = arg;
        if (!(q->id & V4L2_CTRL_FLAG_NEXT_CTRL)) {
            q->flags = 0; /* "the hardware has it": no software replacement */
            return 0;
        }
    }
    errno = ENOTTY;
    return -1;
}

static ssize_t no_device_read(void *priv, int fd, void *buf, size_t len) {
    (void)priv, (void)fd, (void)buf, (void)len;
    errno = ENOTTY;
    return -1;
}

static const struct libv4l_dev_ops no_device_ops = {
    .init = NULL,
    .close = NULL,
    .ioctl = no_device_ioctl,
    .read = no_device_read,
    .write = NULL,
};

static int fail(char *message, size_t size, int code, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int fail(char *message, size_t size, int code, const char *fmt, ...) {
    if (message && size) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(message, size, fmt, ap);
        va_end(ap);
    }
    return code;
}

/* The shortest row of `fourcc` at `width`, bytes, and whether the size suits its
 * layout: 4:2:2 pixel pairs share chroma, Bayer repeats every 2x2 pixels and 4:2:0
 * chroma every 2x2, 10-bit packed Bayer fills 5 bytes every 4 pixels. 0 when it does not. */
static uint64_t shortest_row(uint32_t fourcc, uint32_t width, uint32_t height) {
    int even_w = width % 2 == 0, even = even_w && height % 2 == 0;
    switch (fourcc) {
    case V4L2_PIX_FMT_SBGGR8: case V4L2_PIX_FMT_SGBRG8: case V4L2_PIX_FMT_SGRBG8: case V4L2_PIX_FMT_SRGGB8:
    case V4L2_PIX_FMT_YVU420:
        return even ? width : 0;
    case V4L2_PIX_FMT_NV16: case V4L2_PIX_FMT_NV61:
        return even_w ? width : 0;
    case V4L2_PIX_FMT_SBGGR10: case V4L2_PIX_FMT_SGBRG10: case V4L2_PIX_FMT_SGRBG10: case V4L2_PIX_FMT_SRGGB10:
    case V4L2_PIX_FMT_SBGGR16: case V4L2_PIX_FMT_SGBRG16: case V4L2_PIX_FMT_SGRBG16: case V4L2_PIX_FMT_SRGGB16:
        return even ? 2ull * width : 0;
    case V4L2_PIX_FMT_UYVY: case V4L2_PIX_FMT_YVYU:
        return even_w ? 2ull * width : 0;
    case V4L2_PIX_FMT_SBGGR10P: case V4L2_PIX_FMT_SGBRG10P: case V4L2_PIX_FMT_SGRBG10P: case V4L2_PIX_FMT_SRGGB10P:
        return even && width % 4 == 0 ? width / 4 * 5ull : 0;
    case V4L2_PIX_FMT_RGB565: return 2ull * width;
    case V4L2_PIX_FMT_BGR24: return 3ull * width;
    default: return 4ull * width; /* the 32-bit RGB orders */
    }
}

/* Whether libv4lconvert (1.22) steps through this format's rows `bytesperline` apart.
 * The others it reads as if packed, whatever the stride: a padded one would shear the
 * picture, and NV16/NV61's would read past libv4lconvert's own buffer. */
static int reads_padded_rows(uint32_t fourcc) {
    switch (fourcc) {
    case V4L2_PIX_FMT_SBGGR8: case V4L2_PIX_FMT_SGBRG8: case V4L2_PIX_FMT_SGRBG8: case V4L2_PIX_FMT_SRGGB8:
    case V4L2_PIX_FMT_UYVY: case V4L2_PIX_FMT_YVYU:
        return 1;
    default: return 0;
    }
}

/* Bytes a frame of `fourcc` spans with rows `bpl` apart: the first plane and, for the
 * planar ones (packed rows, see reads_padded_rows), NV16/NV61's full-height
 * interleaved chroma or YVU420's two quarter planes. */
static uint64_t frame_bytes(uint32_t fourcc, uint64_t bpl, uint32_t height) {
    uint64_t luma = bpl * height;
    switch (fourcc) {
    case V4L2_PIX_FMT_NV16: case V4L2_PIX_FMT_NV61: return 2 * luma;
    case V4L2_PIX_FMT_YVU420: return luma + 2 * (bpl / 2) * (height / 2);
    default: return luma;
    }
}

int ccore_v4l2_converter_create(uint32_t fourcc, uint32_t width, uint32_t height, uint32_t *bytes_per_line_io,
                                uint32_t *size_image_io, ccore_v4l2_converter **out, char *message,
                                size_t message_size) {
    if (!out || !bytes_per_line_io || !size_image_io) return -EINVAL;
    uint32_t bytes_per_line = *bytes_per_line_io, size_image = *size_image_io;
    *out = NULL;
    char cc[5];
    ccore_fourcc_string(fourcc, cc);
    if (!ccore_v4l2_convertible(fourcc) || !ccore_frame_size_allowed(width, height))
        return fail(message, message_size, CCORE_E_NO_FORMAT, "format %s %ux%u cannot be converted", cc, width,
                    height);
    /* libv4lconvert reads what the layout says, not what the buffer holds: a stride
     * the driver left at 0 means packed rows, padded ones only where it steps by the
     * stride, and the frame must hold every row. */
    uint64_t row = shortest_row(fourcc, width, height);
    uint64_t bpl = bytes_per_line ? bytes_per_line : row;
    if (row == 0 || bpl < row || bpl > UINT32_MAX)
        return fail(message, message_size, CCORE_E_NO_FORMAT, "format %s %ux%u: bytesperline %u does not fit its rows",
                    cc, width, height, bytes_per_line);
    if (bpl != row && !reads_padded_rows(fourcc))
        return fail(message, message_size, CCORE_E_NO_FORMAT,
                    "format %s %ux%u: bytesperline %u pads rows that libv4lconvert reads packed (%llu bytes)", cc,
                    width, height, bytes_per_line, (unsigned long long)row);
    uint64_t need = frame_bytes(fourcc, bpl, height);
    /* A stride no padding explains (rows of 8 bytes a pixel and more) is not a frame to
     * allocate a trial copy of. */
    if (need > (uint64_t)CCORE_MAX_FRAME_PIXELS * 8)
        return fail(message, message_size, CCORE_E_NO_FORMAT, "format %s %ux%u: bytesperline %u is beyond any row",
                    cc, width, height, bytes_per_line);
    if (size_image == 0) size_image = (uint32_t)need;
    if (size_image < need)
        return fail(message, message_size, CCORE_E_NO_FORMAT,
                    "format %s %ux%u: sizeimage %u is short of the %llu bytes its rows span", cc, width, height,
                    size_image, (unsigned long long)need);
    bytes_per_line = (uint32_t)bpl;
    ccore_v4l2_converter *c = calloc(1, sizeof *c);
    if (!c) return -ENOMEM;
    c->width = width;
    c->height = height;
    c->frame_bytes = (uint32_t)need; /* at most 320 MB: an int */
    c->rgb_size = (size_t)width * height * 3;
    c->rgb = malloc(c->rgb_size);
    c->data = v4lconvert_create_with_dev_ops(-1, NULL, &no_device_ops);
    if (!c->rgb || !c->data) {
        ccore_v4l2_converter_destroy(c);
        return fail(message, message_size, -ENOMEM, "cannot set up libv4lconvert for %s", cc);
    }
    c->src.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    c->src.fmt.pix.width = width;
    c->src.fmt.pix.height = height;
    c->src.fmt.pix.pixelformat = fourcc;
    c->src.fmt.pix.field = V4L2_FIELD_NONE;
    c->src.fmt.pix.bytesperline = bytes_per_line;
    c->src.fmt.pix.sizeimage = c->frame_bytes;
    c->dst = c->src;
    c->dst.fmt.pix.pixelformat = V4L2_PIX_FMT_RGB24;
    c->dst.fmt.pix.bytesperline = width * 3;
    c->dst.fmt.pix.sizeimage = (uint32_t)c->rgb_size;
    /* One trial conversion of a black frame: libv4lconvert may still refuse a
     * size or stride, and that is better learnt at open than per frame. */
    uint8_t *trial = calloc(1, c->frame_bytes);
    if (!trial) {
        ccore_v4l2_converter_destroy(c);
        return -ENOMEM;
    }
    int n = v4lconvert_convert(c->data, &c->src, &c->dst, trial, (int)c->frame_bytes, c->rgb, (int)c->rgb_size);
    free(trial);
    if (n != (int)c->rgb_size) {
        int rc = fail(message, message_size, CCORE_E_NO_FORMAT, "libv4lconvert cannot convert %s %ux%u: %s", cc,
                      width, height, v4lconvert_get_error_message(c->data));
        ccore_v4l2_converter_destroy(c);
        return rc;
    }
    *bytes_per_line_io = bytes_per_line;
    *size_image_io = size_image;
    *out = c;
    return 0;
}

int ccore_v4l2_converter_run(ccore_v4l2_converter *c, const uint8_t *data, size_t size, ccore_image *image) {
    if (!c || !data || !image) return -EINVAL;
    if (size < c->frame_bytes) return CCORE_E_CORRUPT;
    int n = v4lconvert_convert(c->data, &c->src, &c->dst, (unsigned char *)data, (int)c->frame_bytes, c->rgb,
                               (int)c->rgb_size);
    if (n != (int)c->rgb_size) return CCORE_E_CORRUPT;
    return ccore_image_wrap_packed(image, CCORE_PIXEL_RGB24, CCORE_RANGE_FULL, c->width, c->height, c->rgb);
}

void ccore_v4l2_converter_destroy(ccore_v4l2_converter *c) {
    if (!c) return;
    if (c->data) v4lconvert_destroy(c->data);
    free(c->rgb);
    free(c);
}
