/* A camera driver that reports what real drivers sometimes do and vivid never does:
 * a bytesperline of 0, a sizeimage shorter than its rows, an odd width for a format
 * whose pixels come in pairs, a size far beyond any sensor. The V4L2 calls the core
 * makes on one device path are answered here (open, ioctl, mmap, munmap interposed
 * by name; every other path and descriptor goes to the kernel), so the whole open
 * and capture path runs against it. Each frame buffer is malloc'ed exactly
 * sizeimage bytes long: a read past it is what a sanitizer build reports. */
#include <errno.h>
#include <fcntl.h>
#include <linux/videodev2.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "ccore/error.h"
#include "ccore/source.h"
#include "ctest.h"

#define FAKE_PATH "/dev/ccore-ctest-fake-camera"
enum { FAKE_BUFFERS = 4 };

/* What the fake driver reports; one camera at a time (the tests run in order). */
static struct {
    int fd; /* an eventfd that is always readable: a frame is always ready */
    uint32_t fourcc, width, height, bytes_per_line, size_image;
    uint8_t *buffers[FAKE_BUFFERS];
    int queued[FAKE_BUFFERS];
    uint32_t sequence;
} fake = {.fd = -1};

int open(const char *path, int flags, ...) {
    mode_t mode = 0;
    if (flags & (O_CREAT | O_TMPFILE)) {
        va_list ap;
        va_start(ap, flags);
        mode = va_arg(ap, mode_t);
        va_end(ap);
    }
    if (strcmp(path, FAKE_PATH) == 0) {
        fake.fd = eventfd(1, EFD_CLOEXEC | EFD_NONBLOCK);
        return fake.fd;
    }
    return (int)syscall(SYS_openat, AT_FDCWD, path, flags, mode);
}

void *mmap(void *addr, size_t length, int prot, int flags, int fd, off_t offset) {
    if (fd >= 0 && fd == fake.fd) {
        size_t i = (size_t)offset / 4096;
        return i < FAKE_BUFFERS && fake.buffers[i] ? fake.buffers[i] : MAP_FAILED;
    }
    return (void *)syscall(SYS_mmap, addr, length, prot, flags, fd, offset);
}

int munmap(void *addr, size_t length) {
    for (int i = 0; i < FAKE_BUFFERS; i++)
        if (addr == fake.buffers[i]) return 0;
    return (int)syscall(SYS_munmap, addr, length);
}

static int fake_ioctl(unsigned long request, void *arg) {
    switch (request) {
    case VIDIOC_QUERYCAP: {
        struct v4l2_capability *cap = arg;
        memset(cap, 0, sizeof *cap);
        strcpy((char *)cap->driver, "ctest-fake");
        strcpy((char *)cap->card, "ctest fake camera");
        strcpy((char *)cap->bus_info, "platform:ctest-fake");
        cap->capabilities = V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_STREAMING | V4L2_CAP_DEVICE_CAPS;
        cap->device_caps = V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_STREAMING;
        return 0;
    }
    case VIDIOC_ENUM_FMT: {
        struct v4l2_fmtdesc *d = arg;
        if (d->index != 0 || d->type != V4L2_BUF_TYPE_VIDEO_CAPTURE) break;
        d->pixelformat = fake.fourcc;
        return 0;
    }
    case VIDIOC_S_FMT:
    case VIDIOC_G_FMT: {
        struct v4l2_format *f = arg;
        if (f->type != V4L2_BUF_TYPE_VIDEO_CAPTURE) break;
        memset(&f->fmt.pix, 0, sizeof f->fmt.pix);
        f->fmt.pix.pixelformat = fake.fourcc;
        f->fmt.pix.width = fake.width;
        f->fmt.pix.height = fake.height;
        f->fmt.pix.bytesperline = fake.bytes_per_line;
        f->fmt.pix.sizeimage = fake.size_image;
        f->fmt.pix.field = V4L2_FIELD_NONE;
        return 0;
    }
    case VIDIOC_REQBUFS: {
        struct v4l2_requestbuffers *r = arg;
        if (r->count == 0) return 0;
        r->count = FAKE_BUFFERS;
        for (int i = 0; i < FAKE_BUFFERS; i++) {
            if (!fake.buffers[i] && !(fake.buffers[i] = malloc(fake.size_image))) break;
            memset(fake.buffers[i], 128, fake.size_image);
        }
        return 0;
    }
    case VIDIOC_QUERYBUF: {
        struct v4l2_buffer *b = arg;
        if (b->index >= FAKE_BUFFERS) break;
        b->length = fake.size_image;
        b->m.offset = b->index * 4096;
        return 0;
    }
    case VIDIOC_QBUF: {
        struct v4l2_buffer *b = arg;
        if (b->index >= FAKE_BUFFERS) break;
        fake.queued[b->index] = 1;
        return 0;
    }
    case VIDIOC_DQBUF: {
        struct v4l2_buffer *b = arg;
        for (uint32_t i = 0; i < FAKE_BUFFERS; i++) {
            if (!fake.queued[i]) continue;
            fake.queued[i] = 0;
            b->index = i;
            b->bytesused = fake.size_image;
            b->sequence = fake.sequence++;
            b->flags = V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC;
            b->field = V4L2_FIELD_NONE;
            struct timespec now;
            clock_gettime(CLOCK_MONOTONIC, &now);
            b->timestamp.tv_sec = now.tv_sec;
            b->timestamp.tv_usec = now.tv_nsec / 1000;
            return 0;
        }
        errno = EAGAIN;
        return -1;
    }
    case VIDIOC_STREAMON:
    case VIDIOC_STREAMOFF:
    case VIDIOC_G_INPUT: return 0;
    }
    errno = ENOTTY; /* controls, frame intervals: a camera without them */
    return -1;
}

