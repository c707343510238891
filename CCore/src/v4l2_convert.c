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

struct ccore_v4l2_converter {
    struct v4lconvert_data *data;
    struct v4l2_format src, dst;
    uint8_t *rgb;
    size_t rgb_size;
    uint32_t width, height;
    uint32_t size_image;
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

int ccore_v4l2_converter_create(uint32_t fourcc, uint32_t width, uint32_t height, uint32_t bytes_per_line,
                                uint32_t size_image, ccore_v4l2_converter **out, char *message, size_t message_size) {
    if (!out) return -EINVAL;
    *out = NULL;
    char cc[5];
    ccore_fourcc_string(fourcc, cc);
    if (!ccore_v4l2_convertible(fourcc) || width == 0 || height == 0 || size_image == 0)
        return fail(message, message_size, CCORE_E_NO_FORMAT, "format %s %ux%u cannot be converted", cc, width,
                    height);
    ccore_v4l2_converter *c = calloc(1, sizeof *c);
    if (!c) return -ENOMEM;
    c->width = width;
    c->height = height;
    c->size_image = size_image;
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
    c->src.fmt.pix.sizeimage = size_image;
    c->dst = c->src;
    c->dst.fmt.pix.pixelformat = V4L2_PIX_FMT_RGB24;
    c->dst.fmt.pix.bytesperline = width * 3;
    c->dst.fmt.pix.sizeimage = (uint32_t)c->rgb_size;
    /* One trial conversion of a black frame: libv4lconvert may still refuse a
     * size or stride, and that is better learnt at open than per frame. */
    uint8_t *trial = calloc(1, size_image);
    if (!trial) {
        ccore_v4l2_converter_destroy(c);
        return -ENOMEM;
    }
    int n = v4lconvert_convert(c->data, &c->src, &c->dst, trial, (int)size_image, c->rgb, (int)c->rgb_size);
    free(trial);
    if (n != (int)c->rgb_size) {
        int rc = fail(message, message_size, CCORE_E_NO_FORMAT, "libv4lconvert cannot convert %s %ux%u: %s", cc,
                      width, height, v4lconvert_get_error_message(c->data));
        ccore_v4l2_converter_destroy(c);
        return rc;
    }
    *out = c;
    return 0;
}

int ccore_v4l2_converter_run(ccore_v4l2_converter *c, const uint8_t *data, size_t size, ccore_image *image) {
    if (!c || !data || !image) return -EINVAL;
    if (size < c->size_image) return CCORE_E_CORRUPT;
    int n = v4lconvert_convert(c->data, &c->src, &c->dst, (unsigned char *)data, (int)c->size_image, c->rgb,
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
