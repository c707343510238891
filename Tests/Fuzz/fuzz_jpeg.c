/* libFuzzer target: the JPEG decoder, on hostile bytes and on real JPEGs of
 * every size and subsampling.
 *
 * The first byte picks the mode and the scale:
 *  - bit 0 clear: the rest is a JPEG as read from a file or camera. The
 *    decoder is sized exactly to the size its header claims (the tightest
 *    fit, where padded planes overflowed before), then it decodes at the
 *    chosen scale, whole and then in part (the upper bits pick the rows).
 *  - bit 0 set: the next bytes give a width and height (1-64, odd ones
 *    included), a chroma subsampling (all six, 4:4:0 and 4:1:1 must be
 *    refused) and a quality; the rest paints the pixels. The image is encoded
 *    and decoded at every scale by a decoder sized exactly to it, and every
 *    decoded pixel is read, so a short plane shows up as an ASan report. The
 *    same image with a restart marker every few MCUs is then decoded in part,
 *    and the box asked for must equal the whole decode there (the decode from
 *    a box of restart intervals).
 * Any crash, hang, leak or sanitizer report is a bug; error codes are fine. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ccore/error.h"
#include "ccore/jpeg.h"

/* Decoding a claimed 8192x4882 frame of garbage is legal but slow; the size
 * checks themselves are exercised for any claim, only decodes stay small. */
enum { MAX_FUZZ_DECODE_PIXELS = 1 << 18 };

static volatile uint32_t sink;

/* Touches every pixel the decoder says it wrote. */
static void read_planes(const ccore_image *im) {
    uint32_t sum = 0;
    uint32_t cw = im->width, ch = im->height;
    if (im->format == CCORE_PIXEL_YUV420 || im->format == CCORE_PIXEL_YUV422P) cw = (cw + 1) / 2;
    if (im->format == CCORE_PIXEL_YUV420) ch = (ch + 1) / 2;
    for (uint32_t y = 0; y < im->height; y++)
        for (uint32_t x = 0; x < im->width; x++) sum += im->plane0[(size_t)y * im->stride0 + x];
    if (im->plane1 && im->plane2)
        for (uint32_t y = 0; y < ch; y++)
            for (uint32_t x = 0; x < cw; x++)
                sum += im->plane1[(size_t)y * im->stride1 + x] + im->plane2[(size_t)y * im->stride2 + x];
    sink = sum;
}

static void decode_exact(const uint8_t *jpeg, size_t size, uint32_t scale, uint8_t rows) {
    ccore_jpeg *probe = NULL;
    if (ccore_jpeg_create(1, 1, &probe) != 0) return;
    uint32_t w = 0, h = 0;
    int rc = ccore_jpeg_peek_size(probe, jpeg, size, &w, &h);
    ccore_jpeg_destroy(probe);
    if (rc != 0 || (uint64_t)w * h > MAX_FUZZ_DECODE_PIXELS) return;
    ccore_jpeg *dec = NULL;
    if (ccore_jpeg_create(w, h, &dec) != 0) return;
    ccore_image image;
    if (ccore_jpeg_decode(dec, jpeg, size, scale, &image) == 0) read_planes(&image);
    /* A partial decode stops early and leaves rows undecoded: the planes must stay sound.
     * Without luma and with columns, a frame with restart markers is decoded from a box. */
    float top = (float)(rows & 7) / 8, bottom = top + (float)(rows >> 3) / 4;
    ccore_jpeg_rows part = {.luma_bottom = (float)((rows >> 1) & 3) / 3, .colour_top = top, .colour_bottom = bottom};
    if (ccore_jpeg_decode_part(dec, jpeg, size, scale, &part, &image) == 0) read_planes(&image);
    ccore_jpeg_rows box = {.colour_top = top, .colour_bottom = bottom, .colour_left = (float)(rows & 3) / 5,
                           .colour_right = 0.6f + (float)((rows >> 2) & 3) / 10};
    if (ccore_jpeg_decode_part(dec, jpeg, size, scale, &box, &image) == 0) read_planes(&image);
    ccore_jpeg_destroy(dec);
}

/* Plane 0 of both decodes equal over the frame's fraction [x0, x1) x [y0, y1). */
static int luma_box_equal(const ccore_image *a, const ccore_image *b, float x0, float x1, float y0, float y1) {
    uint32_t l = (uint32_t)(x0 * (float)a->width), r = (uint32_t)ceilf(x1 * (float)a->width);
    uint32_t t = (uint32_t)(y0 * (float)a->height), bt = (uint32_t)ceilf(y1 * (float)a->height);
    if (r > a->width) r = a->width;
    if (bt > a->height) bt = a->height;
    for (uint32_t y = t; y < bt; y++)
        if (l < r && memcmp(a->plane0 + (size_t)y * a->stride0 + l, b->plane0 + (size_t)y * b->stride0 + l, r - l))
            return 0;
    return 1;
}

