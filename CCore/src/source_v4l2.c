/* V4L2 capture: format negotiation, mmap buffers, the poll/DQBUF/QBUF loop.
 *
 * Both buffer APIs: single-planar (USB/UVC cameras) and multi-planar (the
 * CSI/ISP nodes of SoC boards, often MPLANE-only), every plane's bytesperline
 * honoured. Raw ioctls throughout, so native formats are read in place in the
 * mmap'ed buffer; other uncompressed formats (Bayer, ...) are converted through
 * libv4lconvert into one buffer allocated here (v4l2_convert.c). */
#include <fcntl.h>
#include <linux/videodev2.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ccore/device.h"
#include "ccore/error.h"
#include "ccore/image.h"
#include "source_internal.h"
#include "v4l2_convert.h"
#include "v4l2_util.h"

/* Raw formats in order of preference: cheapest to read first (the M variants
 * are the same layouts, one memory plane per image plane). */
static const uint32_t raw_preference[] = {V4L2_PIX_FMT_YUYV,    V4L2_PIX_FMT_NV12,  V4L2_PIX_FMT_NV12M,
                                          V4L2_PIX_FMT_YUV420,  V4L2_PIX_FMT_YUV420M, V4L2_PIX_FMT_YUV422P,
                                          V4L2_PIX_FMT_YUV422M, V4L2_PIX_FMT_RGB24, V4L2_PIX_FMT_GREY};

/* Raw video above this rate does not fit a USB 2.0 link reliably (its
 * practical isochronous budget is ~24 MB/s), so MJPEG is chosen there. */
#define USB2_RAW_BUDGET_BYTES_PER_S 24000000ull

/* Formats considered per device (vivid, the richest driver, offers 93). */
#define MAX_FORMATS 256

static int is_mplane(const ccore_source *src) { return src->buf_type == V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE; }

static int offered(const uint32_t *list, size_t n, uint32_t fourcc) {
    for (size_t i = 0; i < n; i++)
        if (list[i] == fourcc) return 1;
    return 0;
}

/* Native formats first (zero-copy), then MJPEG, then what libv4lconvert converts. */
static int choose_fourcc(ccore_source *src, const char *bus_info, uint32_t *out) {
    uint32_t formats[MAX_FORMATS];
    size_t n = 0;
    struct v4l2_fmtdesc d;
    memset(&d, 0, sizeof d);
    d.type = src->buf_type;
    for (d.index = 0; n < MAX_FORMATS && xioctl(src->fd, VIDIOC_ENUM_FMT, &d) == 0; d.index++)
        formats[n++] = d.pixelformat;
    char list[256] = ""; /* for messages: the first few dozen are enough to see what is on offer */
    for (size_t i = 0; i < n; i++) {
        char cc[5];
        ccore_fourcc_string(formats[i], cc);
        size_t used = strlen(list);
        snprintf(list + used, sizeof list - used, "%s%s", i ? " " : "", cc);
    }
    if (src->config.fourcc) {
        uint32_t want = src->config.fourcc;
        if (!(ccore_v4l2_fourcc_supported(want) || ccore_v4l2_convertible(want)) || !offered(formats, n, want)) {
            char cc[5];
            ccore_fourcc_string(want, cc);
            return ccore_source_set_message(src, CCORE_E_NO_FORMAT,
                                            "format %s requested but not usable (device offers: %s)", cc, list);
        }
        *out = want;
        return 0;
    }
    int has_mjpeg = offered(formats, n, V4L2_PIX_FMT_MJPEG) || offered(formats, n, V4L2_PIX_FMT_JPEG);
    uint32_t mjpeg = offered(formats, n, V4L2_PIX_FMT_MJPEG) ? V4L2_PIX_FMT_MJPEG : V4L2_PIX_FMT_JPEG;
    uint64_t raw_rate = (uint64_t)src->config.width * src->config.height * 2 * src->config.fps;
    if (has_mjpeg && strncmp(bus_info, "usb-", 4) == 0 && raw_rate > USB2_RAW_BUDGET_BYTES_PER_S) {
        *out = mjpeg;
        return 0;
    }
    for (size_t i = 0; i < sizeof raw_preference / sizeof raw_preference[0]; i++)
        if (offered(formats, n, raw_preference[i])) {
            *out = raw_preference[i];
            return 0;
        }
    if (has_mjpeg) {
        *out = mjpeg;
        return 0;
    }
    for (size_t i = 0; i < n; i++)
        if (ccore_v4l2_convertible(formats[i])) {
            *out = formats[i];
            return 0;
        }
    return ccore_source_set_message(src, CCORE_E_NO_FORMAT, "no usable pixel format (device offers: %s)", list);
}

