/* Helpers shared by the vivid tests: resetting vivid, resource counting and sample
 * collection (raw V4L2 access is in vivid-kit). */
#include "suite.h"

#include <ctype.h>
#include <math.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <linux/videodev2.h>

vivid_nodes g_nodes;

void info(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("    ", stdout);
    vprintf(fmt, ap);
    fputc('\n', stdout);
    va_end(ap);
    fflush(stdout);
}

int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void sleep_ms(int ms) {
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

int vivid_reset(char *message, size_t message_size) {
    int fd = open(g_nodes.capture, O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        snprintf(message, message_size, "reset: open %s: %s", g_nodes.capture, strerror(errno));
        return -errno;
    }
    int input = 0, r;
    if (xioctl(fd, VIDIOC_S_INPUT, &input) < 0) {
        r = -errno;
        snprintf(message, message_size, "reset: VIDIOC_S_INPUT 0 on %s failed", g_nodes.capture);
        close(fd);
        return r;
    }
    static const struct {
        const char *name;
        int64_t value;
    } controls[] = {
        {"percentage_of_dropped_buffers", 0},
        {"loop_video", 0},
        {"osd_text_mode", 0},
        {"quantization", 0},
    };
    for (size_t i = 0; i < sizeof controls / sizeof controls[0]; i++) {
        r = raw_control_set(fd, controls[i].name, controls[i].value);
        if (r < 0) {
            snprintf(message, message_size, "reset: setting vivid control %s=%lld on %s: %s", controls[i].name,
                     (long long)controls[i].value, g_nodes.capture, strerror(-r));
            close(fd);
            return r;
        }
    }
    r = raw_control_set_id(fd, V4L2_CID_AUTOGAIN, V4L2_CTRL_TYPE_BOOLEAN, 1);
    if (r < 0) {
        snprintf(message, message_size, "reset: setting V4L2_CID_AUTOGAIN=1 on %s: %s", g_nodes.capture, strerror(-r));
        close(fd);
        return r;
    }
    close(fd);
    fd = open(g_nodes.output, O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        snprintf(message, message_size, "reset: open %s: %s", g_nodes.output, strerror(errno));
        return -errno;
    }
    int output = 0;
    r = xioctl(fd, VIDIOC_S_OUTPUT, &output);
    close(fd);
    if (r < 0) {
        snprintf(message, message_size, "reset: VIDIOC_S_OUTPUT 0 on %s: %s", g_nodes.output, strerror(-r));
        return r;
    }
    return 0;
}

int count_fds(void) {
    DIR *dir = opendir("/proc/self/fd");
    if (!dir) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL)
        if (e->d_name[0] != '.') n++;
    closedir(dir);
    return n - 1; /* the directory's own descriptor */
}

int count_video_maps(void) {
    FILE *f = fopen("/proc/self/maps", "re");
    if (!f) return -1;
    char line[512];
    int n = 0;
    while (fgets(line, sizeof line, f))
        if (strstr(line, "/dev/video")) n++;
    fclose(f);
    return n;
}

void test_config(ccore_source_config *config, uint32_t fourcc, uint32_t width, uint32_t height, uint32_t fps) {
    ccore_source_config_init(config);
    config->fourcc = fourcc;
    config->width = width;
    config->height = height;
    config->fps = fps;
    config->buffer_count = 4;
    config->ring_capacity = 1024;
    config->lock_controls_after_ms = 0;
    config->power_line_hz = 0;
}

uint32_t collect_samples(ccore_source *source, ccore_frame_sample *out, uint32_t want, int timeout_ms) {
    ccore_ring *ring = ccore_source_ring(source);
    uint32_t got = 0;
    int64_t deadline = now_ns() + (int64_t)timeout_ms * 1000000LL;
    while (got < want && now_ns() < deadline) {
        if (ccore_ring_pop(ring, &out[got])) {
            got++;
            continue;
        }
        ccore_source_stats st;
        ccore_source_get_stats(source, &st);
        if (st.state == CCORE_SOURCE_FAILED) {
            /* Take what was queued before the failure. */
            while (got < want && ccore_ring_pop(ring, &out[got])) got++;
            break;
        }
        sleep_ms(2);
    }
    return got;
}

