/* circadify-groundtruth: writes a ground-truth face video (Y4M or MJPEG) and
 * its truth JSON, for measuring the rPPG pipeline's accuracy. See
 * Tools/groundtruth/README.md. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "groundtruth.h"

static const char *prog = "circadify-groundtruth";

static void usage(FILE *to) {
    fprintf(to,
            "usage: %s -o FILE [--scenario NAME] [--seed N] [--format y4m|mjpeg] [--size WxH]\n"
            "                             [--fps X] [--duration S] [--hr BPM] [--rr PER_MIN] [--amplitude A]\n"
            "                             [--noise SIGMA] [--quality Q] [--restart N] [--truth PATH] [--threads N]\n"
            "                             [--variety] [--quiet]\n"
            "       %s --list\n"
            "       %s --frame INDEX -o FRAME.ppm [clip options]\n"
            "\n"
            "Writes a face video with a known pulse, breathing and motion, and the truth beside it\n"
            "(FILE with its extension replaced by .json, or --truth PATH).\n"
            "\n"
            "  --scenario NAME   still (default), motion, lighting, noise, jpeg, dark, lowfps, dropped,\n"
            "                    lowamp, nopulse, nopulse-motion, hard, autogain, mains-flicker, fast,\n"
            "                    slow, board; quality: too-dark, too-bright,\n"
            "                    uneven, flicker, head-moving, camera-shake, off-center, too-far,\n"
            "                    too-close, turned-away, occluded, two-faces, no-face (--list describes them)\n"
            "  --seed N          the person and the circumstances (default 1); same seed, same bytes\n"
            "  --format F        y4m or mjpeg; default from FILE's extension (.y4m, .mjpeg/.mjpg),\n"
            "                    else the scenario's (mjpeg for jpeg and hard, y4m otherwise)\n"
            "  --size WxH        frame size, even, 16-4096 (default 640x480)\n"
            "  --fps X           frame rate (default 30; 15 for lowfps)\n"
            "  --duration S      seconds (default 30)\n"
            "  --hr BPM          mean heart rate, 30-220 (default: from the seed, 55-100)\n"
            "  --rr PER_MIN      breathing rate, 4-60 (default: from the seed, 8-25)\n"
            "  --amplitude A     pulse: relative peak-to-peak green change of the skin (default:\n"
            "                    from the seed, 0.0025-0.004, times the scenario's factor)\n"
            "  --noise SIGMA     sensor noise in 8-bit levels (default 2; 7 for noise; 0 = none)\n"
            "  --quality Q       JPEG quality 1-100 (default 90; 55 for jpeg, 65 for hard)\n"
            "  --restart N       MJPEG: a restart marker every N MCUs, as many webcams send their frames\n"
            "                    (a Logitech C270: 10); default none\n"
            "  --threads N       rendering threads (default: one per CPU, at most 8)\n"
            "  --variety         the seed also varies the person (skin tone I-VI, face width, glasses,\n"
            "                    beard, backdrop) and the pulse wave's shape\n"
            "  --frame INDEX     write only that frame, as a binary PPM, to -o (to look at)\n",
            prog, prog, prog);
}

static int fail(const char *fmt, const char *a, const char *b) {
    fprintf(stderr, "%s: ", prog);
    fprintf(stderr, fmt, a, b);
    fprintf(stderr, "\n(see %s --help)\n", prog);
    return 2;
}

static int parse_double(const char *s, double *out) {
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end != '\0' || !isfinite(v)) return -1;
    *out = v;
    return 0;
}

static int parse_uint(const char *s, unsigned long max, unsigned long *out) {
    char *end = NULL;
    errno = 0;
    if (*s == '-' || *s == '+') return -1;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || end == s || *end != '\0' || v > max) return -1;
    *out = v;
    return 0;
}

typedef struct {
    int quiet, tty;
    double start;
} progress_state;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* On a terminal one line, rewritten every 2% of a long clip; into a log a
 * line every 25%. */
static void progress(void *user, uint32_t done, uint32_t total) {
    progress_state *p = user;
    if (p->quiet || total < 150) return;
    uint32_t parts = p->tty ? 50 : 4, step = total / parts ? total / parts : 1;
    if (done % step != 0 && done != total) return;
    double el = now() - p->start;
    fprintf(stderr, "%s%s: frame %u/%u (%3.0f%%), %.1f s%s", p->tty ? "\r" : "", prog, done, total,
            100.0 * done / total, el, p->tty && done != total ? "" : "\n");
}

