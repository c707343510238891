/* c-pulse: the heart rate of a face video through the C core's API alone, no Swift.
 *
 *   c-pulse [--cascade FILE] [--fps N] [--method pos|green] VIDEO.y4m|VIDEO.mjpeg
 *
 * 1. The file source replays the video on its capture thread, one frame at a time in
 *    lockstep with this program, and publishes a luma thumbnail every third frame.
 * 2. The face cascade (OpenCV's trained LBP data from opencv-data) finds the face on the
 *    thumbnails, once a second; the forehead and both cheeks become the source's ROIs.
 * 3. Each sample carries the skin-masked mean colour of the ROIs; they are pooled into
 *    one RGB trace, resampled to the frame rate and turned into a pulse wave: POS (Wang et
 *    al. 2017) by default, or the plain green channel.
 * 4. The spectrum module (FFTW) gives the Welch PSD, its peak in 42-210 bpm and the SNR.
 *
 * It prints the heart rate with its SNR, or says why there is none (exit 1). A still
 * subject is what it is for: the SDK's tracker, quality checks and calibrated confidence
 * are in the Swift layer. */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ccore/cascade.h"
#include "ccore/error.h"
#include "ccore/source.h"
#include "ccore/spectrum.h"

#define DEFAULT_CASCADE "/usr/share/opencv4/lbpcascades/lbpcascade_frontalface.xml"
#define THUMB_SIZE 320
#define LOW_HZ 0.7f  /* 42 bpm */
#define HIGH_HZ 3.5f /* 210 bpm */

typedef struct {
    const char *video;
    const char *cascade;
    unsigned fps;
    int green;
    double min_snr_db;
} options;

/* The pooled colour of the ROIs, one entry per sample measured on our ROI set. */
typedef struct {
    double *t, *r, *g, *b;
    size_t count, capacity;
} trace;

/* Everything the face step needs, made once. */
typedef struct {
    ccore_cascade *cascade;
    ccore_face_detector *detector;
    uint8_t thumb[THUMB_SIZE * THUMB_SIZE];
    ccore_face face;          /* the face the ROIs were placed on, in thumbnail pixels */
    uint32_t thumb_w, thumb_h;
    uint32_t generation;      /* of the ROI set published last; 0 = none yet */
    uint64_t last_detection;  /* sequence of the thumbnail last searched */
} face_step;

static int usage(void) {
    fprintf(stderr, "usage: c-pulse [--cascade FILE] [--fps N] [--method pos|green] [--min-snr DB] VIDEO\n"
                    "  The heart rate of the face in a video, through the C core's API alone.\n"
                    "  --cascade  OpenCV face cascade (default " DEFAULT_CASCADE ")\n"
                    "  --fps      frame rate of a raw MJPEG file (default 30; Y4M files carry theirs)\n"
                    "  --method   pos (default) or green\n"
                    "  --min-snr  report a rate only at this SNR or above (default -3 dB)\n"
                    "  VIDEO is a Y4M file or raw MJPEG (concatenated JPEGs).\n");
    return 2;
}

static int parse(int argc, char **argv, options *o) {
    *o = (options){.cascade = DEFAULT_CASCADE, .fps = 30, .min_snr_db = -3};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--cascade") && v) {
            o->cascade = v, i++;
        } else if (!strcmp(a, "--fps") && v) {
            char *end;
            unsigned long fps = strtoul(v, &end, 10);
            if (*end || fps < 1 || fps > 999) return -1;
            o->fps = (unsigned)fps, i++;
        } else if (!strcmp(a, "--method") && v) {
            if (strcmp(v, "pos") && strcmp(v, "green")) return -1;
            o->green = !strcmp(v, "green"), i++;
        } else if (!strcmp(a, "--min-snr") && v) {
            char *end;
            o->min_snr_db = strtod(v, &end);
            if (*end || !isfinite(o->min_snr_db)) return -1;
            i++;
        } else if (a[0] == '-' || o->video) {
            return -1;
        } else {
            o->video = a;
        }
    }
    return o->video ? 0 : -1;
}

