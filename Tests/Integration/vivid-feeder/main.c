/* vivid-feeder: plays a Y4M clip into vivid's output->capture loopback, so that any camera
 * client (the circadify CLI, v4l2-ctl) captures the clip from vivid's capture node.
 *
 *   vivid-feeder [--timings N] [--buffers N] CLIP.y4m
 *
 * Sets up the loopback (HDMI in and out, DV timings N, 0 = 640x480p60, YUYV), primes the
 * output with the first frame, starts streaming and prints `ready CAPTURE-NODE` on stdout.
 * Then it keeps the output queue full: whenever vivid hands back a shown buffer, it is
 * refilled with the clip frame due at that moment by the clip's own frame rate (wall clock
 * since the start), so the picture follows the clip's timing whatever rate vivid manages
 * under emulation. The clip loops until SIGTERM or SIGINT, which stop it cleanly and print
 * a summary. Progress every 5 s on stdout; errors on stderr, exit status 1.
 * The capturing client must use YUYV at the clip's size: vivid loops only equal formats. */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clip.h"
#include "vivid_loopback.h"
#include "vivid_v4l2.h"

#define DEFAULT_BUFFERS 4
#define REPORT_EVERY_NS (5LL * 1000000000LL)

static volatile sig_atomic_t g_stop;

static void on_signal(int sig) { g_stop = sig; }

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int usage(void) {
    fprintf(stderr, "usage: vivid-feeder [--timings N] [--buffers 2-%d] CLIP.y4m\n", VIVID_OUTPUT_MAX_BUFFERS);
    return 2;
}

static int parse_uint(const char *text, uint32_t max, uint32_t *out) {
    char *end;
    errno = 0;
    unsigned long v = strtoul(text, &end, 10);
    if (errno || end == text || *end || v > max) return -1;
    *out = (uint32_t)v;
    return 0;
}

/* What the feed loop counts, for the progress lines and the summary. */
typedef struct {
    int64_t start_ns;
    uint64_t buffers_written;
    uint32_t queued;
    uint32_t low_water;  /* fewest buffers left queued after taking one back */
    uint64_t ran_empty;  /* times every buffer had come back: vivid had nothing new to show */
} feed_stats;

static void report(const char *what, const feed_stats *st, const feeder_clip *clip) {
    double s = (double)(now_ns() - st->start_ns) / 1e9;
    printf("%s %.1f s: clip frame %" PRIu64 " (%" PRIu64 " loops), %" PRIu64 " skipped; %" PRIu64
           " buffers written (%.1f/s), queue low-water %u, ran empty %" PRIu64 " times\n",
           what, s, clip->position, clip->loops, clip->skipped, st->buffers_written,
           s > 0 ? (double)st->buffers_written / s : 0.0, st->low_water, st->ran_empty);
}

/* Refills every buffer vivid has shown with the frame due now. */
static int refill(vivid_output *out, feeder_clip *clip, feed_stats *st, char *message, size_t message_size) {
    uint32_t index;
    int r;
    while ((r = vivid_output_dequeue(out, &index)) == 0) {
        st->queued--;
        if (st->queued < st->low_water) st->low_water = st->queued;
        if (st->queued == 0) st->ran_empty++;
        const ccore_videofile_info *in = &clip->info;
        uint64_t due = (uint64_t)(now_ns() - st->start_ns) * in->fps_numerator /
                       ((uint64_t)in->fps_denominator * 1000000000ULL);
        if ((r = clip_advance(clip, due, message, message_size)) < 0) return r;
        if ((r = vivid_output_queue(out, index, clip->yuyv)) < 0) {
            snprintf(message, message_size, "VIDIOC_QBUF on the output node: %s", strerror(-r));
            return r;
        }
        st->queued++;
        st->buffers_written++;
    }
    if (r != -EAGAIN) {
        snprintf(message, message_size, "VIDIOC_DQBUF on the output node: %s", strerror(-r));
        return r;
    }
    return 0;
}