/* FILE with its extension replaced by .json (or .json appended). */
static char *truth_path_for(const char *video) {
    size_t n = strlen(video);
    const char *slash = strrchr(video, '/'), *dot = strrchr(video, '.');
    if (dot && (!slash || dot > slash + 1)) n = (size_t)(dot - video);
    char *p = malloc(n + 6);
    if (!p) return NULL;
    memcpy(p, video, n);
    memcpy(p + n, ".json", 6);
    return p;
}

static int write_frame_ppm(const gt_options *o, unsigned long index, const char *path) {
    char msg[256];
    gt_clip *clip;
    int rc = gt_clip_create(o, &clip, msg, sizeof msg);
    if (rc < 0) {
        fprintf(stderr, "%s: %s\n", prog, msg);
        return rc == -EINVAL ? 2 : 1;
    }
    gt_clip_info info;
    gt_clip_get_info(clip, &info);
    if (index >= info.frame_count) {
        fprintf(stderr, "%s: --frame %lu is past the clip's last frame (%u)\n", prog, index, info.frame_count - 1);
        gt_clip_destroy(clip);
        return 2;
    }
    uint8_t *rgb = malloc((size_t)info.width * info.height * 3);
    FILE *f = NULL;
    rc = rgb ? gt_clip_render_rgb(clip, (uint32_t)index, rgb) : -ENOMEM;
    if (rc == 0 && !(f = fopen(path, "wb"))) {
        fprintf(stderr, "%s: cannot write %s: %s\n", prog, path, strerror(errno));
        rc = -errno;
    } else if (rc == 0) {
        fprintf(f, "P6\n%u %u\n255\n", info.width, info.height);
        size_t n = (size_t)info.width * info.height * 3;
        if (fwrite(rgb, 1, n, f) != n) rc = -EIO;
        if (fclose(f) != 0) rc = -EIO;
        if (rc) fprintf(stderr, "%s: writing %s failed\n", prog, path);
    } else {
        fprintf(stderr, "%s: rendering frame %lu failed (%d)\n", prog, index, rc);
    }
    free(rgb);
    gt_clip_destroy(clip);
    return rc ? 1 : 0;
}

