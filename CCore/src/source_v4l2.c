/* V4L2 capture: format negotiation, mmap buffers, the poll/DQBUF/QBUF loop.
 * Raw ioctls throughout (no libv4l2 conversion), so frames are read in place. */
#include <fcntl.h>
#include <linux/videodev2.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ccore/device.h"
#include "ccore/error.h"
#include "source_internal.h"
#include "v4l2_util.h"

/* Raw formats in order of preference: cheapest to read first. */
static const uint32_t raw_preference[] = {V4L2_PIX_FMT_YUYV, V4L2_PIX_FMT_NV12, V4L2_PIX_FMT_YUV420,
                                          V4L2_PIX_FMT_YUV422P, V4L2_PIX_FMT_RGB24, V4L2_PIX_FMT_GREY};

/* Raw video above this rate does not fit a USB 2.0 link reliably (its
 * practical isochronous budget is ~24 MB/s), so MJPEG is chosen there. */
#define USB2_RAW_BUDGET_BYTES_PER_S 24000000ull

static int offered(const uint32_t *list, size_t n, uint32_t fourcc) {
    for (size_t i = 0; i < n; i++)
        if (list[i] == fourcc) return 1;
    return 0;
}

static int choose_fourcc(ccore_source *src, const char *bus_info, uint32_t *out) {
    uint32_t formats[64];
    size_t n = 0;
    struct v4l2_fmtdesc d;
    memset(&d, 0, sizeof d);
    d.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    for (d.index = 0; n < 64 && xioctl(src->fd, VIDIOC_ENUM_FMT, &d) == 0; d.index++) formats[n++] = d.pixelformat;
    char list[256] = "";
    for (size_t i = 0; i < n; i++) {
        char cc[5];
        ccore_fourcc_string(formats[i], cc);
        size_t used = strlen(list);
        snprintf(list + used, sizeof list - used, "%s%s", i ? " " : "", cc);
    }
    if (src->config.fourcc) {
        if (!ccore_v4l2_fourcc_supported(src->config.fourcc) || !offered(formats, n, src->config.fourcc)) {
            char cc[5];
            ccore_fourcc_string(src->config.fourcc, cc);
            return ccore_source_set_message(src, CCORE_E_NO_FORMAT,
                                            "format %s requested but not usable (device offers: %s)", cc, list);
        }
        *out = src->config.fourcc;
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

static int negotiate(ccore_source *src, const char *path, const char *bus_info) {
    uint32_t fourcc;
    int rc = choose_fourcc(src, bus_info, &fourcc);
    if (rc < 0) return rc;
    struct v4l2_format fmt;
    memset(&fmt, 0, sizeof fmt);
    fmt.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    fmt.fmt.pix.width = src->config.width;
    fmt.fmt.pix.height = src->config.height;
    fmt.fmt.pix.pixelformat = fourcc;
    fmt.fmt.pix.field = V4L2_FIELD_NONE;
    if ((rc = xioctl(src->fd, VIDIOC_S_FMT, &fmt)) < 0) return busy_or(src, rc, path, "VIDIOC_S_FMT");
    /* Read back: the driver may have adjusted size or even format. */
    if ((rc = xioctl(src->fd, VIDIOC_G_FMT, &fmt)) < 0) return busy_or(src, rc, path, "VIDIOC_G_FMT");
    uint32_t got = fmt.fmt.pix.pixelformat;
    if (!ccore_v4l2_fourcc_supported(got)) {
        char cc[5];
        ccore_fourcc_string(got, cc);
        return ccore_source_set_message(src, CCORE_E_NO_FORMAT, "driver switched to unusable format %s", cc);
    }
    src->is_mjpeg = ccore_v4l2_is_mjpeg(got);
    src->pixel_format = ccore_v4l2_pixel_format(got);
    /* V4L2_QUANTIZATION_DEFAULT is full range for RGB and luma-only formats and for the
     * JPEG colorspace, limited range for other Y'CbCr (V4L2_MAP_QUANTIZATION_DEFAULT, with
     * luma-only counted as the kernel's test pattern generator and v4l2-ctl count it). */
    uint32_t quantization = fmt.fmt.pix.quantization;
    if (quantization == V4L2_QUANTIZATION_DEFAULT)
        quantization = V4L2_MAP_QUANTIZATION_DEFAULT(
            src->pixel_format == CCORE_PIXEL_RGB24 || src->pixel_format == CCORE_PIXEL_GRAY, fmt.fmt.pix.colorspace,
            fmt.fmt.pix.ycbcr_enc);
    src->range = quantization == V4L2_QUANTIZATION_FULL_RANGE ? CCORE_RANGE_FULL : CCORE_RANGE_LIMITED;
    if (src->pixel_format == CCORE_PIXEL_RGB24) src->range = CCORE_RANGE_FULL;
    src->format.fourcc = got;
    src->format.pixel_format = src->pixel_format;
    src->format.width = fmt.fmt.pix.width;
    src->format.height = fmt.fmt.pix.height;
    src->format.bytes_per_line = fmt.fmt.pix.bytesperline;

    struct v4l2_streamparm parm;
    memset(&parm, 0, sizeof parm);
    parm.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
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

static int map_buffers(ccore_source *src, const char *path) {
    struct v4l2_requestbuffers req;
    memset(&req, 0, sizeof req);
    req.count = src->config.buffer_count;
    req.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    req.memory = V4L2_MEMORY_MMAP;
    int rc = xioctl(src->fd, VIDIOC_REQBUFS, &req);
    if (rc < 0) return busy_or(src, rc, path, "VIDIOC_REQBUFS");
    if (req.count < 2) return ccore_source_set_message(src, -ENOMEM, "%s granted only %u buffer(s)", path, req.count);
    if (req.count > V4L2_MAX_BUFFERS) req.count = V4L2_MAX_BUFFERS;
    for (uint32_t i = 0; i < req.count; i++) {
        struct v4l2_buffer buf;
        memset(&buf, 0, sizeof buf);
        buf.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
        buf.memory = V4L2_MEMORY_MMAP;
        buf.index = i;
        if ((rc = xioctl(src->fd, VIDIOC_QUERYBUF, &buf)) < 0) return busy_or(src, rc, path, "VIDIOC_QUERYBUF");
        void *p = mmap(NULL, buf.length, PROT_READ | PROT_WRITE, MAP_SHARED, src->fd, buf.m.offset);
        if (p == MAP_FAILED) return ccore_source_set_message(src, -errno, "mmap of buffer %u failed: %s", i, strerror(errno));
        src->buffer_start[i] = p;
        src->buffer_length[i] = buf.length;
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
    if (rc < 0 || !(caps & V4L2_CAP_VIDEO_CAPTURE)) {
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
    for (uint32_t i = 0; i < src->buffer_count; i++) {
        struct v4l2_buffer buf;
        memset(&buf, 0, sizeof buf);
        buf.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
        buf.memory = V4L2_MEMORY_MMAP;
        buf.index = i;
        int rc = xioctl(src->fd, VIDIOC_QBUF, &buf);
        if (rc < 0) return ccore_source_set_message(src, rc, "VIDIOC_QBUF failed: %s", ccore_error_string(rc));
    }
    enum v4l2_buf_type type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    int rc = xioctl(src->fd, VIDIOC_STREAMON, &type);
    if (rc < 0) {
        /* Take the queued buffers back so a retry or another process starts clean. */
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

static int v4l2_next_frame(ccore_source *src, source_frame *sf) {
    struct pollfd fds[2] = {{.fd = src->fd, .events = POLLIN | POLLPRI}, {.fd = src->wake_fd, .events = POLLIN}};
    int r = poll(fds, 2, poll_timeout_ms(src));
    if (r < 0) return errno == EINTR ? -EAGAIN : ccore_source_set_message(src, -errno, "poll failed: %s", strerror(errno));
    if (fds[1].revents) return -EAGAIN; /* stop requested */
    struct v4l2_buffer buf;
    memset(&buf, 0, sizeof buf);
    buf.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    buf.memory = V4L2_MEMORY_MMAP;
    if (r == 0) {
        /* No frame for two intervals: make sure the device is still there, so
         * an unplug that did not wake poll is noticed without delay. */
        int input = 0, rc = xioctl(src->fd, VIDIOC_G_INPUT, &input);
        return rc == -ENODEV || rc == -ENXIO ? stream_error(src, rc) : -EAGAIN;
    }
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
    const uint8_t *data = src->buffer_start[buf.index];
    size_t used = buf.bytesused ? buf.bytesused : src->buffer_length[buf.index];
    if (used > src->buffer_length[buf.index]) used = src->buffer_length[buf.index];
    if (src->is_mjpeg) {
        f->jpeg = data;
        f->jpeg_size = used;
        if (used < 4) f->flagged = 1;
        return 0;
    }
    /* A raw frame shorter than its format needs is damaged: never read past it. */
    uint32_t bpl = src->format.bytes_per_line;
    uint64_t needed = ccore_pixel_format_frame_size(src->pixel_format, src->format.width, src->format.height);
    uint32_t packed_bpl = (uint32_t)(ccore_pixel_format_frame_size(src->pixel_format, src->format.width, 1));
    if (src->pixel_format == CCORE_PIXEL_YUYV || src->pixel_format == CCORE_PIXEL_RGB24 ||
        src->pixel_format == CCORE_PIXEL_GRAY) {
        needed = (uint64_t)(bpl ? bpl : packed_bpl) * src->format.height;
    }
    if (used < needed) {
        f->flagged = 1;
        return 0;
    }
    ccore_image_wrap_packed(&f->image, src->pixel_format, src->range, src->format.width, src->format.height, data);
    if (bpl && (src->pixel_format == CCORE_PIXEL_YUYV || src->pixel_format == CCORE_PIXEL_RGB24 ||
                src->pixel_format == CCORE_PIXEL_GRAY))
        f->image.stride0 = bpl;
    return 0;
}

static int v4l2_release_frame(ccore_source *src, const source_frame *sf) {
    struct v4l2_buffer buf;
    memset(&buf, 0, sizeof buf);
    buf.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    buf.memory = V4L2_MEMORY_MMAP;
    buf.index = sf->buffer_index;
    int rc = xioctl(src->fd, VIDIOC_QBUF, &buf);
    return rc < 0 ? stream_error(src, rc) : 0;
}

static void v4l2_stop(ccore_source *src) {
    if (src->fd < 0) return;
    if (src->streaming) {
        enum v4l2_buf_type type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
        xioctl(src->fd, VIDIOC_STREAMOFF, &type); /* fails harmlessly on a vanished device */
        src->streaming = 0;
    }
    ccore_controls_restore(src->fd, &src->lock);
    atomic_store(&src->controls_locked, 0);
}

static void v4l2_close(ccore_source *src) {
    for (uint32_t i = 0; i < src->buffer_count; i++) munmap(src->buffer_start[i], src->buffer_length[i]);
    src->buffer_count = 0;
    if (src->fd >= 0) {
        /* Freeing the buffers lets another process take the device right away. */
        struct v4l2_requestbuffers req;
        memset(&req, 0, sizeof req);
        req.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
        req.memory = V4L2_MEMORY_MMAP;
        xioctl(src->fd, VIDIOC_REQBUFS, &req);
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