int ioctl(int fd, unsigned long request, ...) {
    va_list ap;
    va_start(ap, request);
    void *arg = va_arg(ap, void *);
    va_end(ap);
    if (fd >= 0 && fd == fake.fd) return fake_ioctl(request, arg);
    return (int)syscall(SYS_ioctl, fd, request, arg);
}

static void fake_camera(const char *fourcc, uint32_t width, uint32_t height, uint32_t bytes_per_line,
                        uint32_t size_image) {
    for (int i = 0; i < FAKE_BUFFERS; i++) free(fake.buffers[i]);
    memset(&fake, 0, sizeof fake);
    fake.fd = -1;
    fake.fourcc = v4l2_fourcc(fourcc[0], fourcc[1], fourcc[2], fourcc[3]);
    fake.width = width;
    fake.height = height;
    fake.bytes_per_line = bytes_per_line;
    fake.size_image = size_image;
}

static void fake_camera_gone(void) { fake_camera("    ", 0, 0, 0, 0); }

/* Opens the fake camera; the open's result, its message in `message`. */
static int open_fake(ccore_source **source, char *message) {
    ccore_source_config config;
    ccore_source_config_init(&config);
    config.lock_controls_after_ms = 0;
    return ccore_source_open_device(FAKE_PATH, &config, source, message, CCORE_SOURCE_MESSAGE_SIZE);
}

/* Streams a few frames measuring the whole picture; the samples taken. */
static int stream_some(ccore_source *source, ccore_frame_sample *last) {
    ccore_roi_set rois = {.count = 1, .generation = 1, .skin = ccore_skin_bounds_all()};
    rois.rects[0] = (ccore_rect){0, 0, 1, 1};
    ccore_source_set_rois(source, &rois);
    if (ccore_source_start(source) < 0) return 0;
    int got = 0;
    for (int i = 0; i < 2000 && got < 5; i++) {
        if (ccore_ring_pop(ccore_source_ring(source), last))
            got++;
        else
            usleep(1000);
    }
    return got;
}

/* Opens the fake camera as it is set and streams a few frames: every pixel measured,
 * no frame flagged. The negotiated format and the last sample go to `format` and `last`
 * (either may be NULL); 1 when it streamed so. */
static int expect_streams(const char *what, ccore_stream_format *format, ccore_frame_sample *last) {
    ccore_source *source = NULL;
    char message[CCORE_SOURCE_MESSAGE_SIZE] = "";
    int rc = open_fake(&source, message), ok = 0;
    if (rc != 0) ctest_fail(__FILE__, __LINE__, "%s: open gave %d, \"%s\"", what, rc, message);
    if (rc == 0) {
        if (format) ccore_source_get_format(source, format);
        ccore_frame_sample sample;
        int got = stream_some(source, &sample);
        ccore_source_stats stats;
        ccore_source_get_stats(source, &stats);
        ok = got == 5 && sample.rois[0].pixel_count == fake.width * fake.height && stats.error_frames == 0;
        if (!ok)
            ctest_fail(__FILE__, __LINE__, "%s: %d samples, the last of %u pixels, %llu frames flagged", what, got,
                       got ? sample.rois[0].pixel_count : 0, (unsigned long long)stats.error_frames);
        if (ok && last) *last = sample;
    }
    ccore_source_destroy(source);
    return ok;
}