int main(int argc, char **argv) {
    gt_options o;
    gt_options_init(&o);
    const char *out = NULL, *truth = NULL;
    int quiet = 0, have_frame = 0;
    unsigned long frame = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        }
        if (!strcmp(a, "--list")) {
            for (int s = 0; s < GT_SCENARIO_COUNT; s++)
                printf("%-15s %s\n", gt_scenario_name((gt_scenario)s), gt_scenario_description((gt_scenario)s));
            return 0;
        }
        if (!strcmp(a, "--variety")) {
            o.variety = 1;
            continue;
        }
        if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
            quiet = 1;
            continue;
        }
        if (a[0] != '-') return fail("unexpected argument '%s'%s", a, "");
        if (i + 1 >= argc) return fail("%s needs a value%s", a, "");
        const char *v = argv[++i];
        double d;
        unsigned long u;
        if (!strcmp(a, "-o") || !strcmp(a, "--output")) out = v;
        else if (!strcmp(a, "--truth")) truth = v;
        else if (!strcmp(a, "--scenario")) {
            if (gt_scenario_from_name(v, &o.scenario) < 0)
                return fail("unknown scenario '%s'%s (try --list)", v, "");
        } else if (!strcmp(a, "--seed")) {
            if (parse_uint(v, 0xFFFFFFFFul, &u) < 0) return fail("invalid --seed '%s'%s: 0 to 4294967295", v, "");
            o.seed = (uint32_t)u;
        } else if (!strcmp(a, "--format")) {
            if (!strcmp(v, "y4m")) o.format = GT_FORMAT_Y4M;
            else if (!strcmp(v, "mjpeg")) o.format = GT_FORMAT_MJPEG;
            else return fail("unknown --format '%s'%s: y4m or mjpeg", v, "");
        } else if (!strcmp(a, "--size")) {
            unsigned w, h;
            char extra;
            if (sscanf(v, "%ux%u%c", &w, &h, &extra) != 2) return fail("invalid --size '%s'%s: WIDTHxHEIGHT", v, "");
            o.width = w, o.height = h;
        } else if (!strcmp(a, "--fps")) {
            if (parse_double(v, &d) < 0 || d <= 0) return fail("invalid --fps '%s'%s", v, "");
            o.fps = (float)d;
        } else if (!strcmp(a, "--duration")) {
            if (parse_double(v, &d) < 0 || d <= 0) return fail("invalid --duration '%s'%s (seconds)", v, "");
            o.duration_s = (float)d;
        } else if (!strcmp(a, "--hr")) {
            if (parse_double(v, &d) < 0 || d <= 0) return fail("invalid --hr '%s'%s (beats per minute)", v, "");
            o.heart_rate_bpm = (float)d;
        } else if (!strcmp(a, "--rr")) {
            if (parse_double(v, &d) < 0 || d <= 0) return fail("invalid --rr '%s'%s (breaths per minute)", v, "");
            o.respiratory_rate = (float)d;
        } else if (!strcmp(a, "--amplitude")) {
            if (parse_double(v, &d) < 0 || d <= 0) return fail("invalid --amplitude '%s'%s (e.g. 0.003)", v, "");
            o.pulse_amplitude = (float)d;
        } else if (!strcmp(a, "--noise")) {
            if (parse_double(v, &d) < 0 || d < 0) return fail("invalid --noise '%s'%s (levels, 0 = none)", v, "");
            o.noise_sigma = (float)d;
        } else if (!strcmp(a, "--quality")) {
            if (parse_uint(v, 100, &u) < 0 || u < 1) return fail("invalid --quality '%s'%s: 1 to 100", v, "");
            o.jpeg_quality = (int)u;
        } else if (!strcmp(a, "--restart")) {
            if (parse_uint(v, 65535, &u) < 0) return fail("invalid --restart '%s'%s: MCUs, 0 (none) to 65535", v, "");
            o.restart_interval = (uint32_t)u;
        } else if (!strcmp(a, "--threads")) {
            if (parse_uint(v, 64, &u) < 0) return fail("invalid --threads '%s'%s: 0 (auto) to 64", v, "");
            o.threads = (uint32_t)u;
        } else if (!strcmp(a, "--frame")) {
            if (parse_uint(v, 0xFFFFFFFFul, &u) < 0) return fail("invalid --frame '%s'%s", v, "");
            frame = u, have_frame = 1;
        } else {
            return fail("unknown option '%s'%s", a, "");
        }
    }
    if (!out) return fail("no output file: give -o FILE%s%s", "", "");
    if (have_frame) return write_frame_ppm(&o, frame, out);

    char *truth_owned = NULL;
    if (!truth) truth = truth_owned = truth_path_for(out);
    if (!truth) return 1;
    if (o.format == GT_FORMAT_AUTO) o.format = gt_format_for_path(out, o.scenario);
    progress_state ps = {quiet, isatty(STDERR_FILENO), now()};
    o.progress = progress;
    o.progress_user = &ps;
    char msg[256] = "";
    gt_clip *clip = NULL;
    int rc = gt_clip_create(&o, &clip, msg, sizeof msg);
    if (rc == 0) rc = gt_clip_write_truth(clip, truth, msg, sizeof msg); /* quick: fail before the render */
    /* Then an older video of that name goes: a render stopped midway must not leave it
     * beside the new truth, a pair that looks whole (the new video is written as
     * OUT.part and renamed once whole). */
    if (rc == 0) rc = gt_remove_regular_file(out, msg, sizeof msg);
    if (rc == 0 && (rc = gt_clip_write_video(clip, out, msg, sizeof msg)) < 0) remove(truth);
    if (rc < 0) {
        fprintf(stderr, "%s: %s\n", prog, msg[0] ? msg : strerror(-rc));
        gt_clip_destroy(clip);
        free(truth_owned);
        return rc == -EINVAL ? 2 : 1;
    }
    if (!quiet) {
        gt_clip_info info;
        gt_clip_get_info(clip, &info);
        fprintf(stderr, "%s: wrote %s (%s, %u of %u frames, %ux%u at %g fps) and %s in %.2f s\n", prog, out,
                info.format == GT_FORMAT_MJPEG ? "MJPEG" : "Y4M", info.written_count, info.frame_count, info.width,
                info.height, info.fps, truth, now() - ps.start);
        if (info.pulse_present)
            fprintf(stderr, "%s: %s, seed %u: heart rate %.1f bpm, breathing %.1f /min, pulse amplitude %.2f%%\n",
                    prog, gt_scenario_name(o.scenario), o.seed, info.mean_heart_rate, info.respiratory_rate,
                    100 * info.pulse_amplitude);
        else
            fprintf(stderr, "%s: %s, seed %u: no pulse, breathing %.1f /min\n", prog, gt_scenario_name(o.scenario),
                    o.seed, info.respiratory_rate);
    }
    gt_clip_destroy(clip);
    free(truth_owned);
    return 0;
}
