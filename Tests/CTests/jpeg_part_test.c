/* The libjpeg decoder against TurboJPEG's decode-to-planes (the decoder it replaced), bit
 * for bit; its partial decode (the rows asked for equal a whole decode's, damage below
 * them goes unread); and the processor measuring every MJPEG frame the same way whether it
 * decodes it whole (thumbnail frames) or in part. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <turbojpeg.h>

#include "ccore/error.h"
#include "ccore/jpeg.h"
#include "ccore/processor.h"
#include "ccore/roi.h"
#include "ctest.h"

/* The test picture's size: odd on purpose. */
#define PW 101
#define PH 67

static int encode(uint32_t w, uint32_t h, uint32_t seed, ccore_jpeg_subsampling subsampling, uint8_t **jpeg,
                  size_t *size) {
    return ctest_encode_textured(w, h, seed, subsampling, 90, jpeg, size);
}

/* Visible columns and rows of plane i of a w x h picture in `format`. */
static void plane_size(ccore_pixel_format format, int i, uint32_t w, uint32_t h, uint32_t *pw, uint32_t *ph) {
    *pw = w;
    *ph = h;
    if (i == 0) return;
    if (format == CCORE_PIXEL_YUV420 || format == CCORE_PIXEL_YUV422P) *pw = (w + 1) / 2;
    if (format == CCORE_PIXEL_YUV420) *ph = (h + 1) / 2;
}

static const uint8_t *plane_of(const ccore_image *im, int i, uint32_t *stride) {
    *stride = i == 0 ? im->stride0 : i == 1 ? im->stride1 : im->stride2;
    return i == 0 ? im->plane0 : i == 1 ? im->plane1 : im->plane2;
}

/* The same picture as a progressive JPEG, through TurboJPEG (the core's encoder writes baseline only). */
static int encode_progressive(uint32_t w, uint32_t h, uint32_t seed, ccore_jpeg_subsampling subsampling,
                              uint8_t **jpeg, size_t *size) {
    uint8_t *rgb = ctest_textured_rgb(w, h, seed);
    tjhandle tj = tjInitCompress();
    unsigned char *out = NULL;
    unsigned long out_size = 0;
    int rc = rgb && tj ? tjCompress2(tj, rgb, (int)w, 0, (int)h, TJPF_RGB, &out, &out_size, (int)subsampling, 90,
                                     TJFLAG_PROGRESSIVE)
                       : -1;
    if (rc == 0 && (*jpeg = malloc(out_size))) memcpy(*jpeg, out, out_size), *size = out_size;
    else rc = -1;
    tjFree(out);
    if (tj) tjDestroy(tj);
    free(rgb);
    return rc;
}

/* Each subsampling, baseline then progressive, through one decoder that lives across them all
 * (progressive JPEGs take libjpeg's whole-image buffers, which the decoder's own image
 * block does not serve: the two must work side by side). */
void test_jpeg_matches_turbojpeg(void) {
    const ccore_jpeg_subsampling kinds[] = {CCORE_JPEG_444, CCORE_JPEG_422, CCORE_JPEG_420, CCORE_JPEG_GRAY};
    const ccore_pixel_format formats[] = {CCORE_PIXEL_YUV444P, CCORE_PIXEL_YUV422P, CCORE_PIXEL_YUV420,
                                          CCORE_PIXEL_GRAY};
    ccore_jpeg *dec = NULL;
    REQUIRE(ccore_jpeg_create(PW, PH, &dec) == 0);
    tjhandle tj = tjInitDecompress();
    REQUIRE(tj != NULL);
    static uint8_t reference[3][(PW + 1) * (PH + 1)]; /* TurboJPEG pads planes to even sizes */
    for (int run = 0; run < 8; run++) {
        int k = run / 2, progressive = run % 2;
        uint8_t *jpeg = NULL;
        size_t size = 0;
        REQUIRE((progressive ? encode_progressive : encode)(PW, PH, (uint32_t)k, kinds[k], &jpeg, &size) == 0);
        /* Progressive: SOF2 (the frame header of a progressive JPEG) follows the tables. */
        if (progressive) CHECK(memmem(jpeg, size, "\xFF\xC2", 2) != NULL);
        for (uint32_t scale = 1; scale <= 8; scale *= 2) {
            int sw = (PW + (int)scale - 1) / (int)scale, sh = (PH + (int)scale - 1) / (int)scale;
            int tj_samp = (int)kinds[k];
            unsigned char *planes[3] = {reference[0], reference[1], reference[2]};
            int strides[3] = {tjPlaneWidth(0, sw, tj_samp), tjPlaneWidth(1, sw, tj_samp), tjPlaneWidth(2, sw, tj_samp)};
            REQUIRE(tjDecompressToYUVPlanes(tj, jpeg, (unsigned long)size, planes, sw, strides, sh, 0) == 0);
            ccore_image im;
            REQUIRE(ccore_jpeg_decode(dec, jpeg, size, scale, &im) == 0);
            CHECK_INT(im.format, formats[k]);
            CHECK_INT(im.width, sw);
            CHECK_INT(im.height, sh);
            int planes_n = kinds[k] == CCORE_JPEG_GRAY ? 1 : 3;
            uint32_t differing = 0;
            for (int i = 0; i < planes_n; i++) {
                uint32_t pw, ph, stride;
                plane_size(im.format, i, im.width, im.height, &pw, &ph);
                const uint8_t *ours = plane_of(&im, i, &stride);
                for (uint32_t y = 0; y < ph; y++)
                    differing += memcmp(ours + (size_t)y * stride, reference[i] + (size_t)y * (size_t)strides[i], pw) != 0;
            }
            CHECK_INT(differing, 0);
        }
        free(jpeg);
    }
    tjDestroy(tj);
    ccore_jpeg_destroy(dec);
}

