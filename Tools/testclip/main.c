/* ccore-testclip: writes a synthetic test clip (a skin-toned face shape on a
 * background, its colour pulsing at a given heart rate, with sensor noise)
 * as Y4M, MJPEG, raw YUYV or raw RGB24. It feeds the demo, the tests and the
 * benchmark with known input; the ground-truth face video generator of the
 * signal work is a separate tool. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ccore/jpeg.h"

typedef enum { OUT_Y4M420, OUT_Y4M422, OUT_Y4M444, OUT_MJPEG, OUT_YUYV, OUT_RGB } out_kind;

typedef struct {
    out_kind kind;
    uint32_t width, height, frames, fps, quality;
    double bpm, amplitude, noise;
    const char *path;
} options;

static void usage(void) {
    fprintf(stderr,
            "usage: ccore-testclip -o FILE [--format y4m|y4m422|y4m444|mjpeg|yuyv|rgb] [--size WxH]\n"
            "                      [--frames N] [--fps N] [--bpm X] [--amplitude A] [--noise SIGMA] [--quality Q]\n"
            "  Writes a synthetic pulsing-face clip. Defaults: y4m, 320x240, 150 frames, 30 fps, 72 bpm,\n"
            "  pulse amplitude 0.01 (relative), noise sigma 2 levels, JPEG quality 85.\n");
}

/* Deterministic Gaussian noise (xorshift + Box-Muller), so clips are reproducible. */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static double uniform01(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return ((rng_state >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}
static double gaussian(void) { return sqrt(-2.0 * log(uniform01())) * cos(2.0 * M_PI * uniform01()); }

static uint8_t clamp8(double v) { return v < 0 ? 0 : v > 255 ? 255 : (uint8_t)lrint(v); }

/* Pulse shape: fundamental plus a weaker second harmonic (a systolic peak). */
static double pulse(double t, double bpm) {
    double phase = 2.0 * M_PI * bpm / 60.0 * t;
    return 0.8 * sin(phase) + 0.2 * sin(2 * phase + 0.6);
}

static void render(const options *o, uint32_t index, uint8_t *rgb) {
    double t = (double)index / o->fps, p = pulse(t, o->bpm);
    /* Skin reflects the pulse most in green, then blue, then red. */
    const double skin[3] = {196, 142, 112}, weight[3] = {0.33, 0.77, 0.53};
    double cx = 0.5 * o->width, cy = 0.45 * o->height, rx = 0.2 * o->width, ry = 0.32 * o->height;
    for (uint32_t y = 0; y < o->height; y++) {
        for (uint32_t x = 0; x < o->width; x++) {
            double dx = (x - cx) / rx, dy = (y - cy) / ry, d = dx * dx + dy * dy;
            double c[3];
            if (d <= 1.0) {
                double shade = 1.0 - 0.15 * d;
                for (int k = 0; k < 3; k++) c[k] = skin[k] * shade * (1.0 + o->amplitude * weight[k] * p);
            } else {
                double g = 60 + 60.0 * y / o->height;
                c[0] = g * 0.8, c[1] = g * 0.9, c[2] = g * 1.1;
            }
            uint8_t *px = rgb + ((size_t)y * o->width + x) * 3;
            for (int k = 0; k < 3; k++) px[k] = clamp8(c[k] + o->noise * gaussian());
        }
    }
}

/* BT.601 studio-swing Y'CbCr, as cameras and Y4M files carry it. */
static void to_ycbcr(const uint8_t *p, double *y, double *cb, double *cr) {
    double r = p[0], g = p[1], b = p[2];
    *y = 16 + (65.481 * r + 128.553 * g + 24.966 * b) / 255.0;
    *cb = 128 + (-37.797 * r - 74.203 * g + 112.0 * b) / 255.0;
    *cr = 128 + (112.0 * r - 93.786 * g - 18.214 * b) / 255.0;
}

/* Writes the planes (or packed YUYV) of one frame; chroma averaged over each block. */
static int write_yuv(const options *o, const uint8_t *rgb, FILE *out, unsigned sx, unsigned sy, int packed) {
    uint32_t w = o->width, h = o->height, cw = (w + sx) >> sx, ch = (h + sy) >> sy;
    size_t n = (size_t)w * h;
    uint8_t *yp = malloc(n), *cbp = malloc((size_t)cw * ch), *crp = malloc((size_t)cw * ch);
    double *acc = calloc((size_t)cw * ch * 3, sizeof *acc);
    if (!yp || !cbp || !crp || !acc) return -ENOMEM;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            double Y, Cb, Cr;
            to_ycbcr(rgb + ((size_t)y * w + x) * 3, &Y, &Cb, &Cr);
            yp[(size_t)y * w + x] = clamp8(Y);
            size_t c = (size_t)(y >> sy) * cw + (x >> sx);
            acc[3 * c] += Cb, acc[3 * c + 1] += Cr, acc[3 * c + 2] += 1;
        }
    for (size_t c = 0; c < (size_t)cw * ch; c++) {
        cbp[c] = clamp8(acc[3 * c] / acc[3 * c + 2]);
        crp[c] = clamp8(acc[3 * c + 1] / acc[3 * c + 2]);
    }
    int rc = 0;
    if (packed) { /* YUYV: Y0 Cb Y1 Cr */
        for (uint32_t y = 0; y < h && rc == 0; y++)
            for (uint32_t x = 0; x < w; x += 2) {
                size_t c = (size_t)y * cw + (x >> 1);
                uint8_t q[4] = {yp[(size_t)y * w + x], cbp[c], yp[(size_t)y * w + (x + 1 < w ? x + 1 : x)], crp[c]};
                if (fwrite(q, 1, 4, out) != 4) rc = -EIO;
            }
    } else {
        if (fwrite(yp, 1, n, out) != n || fwrite(cbp, 1, (size_t)cw * ch, out) != (size_t)cw * ch ||
            fwrite(crp, 1, (size_t)cw * ch, out) != (size_t)cw * ch)
            rc = -EIO;
    }
    free(yp), free(cbp), free(crp), free(acc);
    return rc;
}

static int parse(int argc, char **argv, options *o) {
    *o = (options){.kind = OUT_Y4M420, .width = 320, .height = 240, .frames = 150, .fps = 30, .quality = 85,
                   .bpm = 72, .amplitude = 0.01, .noise = 2.0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) return 1;
        if (!v) return -1;
        i++;
        if (!strcmp(a, "-o")) o->path = v;
        else if (!strcmp(a, "--size")) { if (sscanf(v, "%ux%u", &o->width, &o->height) != 2) return -1; }
        else if (!strcmp(a, "--frames")) o->frames = (uint32_t)strtoul(v, NULL, 10);
        else if (!strcmp(a, "--fps")) o->fps = (uint32_t)strtoul(v, NULL, 10);
        else if (!strcmp(a, "--quality")) o->quality = (uint32_t)strtoul(v, NULL, 10);
        else if (!strcmp(a, "--bpm")) o->bpm = strtod(v, NULL);
        else if (!strcmp(a, "--amplitude")) o->amplitude = strtod(v, NULL);
        else if (!strcmp(a, "--noise")) o->noise = strtod(v, NULL);
        else if (!strcmp(a, "--format")) {
            if (!strcmp(v, "y4m")) o->kind = OUT_Y4M420;
            else if (!strcmp(v, "y4m422")) o->kind = OUT_Y4M422;
            else if (!strcmp(v, "y4m444")) o->kind = OUT_Y4M444;
            else if (!strcmp(v, "mjpeg")) o->kind = OUT_MJPEG;
            else if (!strcmp(v, "yuyv")) o->kind = OUT_YUYV;
            else if (!strcmp(v, "rgb")) o->kind = OUT_RGB;
            else return -1;
        } else return -1;
    }
    if (!o->path || o->width < 2 || o->height < 2 || o->width > 8192 || o->height > 8192 || o->fps == 0 ||
        o->quality < 1 || o->quality > 100 || (o->width & 1))
        return -1;
    return 0;
}