static int open_error(ccore_source *src, const char *path, int err) {
    if (err == ENOENT) return ccore_source_set_message(src, -ENOENT, "no camera at %s", path);
    if (err == EACCES || err == EPERM) {
        ccore_access a = ccore_device_access(path);
        return ccore_source_set_message(src, -EACCES, "%s", a.reason);
    }
    if (err == EBUSY) return ccore_source_set_message(src, -EBUSY, "%s is in use by another process", path);
    return ccore_source_set_message(src, -err, "cannot open %s: %s", path, strerror(err));
}

static int busy_or(ccore_source *src, int rc, const char *path, const char *what) {
    if (rc == -EBUSY) return ccore_source_set_message(src, -EBUSY, "%s is in use by another process (%s)", path, what);
    return ccore_source_set_message(src, rc, "%s failed on %s: %s", what, path, ccore_error_string(rc));
}

/* Memory planes a fourcc comes in: one per image plane for the M formats. */
static uint32_t memory_planes(uint32_t fourcc) {
    switch (fourcc) {
    case V4L2_PIX_FMT_NV12M: return 2;
    case V4L2_PIX_FMT_YUV420M:
    case V4L2_PIX_FMT_YUV422M: return 3;
    default: return 1;
    }
}

/* The negotiated format, whichever API it came through. */
typedef struct {
    uint32_t fourcc, width, height, colorspace, quantization, ycbcr_enc, planes;
    uint32_t bpl[V4L2_MAX_PLANES], size[V4L2_MAX_PLANES];
} negotiated;

static int set_format(ccore_source *src, const char *path, uint32_t fourcc, negotiated *got) {
    struct v4l2_format fmt;
    memset(&fmt, 0, sizeof fmt);
    memset(got, 0, sizeof *got);
    fmt.type = src->buf_type;
    if (is_mplane(src)) {
        fmt.fmt.pix_mp.width = src->config.width;
        fmt.fmt.pix_mp.height = src->config.height;
        fmt.fmt.pix_mp.pixelformat = fourcc;
        fmt.fmt.pix_mp.field = V4L2_FIELD_NONE;
    } else {
        fmt.fmt.pix.width = src->config.width;
        fmt.fmt.pix.height = src->config.height;
        fmt.fmt.pix.pixelformat = fourcc;
        fmt.fmt.pix.field = V4L2_FIELD_NONE;
    }
    int rc;
    if ((rc = xioctl(src->fd, VIDIOC_S_FMT, &fmt)) < 0) return busy_or(src, rc, path, "VIDIOC_S_FMT");
    /* Read back: the driver may have adjusted size, strides or even format. */
    if ((rc = xioctl(src->fd, VIDIOC_G_FMT, &fmt)) < 0) return busy_or(src, rc, path, "VIDIOC_G_FMT");
    if (is_mplane(src)) {
        const struct v4l2_pix_format_mplane *mp = &fmt.fmt.pix_mp;
        *got = (negotiated){mp->pixelformat, mp->width, mp->height, mp->colorspace, mp->quantization, mp->ycbcr_enc,
                            mp->num_planes, {0}, {0}};
        if (got->planes == 0 || got->planes > V4L2_MAX_PLANES)
            return ccore_source_set_message(src, CCORE_E_NO_FORMAT, "%s reports %u memory planes", path, got->planes);
        for (uint32_t p = 0; p < got->planes; p++) {
            got->bpl[p] = mp->plane_fmt[p].bytesperline;
            got->size[p] = mp->plane_fmt[p].sizeimage;
        }
    } else {
        const struct v4l2_pix_format *pix = &fmt.fmt.pix;
        *got = (negotiated){pix->pixelformat, pix->width, pix->height, pix->colorspace, pix->quantization,
                            pix->ycbcr_enc, 1, {pix->bytesperline}, {pix->sizeimage}};
    }
    return 0;
}

