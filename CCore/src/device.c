/* Camera discovery and the permission-equivalent access check. */
#include "ccore/device.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/videodev2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ccore/error.h"
#include "v4l2_convert.h"
#include "v4l2_util.h"

ccore_pixel_format ccore_v4l2_pixel_format(uint32_t fourcc) {
    switch (fourcc) {
    case V4L2_PIX_FMT_YUYV: return CCORE_PIXEL_YUYV;
    case V4L2_PIX_FMT_NV12:
    case V4L2_PIX_FMT_NV12M: return CCORE_PIXEL_NV12;
    case V4L2_PIX_FMT_YUV420:
    case V4L2_PIX_FMT_YUV420M: return CCORE_PIXEL_YUV420;
    case V4L2_PIX_FMT_YUV422P:
    case V4L2_PIX_FMT_YUV422M: return CCORE_PIXEL_YUV422P;
    case V4L2_PIX_FMT_RGB24: return CCORE_PIXEL_RGB24;
    case V4L2_PIX_FMT_GREY: return CCORE_PIXEL_GRAY;
    default: return CCORE_PIXEL_NONE;
    }
}

int ccore_v4l2_is_mjpeg(uint32_t fourcc) { return fourcc == V4L2_PIX_FMT_MJPEG || fourcc == V4L2_PIX_FMT_JPEG; }

int ccore_v4l2_fourcc_supported(uint32_t fourcc) {
    return ccore_v4l2_pixel_format(fourcc) != CCORE_PIXEL_NONE || ccore_v4l2_is_mjpeg(fourcc);
}

uint32_t ccore_v4l2_capture_type(uint32_t capabilities) {
    /* Memory-to-memory nodes (codecs, scalers) only return what is written to them; old
     * multi-planar ones say so by offering both directions instead of the M2M bit. */
    if (capabilities & (V4L2_CAP_VIDEO_M2M | V4L2_CAP_VIDEO_M2M_MPLANE)) return 0;
    if ((capabilities & V4L2_CAP_VIDEO_CAPTURE_MPLANE) && (capabilities & V4L2_CAP_VIDEO_OUTPUT_MPLANE)) return 0;
    if (capabilities & V4L2_CAP_VIDEO_CAPTURE) return V4L2_BUF_TYPE_VIDEO_CAPTURE;
    if (capabilities & V4L2_CAP_VIDEO_CAPTURE_MPLANE) return V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE;
    return 0;
}

void ccore_fourcc_string(uint32_t fourcc, char buf[5]) {
    if (!buf) return;
    for (int i = 0; i < 4; i++) {
        char c = (char)((fourcc >> (8 * i)) & 0xff);
        buf[i] = isprint((unsigned char)c) ? c : '?';
    }
    buf[4] = '\0';
}

static void group_name(gid_t gid, char *out, size_t size) {
    struct group grp, *found = NULL;
    char buf[1024];
    if (getgrgid_r(gid, &grp, buf, sizeof buf, &found) == 0 && found)
        snprintf(out, size, "%s", found->gr_name);
    else
        snprintf(out, size, "%u", (unsigned)gid);
}

/* Group names longer than this are cut in the advice (NSS allows longer, useradd does not). */
#define GROUP_NAME_SIZE 64
/* The longest template below without its path and group names is under 300 bytes. */
_Static_assert(CCORE_ACCESS_REASON_SIZE >= 300 + CCORE_DEVICE_PATH_MAX + 3 * (GROUP_NAME_SIZE - 1),
               "ccore_access.reason must hold every reason whole");