static int trace_append(trace *tr, double t, double r, double g, double b) {
    if (tr->count == tr->capacity) {
        size_t cap = tr->capacity ? 2 * tr->capacity : 1024;
        double *n[4];
        for (int k = 0; k < 4; k++) n[k] = malloc(cap * sizeof(double));
        if (!n[0] || !n[1] || !n[2] || !n[3]) {
            for (int k = 0; k < 4; k++) free(n[k]);
            return -ENOMEM;
        }
        double *old[4] = {tr->t, tr->r, tr->g, tr->b};
        for (int k = 0; k < 4; k++) {
            if (tr->count) memcpy(n[k], old[k], tr->count * sizeof(double));
            free(old[k]);
        }
        tr->t = n[0], tr->r = n[1], tr->g = n[2], tr->b = n[3], tr->capacity = cap;
    }
    tr->t[tr->count] = t, tr->r[tr->count] = r, tr->g[tr->count] = g, tr->b[tr->count] = b;
    tr->count++;
    return 0;
}

/* The skin pixels of all ROIs pooled: each ROI's mean weighted by its skin pixel count. */
static int pool(const ccore_frame_sample *s, double rgb[3]) {
    double weight = 0;
    rgb[0] = rgb[1] = rgb[2] = 0;
    for (uint32_t i = 0; i < s->roi_count && i < CCORE_MAX_ROIS; i++) {
        double w = s->rois[i].skin_fraction * s->rois[i].pixel_count;
        rgb[0] += w * s->rois[i].r, rgb[1] += w * s->rois[i].g, rgb[2] += w * s->rois[i].b;
        weight += w;
    }
    if (weight < 1) return 0;
    for (int k = 0; k < 3; k++) rgb[k] /= weight;
    return 1;
}

/* Forehead above the brows and a patch on each cheek, as fractions of the detector's
 * box (the layout the Swift SDK uses), normalized to the frame. */
static ccore_roi_set regions(const ccore_face *f, uint32_t w, uint32_t h, uint32_t generation) {
    static const float layout[3][4] = {{0.30f, 0.14f, 0.40f, 0.12f}, {0.17f, 0.48f, 0.20f, 0.18f},
                                       {0.63f, 0.48f, 0.20f, 0.18f}};
    ccore_roi_set set = {.count = 3, .generation = generation, .skin = ccore_skin_bounds_default()};
    for (int i = 0; i < 3; i++)
        set.rects[i] = (ccore_rect){(f->x + layout[i][0] * f->width) / w, (f->y + layout[i][1] * f->height) / h,
                                    layout[i][2] * f->width / w, layout[i][3] * f->height / h};
    return set;
}

/* On a new thumbnail, at most once a second: find the face; publish regions on it when
 * there are none yet or the face moved by more than a tenth of its width. */
static int find_face(face_step *fs, ccore_source *src, uint32_t fps) {
    uint32_t w, h;
    uint64_t seq;
    if (!ccore_source_take_thumbnail(src, fs->thumb, sizeof fs->thumb, &w, &h, &seq)) return 0;
    if (fs->generation && seq < fs->last_detection + fps) return 0;
    fs->last_detection = seq;
    ccore_face_params params;
    ccore_face_params_default(&params);
    params.min_face_size = (w < h ? w : h) / 5;
    ccore_face faces[4];
    uint32_t n = 0;
    int rc = ccore_face_detector_detect(fs->detector, fs->thumb, w, h, w, &params, faces, 4, &n);
    if (rc < 0) {
        fprintf(stderr, "c-pulse: face detection: %s\n", ccore_face_detector_error_message(fs->detector));
        return rc;
    }
    if (n == 0) return 0;
    const ccore_face *f = &faces[0]; /* largest first */
    if (fs->generation && abs(f->x - fs->face.x) * 10 <= fs->face.width &&
        abs(f->y - fs->face.y) * 10 <= fs->face.width && abs(f->width - fs->face.width) * 10 <= fs->face.width)
        return 0;
    fs->face = *f, fs->thumb_w = w, fs->thumb_h = h;
    ccore_roi_set set = regions(f, w, h, ++fs->generation);
    return ccore_source_set_rois(src, &set);
}

