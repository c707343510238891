/* Kernel-driver integration suite: shared declarations.
 *
 * The suite runs as root inside the QEMU guest (Tools/vm/run-in-guest.sh) against the
 * vivid driver, loaded as `vivid n_devs=1 node_types=0x101 input_types=0xe4`: one
 * capture node (inputs: 0 webcam, 1 TV, 2 S-Video, 3 HDMI) and one output node
 * (outputs: 0 S-Video, 1 HDMI). It exercises the C core through its public API and
 * drives vivid itself (controls, inputs, the output node) with raw V4L2 ioctls, so
 * that what is being checked never depends on the code under test. */
#ifndef VIVID_SUITE_H
#define VIVID_SUITE_H

#include <stddef.h>
#include <stdint.h>

#include "ccore/controls.h"
#include "ccore/device.h"
#include "ccore/error.h"
#include "ccore/image.h"
#include "ccore/ring.h"
#include "ccore/sample.h"
#include "ccore/source.h"
#include "vivid_v4l2.h"

#define REASON_MAX 1024

/* A test returns 0 on success; on failure it returns non-zero with a reason. */
typedef int (*test_fn)(char *reason, size_t reason_size);

/* Fails the current test with a formatted reason. */
#define FAILF(...)                                        \
    do {                                                  \
        snprintf(reason, reason_size, __VA_ARGS__);       \
        return 1;                                         \
    } while (0)
/* Same, but jumps to a cleanup label first. */
#define FAILGO(label, ...)                                \
    do {                                                  \
        snprintf(reason, reason_size, __VA_ARGS__);       \
        failed = 1;                                       \
        goto label;                                       \
    } while (0)

/* The vivid nodes found at start-up. */
extern vivid_nodes g_nodes;

/* Prints an indented diagnostic line (shown between the PASS/FAIL lines). */
void info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

int64_t now_ns(void);
void sleep_ms(int ms);

/* Puts vivid back into the state every test starts from: capture input 0
 * (webcam), output 0, no drops, no loop, full OSD, auto gain on. */
int vivid_reset(char *message, size_t message_size);

/* Open file descriptors of this process and /proc/self/maps lines naming /dev/video. */
int count_fds(void);
int count_video_maps(void);

/* A source configuration for tests: the core's defaults with the given format and
 * no automatic control locking (which would change vivid's Auto Gain mid-test). */
void test_config(ccore_source_config *config, uint32_t fourcc, uint32_t width, uint32_t height, uint32_t fps);

/* Pops samples into `out` until `want` arrived, the source failed, or `timeout_ms`
 * passed. Returns the number collected. */
uint32_t collect_samples(ccore_source *source, ccore_frame_sample *out, uint32_t want, int timeout_ms);

/* Discards whatever is queued in the ring. */
void drain_ring(ccore_source *source);

/* How a run of samples' sequence numbers relate to the core's drop counters. */
typedef struct {
    uint64_t gaps;                 /* frames missing by the sequence numbers */
    uint32_t duplicates;           /* samples whose sequence repeats the previous one */
    uint32_t clock_disagreements;  /* pairs counted by timestamp because vivid's sequence lagged */
    double max_contiguous_spacing; /* largest spacing of consecutive sequence numbers, in intervals */
} gap_report;

/* Checks that every sample's sequence jump is explained by its dropped/error counters,
 * that sequences never go back and timestamps always go forward.
 *
 * vivid numbers frames from jiffies but stamps them with ktime; under QEMU's TCG the
 * guest's jiffies can stall while ktime runs on, and then vivid hands out the same
 * sequence number twice, or consecutive numbers for frames several intervals apart.
 * The core counts a timestamp gap of 2.5 intervals or more as drops when the sequence
 * shows none: such a pair passes when the core's count is what the timestamps show,
 * and is reported. Anything else is a failure. */
int check_sample_gaps(const ccore_frame_sample *s, uint32_t n, int64_t period, gap_report *report, char *reason,
                      size_t reason_size);

const char *state_name(ccore_source_state state);
const char *fourcc_str(uint32_t fourcc, char buf[5]);

/* Tests, one per function. */
int test_enumerate(char *reason, size_t reason_size);
int test_negotiate(char *reason, size_t reason_size);
int test_stream(char *reason, size_t reason_size);
int test_controls(char *reason, size_t reason_size);
int test_fault_dropped_buffers(char *reason, size_t reason_size);
int test_fault_buf_flag_error(char *reason, size_t reason_size);
int test_fault_streamon_error(char *reason, size_t reason_size);
int test_fault_reqbufs_error(char *reason, size_t reason_size);
int test_busy(char *reason, size_t reason_size);
int test_denied(char *reason, size_t reason_size);
int test_loopback_yuyv(char *reason, size_t reason_size);
int test_loopback_nv12(char *reason, size_t reason_size);
int test_loopback_rgb24(char *reason, size_t reason_size);
int test_fault_fatal_streaming_error(char *reason, size_t reason_size);
int test_fault_disconnect(char *reason, size_t reason_size);
int test_loopback_bayer(char *reason, size_t reason_size);
int test_fault_qbuf_error(char *reason, size_t reason_size);
int test_fault_qbuf_partial(char *reason, size_t reason_size);
int test_mplane_stream(char *reason, size_t reason_size);
int test_mplane_loopback_yuyv(char *reason, size_t reason_size);
int test_mplane_loopback_nv12m(char *reason, size_t reason_size);
int test_mplane_loopback_bayer(char *reason, size_t reason_size);

/* The loopback colour test for one format (tests_loopback.c), single- or multi-planar
 * as vivid is loaded. */
int loopback_test(uint32_t fourcc, ccore_pixel_format pixel_format, float tolerance, char *reason,
                  size_t reason_size);

/* Reloads vivid with the suite's arguments, multi-planar (multiplanar=2) or not, and
 * finds its nodes again. */
int vivid_reload(int multiplanar, char *message, size_t message_size);

#endif