/* Rows [from, to) of plane i equal in both decodes. */
static int rows_equal(const ccore_image *a, const ccore_image *b, int i, uint32_t from, uint32_t to) {
    uint32_t pw, ph, sa, sb;
    plane_size(a->format, i, a->width, a->height, &pw, &ph);
    const uint8_t *pa = plane_of(a, i, &sa), *pb = plane_of(b, i, &sb);
    for (uint32_t y = from; y < to && y < ph; y++)
        if (memcmp(pa + (size_t)y * sa, pb + (size_t)y * sb, pw) != 0) return 0;
    return 1;
}

void test_jpeg_partial_decode(void) {
    enum { FW = 160, FH = 128 };
    uint8_t *jpeg = NULL, *other = NULL;
    size_t size = 0, other_size = 0;
    REQUIRE(encode(FW, FH, 1, CCORE_JPEG_420, &jpeg, &size) == 0);
    REQUIRE(encode(FW, FH, 2, CCORE_JPEG_420, &other, &other_size) == 0);
    ccore_jpeg *whole_dec = NULL, *part_dec = NULL;
    REQUIRE(ccore_jpeg_create(FW, FH, &whole_dec) == 0);
    REQUIRE(ccore_jpeg_create(FW, FH, &part_dec) == 0);
    ccore_image whole, part, stale;
    REQUIRE(ccore_jpeg_decode(whole_dec, jpeg, size, 2, &whole) == 0);
    /* Another picture first, so rows the partial decode skips keep that one's pixels. */
    REQUIRE(ccore_jpeg_decode(part_dec, other, other_size, 2, &stale) == 0);
    ccore_jpeg_rows rows = {.luma_bottom = 0.25f, .colour_top = 0.5f, .colour_bottom = 0.625f};
    REQUIRE(ccore_jpeg_decode_part(part_dec, jpeg, size, 2, &rows, &part) == 0);
    CHECK_INT(part.width, whole.width);
    CHECK_INT(part.height, whole.height);
    uint32_t h = whole.height; /* 64 */
    CHECK(rows_equal(&part, &whole, 0, 0, h / 4));
    CHECK(rows_equal(&part, &whole, 0, h / 2, h * 5 / 8));
    CHECK(rows_equal(&part, &whole, 1, h / 4, h * 5 / 16));
    CHECK(rows_equal(&part, &whole, 2, h / 4, h * 5 / 16));
    /* Below the last row asked for (and its 8-row group), nothing was decoded. */
    CHECK(!rows_equal(&part, &whole, 0, h - 8, h));
    /* Chroma above the band was skipped too. */
    CHECK(!rows_equal(&part, &whole, 1, 0, 4));

    /* A frame cut off halfway: the top decodes, the whole frame is refused as before,
     * and a band below the cut is refused as well. */
    size_t cut = size / 2;
    ccore_jpeg_rows top = {.luma_bottom = 0.2f, .colour_top = 0.1f, .colour_bottom = 0.2f};
    CHECK_INT(ccore_jpeg_decode_part(part_dec, jpeg, cut, 2, &top, &part), 0);
    CHECK(rows_equal(&part, &whole, 0, 0, h / 5));
    CHECK_INT(ccore_jpeg_decode(part_dec, jpeg, cut, 2, &part), CCORE_E_CORRUPT);
    CHECK(strstr(ccore_jpeg_error_message(part_dec), "JPEG data") != NULL);
    ccore_jpeg_rows low = {.luma_bottom = 0.2f, .colour_top = 0.8f, .colour_bottom = 0.95f};
    CHECK_INT(ccore_jpeg_decode_part(part_dec, jpeg, cut, 2, &low, &part), CCORE_E_CORRUPT);
    CHECK_INT(ccore_jpeg_decode_part(part_dec, jpeg, size, 2, NULL, &part), -EINVAL);
    /* The decoder is sound after the failures. */
    REQUIRE(ccore_jpeg_decode_part(part_dec, jpeg, size, 2, &rows, &part) == 0);
    CHECK(rows_equal(&part, &whole, 0, 0, h / 4));
    free(jpeg);
    free(other);
    ccore_jpeg_destroy(whole_dec);
    ccore_jpeg_destroy(part_dec);
}

