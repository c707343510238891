/* vivid's output->capture loopback: HDMI selection, DV timings and the output node. */
#include "vivid_loopback.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "vivid_v4l2.h"

static const char *node_name(int is_output) { return is_output ? "output" : "capture"; }

/* Selects the HDMI input or output on `fd`. */
static int select_hdmi_port(int fd, int is_output, char *message, size_t message_size) {
    int index = is_output ? VIVID_OUTPUT_HDMI_OUTPUT : VIVID_CAPTURE_HDMI_INPUT;
    int r;
    if (is_output) {
        struct v4l2_output out = {.index = (uint32_t)index};
        if ((r = xioctl(fd, VIDIOC_ENUMOUTPUT, &out)) < 0) {
            snprintf(message, message_size, "the output node has no output %d: %s", index, strerror(-r));
            return r;
        }
        r = xioctl(fd, VIDIOC_S_OUTPUT, &index);
    } else {
        struct v4l2_input in = {.index = (uint32_t)index};
        if ((r = xioctl(fd, VIDIOC_ENUMINPUT, &in)) < 0) {
            snprintf(message, message_size, "the capture node has no input %d: %s", index, strerror(-r));
            return r;
        }
        r = xioctl(fd, VIDIOC_S_INPUT, &index);
    }
    if (r < 0)
        snprintf(message, message_size, "selecting HDMI %s %d: %s", is_output ? "output" : "input", index,
                 strerror(-r));
    return r;
}

static int set_timings(int fd, int is_output, struct v4l2_dv_timings *timings, char *message, size_t message_size) {
    int r = xioctl(fd, VIDIOC_S_DV_TIMINGS, timings);
    if (r < 0)
        snprintf(message, message_size, "VIDIOC_S_DV_TIMINGS %ux%u on the %s node: %s", timings->bt.width,
                 timings->bt.height, node_name(is_output), strerror(-r));
    return r;
}

int vivid_select_hdmi(int fd, int is_output, uint32_t timings_index, struct v4l2_dv_timings *timings,
                      char *message, size_t message_size) {
    int r = select_hdmi_port(fd, is_output, message, message_size);
    if (r < 0) return r;
    struct v4l2_enum_dv_timings e;
    memset(&e, 0, sizeof e);
    e.index = timings_index;
    if ((r = xioctl(fd, VIDIOC_ENUM_DV_TIMINGS, &e)) < 0) {
        snprintf(message, message_size, "VIDIOC_ENUM_DV_TIMINGS %u on the %s node: %s", timings_index,
                 node_name(is_output), strerror(-r));
        return r;
    }
    *timings = e.timings;
    return set_timings(fd, is_output, timings, message, message_size);
}

int vivid_loopback_capture_on(const char *capture_path, uint32_t timings_index, struct v4l2_dv_timings *timings,
                              char *message, size_t message_size) {
    int fd = open(capture_path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        int r = -errno;
        snprintf(message, message_size, "open %s: %s", capture_path, strerror(errno));
        return r;
    }
    int r = vivid_select_hdmi(fd, 0, timings_index, timings, message, message_size);
    if (r == 0) {
        r = raw_control_set(fd, "loop_video", 1);
        if (r == 0) r = raw_control_set(fd, "osd_text_mode", 2);
        if (r < 0)
            snprintf(message, message_size, "setting loop_video=1 / osd_text_mode=2 (None) on %s: %s",
                     capture_path, strerror(-r));
    }
    close(fd);
    return r;
}