/* Runs the source to the end of the file, filling `tr`. */
static int collect(ccore_source *src, face_step *fs, uint32_t fps, trace *tr) {
    ccore_ring *ring = ccore_source_ring(src);
    struct pollfd pfd = {.fd = ccore_source_sample_fd(src), .events = POLLIN};
    ccore_frame_sample s;
    for (;;) {
        int got = 0;
        while (ccore_ring_pop(ring, &s)) {
            got = 1;
            double rgb[3];
            /* Samples measured on the regions of the face as last found (a moved face's old
             * regions would put a step into the trace). */
            if (fs->generation && s.roi_generation == fs->generation && pool(&s, rgb)) {
                int rc = trace_append(tr, s.timestamp_ns / 1e9, rgb[0], rgb[1], rgb[2]);
                if (rc < 0) return rc;
            }
            int rc = find_face(fs, src, fps);
            if (rc < 0) return rc;
            ccore_source_ack(src); /* lockstep: the next frame may come */
        }
        ccore_source_stats stats;
        ccore_source_get_stats(src, &stats);
        if (stats.state == CCORE_SOURCE_FAILED) {
            fprintf(stderr, "c-pulse: %s\n", ccore_source_error_message(src));
            return stats.error ? stats.error : -EIO;
        }
        if (stats.state == CCORE_SOURCE_FINISHED && !ccore_ring_count(ring)) return 0;
        if (got) continue;
        /* The ring is empty: sleep on the source's eventfd until samples arrive or it ends. */
        int ready = poll(&pfd, 1, 5000);
        if (ready == 0) {
            fprintf(stderr, "c-pulse: no sample for 5 s\n");
            return -ETIMEDOUT;
        }
        uint64_t drain;
        if (ready > 0 && (pfd.revents & POLLIN) && read(pfd.fd, &drain, sizeof drain) < 0 && errno != EAGAIN)
            return -errno;
    }
}

/* The trace on a uniform grid at `rate` Hz (linear interpolation; bridges dropped frames). */
static size_t resample(const trace *tr, double rate, float *out[3], size_t max) {
    size_t n = 0, j = 0;
    for (double t = tr->t[0]; t <= tr->t[tr->count - 1] && n < max; t = tr->t[0] + ++n / rate) {
        while (j + 1 < tr->count - 1 && tr->t[j + 1] <= t) j++;
        double span = tr->t[j + 1] - tr->t[j], a = span > 0 ? (t - tr->t[j]) / span : 0;
        if (a > 1) a = 1;
        out[0][n] = (float)(tr->r[j] + a * (tr->r[j + 1] - tr->r[j]));
        out[1][n] = (float)(tr->g[j] + a * (tr->g[j + 1] - tr->g[j]));
        out[2][n] = (float)(tr->b[j] + a * (tr->b[j + 1] - tr->b[j]));
    }
    return n;
}

/* POS: in each 1.6 s window, the colour normalised by its mean is projected on the plane
 * orthogonal to the skin tone, the two projections combined by the ratio of their
 * deviations (which cancels the specular and intensity changes), and overlap-added. */