/* A Bayer camera that leaves bytesperline at 0 (rows packed): libv4lconvert is handed
 * the row length, not 0, and the frames convert. */
void test_fake_camera_bayer_without_bytesperline(void) {
    fake_camera("BA81", 64, 48, 0, 64 * 48);
    ccore_stream_format format;
    if (expect_streams("BA81 with bytesperline 0", &format, NULL)) {
        CHECK_INT(format.pixel_format, CCORE_PIXEL_RGB24);
        CHECK_INT(format.bytes_per_line, 64);
    }
    fake_camera_gone();
}

/* A camera reporting this format is refused at open (CCORE_E_NO_FORMAT, no source),
 * with `reason` (when given) in the message. */
static void expect_refused(const char *fourcc, uint32_t width, uint32_t height, uint32_t bytes_per_line,
                           uint32_t size_image, const char *reason) {
    fake_camera(fourcc, width, height, bytes_per_line, size_image);
    ccore_source *source = NULL;
    char message[CCORE_SOURCE_MESSAGE_SIZE] = "";
    int rc = open_fake(&source, message);
    if (rc != CCORE_E_NO_FORMAT || source || (reason && !strstr(message, reason)))
        ctest_fail(__FILE__, __LINE__, "%s %ux%u bpl %u size %u: open gave %d, \"%s\"", fourcc, width, height,
                   bytes_per_line, size_image, rc, message);
    ccore_source_destroy(source);
    fake_camera_gone();
}

/* A Bayer camera whose sizeimage is shorter than its rows, or whose stride is shorter
 * than a row: refused at open, before libv4lconvert reads past a buffer that short. */
void test_fake_camera_bayer_frame_shorter_than_its_rows(void) {
    expect_refused("BA81", 640, 480, 640, 1000, "sizeimage 1000");
    expect_refused("BA81", 640, 480, 600, 640 * 480, "bytesperline 600");
}

/* A format far larger than any sensor: refused before anything frame-sized is
 * allocated for it (the conversion buffer alone would be 400 MB). */
void test_fake_camera_size_beyond_the_limits(void) {
    expect_refused("BA81", 16384, 8192, 16384, 64, "16384x8192");
    expect_refused("YUYV", 8200, 4, 16400, 16400 * 4, "8200x4");
    /* A stride no padding explains, with a sizeimage to match: no 4 GB trial frame. */
    expect_refused("BA81", 640, 480, 8000000, 4000000000u, "bytesperline 8000000");
}

/* Padded rows are taken only for the formats libv4lconvert steps through by their
 * stride (8-bit Bayer, UYVY, YVYU); it reads the others packed, so a padded NV16 is
 * refused (libv4lconvert read past its own buffer) and a packed one converts. */
void test_fake_camera_padded_rows_only_where_libv4lconvert_reads_them(void) {
    fake_camera("BA81", 640, 480, 704, 704 * 480);
    expect_streams("BA81 at bytesperline 704", NULL, NULL);
    fake_camera("UYVY", 640, 480, 1344, 1344 * 480);
    expect_streams("UYVY at bytesperline 1344", NULL, NULL);
    fake_camera("NV16", 640, 480, 0, 640 * 480 * 2);
    expect_streams("NV16 packed", NULL, NULL);
    expect_refused("NV16", 640, 480, 704, 704 * 480 * 2, "reads packed");
    expect_refused("RGBP", 640, 480, 1344, 1344 * 480, "reads packed");
    fake_camera_gone();
}

/* YUYV at an odd width: the last pixel's pair (and its V) would lie past the row, so
 * the format is refused rather than read past each row. */
void test_fake_camera_yuyv_odd_width(void) { expect_refused("YUYV", 641, 480, 0, 641 * 2 * 480, NULL); }

/* YUV 4:2:0 at an odd width with bytesperline 0: packed rows, each chroma row as long
 * as it needs (321 bytes, not half of 641): it opens and measures every pixel. */
void test_fake_camera_yuv420_odd_width_packed(void) {
    uint32_t w = 641, h = 480, chroma = (w + 1) / 2 * ((h + 1) / 2);
    fake_camera("YU12", w, h, 0, w * h + 2 * chroma);
    ccore_frame_sample sample;
    if (expect_streams("YU12 at 641x480, rows packed", NULL, &sample))
        CHECK_NEAR(sample.rois[0].g, 130.4, 1.0); /* Y 128 limited range: 1.164 x (128 - 16) */
    fake_camera_gone();
}
