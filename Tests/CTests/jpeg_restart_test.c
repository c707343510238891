/* Partial decodes of frames with restart markers: the box of intervals decoded alone gives
 * the pixels a whole decode gives, in every subsampling and at every scale, with a band of
 * luma or without; the rows and columns outside it are not decoded; and a grid the markers do
 * not make, or markers out of turn, fall back to a decode from the top that still reports
 * damage. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ccore/error.h"
#include "ccore/jpeg.h"
#include "ctest.h"

/* A picture as a baseline JPEG, and the same one with a restart marker every `interval` MCUs. */
static int encode_pair(uint32_t w, uint32_t h, uint32_t seed, ccore_jpeg_subsampling subsampling,
                       uint32_t interval, uint8_t **plain, size_t *plain_size, uint8_t **restart,
                       size_t *restart_size) {
    int rc = ctest_encode_textured(w, h, seed, subsampling, 88, plain, plain_size);
    if (rc == 0) rc = ccore_jpeg_set_restart_interval(*plain, *plain_size, interval, restart, restart_size);
    return rc;
}

/* Plane i's samples for the frame's box [x0, x1) x [y0, y1) (frame pixels, chroma halved as
 * the format subsamples it), equal in both decodes. */
static int box_equal(const ccore_image *a, const ccore_image *b, int i, uint32_t x0, uint32_t x1, uint32_t y0,
                     uint32_t y1) {
    int half_x = i > 0 && (a->format == CCORE_PIXEL_YUV420 || a->format == CCORE_PIXEL_YUV422P);
    int half_y = i > 0 && a->format == CCORE_PIXEL_YUV420;
    if (half_x) x0 /= 2, x1 = (x1 + 1) / 2;
    if (half_y) y0 /= 2, y1 = (y1 + 1) / 2;
    uint32_t sa = i == 0 ? a->stride0 : i == 1 ? a->stride1 : a->stride2;
    uint32_t sb = i == 0 ? b->stride0 : i == 1 ? b->stride1 : b->stride2;
    const uint8_t *pa = i == 0 ? a->plane0 : i == 1 ? a->plane1 : a->plane2;
    const uint8_t *pb = i == 0 ? b->plane0 : i == 1 ? b->plane1 : b->plane2;
    for (uint32_t y = y0; y < y1; y++)
        if (memcmp(pa + (size_t)y * sa + x0, pb + (size_t)y * sb + x0, x1 - x0) != 0) return 0;
    return 1;
}

/* Each subsampling at each scale: a band across the middle of the frame, in columns that
 * leave whole intervals out on both sides. 168x136 has 11 MCUs a row at 4:2:0 and 4:2:2
 * (its last one cut short), 21 at 4:4:4 and greyscale; intervals of one MCU row (11 or 21
 * MCUs) and of a few MCUs (1, 3 or 7) make grids, and 3 at 4:2:0 does not. */