void vivid_loopback_capture_off(const char *capture_path) {
    int fd = open(capture_path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return;
    raw_control_set(fd, "loop_video", 0);
    raw_control_set(fd, "osd_text_mode", 0);
    int zero = 0;
    xioctl(fd, VIDIOC_S_INPUT, &zero);
    close(fd);
}

static uint32_t output_type(const vivid_output *o) {
    return o->mplane ? V4L2_BUF_TYPE_VIDEO_OUTPUT_MPLANE : V4L2_BUF_TYPE_VIDEO_OUTPUT;
}

/* A v4l2_buffer for `index` with the plane array the multi-planar API needs. */
static void output_buffer(const vivid_output *o, struct v4l2_buffer *b, struct v4l2_plane *planes, uint32_t index) {
    memset(b, 0, sizeof *b);
    b->type = output_type(o);
    b->memory = V4L2_MEMORY_MMAP;
    b->index = index;
    b->field = V4L2_FIELD_NONE;
    if (o->mplane) {
        memset(planes, 0, sizeof(struct v4l2_plane) * VIVID_OUTPUT_MAX_PLANES);
        b->m.planes = planes;
        b->length = o->planes ? o->planes : VIVID_OUTPUT_MAX_PLANES;
    }
}

void vivid_output_close(vivid_output *o) {
    if (o->fd < 0) return;
    int type = (int)output_type(o);
    if (o->streaming) {
        xioctl(o->fd, VIDIOC_STREAMOFF, &type);
        o->streaming = 0;
    }
    for (uint32_t i = 0; i < o->count; i++)
        for (uint32_t p = 0; p < VIVID_OUTPUT_MAX_PLANES; p++)
            if (o->addr[i][p] && o->addr[i][p] != MAP_FAILED) munmap(o->addr[i][p], o->len[i][p]);
    o->count = 0;
    struct v4l2_requestbuffers req = {.count = 0, .type = (uint32_t)type, .memory = V4L2_MEMORY_MMAP};
    xioctl(o->fd, VIDIOC_REQBUFS, &req);
    close(o->fd);
    o->fd = -1;
}

static int output_fail(vivid_output *o, int r, char *message, size_t message_size, const char *what) {
    snprintf(message, message_size, "%s on the output node: %s", what, strerror(-r));
    vivid_output_close(o);
    return r;
}

/* Sets the format through whichever API the node speaks and records its planes. */
static int output_set_format(vivid_output *o, uint32_t fourcc, uint32_t w, uint32_t h, char *message,
                             size_t message_size) {
    struct v4l2_format vf;
    memset(&vf, 0, sizeof vf);
    vf.type = output_type(o);
    if (o->mplane) {
        vf.fmt.pix_mp.width = w;
        vf.fmt.pix_mp.height = h;
        vf.fmt.pix_mp.pixelformat = fourcc;
        vf.fmt.pix_mp.field = V4L2_FIELD_NONE;
    } else {
        vf.fmt.pix.width = w;
        vf.fmt.pix.height = h;
        vf.fmt.pix.pixelformat = fourcc;
        vf.fmt.pix.field = V4L2_FIELD_NONE;
    }
    int r = xioctl(o->fd, VIDIOC_S_FMT, &vf);
    if (r < 0) return output_fail(o, r, message, message_size, "VIDIOC_S_FMT");
    uint32_t got_fourcc = o->mplane ? vf.fmt.pix_mp.pixelformat : vf.fmt.pix.pixelformat;
    uint32_t got_w = o->mplane ? vf.fmt.pix_mp.width : vf.fmt.pix.width;
    uint32_t got_h = o->mplane ? vf.fmt.pix_mp.height : vf.fmt.pix.height;
    if (got_fourcc != fourcc || got_w != w || got_h != h) {
        snprintf(message, message_size, "the output node took %ux%u fourcc 0x%08x instead of %ux%u 0x%08x", got_w,
                 got_h, got_fourcc, w, h, fourcc);
        vivid_output_close(o);
        return -EINVAL;
    }
    o->fourcc = fourcc;
    o->width = w;
    o->height = h;
    if (o->mplane) {
        o->planes = vf.fmt.pix_mp.num_planes;
        if (o->planes == 0 || o->planes > VIVID_OUTPUT_MAX_PLANES) {
            snprintf(message, message_size, "the output node reports %u planes", o->planes);
            vivid_output_close(o);
            return -EINVAL;
        }
        o->bytesperline = vf.fmt.pix_mp.plane_fmt[0].bytesperline;
        o->sizeimage = 0;
        for (uint32_t p = 0; p < o->planes; p++) {
            o->plane_size[p] = vf.fmt.pix_mp.plane_fmt[p].sizeimage;
            o->sizeimage += o->plane_size[p];
        }
    } else {
        o->planes = 1;
        o->bytesperline = vf.fmt.pix.bytesperline;
        o->sizeimage = o->plane_size[0] = vf.fmt.pix.sizeimage;
    }
    return 0;
}

int vivid_output_open(vivid_output *o, const char *output_path, const struct v4l2_dv_timings *timings,
                      uint32_t fourcc, uint32_t buffers, char *message, size_t message_size) {
    memset(o, 0, sizeof *o);
    o->fd = open(output_path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (o->fd < 0) {
        int r = -errno;
        snprintf(message, message_size, "open %s: %s", output_path, strerror(errno));
        return r;
    }
    struct v4l2_capability cap;
    memset(&cap, 0, sizeof cap);
    if (xioctl(o->fd, VIDIOC_QUERYCAP, &cap) == 0) {
        uint32_t caps = (cap.capabilities & V4L2_CAP_DEVICE_CAPS) ? cap.device_caps : cap.capabilities;
        o->mplane = !(caps & V4L2_CAP_VIDEO_OUTPUT) && (caps & V4L2_CAP_VIDEO_OUTPUT_MPLANE);
    }
    int r = select_hdmi_port(o->fd, 1, message, message_size);
    struct v4l2_dv_timings t = *timings;
    if (r == 0) r = set_timings(o->fd, 1, &t, message, message_size);
    if (r < 0) {
        vivid_output_close(o);
        return r;
    }
    if ((r = output_set_format(o, fourcc, timings->bt.width, timings->bt.height, message, message_size)) < 0) return r;

    if (buffers > VIVID_OUTPUT_MAX_BUFFERS) buffers = VIVID_OUTPUT_MAX_BUFFERS;
    struct v4l2_requestbuffers req = {.count = buffers, .type = output_type(o), .memory = V4L2_MEMORY_MMAP};
    if ((r = xioctl(o->fd, VIDIOC_REQBUFS, &req)) < 0) return output_fail(o, r, message, message_size, "VIDIOC_REQBUFS");
    o->count = req.count > buffers ? buffers : req.count;
    if (o->count < 2) {
        snprintf(message, message_size, "the output node granted %u buffers, need at least 2", req.count);
        vivid_output_close(o);
        return -ENOMEM;
    }
    for (uint32_t i = 0; i < o->count; i++) {
        struct v4l2_buffer b;
        struct v4l2_plane planes[VIVID_OUTPUT_MAX_PLANES];
        output_buffer(o, &b, planes, i);
        if ((r = xioctl(o->fd, VIDIOC_QUERYBUF, &b)) < 0) return output_fail(o, r, message, message_size, "VIDIOC_QUERYBUF");
        for (uint32_t p = 0; p < o->planes; p++) {
            size_t length = o->mplane ? planes[p].length : b.length;
            off_t offset = o->mplane ? (off_t)planes[p].m.mem_offset : (off_t)b.m.offset;
            o->len[i][p] = length;
            o->addr[i][p] = mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_SHARED, o->fd, offset);
            if (o->addr[i][p] == MAP_FAILED) return output_fail(o, -errno, message, message_size, "mmap");
            if (length < o->plane_size[p]) {
                snprintf(message, message_size, "output buffer plane %u of %zu bytes < sizeimage %u", p, length,
                         o->plane_size[p]);
                vivid_output_close(o);
                return -EINVAL;
            }
        }
    }
    return 0;
}

int vivid_output_queue(vivid_output *o, uint32_t index, const uint8_t *frame) {
    struct v4l2_buffer b;
    struct v4l2_plane planes[VIVID_OUTPUT_MAX_PLANES];
    output_buffer(o, &b, planes, index);
    size_t offset = 0;
    for (uint32_t p = 0; p < o->planes; p++) {
        memcpy(o->addr[index][p], frame + offset, o->plane_size[p]);
        offset += o->plane_size[p];
        if (o->mplane) planes[p].bytesused = o->plane_size[p];
    }
    if (!o->mplane) b.bytesused = o->sizeimage;
    return xioctl(o->fd, VIDIOC_QBUF, &b);
}

int vivid_output_start(vivid_output *o) {
    int type = (int)output_type(o);
    int r = xioctl(o->fd, VIDIOC_STREAMON, &type);
    if (r == 0) o->streaming = 1;
    return r;
}

int vivid_output_dequeue(vivid_output *o, uint32_t *index) {
    struct v4l2_buffer b;
    struct v4l2_plane planes[VIVID_OUTPUT_MAX_PLANES];
    output_buffer(o, &b, planes, 0);
    int r = xioctl(o->fd, VIDIOC_DQBUF, &b);
    if (r == 0) *index = b.index;
    return r;
}