static void pos(float *const rgb[3], size_t n, double rate, float *pulse) {
    size_t len = (size_t)lround(1.6 * rate);
    for (size_t i = 0; i < n; i++) pulse[i] = 0;
    for (size_t m = 0; m + len <= n; m++) {
        double mean[3] = {0, 0, 0};
        for (size_t i = m; i < m + len; i++)
            for (int k = 0; k < 3; k++) mean[k] += rgb[k][i] / (double)len;
        if (mean[0] <= 0 || mean[1] <= 0 || mean[2] <= 0) continue;
        double s1m = 0, s2m = 0, s1v = 0, s2v = 0;
        for (size_t i = m; i < m + len; i++) {
            double r = rgb[0][i] / mean[0], g = rgb[1][i] / mean[1], b = rgb[2][i] / mean[2];
            s1m += g - b, s2m += g + b - 2 * r;
        }
        s1m /= len, s2m /= len;
        for (size_t i = m; i < m + len; i++) {
            double r = rgb[0][i] / mean[0], g = rgb[1][i] / mean[1], b = rgb[2][i] / mean[2];
            s1v += (g - b - s1m) * (g - b - s1m), s2v += (g + b - 2 * r - s2m) * (g + b - 2 * r - s2m);
        }
        double alpha = s2v > 0 ? sqrt(s1v / s2v) : 0, hm = 0;
        for (size_t i = m; i < m + len; i++) {
            double r = rgb[0][i] / mean[0], g = rgb[1][i] / mean[1], b = rgb[2][i] / mean[2];
            hm += (g - b) + alpha * (g + b - 2 * r);
        }
        hm /= len;
        for (size_t i = m; i < m + len; i++) {
            double r = rgb[0][i] / mean[0], g = rgb[1][i] / mean[1], b = rgb[2][i] / mean[2];
            pulse[i] += (float)((g - b) + alpha * (g + b - 2 * r) - hm);
        }
    }
}

/* The heart rate from the pulse wave: the Welch PSD's peak in the band, then the half
 * frequency checked (a pulse wave's harmonic can outweigh its fundamental). */
static int heart_rate(const float *pulse, size_t n, double rate, float *bpm, float *snr_db) {
    ccore_spectrum_config c = {.sample_rate_hz = (float)rate, .overlap = 0.5f};
    c.segment_length = (uint32_t)lround(10 * rate); /* 10 s segments: 0.1 Hz resolution */
    if (c.segment_length > n) c.segment_length = (uint32_t)n;
    ccore_spectrum *spectrum = NULL;
    int rc = ccore_spectrum_create(&c, &spectrum);
    if (rc < 0) return rc;
    uint32_t bins = ccore_spectrum_bin_count(spectrum);
    float *psd = malloc(bins * sizeof *psd);
    ccore_spectral_peak peak, half;
    if (!psd) rc = -ENOMEM;
    if (rc == 0) rc = ccore_spectrum_welch(spectrum, pulse, (uint32_t)n, psd, bins);
    if (rc == 0) rc = ccore_spectrum_peak(spectrum, psd, LOW_HZ, HIGH_HZ, &peak);
    if (rc == 0) {
        float f = peak.frequency_hz / 2;
        if (f >= LOW_HZ && ccore_spectrum_peak(spectrum, psd, fmaxf(f - 0.1f, LOW_HZ), f + 0.1f, &half) == 0 &&
            half.power >= 0.5f * peak.power)
            peak = half;
        *bpm = peak.frequency_hz * 60;
        *snr_db = ccore_spectrum_snr_db(spectrum, psd, peak.frequency_hz, LOW_HZ, HIGH_HZ);
    }
    free(psd);
    ccore_spectrum_destroy(spectrum);
    return rc;
}

static int fail(const char *what, int rc, const char *detail) {
    fprintf(stderr, "c-pulse: %s: %s (%s)%s%s\n", what, ccore_error_string(rc), ccore_error_name(rc),
            detail && *detail ? ": " : "", detail ? detail : "");
    return 1;
}