void test_jpeg_restart_box_decode(void) {
    enum { FW = 168, FH = 136 };
    const struct {
        ccore_jpeg_subsampling kind;
        uint32_t interval;
        int grid;
    } cases[] = {
        {CCORE_JPEG_420, 1, 1},  {CCORE_JPEG_420, 11, 1}, {CCORE_JPEG_420, 22, 1}, {CCORE_JPEG_420, 3, 0},
        {CCORE_JPEG_422, 11, 1}, {CCORE_JPEG_422, 1, 1},  {CCORE_JPEG_444, 7, 1},  {CCORE_JPEG_444, 3, 1},
        {CCORE_JPEG_GRAY, 7, 1}, {CCORE_JPEG_GRAY, 21, 1},
    };
    ccore_jpeg *whole_dec = NULL, *part_dec = NULL;
    REQUIRE(ccore_jpeg_create(FW, FH, &whole_dec) == 0);
    REQUIRE(ccore_jpeg_create(FW, FH, &part_dec) == 0);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        uint8_t *plain = NULL, *restart = NULL, *other = NULL, *other_restart = NULL;
        size_t plain_size = 0, restart_size = 0, other_size = 0, other_restart_size = 0;
        REQUIRE(encode_pair(FW, FH, (uint32_t)c, cases[c].kind, cases[c].interval, &plain, &plain_size, &restart,
                            &restart_size) == 0);
        REQUIRE(encode_pair(FW, FH, 100 + (uint32_t)c, cases[c].kind, cases[c].interval, &other, &other_size,
                            &other_restart, &other_restart_size) == 0);
        CHECK(memmem(restart, restart_size, "\xFF\xDD", 2) != NULL); /* DRI: the interval is declared */
        for (uint32_t scale = 1; scale <= 8; scale *= 2) {
            ccore_image whole, part, stale;
            REQUIRE(ccore_jpeg_decode(whole_dec, plain, plain_size, scale, &whole) == 0);
            CHECK_INT(ccore_jpeg_restart_grid(whole_dec), 0);
            /* Another picture first, so what the partial decode skips keeps that one's pixels. */
            REQUIRE(ccore_jpeg_decode(part_dec, other_restart, other_restart_size, scale, &stale) == 0);
            ccore_jpeg_rows band = {.colour_top = 0.45f, .colour_bottom = 0.62f, .colour_left = 0.45f,
                                    .colour_right = 0.6f};
            uint64_t before = ccore_jpeg_box_decodes(part_dec);
            REQUIRE(ccore_jpeg_decode_part(part_dec, restart, restart_size, scale, &band, &part) == 0);
            CHECK_INT(ccore_jpeg_box_decodes(part_dec) - before, cases[c].grid);
            CHECK_INT(ccore_jpeg_restart_grid(part_dec), cases[c].grid);
            CHECK_INT(part.width, whole.width);
            CHECK_INT(part.height, whole.height);
            uint32_t w = whole.width, h = whole.height;
            uint32_t x0 = (uint32_t)(0.45f * w), x1 = (uint32_t)(0.6f * w + 0.999f);
            uint32_t y0 = (uint32_t)(0.45f * h), y1 = (uint32_t)(0.62f * h + 0.999f);
            int planes = cases[c].kind == CCORE_JPEG_GRAY ? 1 : 3;
            for (int i = 0; i < planes; i++)
                if (!box_equal(&part, &whole, i, x0, x1, y0, y1))
                    ctest_fail(__FILE__, __LINE__, "case %zu scale %u plane %d: the box differs", c, scale, i);
            /* Rows above the box were not decoded (the other picture's are still there). */
            if (cases[c].grid) CHECK(!box_equal(&part, &whole, 0, 0, w, 0, h / 8));
            /* Nor columns beside it, when intervals are narrower than a row. */
            if (cases[c].grid && cases[c].interval < 11)
                CHECK(!box_equal(&part, &whole, 0, 0, w / 8, y0, y1));

            /* A band of luma across the frame as well, above the colour's: the box spans
             * both, the whole width. */
            REQUIRE(ccore_jpeg_decode(part_dec, other_restart, other_restart_size, scale, &stale) == 0);
            ccore_jpeg_rows with_luma = band;
            with_luma.luma_top = 0.3f;
            with_luma.luma_bottom = 0.4f;
            before = ccore_jpeg_box_decodes(part_dec);
            REQUIRE(ccore_jpeg_decode_part(part_dec, restart, restart_size, scale, &with_luma, &part) == 0);
            CHECK_INT(ccore_jpeg_box_decodes(part_dec) - before, cases[c].grid);
            uint32_t l0 = (uint32_t)(0.3f * h), l1 = (uint32_t)(0.4f * h + 0.999f);
            if (!box_equal(&part, &whole, 0, 0, w, l0, l1))
                ctest_fail(__FILE__, __LINE__, "case %zu scale %u: the luma band differs", c, scale);
            for (int i = 0; i < planes; i++)
                if (!box_equal(&part, &whole, i, x0, x1, y0, y1))
                    ctest_fail(__FILE__, __LINE__, "case %zu scale %u plane %d: the box differs", c, scale, i);
            if (cases[c].grid) CHECK(!box_equal(&part, &whole, 0, 0, w, 0, h / 8));
        }
        free(plain);
        free(restart);
        free(other);
        free(other_restart);
    }
    ccore_jpeg_destroy(whole_dec);
    ccore_jpeg_destroy(part_dec);
}

