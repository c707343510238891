/* ccore-facebench: the C core's face detector on grey PGM images, timed.
 *
 *   ccore-facebench --cascade XML [--scale F] [--neighbours N] [--min-size PX]
 *                   [--runs N] IMAGE.pgm...
 *
 * Prints one JSON object per image: the faces found (x, y, w, h, neighbours)
 * and the median wall time of one detect call over --runs calls. The Python
 * side of Tools/bench/faces-vs-opencv.sh writes the PGM files, so both
 * detectors see identical pixels. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ccore/cascade.h"
#include "ccore/error.h"

enum { MAX_FACES = 64, MAX_RUNS = 10000 };

typedef struct {
    uint32_t width, height;
    uint8_t *pixels;
} grey_image;

/* Binary PGM (P5, maxval 255) with optional comment lines in the header. */
static int read_pgm(const char *path, grey_image *out) {
    FILE *f = fopen(path, "rb");
    if (!f) return -errno;
    unsigned w = 0, h = 0, maxval = 0;
    int c;
    char magic[3] = {0};
    int ok = fread(magic, 1, 2, f) == 2 && strcmp(magic, "P5") == 0;
    unsigned *fields[3] = {&w, &h, &maxval};
    for (int i = 0; ok && i < 3; i++) {
        while ((c = fgetc(f)) == '#' || c == ' ' || c == '\n' || c == '\r' || c == '\t')
            if (c == '#')
                while ((c = fgetc(f)) != '\n' && c != EOF) {}
        ungetc(c, f);
        ok = fscanf(f, "%u", fields[i]) == 1;
    }
    ok = ok && fgetc(f) != EOF && maxval == 255 && w > 0 && h > 0 && w <= 8192 && h <= 8192;
    uint8_t *pixels = ok ? malloc((size_t)w * h) : NULL;
    ok = pixels && fread(pixels, 1, (size_t)w * h, f) == (size_t)w * h;
    fclose(f);
    if (!ok) {
        free(pixels);
        return CCORE_E_CORRUPT;
    }
    *out = (grey_image){w, h, pixels};
    return 0;
}

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int usage(void) {
    fprintf(stderr, "usage: ccore-facebench --cascade XML [--scale F] [--neighbours N] [--min-size PX] [--runs N] "
                    "IMAGE.pgm...\n");
    return 2;
}

int main(int argc, char **argv) {
    const char *cascade_path = NULL;
    ccore_face_params params;
    ccore_face_params_default(&params);
    int runs = 20, first_image = argc;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--cascade") == 0 && i + 1 < argc)
            cascade_path = argv[++i];
        else if (strcmp(argv[i], "--scale") == 0 && i + 1 < argc)
            params.scale_factor = atof(argv[++i]);
        else if (strcmp(argv[i], "--neighbours") == 0 && i + 1 < argc)
            params.min_neighbours = (uint32_t)atoi(argv[++i]);
        else if (strcmp(argv[i], "--min-size") == 0 && i + 1 < argc)
            params.min_face_size = (uint32_t)atoi(argv[++i]);
        else if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc)
            runs = atoi(argv[++i]);
        else if (argv[i][0] == '-')
            return usage();
        else {
            first_image = i;
            break;
        }
    }
    if (!cascade_path || first_image >= argc || runs < 1 || runs > MAX_RUNS) return usage();
    char message[512];
    ccore_cascade *cascade;
    int rc = ccore_cascade_load(cascade_path, &cascade, message, sizeof message);
    if (rc) {
        fprintf(stderr, "ccore-facebench: %s [%s]\n", message, ccore_error_name(rc));
        return 1;
    }
    static double times[MAX_RUNS];
    for (int i = first_image; i < argc; i++) {
        grey_image image;
        if ((rc = read_pgm(argv[i], &image))) {
            fprintf(stderr, "ccore-facebench: %s: not a readable 8-bit binary PGM\n", argv[i]);
            return 1;
        }
        ccore_face_detector *detector;
        if ((rc = ccore_face_detector_create(cascade, image.width, image.height, &detector))) {
            fprintf(stderr, "ccore-facebench: detector: %s\n", ccore_error_string(rc));
            return 1;
        }
        ccore_face faces[MAX_FACES];
        uint32_t count = 0;
        for (int r = 0; r < runs && rc == 0; r++) {
            double start = now_ms();
            rc = ccore_face_detector_detect(detector, image.pixels, image.width, image.height, image.width, &params,
                                            faces, MAX_FACES, &count);
            times[r] = now_ms() - start;
        }
        if (rc) {
            fprintf(stderr, "ccore-facebench: %s: %s\n", argv[i], ccore_face_detector_error_message(detector));
            return 1;
        }
        qsort(times, (size_t)runs, sizeof *times, by_value);
        printf("{\"image\": \"%s\", \"width\": %u, \"height\": %u, \"median_ms\": %.4f, \"faces\": [", argv[i],
               image.width, image.height, times[runs / 2]);
        for (uint32_t k = 0; k < count; k++)
            printf("%s[%d, %d, %d, %d, %d]", k ? ", " : "", faces[k].x, faces[k].y, faces[k].width, faces[k].height,
                   faces[k].neighbours);
        printf("]}\n");
        ccore_face_detector_destroy(detector);
        free(image.pixels);
    }
    ccore_cascade_destroy(cascade);
    return 0;
}