/* Checks every memory plane's stride and size against what the kernels read (and fills
 * in the stride of multi-buffer planes a driver left at 0). */
static int check_planes(ccore_source *src, negotiated *g) {
    char cc[5];
    ccore_fourcc_string(g->fourcc, cc);
    if (g->planes != memory_planes(g->fourcc))
        return ccore_source_set_message(src, CCORE_E_NO_FORMAT, "format %s came with %u memory planes", cc, g->planes);
    if (src->is_mjpeg || src->converter) return 0;
    if (g->planes == 1) {
        uint64_t need = ccore_image_strided_size(src->pixel_format, g->width, g->height, g->bpl[0]);
        if (need == 0 || (g->size[0] && g->size[0] < need))
            return ccore_source_set_message(src, CCORE_E_NO_FORMAT,
                                            "format %s %ux%u: bytesperline %u / sizeimage %u do not fit its planes", cc,
                                            g->width, g->height, g->bpl[0], g->size[0]);
        return 0;
    }
    uint32_t half_w = (g->width + 1) / 2, half_h = (g->height + 1) / 2;
    uint32_t chroma_w = g->fourcc == V4L2_PIX_FMT_NV12M ? half_w * 2 : half_w;
    uint32_t chroma_h = g->fourcc == V4L2_PIX_FMT_YUV422M ? g->height : half_h;
    for (uint32_t p = 0; p < g->planes; p++) {
        uint32_t row = p == 0 ? g->width : chroma_w, rows = p == 0 ? g->height : chroma_h;
        if (g->bpl[p] == 0) g->bpl[p] = row; /* a driver that leaves it 0 packs the rows */
        uint32_t bpl = g->bpl[p];
        if (bpl < row || (g->size[p] && (uint64_t)bpl * rows > g->size[p]))
            return ccore_source_set_message(src, CCORE_E_NO_FORMAT,
                                            "format %s plane %u: bytesperline %u / sizeimage %u do not fit %ux%u", cc,
                                            p, g->bpl[p], g->size[p], row, rows);
    }
    return 0;
}

