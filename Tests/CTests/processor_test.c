/* The per-frame kernels (ROI means with the skin mask, mean luma, thumbnail) and the
 * processor that runs them per frame: its sample, thumbnail, gap and error accounting,
 * and the MJPEG path (scaled decode). */
#include <stdlib.h>
#include <string.h>

#include "ccore/error.h"
#include "ccore/jpeg.h"
#include "ccore/processor.h"
#include "ccore/roi.h"
#include "ctest.h"

#define W 64
#define H 48

static const uint8_t skin[3] = {230, 180, 140}, blue[3] = {40, 40, 200};

/* Left half skin-coloured, right half blue. */
static void half_and_half(uint8_t *rgb) {
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) memcpy(rgb + (y * W + x) * 3, x < W / 2 ? skin : blue, 3);
}

static ccore_roi_set three_rois(void) {
    ccore_roi_set set = {.count = 3, .generation = 7};
    set.rects[0] = (ccore_rect){0, 0, 0.5f, 1};      /* the skin half */
    set.rects[1] = (ccore_rect){0, 0, 1, 1};         /* everything, through the mask */
    set.rects[2] = (ccore_rect){0.25f, 0.25f, 0.5f, 0.5f};
    set.skin = ccore_skin_bounds_default();
    return set;
}

void test_roi_means_and_skin_mask(void) {
    static uint8_t rgb[W * H * 3];
    half_and_half(rgb);
    ccore_image image;
    REQUIRE(ccore_image_wrap_packed(&image, CCORE_PIXEL_RGB24, CCORE_RANGE_FULL, W, H, rgb) == 0);
    ccore_roi_set set = three_rois();
    ccore_roi_stats stats[CCORE_MAX_ROIS];
    REQUIRE(ccore_roi_measure(&image, &set, stats) == 0);
    CHECK_NEAR(stats[0].skin_fraction, 1.0, 1e-6);
    CHECK_NEAR(stats[0].r, skin[0], 0.01);
    CHECK_NEAR(stats[0].g, skin[1], 0.01);
    CHECK_NEAR(stats[0].b, skin[2], 0.01);
    CHECK_INT(stats[0].pixel_count, W / 2 * H);
    /* The mask keeps the skin half only: its colour, not the mix. */
    CHECK_NEAR(stats[1].skin_fraction, 0.5, 0.01);
    CHECK_NEAR(stats[1].g, skin[1], 0.01);
    /* Without the mask the mean is the mix of both halves. */
    set.skin = ccore_skin_bounds_all();
    REQUIRE(ccore_roi_measure(&image, &set, stats) == 0);
    CHECK_NEAR(stats[1].b, (skin[2] + blue[2]) / 2.0, 0.01);
    CHECK_NEAR(stats[2].r, (skin[0] + blue[0]) / 2.0, 0.01);
    /* Luma of RGB24 is (77 R + 150 G + 29 B) >> 8, averaged. */
    double luma = (((77 * skin[0] + 150 * skin[1] + 29 * skin[2]) >> 8) + ((77 * blue[0] + 150 * blue[1] + 29 * blue[2]) >> 8)) / 2.0;
    CHECK_NEAR(ccore_image_mean_luma(&image), luma, 0.01);
    ccore_image bad = image;
    bad.format = CCORE_PIXEL_NONE;
    CHECK(ccore_roi_measure(&bad, &set, stats) < 0);
}

static ccore_processor *make(int mjpeg) {
    ccore_processor_config c = {.pixel_format = mjpeg ? CCORE_PIXEL_NONE : CCORE_PIXEL_RGB24, .is_mjpeg = (uint32_t)mjpeg,
                                .width = W, .height = H, .frame_interval_ns = 33333333, .thumbnail_width = 16,
                                .thumbnail_height = 12, .thumbnail_every = 2, .min_roi_pixels = 4};
    ccore_processor *p = NULL;
    return ccore_processor_create(&c, &p) == 0 ? p : NULL;
}

static ccore_frame raw_frame(const uint8_t *rgb, uint64_t sequence) {
    ccore_frame f = {.sequence = sequence, .timestamp_ns = 1000000000 + (int64_t)sequence * 33333333};
    ccore_image_wrap_packed(&f.image, CCORE_PIXEL_RGB24, CCORE_RANGE_FULL, W, H, rgb);
    return f;
}