/* Every MJPEG sample, from a whole decode (thumbnail frames) or a partial one, equals what
 * the kernels measure on a whole decode of its frame: the ROIs' means, and the mean luma of
 * the frame's top half. Frames with restart markers too: their partial decodes start at a
 * box of their intervals, and their mean luma covers rows 0.3-0.5 of the height. */
void test_processor_mjpeg_every_frame_alike(void) {
    enum { FW = 320, FH = 240, FRAMES = 7 };
    for (int restarts = 0; restarts < 2; restarts++) {
        ccore_processor_config c = {.pixel_format = CCORE_PIXEL_NONE, .is_mjpeg = 1, .width = FW, .height = FH,
                                    .frame_interval_ns = 33333333, .thumbnail_width = 80, .thumbnail_height = 60,
                                    .thumbnail_every = 3, .min_roi_pixels = 8};
        ccore_processor *p = NULL;
        REQUIRE(ccore_processor_create(&c, &p) == 0);
        ccore_roi_set set = {.count = 3, .generation = 1, .skin = ccore_skin_bounds_all()};
        set.rects[0] = (ccore_rect){0.35f, 0.30f, 0.30f, 0.08f};
        set.rects[1] = (ccore_rect){0.30f, 0.45f, 0.12f, 0.10f};
        set.rects[2] = (ccore_rect){0.58f, 0.45f, 0.12f, 0.10f};
        REQUIRE(ccore_processor_set_rois(p, &set) == 0);
        ccore_jpeg *dec = NULL;
        REQUIRE(ccore_jpeg_create(FW, FH, &dec) == 0);
        int thumbnails = 0;
        for (uint32_t i = 0; i < FRAMES; i++) {
            uint8_t *jpeg = NULL, *marked = NULL;
            size_t size = 0, marked_size = 0;
            REQUIRE(encode(FW, FH, 10 + i, CCORE_JPEG_420, &jpeg, &size) == 0);
            /* 20 MCUs a row at 4:2:0: four intervals across. */
            if (restarts) {
                REQUIRE(ccore_jpeg_set_restart_interval(jpeg, size, 5, &marked, &marked_size) == 0);
                free(jpeg);
                jpeg = marked;
                size = marked_size;
            }
            ccore_frame f = {.sequence = i, .timestamp_ns = 1000 + (int64_t)i * 33333333, .jpeg = jpeg,
                             .jpeg_size = size};
            ccore_frame_sample s;
            REQUIRE(ccore_processor_process(p, &f, &s) == 1);
            thumbnails += (s.flags & CCORE_SAMPLE_THUMBNAIL) != 0;
            ccore_image whole;
            REQUIRE(ccore_jpeg_decode(dec, jpeg, size, s.decode_scale, &whole) == 0);
            ccore_roi_stats expected[CCORE_MAX_ROIS];
            REQUIRE(ccore_roi_measure(&whole, &set, expected) == 0);
            for (uint32_t r = 0; r < set.count; r++) {
                CHECK(expected[r].pixel_count > 0);
                CHECK(memcmp(&s.rois[r], &expected[r], sizeof expected[r]) == 0);
            }
            ccore_image band = whole;
            uint32_t top = restarts ? whole.height * 3 / 10 : 0, bottom = (whole.height + 1) / 2;
            band.plane0 += (size_t)top * whole.stride0;
            band.height = bottom - top;
            CHECK(s.mean_luma == ccore_image_mean_luma(&band));
            free(jpeg);
        }
        CHECK_INT(thumbnails, 3); /* frames 0, 3, 6: whole decodes; the other four partial */
        ccore_processor_counters counters;
        ccore_processor_get_counters(p, &counters);
        CHECK_INT(counters.box_decodes, restarts ? 4 : 0);
        ccore_jpeg_destroy(dec);
        ccore_processor_destroy(p);
    }
}