static int negotiate(ccore_source *src, const char *path, const char *bus_info) {
    uint32_t fourcc = 0; /* set when choose_fourcc succeeds; gcc cannot see that its errors are negative */
    int rc = choose_fourcc(src, bus_info, &fourcc);
    if (rc < 0) return rc;
    negotiated g;
    if ((rc = set_format(src, path, fourcc, &g)) < 0) return rc;
    char cc[5];
    ccore_fourcc_string(g.fourcc, cc);
    /* Before anything frame-sized is allocated for it (conversion, preview). */
    if (!ccore_frame_size_allowed(g.width, g.height))
        return ccore_source_set_message(src, CCORE_E_NO_FORMAT, "%s offers %s at %ux%u, beyond the core's %u pixels a side and %u in all",
                                        path, cc, g.width, g.height, CCORE_MAX_FRAME_SIDE, CCORE_MAX_FRAME_PIXELS);
    int native = ccore_v4l2_fourcc_supported(g.fourcc);
    if (!native && !ccore_v4l2_convertible(g.fourcc))
        return ccore_source_set_message(src, CCORE_E_NO_FORMAT, "driver switched to unusable format %s", cc);
    src->is_mjpeg = ccore_v4l2_is_mjpeg(g.fourcc);
    src->pixel_format = ccore_v4l2_pixel_format(g.fourcc);
    if (!native) {
        if (g.planes != 1)
            return ccore_source_set_message(src, CCORE_E_NO_FORMAT, "format %s came with %u memory planes", cc,
                                            g.planes);
        char why[256] = "";
        rc = ccore_v4l2_converter_create(g.fourcc, g.width, g.height, &g.bpl[0], &g.size[0], &src->converter, why,
                                         sizeof why);
        if (rc < 0) return ccore_source_set_message(src, rc, "%s: %s", path, why[0] ? why : ccore_error_string(rc));
        src->pixel_format = CCORE_PIXEL_RGB24; /* what the conversion hands the kernels */
    }
    if ((rc = check_planes(src, &g)) < 0) return rc;
    /* V4L2_QUANTIZATION_DEFAULT is full range for RGB and luma-only formats and for the
     * JPEG colorspace, limited range for other Y'CbCr (V4L2_MAP_QUANTIZATION_DEFAULT, with
     * luma-only counted as the kernel's test pattern generator and v4l2-ctl count it). */
    uint32_t quantization = g.quantization;
    if (quantization == V4L2_QUANTIZATION_DEFAULT)
        quantization = V4L2_MAP_QUANTIZATION_DEFAULT(
            src->pixel_format == CCORE_PIXEL_RGB24 || src->pixel_format == CCORE_PIXEL_GRAY, g.colorspace,
            g.ycbcr_enc);
    src->range = quantization == V4L2_QUANTIZATION_FULL_RANGE ? CCORE_RANGE_FULL : CCORE_RANGE_LIMITED;
    if (src->pixel_format == CCORE_PIXEL_RGB24) src->range = CCORE_RANGE_FULL;
    src->plane_count = g.planes;
    for (uint32_t p = 0; p < g.planes; p++) {
        src->plane_bpl[p] = g.bpl[p];
        src->plane_size[p] = g.size[p];
    }
    src->format.fourcc = g.fourcc;
    src->format.pixel_format = src->pixel_format;
    src->format.width = g.width;
    src->format.height = g.height;
    src->format.bytes_per_line = g.bpl[0];

    struct v4l2_streamparm parm;
    memset(&parm, 0, sizeof parm);
    parm.type = src->buf_type;
    if (xioctl(src->fd, VIDIOC_G_PARM, &parm) == 0 && (parm.parm.capture.capability & V4L2_CAP_TIMEPERFRAME)) {
        parm.parm.capture.timeperframe.numerator = 1;
        parm.parm.capture.timeperframe.denominator = src->config.fps;
        xioctl(src->fd, VIDIOC_S_PARM, &parm); /* best effort: the read-back below is what counts */
        xioctl(src->fd, VIDIOC_G_PARM, &parm);
    }
    if (parm.parm.capture.timeperframe.denominator) {
        src->format.interval_numerator = parm.parm.capture.timeperframe.numerator;
        src->format.interval_denominator = parm.parm.capture.timeperframe.denominator;
    } else {
        src->format.interval_numerator = 1;
        src->format.interval_denominator = src->config.fps;
    }
    return 0;
}

/* A v4l2_buffer for `index`, with the plane array the multi-planar API needs. */
static void buffer_init(const ccore_source *src, struct v4l2_buffer *buf, struct v4l2_plane *planes, uint32_t index) {
    memset(buf, 0, sizeof *buf);
    buf->type = src->buf_type;
    buf->memory = V4L2_MEMORY_MMAP;
    buf->index = index;
    if (is_mplane(src)) {
        memset(planes, 0, sizeof(struct v4l2_plane) * V4L2_MAX_PLANES);
        buf->m.planes = planes;
        buf->length = V4L2_MAX_PLANES;
    }
}