ccore_access ccore_device_access(const char *path) {
    ccore_access a = {.status = CCORE_ACCESS_AUTHORIZED, .error = 0};
    struct stat st;
    if (path && strlen(path) > CCORE_DEVICE_PATH_MAX) {
        a.status = CCORE_ACCESS_NOT_DETERMINED;
        a.error = ENAMETOOLONG;
        snprintf(a.reason, sizeof a.reason, "device path of %zu bytes is longer than the %d this check takes",
                 strlen(path), CCORE_DEVICE_PATH_MAX);
        return a;
    }
    if (!path || stat(path, &st) != 0) {
        int err = path ? errno : EINVAL;
        a.error = err;
        if (err == EACCES) {
            a.status = CCORE_ACCESS_DENIED;
            snprintf(a.reason, sizeof a.reason, "cannot look up %s: a parent directory is not searchable", path);
        } else {
            a.status = CCORE_ACCESS_NOT_DETERMINED;
            snprintf(a.reason, sizeof a.reason, "no device node at %s (camera unplugged or driver not loaded)",
                     path ? path : "(null)");
        }
        return a;
    }
    if (!S_ISCHR(st.st_mode)) {
        a.status = CCORE_ACCESS_NOT_DETERMINED;
        a.error = ENODEV;
        snprintf(a.reason, sizeof a.reason, "%s is not a character device", path);
        return a;
    }
    if (access(path, R_OK | W_OK) != 0) {
        int err = errno; /* group_name's NSS lookup may change errno */
        a.error = err;
        char grp[GROUP_NAME_SIZE];
        group_name(st.st_gid, grp, sizeof grp);
        if (err == EACCES && st.st_gid == 0) {
            /* Joining root's group would hand out far more than the camera. */
            a.status = CCORE_ACCESS_DENIED;
            snprintf(a.reason, sizeof a.reason,
                     "no read/write permission on %s (mode %04o, group 'root'): give it to the 'video' group with a "
                     "udev rule (SUBSYSTEM==\"video4linux\", GROUP=\"video\", MODE=\"0660\"), then sudo usermod "
                     "-aG video $USER and log in again",
                     path, (unsigned)(st.st_mode & 07777));
        } else if (err == EACCES) {
            a.status = CCORE_ACCESS_DENIED;
            snprintf(a.reason, sizeof a.reason,
                     "no read/write permission on %s (mode %04o, group '%s'): add the user to the '%s' group "
                     "(sudo usermod -aG %s $USER, then log in again) or grant access with a udev rule",
                     path, (unsigned)(st.st_mode & 07777), grp, grp, grp);
        } else {
            a.status = CCORE_ACCESS_RESTRICTED;
            snprintf(a.reason, sizeof a.reason, "access to %s refused: %s", path, strerror(err));
        }
        return a;
    }
    /* The mode bits allow it; only opening tells whether a policy (an LSM, a
     * cgroup device rule, a nodev mount) still blocks it. */
    int fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        a.error = errno;
        if (errno == EACCES || errno == EPERM) {
            a.status = CCORE_ACCESS_RESTRICTED;
            snprintf(a.reason, sizeof a.reason,
                     "%s is blocked by system policy although its permissions allow it (security module, "
                     "container device rules or a nodev mount)",
                     path);
        } else if (errno == ENXIO || errno == ENODEV || errno == ENOENT) {
            a.status = CCORE_ACCESS_NOT_DETERMINED;
            snprintf(a.reason, sizeof a.reason, "%s has no device behind it (%s)", path, strerror(errno));
        } else {
            /* Busy and the like say nothing about permission. */
            snprintf(a.reason, sizeof a.reason, "usable, but opening it now fails: %s", strerror(errno));
        }
        return a;
    }
    close(fd);
    snprintf(a.reason, sizeof a.reason, "read/write access granted");
    return a;
}

