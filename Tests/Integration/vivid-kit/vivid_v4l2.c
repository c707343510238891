/* Raw V4L2 access to vivid: ioctl, node discovery, controls by name. */
#include "vivid_v4l2.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/videodev2.h>

int xioctl(int fd, unsigned long request, void *arg) {
    int r;
    do {
        r = ioctl(fd, request, arg);
    } while (r < 0 && errno == EINTR);
    return r < 0 ? -errno : 0;
}

static int node_number(const char *name) {
    if (strncmp(name, "video", 5) != 0 || !isdigit((unsigned char)name[5])) return -1;
    return atoi(name + 5);
}

int find_vivid_nodes(vivid_nodes *nodes, char *message, size_t message_size) {
    memset(nodes, 0, sizeof *nodes);
    DIR *dir = opendir("/dev");
    if (!dir) {
        snprintf(message, message_size, "cannot list /dev: %s", strerror(errno));
        return -errno;
    }
    int best_cap = -1, best_out = -1;
    struct dirent *entry;
    while ((entry = readdir(dir)) != NULL) {
        int n = node_number(entry->d_name);
        if (n < 0) continue;
        char path[64];
        snprintf(path, sizeof path, "/dev/%s", entry->d_name);
        int fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0) continue;
        struct v4l2_capability cap;
        memset(&cap, 0, sizeof cap);
        int r = xioctl(fd, VIDIOC_QUERYCAP, &cap);
        close(fd);
        if (r < 0 || strcmp((const char *)cap.driver, "vivid") != 0) continue;
        uint32_t caps = (cap.capabilities & V4L2_CAP_DEVICE_CAPS) ? cap.device_caps : cap.capabilities;
        /* Either buffer API: vivid loaded with multiplanar=2 speaks only the multi-planar one. */
        uint32_t capture = V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_VIDEO_CAPTURE_MPLANE;
        uint32_t output = V4L2_CAP_VIDEO_OUTPUT | V4L2_CAP_VIDEO_OUTPUT_MPLANE;
        if ((caps & capture) && (caps & V4L2_CAP_STREAMING) && (best_cap < 0 || n < best_cap)) {
            best_cap = n;
            snprintf(nodes->capture, sizeof nodes->capture, "%s", path);
        }
        if ((caps & output) && (caps & V4L2_CAP_STREAMING) && (best_out < 0 || n < best_out)) {
            best_out = n;
            snprintf(nodes->output, sizeof nodes->output, "%s", path);
        }
    }
    closedir(dir);
    if (best_cap < 0) {
        snprintf(message, message_size, "no vivid video capture node in /dev (is vivid loaded?)");
        return -ENODEV;
    }
    if (best_out < 0) {
        snprintf(message, message_size, "no vivid video output node in /dev (load vivid with node_types=0x101)");
        return -ENODEV;
    }
    return 0;
}

/* v4l2-ctl's control-name-to-variable conversion. */
static void normalise(const char *in, char *out, size_t size) {
    size_t n = 0;
    int pending_sep = 0;
    for (const char *p = in; *p && n + 2 < size; p++) {
        unsigned char c = (unsigned char)*p;
        if (isalnum(c)) {
            if (pending_sep && n > 0) out[n++] = '_';
            pending_sep = 0;
            out[n++] = (char)tolower(c);
        } else {
            pending_sep = 1;
        }
    }
    out[n] = 0;
}

int raw_control_find(int fd, const char *name, uint32_t *id, uint32_t *type) {
    char want[64], have[64];
    normalise(name, want, sizeof want);
    struct v4l2_query_ext_ctrl q;
    memset(&q, 0, sizeof q);
    q.id = V4L2_CTRL_FLAG_NEXT_CTRL | V4L2_CTRL_FLAG_NEXT_COMPOUND;
    while (xioctl(fd, VIDIOC_QUERY_EXT_CTRL, &q) == 0) {
        if (q.type != V4L2_CTRL_TYPE_CTRL_CLASS) {
            normalise(q.name, have, sizeof have);
            if (strcmp(want, have) == 0) {
                if (id) *id = q.id;
                if (type) *type = q.type;
                return 0;
            }
        }
        q.id |= V4L2_CTRL_FLAG_NEXT_CTRL | V4L2_CTRL_FLAG_NEXT_COMPOUND;
    }
    return -ENOENT;
}

int raw_control_set(int fd, const char *name, int64_t value) {
    uint32_t id, type;
    int r = raw_control_find(fd, name, &id, &type);
    if (r < 0) return r;
    return raw_control_set_id(fd, id, type, value);
}

int raw_control_set_id(int fd, uint32_t id, uint32_t type, int64_t value) {
    struct v4l2_ext_control c;
    struct v4l2_ext_controls cs;
    memset(&c, 0, sizeof c);
    memset(&cs, 0, sizeof cs);
    c.id = id;
    if (type == V4L2_CTRL_TYPE_INTEGER64)
        c.value64 = value;
    else
        c.value = (int32_t)value;
    cs.which = V4L2_CTRL_WHICH_CUR_VAL;
    cs.count = 1;
    cs.controls = &c;
    return xioctl(fd, VIDIOC_S_EXT_CTRLS, &cs);
}

int raw_control_get(int fd, const char *name, int64_t *value) {
    uint32_t id, type;
    int r = raw_control_find(fd, name, &id, &type);
    if (r < 0) return r;
    return raw_control_get_id(fd, id, type, value);
}

int raw_control_get_id(int fd, uint32_t id, uint32_t type, int64_t *value) {
    struct v4l2_ext_control c;
    int r;
    struct v4l2_ext_controls cs;
    memset(&c, 0, sizeof c);
    memset(&cs, 0, sizeof cs);
    c.id = id;
    cs.which = V4L2_CTRL_WHICH_CUR_VAL;
    cs.count = 1;
    cs.controls = &c;
    r = xioctl(fd, VIDIOC_G_EXT_CTRLS, &cs);
    if (r < 0) return r;
    *value = type == V4L2_CTRL_TYPE_INTEGER64 ? c.value64 : c.value;
    return 0;
}

int raw_control_set_path(const char *path, const char *name, int64_t value) {
    int fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return -errno;
    int r = raw_control_set(fd, name, value);
    close(fd);
    return r;
}