static int map_buffers(ccore_source *src, const char *path) {
    struct v4l2_requestbuffers req;
    memset(&req, 0, sizeof req);
    req.count = src->config.buffer_count;
    req.type = src->buf_type;
    req.memory = V4L2_MEMORY_MMAP;
    int rc = xioctl(src->fd, VIDIOC_REQBUFS, &req);
    if (rc < 0) return busy_or(src, rc, path, "VIDIOC_REQBUFS");
    if (req.count < 2) return ccore_source_set_message(src, -ENOMEM, "%s granted only %u buffer(s)", path, req.count);
    if (req.count > V4L2_MAX_BUFFERS) req.count = V4L2_MAX_BUFFERS;
    for (uint32_t i = 0; i < req.count; i++) {
        struct v4l2_buffer buf;
        struct v4l2_plane planes[V4L2_MAX_PLANES];
        buffer_init(src, &buf, planes, i);
        if ((rc = xioctl(src->fd, VIDIOC_QUERYBUF, &buf)) < 0) return busy_or(src, rc, path, "VIDIOC_QUERYBUF");
        uint32_t n = is_mplane(src) ? buf.length : 1;
        if (n != src->plane_count)
            return ccore_source_set_message(src, CCORE_E_STREAM, "buffer %u has %u planes, the format %u", i, n,
                                            src->plane_count);
        for (uint32_t p = 0; p < n; p++) {
            size_t length = is_mplane(src) ? planes[p].length : buf.length;
            off_t offset = is_mplane(src) ? planes[p].m.mem_offset : buf.m.offset;
            void *addr = mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_SHARED, src->fd, offset);
            if (addr == MAP_FAILED) {
                rc = -errno;
                for (uint32_t q = 0; q < p; q++) munmap(src->buffer_start[i][q], src->buffer_length[i][q]);
                return ccore_source_set_message(src, rc, "mmap of buffer %u plane %u failed: %s", i, p, strerror(-rc));
            }
            src->buffer_start[i][p] = addr;
            src->buffer_length[i][p] = length;
        }
        src->buffer_count = i + 1;
    }
    src->format.buffer_count = src->buffer_count;
    return 0;
}

int ccore_source_open_device(const char *path, const ccore_source_config *config, ccore_source **out, char *message,
                             uint32_t message_size) {
    if (!path || !out) return -EINVAL;
    *out = NULL;
    ccore_source *src = ccore_source_alloc(config, &ccore_v4l2_ops);
    if (!src) return -ENOMEM;
    src->fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (src->fd < 0) return ccore_source_fail_open(src, open_error(src, path, errno), message, message_size);
    struct v4l2_capability cap;
    memset(&cap, 0, sizeof cap);
    int rc = xioctl(src->fd, VIDIOC_QUERYCAP, &cap);
    uint32_t caps = (cap.capabilities & V4L2_CAP_DEVICE_CAPS) ? cap.device_caps : cap.capabilities;
    src->buf_type = rc < 0 ? 0 : ccore_v4l2_capture_type(caps);
    if (src->buf_type == 0) {
        rc = ccore_source_set_message(src, CCORE_E_NOT_CAPTURE, "%s is not a video capture device", path);
        return ccore_source_fail_open(src, rc, message, message_size);
    }
    if (!(caps & V4L2_CAP_STREAMING)) {
        rc = ccore_source_set_message(src, CCORE_E_NOT_CAPTURE, "%s does not support mmap streaming", path);
        return ccore_source_fail_open(src, rc, message, message_size);
    }
    if ((rc = negotiate(src, path, (const char *)cap.bus_info)) < 0 || (rc = map_buffers(src, path)) < 0 ||
        (rc = ccore_source_init_common(src)) < 0)
        return ccore_source_fail_open(src, rc, message, message_size);
    if (src->config.power_line_hz) ccore_controls_set_power_line(src->fd, src->config.power_line_hz);
    *out = src;
    return 0;
}

static int v4l2_start(ccore_source *src) {
    enum v4l2_buf_type type = src->buf_type;
    for (uint32_t i = 0; i < src->buffer_count; i++) {
        struct v4l2_buffer buf;
        struct v4l2_plane planes[V4L2_MAX_PLANES];
        buffer_init(src, &buf, planes, i);
        if (is_mplane(src)) buf.length = src->plane_count;
        int rc = xioctl(src->fd, VIDIOC_QBUF, &buf);
        if (rc < 0) {
            /* STREAMOFF takes back the buffers queued so far (even without STREAMON),
             * so a retry or another process starts from an empty queue. */
            xioctl(src->fd, VIDIOC_STREAMOFF, &type);
            return ccore_source_set_message(src, rc, "VIDIOC_QBUF of buffer %u failed: %s", i, ccore_error_string(rc));
        }
    }
    int rc = xioctl(src->fd, VIDIOC_STREAMON, &type);
    if (rc < 0) {
        xioctl(src->fd, VIDIOC_STREAMOFF, &type);
        if (rc == -EBUSY) return ccore_source_set_message(src, rc, "the camera is in use by another process");
        return ccore_source_set_message(src, rc, "VIDIOC_STREAMON failed: %s", ccore_error_string(rc));
    }
    src->streaming = 1;
    src->stream_start_ns = ccore_now_ns();
    return 0;
}

