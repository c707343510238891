/* Writes the fuzzers' seed corpus (committed in Tests/Fuzz/corpus/): small
 * valid inputs of every kind the readers take, at odd and 1-pixel sizes, so
 * mutation starts from every subsampling and edge instead of finding them.
 *   Usage: make-seeds DIR      (writes the videofile and jpeg folders in DIR) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ccore/image.h"
#include "ccore/jpeg.h"

static const struct { uint32_t w, h; } sizes[] = {{1, 1}, {1, 6}, {7, 1}, {5, 3}, {17, 9}};
static const char *subsampling_names[] = {"444", "422", "420", "gray", "440", "411"};

static void write_file(const char *dir, const char *name, const void *a, size_t na, const void *b, size_t nb) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(a, 1, na, f) != na || (nb && fwrite(b, 1, nb, f) != nb) || fclose(f) != 0) {
        fprintf(stderr, "make-seeds: cannot write %s\n", path);
        exit(1);
    }
}

/* A gradient with a warm patch, so the encoder has edges to code. */
static uint8_t *picture(uint32_t w, uint32_t h) {
    uint8_t *rgb = malloc((size_t)w * h * 3);
    if (!rgb) exit(1);
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            uint8_t *p = rgb + ((size_t)y * w + x) * 3;
            int warm = x * 2 > w / 2 && y * 2 > h / 2;
            p[0] = (uint8_t)(warm ? 200 : 40 + x * 7);
            p[1] = (uint8_t)(warm ? 130 : 60 + y * 5);
            p[2] = (uint8_t)(warm ? 100 : 90);
        }
    return rgb;
}

static void encode(uint32_t w, uint32_t h, int subsampling, uint8_t **out, size_t *size) {
    uint8_t *rgb = picture(w, h);
    ccore_image im = {.format = CCORE_PIXEL_RGB24, .width = w, .height = h, .plane0 = rgb, .stride0 = w * 3};
    if (ccore_jpeg_encode_rgb(&im, 75, (ccore_jpeg_subsampling)subsampling, out, size) != 0) {
        fprintf(stderr, "make-seeds: encoding %ux%u failed\n", w, h);
        exit(1);
    }
    free(rgb);
}

static void y4m_seed(const char *dir, const char *colorspace, ccore_pixel_format format, uint32_t w, uint32_t h) {
    char header[128], name[64];
    int n = snprintf(header, sizeof header, "YUV4MPEG2 W%u H%u F25:1 Ip A1:1 C%s\nFRAME\n", w, h, colorspace);
    size_t frame = (size_t)ccore_pixel_format_frame_size(format, w, h);
    uint8_t *pixels = malloc(frame * 2 + 6);
    if (!pixels) exit(1);
    for (size_t i = 0; i < frame; i++) pixels[i] = (uint8_t)(100 + i % 50);
    memcpy(pixels + frame, "FRAME\n", 6);
    memcpy(pixels + frame + 6, pixels, frame);
    snprintf(name, sizeof name, "y4m-%s-%ux%u", colorspace, w, h);
    write_file(dir, name, header, (size_t)n, pixels, frame * 2 + 6);
    free(pixels);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: make-seeds DIR\n");
        return 2;
    }
    char videos[400], jpegs[400], name[64];
    snprintf(videos, sizeof videos, "%s/videofile", argv[1]);
    snprintf(jpegs, sizeof jpegs, "%s/jpeg", argv[1]);
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        uint32_t w = sizes[s].w, h = sizes[s].h;
        y4m_seed(videos, "420jpeg", CCORE_PIXEL_YUV420, w, h);
        if (s % 2 == 0) y4m_seed(videos, "422", CCORE_PIXEL_YUV422P, w, h);
        if (s % 2 == 1) y4m_seed(videos, "444", CCORE_PIXEL_YUV444P, w, h);
        if (s == 3) y4m_seed(videos, "mono", CCORE_PIXEL_GRAY, w, h);
        for (int sub = 0; sub < 6; sub++) {
            uint8_t *jpeg;
            size_t size;
            encode(w, h, sub, &jpeg, &size);
            /* Videos: two frames of one subsampling, on the sizes where it pads. */
            if ((s + (size_t)sub) % 2 == 0) {
                snprintf(name, sizeof name, "mjpeg-%s-%ux%u", subsampling_names[sub], w, h);
                write_file(videos, name, jpeg, size, jpeg, size);
            }
            /* Decoder: the first byte picks the mode (bit 0 clear: decode these bytes) and the scale. */
            uint8_t mode = (uint8_t)(((s + (size_t)sub) % 4) << 1);
            snprintf(name, sizeof name, "decode-%s-%ux%u", subsampling_names[sub], w, h);
            write_file(jpegs, name, &mode, 1, jpeg, size);
            free(jpeg);
        }
    }
    /* Encode-then-decode mode: width, height, subsampling, quality, then pixels. */
    for (int sub = 0; sub < 6; sub++) {
        uint8_t params[] = {1, (uint8_t)(sub * 11), (uint8_t)(63 - sub * 9), (uint8_t)sub, 70, 12, 200, 33, 90};
        snprintf(name, sizeof name, "encode-%s", subsampling_names[sub]);
        write_file(jpegs, name, params, sizeof params, NULL, 0);
    }
    return 0;
}