int main(int argc, char **argv) {
    options o;
    if (parse(argc, argv, &o) < 0) return usage();

    char message[CCORE_SOURCE_MESSAGE_SIZE] = "";
    face_step fs = {0};
    int rc = ccore_cascade_load(o.cascade, &fs.cascade, message, sizeof message);
    if (rc < 0) return fail("face cascade", rc, message);
    if ((rc = ccore_face_detector_create(fs.cascade, THUMB_SIZE, THUMB_SIZE, &fs.detector)) < 0)
        return fail("face detector", rc, NULL);

    ccore_source_config config;
    ccore_source_config_init(&config);
    config.fps = o.fps;
    config.realtime = 0; /* as fast as we go ... */
    config.lockstep = 1; /* ... one frame at a time, so regions apply from the next frame */
    config.thumbnail_width = THUMB_SIZE;
    config.thumbnail_height = 0; /* fit the frame's aspect */
    config.thumbnail_every = 3;
    ccore_source *src = NULL;
    if ((rc = ccore_source_open_file(o.video, &config, &src, message, sizeof message)) < 0)
        return fail(o.video, rc, message);
    ccore_stream_format fmt;
    ccore_source_get_format(src, &fmt);
    double rate = (double)fmt.interval_denominator / fmt.interval_numerator;

    trace tr = {0};
    if ((rc = ccore_source_start(src)) == 0) rc = collect(src, &fs, (uint32_t)lround(rate), &tr);
    ccore_source_stats stats;
    ccore_source_get_stats(src, &stats);
    ccore_source_destroy(src);
    ccore_face_detector_destroy(fs.detector);
    ccore_cascade_destroy(fs.cascade);
    if (rc < 0) return fail(o.video, rc, NULL);
    if (!fs.generation) {
        fprintf(stderr, "c-pulse: no face found in %llu frames\n", (unsigned long long)stats.frames);
        return 1;
    }
    double seconds = tr.count > 1 ? tr.t[tr.count - 1] - tr.t[0] : 0;
    if (seconds < 5) {
        fprintf(stderr, "c-pulse: only %.1f s of skin samples on the face; at least 5 s are needed\n", seconds);
        return 1;
    }

    size_t max = (size_t)(seconds * rate) + 2, n;
    float *rgb[3], *pulse = malloc(max * sizeof(float));
    for (int k = 0; k < 3; k++) rgb[k] = malloc(max * sizeof(float));
    if (!pulse || !rgb[0] || !rgb[1] || !rgb[2]) return fail("memory", -ENOMEM, NULL);
    n = resample(&tr, rate, rgb, max);
    if (o.green)
        memcpy(pulse, rgb[1], n * sizeof(float)); /* Welch removes each segment's mean */
    else
        pos(rgb, n, rate, pulse);
    float bpm = 0, snr = 0;
    rc = heart_rate(pulse, n, rate, &bpm, &snr);
    if (rc == -ENODATA) {
        fprintf(stderr, "c-pulse: the pulse band holds no power: no pulse in this video\n");
        return 1;
    }
    if (rc < 0) return fail("spectrum", rc, NULL);
    /* No calibrated confidence here (that is the Swift layer's): a plain SNR floor. On
     * generated 20 s clips pulse-free faces read -6 to -3.4 dB, faces with a pulse -2.4 to
     * +6 dB (darker skin lower, about -4), so below -3 dB the peak is as likely noise. */
    if (!(snr >= o.min_snr_db)) {
        fprintf(stderr, "c-pulse: no reliable pulse: the strongest peak (%.1f bpm) has an SNR of %.1f dB, below %.1f dB\n",
                bpm, snr, o.min_snr_db);
        return 1;
    }

    printf("heart rate  %.1f bpm\n", bpm);
    printf("SNR         %.1f dB (de Haan & Jeanne)\n", snr);
    printf("signal      %s on the forehead and both cheeks, %zu samples over %.1f s at %.0f fps\n",
           o.green ? "green" : "POS", n, seconds, rate);
    printf("video       %ux%u, %llu frames (%llu dropped, %llu corrupt); face %dx%d at (%d, %d) on the %ux%u thumbnail\n",
           fmt.width, fmt.height, (unsigned long long)stats.frames, (unsigned long long)stats.dropped,
           (unsigned long long)stats.error_frames, fs.face.width, fs.face.height, fs.face.x, fs.face.y, fs.thumb_w,
           fs.thumb_h);
    for (int k = 0; k < 3; k++) free(rgb[k]);
    free(pulse);
    free(tr.t), free(tr.r), free(tr.g), free(tr.b);
    return 0;
}
