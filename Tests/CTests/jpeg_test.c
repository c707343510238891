/* JPEG through TurboJPEG: an image of four flat colour blocks survives encode and decode
 * (full and reduced scale) with its colours; damaged data is refused, never misread. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ccore/error.h"
#include "ccore/jpeg.h"
#include "ccore/roi.h"
#include "alloc_count.h"
#include "ctest.h"

#define W 128
#define H 96

static const uint8_t colours[4][3] = {{200, 40, 40}, {40, 200, 40}, {40, 40, 200}, {230, 180, 140}};

static uint8_t *blocks(void) {
    uint8_t *rgb = malloc(W * H * 3);
    if (!rgb) return NULL;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) memcpy(rgb + (y * W + x) * 3, colours[(y >= H / 2) * 2 + (x >= W / 2)], 3);
    return rgb;
}

static int encode(uint8_t **jpeg, size_t *size) {
    uint8_t *rgb = blocks();
    if (!rgb) return -1;
    ccore_image image;
    int rc = ccore_image_wrap_packed(&image, CCORE_PIXEL_RGB24, CCORE_RANGE_FULL, W, H, rgb);
    if (rc == 0) rc = ccore_jpeg_encode(&image, 95, jpeg, size);
    free(rgb);
    return rc;
}

/* The decoded colour at the centre of each block, against the block's colour. */
static void check_blocks(const ccore_image *img) {
    for (int b = 0; b < 4; b++) {
        uint32_t x = img->width / 4 + (b & 1) * img->width / 2, y = img->height / 4 + (b >> 1) * img->height / 2;
        uint32_t cx = x, cy = y;
        if (img->format == CCORE_PIXEL_YUV420) cx /= 2, cy /= 2;
        float rgb[3];
        ccore_ycbcr_to_rgb(img->plane0[y * img->stride0 + x], img->plane1[cy * img->stride1 + cx],
                           img->plane2[cy * img->stride2 + cx], img->range, rgb);
        for (int k = 0; k < 3; k++) CHECK_NEAR(rgb[k], colours[b][k], 6);
    }
}

void test_jpeg_round_trip(void) {
    uint8_t *jpeg = NULL;
    size_t size = 0;
    REQUIRE(encode(&jpeg, &size) == 0);
    CHECK(size > 100 && jpeg[0] == 0xFF && jpeg[1] == 0xD8);
    ccore_jpeg *dec = NULL;
    REQUIRE(ccore_jpeg_create(640, 480, &dec) == 0);
    uint32_t w = 0, h = 0;
    CHECK_INT(ccore_jpeg_peek_size(dec, jpeg, size, &w, &h), 0);
    CHECK_INT(w, W);
    CHECK_INT(h, H);
    ccore_image img;
    REQUIRE(ccore_jpeg_decode(dec, jpeg, size, 1, &img) == 0);
    CHECK_INT(img.width, W);
    CHECK_INT(img.height, H);
    CHECK_INT(img.format, CCORE_PIXEL_YUV420);
    CHECK_INT(img.range, CCORE_RANGE_FULL);
    check_blocks(&img);
    ccore_jpeg_destroy(dec);
    free(jpeg);
}

void test_jpeg_scaled_decode(void) {
    uint8_t *jpeg = NULL;
    size_t size = 0;
    REQUIRE(encode(&jpeg, &size) == 0);
    ccore_jpeg *dec = NULL;
    REQUIRE(ccore_jpeg_create(W, H, &dec) == 0);
    for (uint32_t scale = 2; scale <= 8; scale *= 2) {
        ccore_image img;
        REQUIRE(ccore_jpeg_decode(dec, jpeg, size, scale, &img) == 0);
        CHECK_INT(img.width, W / scale);
        CHECK_INT(img.height, H / scale);
        check_blocks(&img);
    }
    ccore_jpeg_destroy(dec);
    /* A decoder sized for smaller frames refuses this one rather than overrun its planes. */
    REQUIRE(ccore_jpeg_create(W / 2, H / 2, &dec) == 0);
    ccore_image img;
    CHECK(ccore_jpeg_decode(dec, jpeg, size, 1, &img) < 0);
    ccore_jpeg_destroy(dec);
    free(jpeg);
}

void test_jpeg_corrupt(void) {
    uint8_t *jpeg = NULL;
    size_t size = 0;
    REQUIRE(encode(&jpeg, &size) == 0);
    ccore_jpeg *dec = NULL;
    REQUIRE(ccore_jpeg_create(W, H, &dec) == 0);
    ccore_image img;
    /* Not a JPEG at all. */
    uint8_t junk[64];
    memset(junk, 0x5A, sizeof junk);
    CHECK_INT(ccore_jpeg_decode(dec, junk, sizeof junk, 1, &img), CCORE_E_CORRUPT);
    CHECK(ccore_jpeg_error_message(dec)[0] != '\0');
    /* Cut off in its header. */
    CHECK_INT(ccore_jpeg_decode(dec, jpeg, 40, 1, &img), CCORE_E_CORRUPT);
    /* After the failures the decoder still decodes a good frame. */
    CHECK_INT(ccore_jpeg_decode(dec, jpeg, size, 1, &img), 0);
    CHECK_INT(ccore_jpeg_create(CCORE_MAX_FRAME_SIDE + 1, 16, &(ccore_jpeg *){NULL}), -E2BIG);
    ccore_jpeg_destroy(dec);
    free(jpeg);
}

/* Decoding allocates nothing once the decoder has seen a frame: libjpeg's
 * working memory for each image comes from the decoder's block. Counted by the allocator
 * the benchmark interposes (Tools/bench/ccore-bench/alloc_count.c, linked into this
 * runner), over every scale, a partial decode and a failed one. */
void test_jpeg_steady_decodes_allocate_nothing(void) {
    if (!alloc_count_available()) {
        ctest_skip("allocations cannot be counted in this build (a sanitizer's allocator, or not glibc)");
        return;
    }
    uint8_t *jpeg = NULL;
    size_t size = 0;
    REQUIRE(encode(&jpeg, &size) == 0);
    ccore_jpeg *dec = NULL;
    REQUIRE(ccore_jpeg_create(640, 480, &dec) == 0);
    ccore_image img;
    alloc_report first, steady;
    alloc_count_reset();
    alloc_count_on();
    CHECK_INT(ccore_jpeg_decode(dec, jpeg, size, 1, &img), 0);
    alloc_count_off();
    alloc_count_read(&first);
    alloc_count_reset();
    alloc_count_on();
    for (uint32_t i = 0; i < 16; i++) CHECK_INT(ccore_jpeg_decode(dec, jpeg, size, 1u << (i % 4), &img), 0);
    const ccore_jpeg_rows part = {.luma_bottom = 0.5f, .colour_top = 0.2f, .colour_bottom = 0.4f};
    CHECK_INT(ccore_jpeg_decode_part(dec, jpeg, size, 2, &part, &img), 0);
    CHECK_INT(ccore_jpeg_decode(dec, jpeg, 40, 1, &img), CCORE_E_CORRUPT);
    CHECK_INT(ccore_jpeg_decode(dec, jpeg, size, 1, &img), 0);
    alloc_count_off();
    alloc_count_read(&steady);
    /* The first frame: libjpeg's own allocations, then the block that serves the rest. */
    CHECK(first.allocations >= 1);
    CHECK_INT(steady.allocations, 0);
    CHECK_INT(steady.frees, 0);
    check_blocks(&img);
    ccore_jpeg_destroy(dec);
    free(jpeg);
}