/* After poll reports an error, DQBUF tells which one: the device is gone
 * (ENODEV) or the driver put the queue in its error state (EIO). */
static int stream_error(ccore_source *src, int rc) {
    if (rc == -ENODEV || rc == -ENXIO)
        return ccore_source_set_message(src, -ENODEV, "the camera was disconnected");
    if (rc == -EIO || rc == -EPIPE)
        return ccore_source_set_message(src, CCORE_E_STREAM, "the driver reported a fatal streaming error");
    return ccore_source_set_message(src, rc, "VIDIOC_DQBUF failed: %s", ccore_error_string(rc));
}

static int poll_timeout_ms(const ccore_source *src) {
    int64_t ms = 2 * src->frame_interval_ns / 1000000;
    return ms < 20 ? 20 : ms > 1000 ? 1000 : (int)ms;
}

/* Where plane p's payload starts and how long it is, as the driver filled it. */
static const uint8_t *plane_payload(const ccore_source *src, const struct v4l2_buffer *buf, uint32_t p, size_t *used) {
    size_t length = src->buffer_length[buf->index][p];
    size_t bytes = is_mplane(src) ? buf->m.planes[p].bytesused : buf->bytesused;
    size_t offset = is_mplane(src) ? buf->m.planes[p].data_offset : 0;
    if (bytes == 0) bytes = length; /* drivers that leave it 0 fill the whole buffer */
    if (bytes > length) bytes = length;
    if (offset > bytes) offset = bytes;
    *used = bytes - offset;
    return (const uint8_t *)src->buffer_start[buf->index][p] + offset;
}

/* Points `f->image` at the planes in place; flags the frame when a plane is short. */
static void wrap_native(const ccore_source *src, const struct v4l2_buffer *buf, ccore_frame *f) {
    uint32_t w = src->format.width, h = src->format.height;
    size_t used[V4L2_MAX_PLANES];
    const uint8_t *data[V4L2_MAX_PLANES];
    for (uint32_t p = 0; p < src->plane_count; p++) data[p] = plane_payload(src, buf, p, &used[p]);
    if (src->plane_count == 1) {
        /* A raw frame shorter than its format needs is damaged: never read past it. */
        uint64_t needed = ccore_image_strided_size(src->pixel_format, w, h, src->plane_bpl[0]);
        if (needed == 0 || used[0] < needed ||
            ccore_image_wrap_strided(&f->image, src->pixel_format, src->range, w, h, data[0], src->plane_bpl[0]) < 0)
            f->flagged = 1;
        return;
    }
    uint32_t chroma_h = src->pixel_format == CCORE_PIXEL_YUV422P ? h : (h + 1) / 2;
    for (uint32_t p = 0; p < src->plane_count; p++) {
        uint32_t rows = p == 0 ? h : chroma_h;
        if (used[p] < (uint64_t)src->plane_bpl[p] * rows) {
            f->flagged = 1;
            return;
        }
    }
    ccore_image *im = &f->image;
    memset(im, 0, sizeof *im);
    im->format = src->pixel_format;
    im->range = src->range;
    im->width = w;
    im->height = h;
    im->plane0 = data[0], im->stride0 = src->plane_bpl[0];
    im->plane1 = data[1], im->stride1 = src->plane_bpl[1];
    if (src->plane_count > 2) im->plane2 = data[2], im->stride2 = src->plane_bpl[2];
}