void drain_ring(ccore_source *source) {
    ccore_frame_sample s;
    ccore_ring *ring = ccore_source_ring(source);
    while (ccore_ring_pop(ring, &s)) {
    }
}

const char *state_name(ccore_source_state state) {
    switch (state) {
    case CCORE_SOURCE_OPENED: return "OPENED";
    case CCORE_SOURCE_RUNNING: return "RUNNING";
    case CCORE_SOURCE_FINISHED: return "FINISHED";
    case CCORE_SOURCE_STOPPED: return "STOPPED";
    case CCORE_SOURCE_FAILED: return "FAILED";
    }
    return "?";
}

const char *fourcc_str(uint32_t fourcc, char buf[5]) {
    for (int i = 0; i < 4; i++) {
        char c = (char)((fourcc >> (8 * i)) & 0xff);
        buf[i] = isprint((unsigned char)c) ? c : '.';
    }
    buf[4] = 0;
    return buf;
}

int check_sample_gaps(const ccore_frame_sample *s, uint32_t n, int64_t period, gap_report *rep, char *reason,
                      size_t reason_size) {
    memset(rep, 0, sizeof *rep);
    for (uint32_t i = 1; i < n; i++) {
        const ccore_frame_sample *p = &s[i - 1], *x = &s[i];
        double spacing = (double)(x->timestamp_ns - p->timestamp_ns) / (double)period;
        if (x->sequence < p->sequence)
            FAILF("sequence went back from %llu to %llu (samples %u, %u)", (unsigned long long)p->sequence,
                  (unsigned long long)x->sequence, i - 1, i);
        if (x->timestamp_ns <= p->timestamp_ns)
            FAILF("timestamp did not increase from sample %u to %u (%lld -> %lld ns)", i - 1, i,
                  (long long)p->timestamp_ns, (long long)x->timestamp_ns);
        uint64_t gap = x->sequence == p->sequence ? 0 : x->sequence - p->sequence - 1;
        if (x->sequence == p->sequence) rep->duplicates++;
        if (gap == 0 && x->sequence != p->sequence && spacing > rep->max_contiguous_spacing)
            rep->max_contiguous_spacing = spacing;
        rep->gaps += gap;
        uint64_t counted = (uint64_t)x->dropped_before + x->errors_before;
        if (counted == gap) continue;
        long long by_time = llround(spacing) - 1;
        if (spacing >= 2.5 && by_time > (long long)gap && counted == (uint64_t)by_time) {
            rep->clock_disagreements++;
            continue;
        }
        FAILF("sequence %llu -> %llu (%llu missing) in %.2f frame intervals, but the core counted dropped_before=%u "
              "errors_before=%u",
              (unsigned long long)p->sequence, (unsigned long long)x->sequence, (unsigned long long)gap, spacing,
              x->dropped_before, x->errors_before);
    }
    return 0;
}

int vivid_reload(int multiplanar, char *message, size_t message_size) {
    /* The arguments Tools/vm/run-in-guest.sh loads vivid with (suite.h), plus the API. */
    char cmd[256];
    snprintf(cmd, sizeof cmd,
             "modprobe -r vivid && modprobe vivid n_devs=1 node_types=0x101 input_types=0xe4 multiplanar=%d",
             multiplanar ? 2 : 1);
    fflush(stdout);
    int status = system(cmd);
    if (status != 0) {
        snprintf(message, message_size, "'%s' failed (status 0x%x)", cmd, status);
        return -EIO;
    }
    return find_vivid_nodes(&g_nodes, message, message_size);
}