/* Where the markers cannot be trusted, the box is not cut from them: the frame is decoded
 * from the top as before, which finds the damage. Asking for luma, or for the whole width
 * from the top, never takes the box either. */
void test_jpeg_restart_box_falls_back(void) {
    enum { FW = 160, FH = 128 };
    uint8_t *plain = NULL, *restart = NULL;
    size_t plain_size = 0, restart_size = 0;
    REQUIRE(encode_pair(FW, FH, 3, CCORE_JPEG_420, 5, &plain, &plain_size, &restart, &restart_size) == 0);
    ccore_jpeg *dec = NULL;
    REQUIRE(ccore_jpeg_create(FW, FH, &dec) == 0);
    ccore_image im;
    const ccore_jpeg_rows band = {.colour_top = 0.5f, .colour_bottom = 0.7f, .colour_left = 0.5f, .colour_right = 0.8f};
    REQUIRE(ccore_jpeg_decode_part(dec, restart, restart_size, 2, &band, &im) == 0);
    CHECK_INT(ccore_jpeg_box_decodes(dec), 1);

    /* The luma of the top asked for too: decoded from the top. */
    const ccore_jpeg_rows with_luma = {.luma_bottom = 0.2f, .colour_top = 0.5f, .colour_bottom = 0.7f};
    REQUIRE(ccore_jpeg_decode_part(dec, restart, restart_size, 2, &with_luma, &im) == 0);
    /* A band from the top across the whole width: nothing to gain from the markers. */
    const ccore_jpeg_rows from_top = {.colour_top = 0, .colour_bottom = 0.4f};
    REQUIRE(ccore_jpeg_decode_part(dec, restart, restart_size, 2, &from_top, &im) == 0);
    CHECK_INT(ccore_jpeg_box_decodes(dec), 1);

    /* The third restart marker (RST2) renumbered: out of turn, so the frame is decoded
     * from the top, and libjpeg's resynchronization is reported as damage. */
    uint8_t *bad = malloc(restart_size);
    REQUIRE(bad != NULL);
    memcpy(bad, restart, restart_size);
    uint8_t *rst = memmem(bad, restart_size, "\xFF\xD2", 2);
    REQUIRE(rst != NULL);
    rst[1] = 0xD5;
    CHECK_INT(ccore_jpeg_decode_part(dec, bad, restart_size, 2, &band, &im), CCORE_E_CORRUPT);
    CHECK(strstr(ccore_jpeg_error_message(dec), "JPEG data") != NULL);
    CHECK_INT(ccore_jpeg_box_decodes(dec), 1);

    /* Cut off inside the box: no box, and the decode from the top runs out of data. */
    CHECK_INT(ccore_jpeg_decode_part(dec, restart, restart_size * 6 / 10, 2, &band, &im), CCORE_E_CORRUPT);
    CHECK_INT(ccore_jpeg_box_decodes(dec), 1);
    /* Cut off below the box: the box alone is whole, and decodes. */
    const ccore_jpeg_rows high = {.colour_top = 0.2f, .colour_bottom = 0.35f, .colour_left = 0.6f, .colour_right = 0.9f};
    CHECK_INT(ccore_jpeg_decode_part(dec, restart, restart_size * 6 / 10, 2, &high, &im), 0);
    CHECK_INT(ccore_jpeg_box_decodes(dec), 2);

    /* The decoder is sound after all that. */
    REQUIRE(ccore_jpeg_decode_part(dec, restart, restart_size, 2, &band, &im) == 0);
    CHECK_INT(ccore_jpeg_box_decodes(dec), 3);
    CHECK_INT(ccore_jpeg_set_restart_interval(restart, 0, 5, &bad, &restart_size), -EINVAL);
    free(bad);
    free(plain);
    free(restart);
    ccore_jpeg_destroy(dec);
}