void test_processor_sample_and_thumbnail(void) {
    static uint8_t rgb[W * H * 3], thumb[16 * 12], expected[16 * 12];
    half_and_half(rgb);
    ccore_processor *p = make(0);
    REQUIRE(p);
    ccore_frame_sample s;
    ccore_frame f = raw_frame(rgb, 0);
    /* Before any ROI set: the global statistics only. */
    CHECK_INT(ccore_processor_process(p, &f, &s), 1);
    CHECK(s.flags & CCORE_SAMPLE_NO_ROI);
    ccore_roi_set set = three_rois();
    REQUIRE(ccore_processor_set_rois(p, &set) == 0);
    f = raw_frame(rgb, 1);
    CHECK_INT(ccore_processor_process(p, &f, &s), 1);
    CHECK(!(s.flags & CCORE_SAMPLE_NO_ROI));
    CHECK_INT(s.roi_generation, 7);
    CHECK_INT(s.roi_count, 3);
    CHECK_INT(s.sequence, 1);
    CHECK_INT(s.timestamp_ns, f.timestamp_ns);
    CHECK_NEAR(s.rois[0].g, skin[1], 0.01);
    CHECK_NEAR(s.rois[1].skin_fraction, 0.5, 0.01);
    CHECK_INT(s.decode_scale, 1);
    /* Frame 0 published a thumbnail (every 2nd frame); it is the kernel's thumbnail of the frame. */
    uint32_t tw = 0, th = 0;
    uint64_t seq = 99;
    CHECK_INT(ccore_processor_take_thumbnail(p, thumb, sizeof thumb, &tw, &th, &seq), 1);
    CHECK_INT(tw, 16);
    CHECK_INT(th, 12);
    CHECK_INT(seq, 0);
    ccore_image image = f.image;
    REQUIRE(ccore_image_luma_thumbnail(&image, expected, 16, 12) == 0);
    CHECK(memcmp(thumb, expected, sizeof thumb) == 0);
    CHECK_INT(ccore_processor_take_thumbnail(p, thumb, sizeof thumb, &tw, &th, &seq), 0);
    ccore_processor_destroy(p);
}

void test_processor_gaps_and_flags(void) {
    static uint8_t rgb[W * H * 3];
    half_and_half(rgb);
    ccore_processor *p = make(0);
    REQUIRE(p);
    ccore_frame_sample s;
    ccore_frame f = raw_frame(rgb, 0);
    CHECK_INT(ccore_processor_process(p, &f, &s), 1);
    CHECK(!(s.flags & CCORE_SAMPLE_GAP));
    f = raw_frame(rgb, 3); /* frames 1 and 2 never came */
    CHECK_INT(ccore_processor_process(p, &f, &s), 1);
    CHECK(s.flags & CCORE_SAMPLE_GAP);
    CHECK_INT(s.dropped_before, 2);
    f = raw_frame(rgb, 4);
    f.flagged = 1; /* the driver marked it damaged */
    CHECK_INT(ccore_processor_process(p, &f, &s), 0);
    f = raw_frame(rgb, 5);
    CHECK_INT(ccore_processor_process(p, &f, &s), 1);
    CHECK_INT(s.errors_before, 1);
    CHECK_INT(s.dropped_before, 0);
    ccore_processor_counters c;
    ccore_processor_get_counters(p, &c);
    CHECK_INT(c.frames, 4);
    CHECK_INT(c.dropped, 2);
    CHECK_INT(c.error_frames, 1);
    ccore_processor_destroy(p);

    /* MJPEG: the frame is decoded (at a reduced scale the ROIs allow) and measured;
     * a corrupt frame is counted and skipped, the next one is measured again. */
    p = make(1);
    REQUIRE(p);
    ccore_roi_set set = three_rois();
    REQUIRE(ccore_processor_set_rois(p, &set) == 0);
    ccore_image image;
    REQUIRE(ccore_image_wrap_packed(&image, CCORE_PIXEL_RGB24, CCORE_RANGE_FULL, W, H, rgb) == 0);
    uint8_t *jpeg = NULL;
    size_t size = 0;
    REQUIRE(ccore_jpeg_encode(&image, 95, &jpeg, &size) == 0);
    ccore_frame mf = {.sequence = 0, .timestamp_ns = 1, .jpeg = jpeg, .jpeg_size = size};
    CHECK_INT(ccore_processor_process(p, &mf, &s), 1);
    CHECK(s.decode_scale >= 1 && s.decode_scale <= 8);
    CHECK_NEAR(s.rois[0].g, skin[1], 4);
    CHECK_NEAR(s.rois[1].skin_fraction, 0.5, 0.1);
    uint8_t junk[32] = {0xFF, 0xD8, 0xFF, 0xE0};
    ccore_frame bad = {.sequence = 1, .timestamp_ns = 2, .jpeg = junk, .jpeg_size = sizeof junk};
    CHECK_INT(ccore_processor_process(p, &bad, &s), CCORE_E_CORRUPT);
    CHECK(ccore_processor_error_message(p)[0] != '\0');
    mf.sequence = 2;
    CHECK_INT(ccore_processor_process(p, &mf, &s), 1);
    CHECK_INT(s.errors_before, 1);
    free(jpeg);
    ccore_processor_destroy(p);
}
