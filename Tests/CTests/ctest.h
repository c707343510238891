/* A minimal test harness for the C core's own test runner (no Swift, so it runs on any
 * target the core cross-builds for, under qemu-user or on a board).
 *
 * A test is a `void f(void)`; CHECK* record a failure with its place and keep going, so
 * one run reports every broken expectation. The runner counts a test as failed when any
 * check in it failed. */
#ifndef CTEST_H
#define CTEST_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "ccore/jpeg.h"

/** Failed checks so far in the whole run (the runner compares before and after a test). */
extern unsigned ctest_failures;

void ctest_fail(const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#define CHECK(cond)                                                                                  \
    do {                                                                                             \
        if (!(cond)) ctest_fail(__FILE__, __LINE__, "%s", #cond);                                    \
    } while (0)

#define CHECK_INT(actual, expected)                                                                  \
    do {                                                                                             \
        long long a_ = (long long)(actual), e_ = (long long)(expected);                              \
        if (a_ != e_) ctest_fail(__FILE__, __LINE__, "%s == %lld, expected %lld", #actual, a_, e_);  \
    } while (0)

#define CHECK_NEAR(actual, expected, tolerance)                                                      \
    do {                                                                                             \
        double a_ = (double)(actual), e_ = (double)(expected);                                       \
        if (!(fabs(a_ - e_) <= (tolerance)))                                                         \
            ctest_fail(__FILE__, __LINE__, "%s == %.6g, expected %.6g ± %g", #actual, a_, e_,        \
                       (double)(tolerance));                                                         \
    } while (0)

/** Marks the current test as not run here, with the reason; the caller returns. A skipped
 *  test counts neither as passed nor as failed, and the runner says why it was skipped. */
void ctest_skip(const char *why);

/** Stops the current test (after recording the failure) when a precondition fails. */
#define REQUIRE(cond)                                                                                \
    do {                                                                                             \
        if (!(cond)) {                                                                               \
            ctest_fail(__FILE__, __LINE__, "required: %s", #cond);                                   \
            return;                                                                                  \
        }                                                                                            \
    } while (0)

/** Iteration counts scale with CTEST_SCALE (default 1), for a quick run or a long soak. */
uint64_t ctest_scaled(uint64_t iterations);

/** A path for a scratch file, unique to this process. */
void ctest_temp_path(char *out, size_t size, const char *name);

/** A w x h RGB24 picture with texture at every scale (the IDCT's AC terms matter), different
 *  for each seed; malloc'ed, NULL when out of memory. */
uint8_t *ctest_textured_rgb(uint32_t w, uint32_t h, uint32_t seed);

/** That picture as a baseline JPEG (ccore_jpeg_encode_rgb); *jpeg is malloc'ed. */
int ctest_encode_textured(uint32_t w, uint32_t h, uint32_t seed, ccore_jpeg_subsampling subsampling, int quality,
                          uint8_t **jpeg, size_t *size);

/* The tests, one group per module. */
void test_ring_single_thread(void);
void test_ring_two_thread_stress(void);
void test_ring_two_thread_stress_samples(void);
void test_spectrum_sine(void);
void test_spectrum_pulse_with_harmonic(void);
void test_spectrum_errors(void);
void test_jpeg_round_trip(void);
void test_jpeg_scaled_decode(void);
void test_jpeg_corrupt(void);
void test_jpeg_matches_turbojpeg(void);
void test_jpeg_partial_decode(void);
void test_jpeg_steady_decodes_allocate_nothing(void);
void test_jpeg_restart_box_decode(void);
void test_jpeg_restart_box_falls_back(void);
void test_roi_means_and_skin_mask(void);
void test_processor_sample_and_thumbnail(void);
void test_processor_gaps_and_flags(void);
void test_processor_mjpeg_every_frame_alike(void);
void test_source_file_replay(void);
void test_source_file_errors(void);
void test_fake_camera_bayer_without_bytesperline(void);
void test_fake_camera_bayer_frame_shorter_than_its_rows(void);
void test_fake_camera_size_beyond_the_limits(void);
void test_fake_camera_padded_rows_only_where_libv4lconvert_reads_them(void);
void test_fake_camera_yuyv_odd_width(void);
void test_fake_camera_yuv420_odd_width_packed(void);

#endif
