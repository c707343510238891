/* The file source end to end: a Y4M written here is replayed by the capture thread into
 * the ring, every frame in order with its colour and timestamp; bad files are refused
 * with the right code. */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ccore/error.h"
#include "ccore/roi.h"
#include "ccore/source.h"
#include "ctest.h"

#define W 64
#define H 48
#define FRAMES 120

/* Frame i: flat Y' = 60 + i, Cb 110, Cr 150 (4:2:0). */
static int write_y4m(const char *path, int frames, const char *header) {
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    fputs(header, f);
    static uint8_t y[W * H], c[W * H / 4];
    for (int i = 0; i < frames; i++) {
        memset(y, 60 + i, sizeof y);
        fputs("FRAME\n", f);
        fwrite(y, 1, sizeof y, f);
        memset(c, 110, sizeof c);
        fwrite(c, 1, sizeof c, f);
        memset(c, 150, sizeof c);
        fwrite(c, 1, sizeof c, f);
    }
    return fclose(f);
}

static const char good_header[] = "YUV4MPEG2 W64 H48 F30:1 Ip A1:1 C420jpeg\n";

void test_source_file_replay(void) {
    char path[256];
    ctest_temp_path(path, sizeof path, "replay.y4m");
    REQUIRE(write_y4m(path, FRAMES, good_header) == 0);
    ccore_source_config config;
    ccore_source_config_init(&config);
    config.realtime = 0;
    config.ring_capacity = 8; /* smaller than the clip: back-pressure, not loss */
    char message[CCORE_SOURCE_MESSAGE_SIZE];
    ccore_source *src = NULL;
    int rc = ccore_source_open_file(path, &config, &src, message, sizeof message);
    if (rc) printf("    open: %s\n", message);
    REQUIRE(rc == 0);
    ccore_stream_format fmt;
    ccore_source_get_format(src, &fmt);
    CHECK_INT(fmt.width, W);
    CHECK_INT(fmt.height, H);
    CHECK_INT(fmt.pixel_format, CCORE_PIXEL_YUV420);
    ccore_roi_set set = {.count = 1, .generation = 1, .rects = {{0, 0, 1, 1}}, .skin = ccore_skin_bounds_all()};
    CHECK_INT(ccore_source_set_rois(src, &set), 0);
    REQUIRE(ccore_source_start(src) == 0);

    /* Wait on the source's eventfd, drain the ring after each wake-up. */
    ccore_ring *ring = ccore_source_ring(src);
    static ccore_frame_sample samples[FRAMES + 1];
    uint32_t n = 0;
    ccore_source_stats stats;
    struct pollfd pfd = {.fd = ccore_source_sample_fd(src), .events = POLLIN};
    for (int waits = 0; waits < 10000; waits++) {
        while (n <= FRAMES && ccore_ring_pop(ring, &samples[n])) n++;
        ccore_source_get_stats(src, &stats);
        if (stats.state == CCORE_SOURCE_FINISHED || stats.state == CCORE_SOURCE_FAILED) {
            while (n <= FRAMES && ccore_ring_pop(ring, &samples[n])) n++;
            break;
        }
        if (poll(&pfd, 1, 5000) == 1) {
            uint64_t ignored;
            if (read(pfd.fd, &ignored, sizeof ignored) < 0) break;
        }
    }
    CHECK_INT(stats.state, CCORE_SOURCE_FINISHED);
    CHECK_INT(n, FRAMES);
    CHECK_INT(stats.frames, FRAMES);
    CHECK_INT(stats.ring_overflows, 0);
    CHECK_INT(stats.dropped, 0);
    float rgb[3];
    for (uint32_t i = 0; i < n; i++) {
        if (samples[i].sequence != i) {
            CHECK_INT(samples[i].sequence, i);
            break;
        }
        CHECK_NEAR(samples[i].mean_luma, 60 + i, 1e-3);
        if (i > 0) CHECK_INT(samples[i].timestamp_ns - samples[i - 1].timestamp_ns, 33333333);
    }
    ccore_ycbcr_to_rgb(60 + 17, 110, 150, CCORE_RANGE_LIMITED, rgb);
    CHECK_NEAR(samples[17].rois[0].g, rgb[1], 0.01);
    CHECK_NEAR(samples[17].rois[0].r, rgb[0], 0.01);
    CHECK_INT(ccore_source_start(src), CCORE_E_STATE); /* a source starts once */
    CHECK_INT(ccore_source_stop(src), 0);
    ccore_source_destroy(src);
    unlink(path);
}

void test_source_file_errors(void) {
    char path[256], message[CCORE_SOURCE_MESSAGE_SIZE];
    ccore_source_config config;
    ccore_source_config_init(&config);
    ccore_source *src = (ccore_source *)&config; /* must come back NULL */
    ctest_temp_path(path, sizeof path, "missing.y4m");
    CHECK_INT(ccore_source_open_file(path, &config, &src, message, sizeof message), -ENOENT);
    CHECK(src == NULL);
    /* A malformed header: a negative width. */
    ctest_temp_path(path, sizeof path, "corrupt.y4m");
    REQUIRE(write_y4m(path, 2, "YUV4MPEG2 W-64 H48 F30:1 C420jpeg\n") == 0);
    CHECK_INT(ccore_source_open_file(path, &config, &src, message, sizeof message), CCORE_E_CORRUPT);
    CHECK(src == NULL && message[0] != '\0');
    unlink(path);
    /* A header cut short. */
    ctest_temp_path(path, sizeof path, "truncated.y4m");
    REQUIRE(write_y4m(path, 0, "YUV4MPEG2 W64") == 0);
    int rc = ccore_source_open_file(path, &config, &src, message, sizeof message);
    CHECK(rc == CCORE_E_TRUNCATED || rc == CCORE_E_CORRUPT);
    CHECK(src == NULL);
    unlink(path);
    /* A source that never opened: every call is safe. */
    ccore_source_destroy(NULL);
    CHECK(ccore_source_start(NULL) < 0);
}