static int feed(vivid_output *out, feeder_clip *clip, const char *capture, char *message, size_t message_size) {
    feed_stats st = {.low_water = out->count};
    int r;
    for (uint32_t i = 0; i < out->count; i++) {
        if ((r = vivid_output_queue(out, i, clip->yuyv)) < 0) {
            snprintf(message, message_size, "VIDIOC_QBUF on the output node: %s", strerror(-r));
            return r;
        }
        st.queued++;
        st.buffers_written++;
    }
    if ((r = vivid_output_start(out)) < 0) {
        snprintf(message, message_size, "VIDIOC_STREAMON on the output node: %s", strerror(-r));
        return r;
    }
    st.start_ns = now_ns();
    printf("ready %s\n", capture);
    int64_t next_report = st.start_ns + REPORT_EVERY_NS;
    while (!g_stop) {
        struct pollfd p = {.fd = out->fd, .events = POLLOUT};
        if (poll(&p, 1, 100) < 0 && errno != EINTR) {
            snprintf(message, message_size, "poll on the output node: %s", strerror(errno));
            return -errno;
        }
        if (p.revents & POLLERR) {
            snprintf(message, message_size, "the output node reported an error (POLLERR)");
            return -EIO;
        }
        if ((r = refill(out, clip, &st, message, message_size)) < 0) return r;
        if (now_ns() >= next_report) {
            report("feeding", &st, clip);
            next_report += REPORT_EVERY_NS;
        }
    }
    report(g_stop == SIGTERM ? "stopped (SIGTERM) after" : "stopped (SIGINT) after", &st, clip);
    return 0;
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    uint32_t timings_index = 0, buffers = DEFAULT_BUFFERS;
    const char *path = NULL;
    for (int a = 1; a < argc; a++) {
        if (strcmp(argv[a], "--timings") == 0 && a + 1 < argc) {
            if (parse_uint(argv[++a], 1000, &timings_index) < 0) return usage();
        } else if (strcmp(argv[a], "--buffers") == 0 && a + 1 < argc) {
            if (parse_uint(argv[++a], VIVID_OUTPUT_MAX_BUFFERS, &buffers) < 0 || buffers < 2) return usage();
        } else if (argv[a][0] == '-' || path) {
            return usage();
        } else {
            path = argv[a];
        }
    }
    if (!path) return usage();

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);

    char message[512];
    vivid_nodes nodes;
    if (find_vivid_nodes(&nodes, message, sizeof message) < 0) {
        fprintf(stderr, "vivid-feeder: %s\n", message);
        return 1;
    }
    struct v4l2_dv_timings timings;
    vivid_output out = {.fd = -1};
    feeder_clip clip = {0};
    int r = vivid_loopback_capture_on(nodes.capture, timings_index, &timings, message, sizeof message);
    if (r == 0)
        r = vivid_output_open(&out, nodes.output, &timings, V4L2_PIX_FMT_YUYV, buffers, message, sizeof message);
    if (r == 0)
        r = clip_open(&clip, path, out.width, out.height, out.bytesperline, out.sizeimage, message, sizeof message);
    if (r == 0) {
        const struct v4l2_bt_timings *bt = &timings.bt;
        uint64_t total = (uint64_t)(bt->width + bt->hfrontporch + bt->hsync + bt->hbackporch) *
                         (bt->height + bt->vfrontporch + bt->vsync + bt->vbackporch);
        printf("vivid-feeder: %s %ux%u at %.3f fps -> %s (YUYV, %u buffers) -> %s, DV timings %ux%u%s%.2f\n", path,
               clip.info.width, clip.info.height, (double)clip.info.fps_numerator / clip.info.fps_denominator,
               nodes.output, out.count, nodes.capture, bt->width, bt->height, bt->interlaced ? "i" : "p",
               total ? (double)bt->pixelclock / (double)total : 0.0);
        r = feed(&out, &clip, nodes.capture, message, sizeof message);
    }
    if (r < 0) fprintf(stderr, "vivid-feeder: %s\n", message);
    vivid_output_close(&out);
    clip_close(&clip);
    vivid_loopback_capture_off(nodes.capture);
    return r < 0 ? 1 : 0;
}