int main(int argc, char **argv) {
    options o;
    int p = parse(argc, argv, &o);
    if (p != 0) {
        usage();
        return p > 0 ? 0 : 2;
    }
    FILE *out = fopen(o.path, "wb");
    if (!out) {
        fprintf(stderr, "ccore-testclip: cannot write %s: %s\n", o.path, strerror(errno));
        return 1;
    }
    static const char *tags[] = {"C420jpeg", "C422", "C444"};
    if (o.kind <= OUT_Y4M444)
        fprintf(out, "YUV4MPEG2 W%u H%u F%u:1 Ip A1:1 %s\n", o.width, o.height, o.fps, tags[o.kind]);
    uint8_t *rgb = malloc((size_t)o.width * o.height * 3);
    if (!rgb) return 1;
    int rc = 0;
    for (uint32_t i = 0; i < o.frames && rc == 0; i++) {
        render(&o, i, rgb);
        switch (o.kind) {
        case OUT_Y4M420: fputs("FRAME\n", out); rc = write_yuv(&o, rgb, out, 1, 1, 0); break;
        case OUT_Y4M422: fputs("FRAME\n", out); rc = write_yuv(&o, rgb, out, 1, 0, 0); break;
        case OUT_Y4M444: fputs("FRAME\n", out); rc = write_yuv(&o, rgb, out, 0, 0, 0); break;
        case OUT_YUYV: rc = write_yuv(&o, rgb, out, 1, 0, 1); break;
        case OUT_RGB:
            if (fwrite(rgb, 1, (size_t)o.width * o.height * 3, out) != (size_t)o.width * o.height * 3) rc = -EIO;
            break;
        case OUT_MJPEG: {
            ccore_image im;
            ccore_image_wrap_packed(&im, CCORE_PIXEL_RGB24, CCORE_RANGE_FULL, o.width, o.height, rgb);
            uint8_t *jpeg;
            size_t size;
            rc = ccore_jpeg_encode(&im, (int)o.quality, &jpeg, &size);
            if (rc == 0) {
                if (fwrite(jpeg, 1, size, out) != size) rc = -EIO;
                free(jpeg);
            }
            break;
        }
        }
    }
    free(rgb);
    if (fclose(out) != 0 && rc == 0) rc = -EIO;
    if (rc != 0) {
        fprintf(stderr, "ccore-testclip: writing %s failed (%d)\n", o.path, rc);
        return 1;
    }
    return 0;
}
