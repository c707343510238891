/* The C core's test runner: every test in order, one line each with its time, then
 * `ctests: N passed, N failed, N skipped` (the line Tools/arm64/run-arm64-tests.sh
 * counts). Exit status 1 if any failed. `ctest NAME...` runs only the tests whose names
 * contain one of the words. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ctest.h"

unsigned ctest_failures;
static const char *skipped_because;

void ctest_skip(const char *why) { skipped_because = why; }

void ctest_fail(const char *file, int line, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stdout, "    %s:%d: ", file, line);
    vfprintf(stdout, fmt, ap);
    fputc('\n', stdout);
    va_end(ap);
    ctest_failures++;
}

uint64_t ctest_scaled(uint64_t iterations) {
    const char *scale = getenv("CTEST_SCALE");
    double s = scale ? atof(scale) : 1.0;
    if (!(s > 0)) s = 1.0;
    uint64_t n = (uint64_t)(iterations * s);
    return n ? n : 1;
}

void ctest_temp_path(char *out, size_t size, const char *name) {
    const char *dir = getenv("TMPDIR");
    snprintf(out, size, "%s/ccore-ctest-%ld-%s", dir && *dir ? dir : "/tmp", (long)getpid(), name);
}

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

#define TEST(name) {#name, name}
static const struct {
    const char *name;
    void (*run)(void);
} tests[] = {
    TEST(test_ring_single_thread),
    TEST(test_ring_two_thread_stress),
    TEST(test_ring_two_thread_stress_samples),
    TEST(test_spectrum_sine),
    TEST(test_spectrum_pulse_with_harmonic),
    TEST(test_spectrum_errors),
    TEST(test_jpeg_round_trip),
    TEST(test_jpeg_scaled_decode),
    TEST(test_jpeg_corrupt),
    TEST(test_jpeg_matches_turbojpeg),
    TEST(test_jpeg_partial_decode),
    TEST(test_jpeg_steady_decodes_allocate_nothing),
    TEST(test_jpeg_restart_box_decode),
    TEST(test_jpeg_restart_box_falls_back),
    TEST(test_roi_means_and_skin_mask),
    TEST(test_processor_sample_and_thumbnail),
    TEST(test_processor_gaps_and_flags),
    TEST(test_processor_mjpeg_every_frame_alike),
    TEST(test_source_file_replay),
    TEST(test_source_file_errors),
    TEST(test_fake_camera_bayer_without_bytesperline),
    TEST(test_fake_camera_bayer_frame_shorter_than_its_rows),
    TEST(test_fake_camera_size_beyond_the_limits),
    TEST(test_fake_camera_padded_rows_only_where_libv4lconvert_reads_them),
    TEST(test_fake_camera_yuyv_odd_width),
    TEST(test_fake_camera_yuv420_odd_width_packed),
};

static int selected(const char *name, int argc, char **argv) {
    if (argc < 2) return 1;
    for (int i = 1; i < argc; i++)
        if (strstr(name, argv[i])) return 1;
    return 0;
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    unsigned passed = 0, failed = 0, skipped = 0;
    double start = now_ms();
    for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++) {
        if (!selected(tests[i].name, argc, argv)) continue;
        unsigned before = ctest_failures;
        skipped_because = NULL;
        double t0 = now_ms();
        tests[i].run();
        double ms = now_ms() - t0;
        const char *name = tests[i].name + strlen("test_");
        if (ctest_failures == before && skipped_because) {
            printf("SKIP %s: %s\n", name, skipped_because);
            skipped++;
            continue;
        }
        int ok = ctest_failures == before;
        printf("%s %s (%.0f ms)\n", ok ? "PASS" : "FAIL", name, ms);
        ok ? passed++ : failed++;
    }
    printf("ctests: %u passed, %u failed, %u skipped (%.1f s)\n", passed, failed, skipped, (now_ms() - start) / 1e3);
    return failed || passed == 0 ? 1 : 0;
}
