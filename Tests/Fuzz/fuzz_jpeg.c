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
 *    decoded pixel is read, so a short plane shows up as an ASan report.
 * Any crash, hang, leak or sanitizer report is a bug; error codes are fine. */
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
    /* A partial decode stops early and leaves rows undecoded: the planes must stay sound. */
    float top = (float)(rows & 7) / 8, bottom = top + (float)(rows >> 3) / 4;
    ccore_jpeg_rows part = {.luma_bottom = (float)((rows >> 1) & 3) / 3, .colour_top = top, .colour_bottom = bottom};
    if (ccore_jpeg_decode_part(dec, jpeg, size, scale, &part, &image) == 0) read_planes(&image);
    ccore_jpeg_destroy(dec);
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