static int v4l2_next_frame(ccore_source *src, source_frame *sf) {
    struct pollfd fds[2] = {{.fd = src->fd, .events = POLLIN | POLLPRI}, {.fd = src->wake_fd, .events = POLLIN}};
    int r = poll(fds, 2, poll_timeout_ms(src));
    if (r < 0) return errno == EINTR ? -EAGAIN : ccore_source_set_message(src, -errno, "poll failed: %s", strerror(errno));
    if (fds[1].revents) return -EAGAIN; /* stop requested */
    if (r == 0) {
        /* No frame for two intervals: make sure the device is still there, so
         * an unplug that did not wake poll is noticed without delay. */
        int input = 0, rc = xioctl(src->fd, VIDIOC_G_INPUT, &input);
        return rc == -ENODEV || rc == -ENXIO ? stream_error(src, rc) : -EAGAIN;
    }
    struct v4l2_buffer buf;
    struct v4l2_plane planes[V4L2_MAX_PLANES];
    buffer_init(src, &buf, planes, 0);
    int rc = xioctl(src->fd, VIDIOC_DQBUF, &buf);
    if (rc == -EAGAIN) {
        if (fds[0].revents & (POLLERR | POLLHUP | POLLNVAL))
            return ccore_source_set_message(src, -ENODEV, "the camera stopped responding (poll error)");
        return -EAGAIN;
    }
    if (rc < 0) return stream_error(src, rc);
    if (buf.index >= src->buffer_count)
        return ccore_source_set_message(src, CCORE_E_STREAM, "driver returned unknown buffer %u", buf.index);
    memset(sf, 0, sizeof *sf);
    sf->buffer_index = buf.index;
    ccore_frame *f = &sf->frame;
    f->sequence = buf.sequence;
    if ((buf.flags & V4L2_BUF_FLAG_TIMESTAMP_MASK) == V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC)
        f->timestamp_ns = (int64_t)buf.timestamp.tv_sec * 1000000000LL + (int64_t)buf.timestamp.tv_usec * 1000LL;
    else
        f->timestamp_ns = ccore_now_ns();
    f->flagged = (buf.flags & V4L2_BUF_FLAG_ERROR) != 0;
    if (f->flagged) return 0;
    if (src->is_mjpeg) {
        size_t used;
        f->jpeg = plane_payload(src, &buf, 0, &used);
        f->jpeg_size = used;
        if (used < 4) f->flagged = 1;
        return 0;
    }
    if (src->converter) {
        size_t used;
        const uint8_t *data = plane_payload(src, &buf, 0, &used);
        if (ccore_v4l2_converter_run(src->converter, data, used, &f->image) < 0) f->flagged = 1;
        return 0;
    }
    wrap_native(src, &buf, f);
    return 0;
}

static int v4l2_release_frame(ccore_source *src, const source_frame *sf) {
    struct v4l2_buffer buf;
    struct v4l2_plane planes[V4L2_MAX_PLANES];
    buffer_init(src, &buf, planes, sf->buffer_index);
    if (is_mplane(src)) buf.length = src->plane_count;
    int rc = xioctl(src->fd, VIDIOC_QBUF, &buf);
    return rc < 0 ? stream_error(src, rc) : 0;
}

static void v4l2_stop(ccore_source *src) {
    if (src->fd < 0) return;
    if (src->streaming) {
        enum v4l2_buf_type type = src->buf_type;
        xioctl(src->fd, VIDIOC_STREAMOFF, &type); /* fails harmlessly on a vanished device */
        src->streaming = 0;
    }
    ccore_controls_restore(src->fd, &src->lock);
    atomic_store(&src->controls_locked, 0);
}

static void v4l2_close(ccore_source *src) {
    for (uint32_t i = 0; i < src->buffer_count; i++)
        for (uint32_t p = 0; p < src->plane_count; p++) munmap(src->buffer_start[i][p], src->buffer_length[i][p]);
    src->buffer_count = 0;
    ccore_v4l2_converter_destroy(src->converter);
    src->converter = NULL;
    if (src->fd >= 0) {
        /* Freeing the buffers lets another process take the device right away. */
        struct v4l2_requestbuffers req;
        memset(&req, 0, sizeof req);
        req.type = src->buf_type;
        req.memory = V4L2_MEMORY_MMAP;
        if (req.type) xioctl(src->fd, VIDIOC_REQBUFS, &req);
        close(src->fd);
        src->fd = -1;
    }
}

const source_ops ccore_v4l2_ops = {
    .start = v4l2_start,
    .next_frame = v4l2_next_frame,
    .release_frame = v4l2_release_frame,
    .stop = v4l2_stop,
    .close = v4l2_close,
    .decode_errors_fatal = 0,
};