/* The JPEG with a restart marker every `interval` MCUs, decoded whole and in part at every
 * scale: the part asked for (a box of colour, a band of luma across) must be the whole's. */
static void check_restart_box(const uint8_t *jpeg, size_t size, uint32_t w, uint32_t h, uint32_t interval,
                              uint8_t pick) {
    uint8_t *marked = NULL;
    size_t marked_size = 0;
    if (ccore_jpeg_set_restart_interval(jpeg, size, interval, &marked, &marked_size) != 0) abort();
    ccore_jpeg *whole_dec = NULL, *part_dec = NULL;
    if (ccore_jpeg_create(w, h, &whole_dec) == 0 && ccore_jpeg_create(w, h, &part_dec) == 0) {
        float top = (float)(pick & 3) / 5, bottom = top + 0.2f + (float)((pick >> 2) & 3) / 8;
        float left = (float)((pick >> 4) & 3) / 5, right = left + 0.3f;
        float luma_top = (pick & 64) ? top / 2 : 0, luma_bottom = (pick & 64) ? top : 0;
        ccore_jpeg_rows part = {.luma_top = luma_top, .luma_bottom = luma_bottom, .colour_top = top,
                                .colour_bottom = bottom, .colour_left = left, .colour_right = right};
        for (uint32_t scale = 1; scale <= 8; scale *= 2) {
            ccore_image whole, some;
            if (ccore_jpeg_decode(whole_dec, marked, marked_size, scale, &whole) != 0) abort();
            if (ccore_jpeg_decode_part(part_dec, marked, marked_size, scale, &part, &some) != 0) abort();
            if (!luma_box_equal(&some, &whole, left, right > 1 ? 1 : right, top, bottom > 1 ? 1 : bottom)) abort();
            if ((pick & 64) && !luma_box_equal(&some, &whole, 0, 1, luma_top, luma_bottom)) abort();
        }
    }
    ccore_jpeg_destroy(whole_dec);
    ccore_jpeg_destroy(part_dec);
    free(marked);
}

static void encode_then_decode(const uint8_t *data, size_t size) {
    if (size < 4) return;
    uint32_t w = 1 + data[0] % 64, h = 1 + data[1] % 64;
    ccore_jpeg_subsampling subsampling = (ccore_jpeg_subsampling)(data[2] % 6);
    int quality = 1 + data[3] % 100;
    data += 4;
    size -= 4;
    uint8_t *rgb = malloc((size_t)w * h * 3);
    if (!rgb) return;
    for (size_t i = 0; i < (size_t)w * h * 3; i++) rgb[i] = size ? data[i % size] : (uint8_t)(i * 31);
    ccore_image image = {.format = CCORE_PIXEL_RGB24, .range = CCORE_RANGE_FULL, .width = w, .height = h,
                         .plane0 = rgb, .stride0 = w * 3};
    uint8_t *jpeg = NULL;
    size_t jpeg_size = 0;
    if (ccore_jpeg_encode_rgb(&image, quality, subsampling, &jpeg, &jpeg_size) == 0) {
        ccore_jpeg *dec = NULL;
        if (ccore_jpeg_create(w, h, &dec) == 0) {
            for (uint32_t scale = 1; scale <= 8; scale *= 2) {
                ccore_image out;
                int rc = ccore_jpeg_decode(dec, jpeg, jpeg_size, scale, &out);
                int refused = subsampling == CCORE_JPEG_440 || subsampling == CCORE_JPEG_411;
                if (refused ? rc != CCORE_E_UNSUPPORTED : rc != 0) abort(); /* a valid JPEG must decode */
                if (rc == 0) read_planes(&out);
            }
            ccore_jpeg_destroy(dec);
        }
        if (subsampling != CCORE_JPEG_440 && subsampling != CCORE_JPEG_411)
            check_restart_box(jpeg, jpeg_size, w, h, 1 + (uint32_t)(quality % 12), (uint8_t)(w * 7 + h));
        free(jpeg);
    }
    free(rgb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 2) return 0;
    if (data[0] & 1)
        encode_then_decode(data + 1, size - 1);
    else
        decode_exact(data + 1, size - 1, 1u << ((data[0] >> 1) & 3), data[0] >> 3);
    return 0;
}