static void copy_field(char *dst, size_t size, const unsigned char *src, size_t src_size) {
    size_t n = strnlen((const char *)src, src_size);
    if (n >= size) n = size - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

int ccore_device_probe(const char *path, ccore_device_info *out) {
    if (!path || !out) return -EINVAL;
    memset(out, 0, sizeof *out);
    snprintf(out->path, sizeof out->path, "%s", path);
    out->access = ccore_device_access(path);
    if (out->access.status == CCORE_ACCESS_NOT_DETERMINED) return -ENOENT;
    if (out->access.status != CCORE_ACCESS_AUTHORIZED) return 0; /* reported, capabilities unknown */
    int fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return -errno;
    struct v4l2_capability cap;
    memset(&cap, 0, sizeof cap);
    int rc = xioctl(fd, VIDIOC_QUERYCAP, &cap);
    close(fd);
    if (rc < 0) return rc == -ENOTTY ? CCORE_E_NOT_CAPTURE : rc;
    copy_field(out->driver, sizeof out->driver, cap.driver, sizeof cap.driver);
    copy_field(out->card, sizeof out->card, cap.card, sizeof cap.card);
    copy_field(out->bus_info, sizeof out->bus_info, cap.bus_info, sizeof cap.bus_info);
    out->capabilities = (cap.capabilities & V4L2_CAP_DEVICE_CAPS) ? cap.device_caps : cap.capabilities;
    if (!ccore_v4l2_capture_type(out->capabilities)) return CCORE_E_NOT_CAPTURE;
    return 0;
}

static int video_index(const char *name) {
    if (strncmp(name, "video", 5) != 0 || !isdigit((unsigned char)name[5])) return -1;
    char *end;
    long n = strtol(name + 5, &end, 10);
    return (*end == '\0' && n >= 0 && n < 100000) ? (int)n : -1;
}

static int compare_int(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

int ccore_device_list(ccore_device_info *out, uint32_t max, uint32_t *count) {
    if (!count || (max > 0 && !out)) return -EINVAL;
    *count = 0;
    int nodes[256];
    size_t n = 0;
    DIR *dir = opendir("/dev");
    if (!dir) return -errno;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL && n < sizeof nodes / sizeof nodes[0]) {
        int idx = video_index(e->d_name);
        if (idx >= 0) nodes[n++] = idx;
    }
    closedir(dir);
    qsort(nodes, n, sizeof nodes[0], compare_int);
    for (size_t i = 0; i < n; i++) {
        char path[32];
        snprintf(path, sizeof path, "/dev/video%d", nodes[i]);
        ccore_device_info info;
        int rc = ccore_device_probe(path, &info);
        if (rc < 0) continue; /* vanished, or a metadata / output / m2m node */
        if (*count < max) out[*count] = info;
        (*count)++;
    }
    return 0;
}

/* Sizes offered for stepwise/continuous frame sizes: the common ones in range. */
static const uint32_t common_sizes[][2] = {{320, 240}, {640, 480}, {1280, 720}, {1920, 1080}};

typedef struct {
    ccore_device_mode *out;
    uint32_t max, count;
} mode_list;

static void add_mode(mode_list *list, const struct v4l2_fmtdesc *fmt, uint32_t w, uint32_t h, uint32_t num,
                     uint32_t den) {
    if (list->count < list->max) {
        ccore_device_mode *m = &list->out[list->count];
        memset(m, 0, sizeof *m);
        m->fourcc = fmt->pixelformat;
        copy_field(m->format_name, sizeof m->format_name, fmt->description, sizeof fmt->description);
        m->width = w;
        m->height = h;
        m->interval_numerator = num;
        m->interval_denominator = den;
        m->supported =
            (uint32_t)(ccore_v4l2_fourcc_supported(fmt->pixelformat) || ccore_v4l2_convertible(fmt->pixelformat));
    }
    list->count++;
}

static void add_intervals(int fd, mode_list *list, const struct v4l2_fmtdesc *fmt, uint32_t w, uint32_t h) {
    struct v4l2_frmivalenum iv;
    memset(&iv, 0, sizeof iv);
    iv.pixel_format = fmt->pixelformat;
    iv.width = w;
    iv.height = h;
    int any = 0;
    for (iv.index = 0; xioctl(fd, VIDIOC_ENUM_FRAMEINTERVALS, &iv) == 0; iv.index++) {
        any = 1;
        if (iv.type == V4L2_FRMIVAL_TYPE_DISCRETE) {
            add_mode(list, fmt, w, h, iv.discrete.numerator, iv.discrete.denominator);
        } else { /* a range: report its fastest rate */
            add_mode(list, fmt, w, h, iv.stepwise.min.numerator, iv.stepwise.min.denominator);
            break;
        }
    }
    if (!any) add_mode(list, fmt, w, h, 0, 0);
}

int ccore_device_modes(const char *path, ccore_device_mode *out, uint32_t max, uint32_t *count) {
    if (!path || !count || (max > 0 && !out)) return -EINVAL;
    *count = 0;
    int fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return -errno;
    struct v4l2_capability cap;
    memset(&cap, 0, sizeof cap);
    uint32_t type = 0;
    if (xioctl(fd, VIDIOC_QUERYCAP, &cap) == 0)
        type = ccore_v4l2_capture_type((cap.capabilities & V4L2_CAP_DEVICE_CAPS) ? cap.device_caps : cap.capabilities);
    if (type == 0) { /* not a capture node: it offers no capture modes */
        close(fd);
        return 0;
    }
    mode_list list = {.out = out, .max = max, .count = 0};
    struct v4l2_fmtdesc fmt;
    memset(&fmt, 0, sizeof fmt);
    fmt.type = type;
    for (fmt.index = 0; xioctl(fd, VIDIOC_ENUM_FMT, &fmt) == 0; fmt.index++) {
        struct v4l2_frmsizeenum fs;
        memset(&fs, 0, sizeof fs);
        fs.pixel_format = fmt.pixelformat;
        int any = 0;
        for (fs.index = 0; xioctl(fd, VIDIOC_ENUM_FRAMESIZES, &fs) == 0; fs.index++) {
            any = 1;
            if (fs.type == V4L2_FRMSIZE_TYPE_DISCRETE) {
                add_intervals(fd, &list, &fmt, fs.discrete.width, fs.discrete.height);
                continue;
            }
            for (size_t i = 0; i < sizeof common_sizes / sizeof common_sizes[0]; i++) {
                uint32_t w = common_sizes[i][0], h = common_sizes[i][1];
                if (w >= fs.stepwise.min_width && w <= fs.stepwise.max_width && h >= fs.stepwise.min_height &&
                    h <= fs.stepwise.max_height)
                    add_intervals(fd, &list, &fmt, w, h);
            }
            break;
        }
        if (!any) { /* the driver does not enumerate sizes: report the current one */
            struct v4l2_format cur;
            memset(&cur, 0, sizeof cur);
            cur.type = type;
            if (xioctl(fd, VIDIOC_G_FMT, &cur) == 0) {
                int mp = type == V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE;
                add_mode(&list, &fmt, mp ? cur.fmt.pix_mp.width : cur.fmt.pix.width,
                         mp ? cur.fmt.pix_mp.height : cur.fmt.pix.height, 0, 0);
            }
        }
    }
    close(fd);
    *count = list.count;
    return 0;
}
