/* The clip's physiology and circumstances, decided before any pixel: beat
 * times (mean rate, respiratory sinus arrhythmia, Mayer waves, beat-to-beat
 * jitter), the PPG waveform they drive, breathing, head motion, lighting and
 * dropped frames. Each comes from its own random stream of the seed, so the
 * same seed gives the same person in every scenario. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gt_internal.h"

enum {
    STREAM_PERSON = 1, STREAM_BEATS = 2, STREAM_MOTION = 3, STREAM_LIGHT = 4, STREAM_DROPS = 5, STREAM_QUALITY = 10,
    STREAM_MORPHOLOGY = 12, STREAM_CAMERA = 13, STREAM_RANGE = 14,
};

/* Seconds of beats generated before and after the clip, so the waveform
 * and the instantaneous heart rate are defined at both ends. */
#define MARGIN_S 3.0

/* ---- breathing ---------------------------------------------------------- */

typedef struct {
    double rate_hz;            /* mean */
    double var_depth, var_period, var_phase; /* slow rate variation */
    double depth_period, depth_phase;        /* slow depth variation */
    double phase0;
} breathing;

/* Breathing phase in radians: the integral of a rate that wanders +-6%
 * around its mean over 20-40 s. */
static double breath_phase(const breathing *b, double t) {
    double w = 2 * M_PI / b->var_period;
    return b->phase0 + 2 * M_PI * b->rate_hz *
                           (t - b->var_depth / w * (cos(w * t + b->var_phase) - cos(b->var_phase)));
}

/* Chest position in [-1, 1] (+1 = end of inhalation). Inhaling takes 40% of
 * the cycle, exhaling 60%; both halves are cosine arcs, so the wave and its
 * slope stay continuous. */
static double breath_wave(const breathing *b, double t) {
    double psi = fmod(breath_phase(b, t), 2 * M_PI);
    if (psi < 0) psi += 2 * M_PI;
    double theta = psi < 0.8 * M_PI ? psi / 0.8 : M_PI + (psi - 0.8 * M_PI) / 1.2;
    return -cos(theta) * (1 + 0.12 * sin(2 * M_PI * t / b->depth_period + b->depth_phase));
}

/* ---- PPG waveform ------------------------------------------------------- */

/* The shape of one person's pulse wave. Finger PPG shows a sharp systolic
 * peak, a dicrotic notch and a diastolic (reflected) wave; in older or stiffer
 * arteries and in the face's thinner, deeper-sampled skin the notch fades and
 * the wave rounds off, leaving fewer harmonics. */
typedef struct {
    double rise, fall;          /* systolic upstroke and run-off widths, s (at 0.85 s beats) */
    double notch_amp, notch_at; /* dicrotic / diastolic wave: height and delay, s */
    double tail_amp;            /* diastolic run-off */
    double beat_sd;             /* beat-to-beat amplitude variation (relative SD) */
} ppg_shape;

/* The template the generator has always used (a pronounced dicrotic wave). */
static const ppg_shape classic_shape = {0.055, 0.10, 0.42, 0.30, 0.22, 0};

static ppg_shape random_shape(gt_rng *r) {
    ppg_shape p;
    p.rise = gt_uniform_in(r, 0.045, 0.075);
    p.fall = gt_uniform_in(r, 0.08, 0.15);
    p.notch_amp = gt_uniform(r) < 0.3 ? 0 : gt_uniform_in(r, 0.1, 0.55); /* a third without a notch */
    p.notch_at = gt_uniform_in(r, 0.26, 0.34);
    p.tail_amp = gt_uniform_in(r, 0.08, 0.30);
    p.beat_sd = gt_uniform_in(r, 0.03, 0.12);
    return p;
}

/* Blood volume of one beat, `tau` seconds after its systolic peak: a fast
 * systolic upstroke and peak, the dicrotic notch, the diastolic (reflected)
 * wave and the diastolic run-off -- a sum of three Gaussians, the first one
 * asymmetric. Timing stretches mildly with the beat's interval. */
static double ppg_beat(const ppg_shape *p, double tau, double ibi) {
    double s = sqrt(ibi / 0.85);
    double sys_sigma = tau < 0 ? p->rise : p->fall * s;
    double a = tau / sys_sigma;
    double d = (tau - p->notch_at * s) / (0.075 * s);
    double r = (tau - (p->notch_at + 0.12) * s) / (0.20 * s);
    return exp(-0.5 * a * a) + p->notch_amp * exp(-0.5 * d * d) + p->tail_amp * exp(-0.5 * r * r);
}

/* `gains`: each beat's amplitude (NULL: all 1). */
static double ppg_at(const ppg_shape *p, const double *beats, const double *gains, size_t n, double t,
                     size_t *cursor) {
    /* Beats are sorted; start a little before t. */
    size_t i = *cursor;
    while (i + 1 < n && beats[i + 1] < t - 1.5) i++;
    *cursor = i;
    double v = 0;
    for (size_t k = i; k < n && beats[k] < t + 1.0; k++) {
        double ibi = k + 1 < n ? beats[k + 1] - beats[k] : beats[k] - beats[k - 1];
        v += (gains ? gains[k] : 1) * ppg_beat(p, t - beats[k], ibi);
    }
    return v;
}

/* Peak-to-peak of a steady train at `ibi`, to normalise the waveform. */
static double ppg_span(const ppg_shape *p, double ibi) {
    double lo = 1e9, hi = -1e9;
    for (double t = 0; t < ibi; t += 0.001) {
        double v = 0;
        for (int k = -4; k <= 4; k++) v += ppg_beat(p, t - k * ibi, ibi);
        if (v < lo) lo = v;
        if (v > hi) hi = v;
    }
    return hi - lo;
}

/* ---- beats -------------------------------------------------------------- */

/* Beat times with respiratory sinus arrhythmia (faster on inhalation),
 * a ~0.1 Hz Mayer wave and white beat-to-beat jitter; then rescaled so the
 * beats inside the clip average exactly the requested rate. */
static int make_beats(gt_clip *c, const breathing *br, gt_rng *person) {
    double hr = c->heart_rate, T = c->duration;
    /* RSA is strongest for slow breathing: the baroreflex passes slow swings
     * and damps fast ones (2-5 bpm at 12 /min, less above). */
    double rsa = gt_uniform_in(person, 2.5, 6.0) / sqrt(1 + pow(br->rate_hz / 0.15, 2)) * 1.55; /* bpm, peak */
    double mayer = gt_uniform_in(person, 1.5, 3.0);        /* bpm, peak */
    double mayer_hz = gt_uniform_in(person, 0.08, 0.12), mayer_phase = gt_uniform_in(person, 0, 2 * M_PI);
    double jitter = gt_uniform_in(person, 0.008, 0.025);   /* s, sd */
    gt_rng r = gt_rng_stream(c->opt.seed, STREAM_BEATS);

    size_t cap = (size_t)((T + 2 * MARGIN_S + 2) * 240 / 60) + 16, n = 0;
    double *ibi = malloc(cap * sizeof *ibi);
    c->beats = malloc((cap + 1) * sizeof *c->beats);
    if (!ibi || !c->beats) {
        free(ibi);
        return -ENOMEM;
    }
    double start = -MARGIN_S - gt_uniform(&r) * 60 / hr, t = start;
    while (t < T + MARGIN_S && n < cap) {
        double inst = hr + rsa * breath_wave(br, t) + mayer * sin(2 * M_PI * mayer_hz * t + mayer_phase);
        double j = gt_gauss(&r);
        j = j > 2.5 ? 2.5 : j < -2.5 ? -2.5 : j;
        double v = 60 / inst + jitter * j;
        if (v < 0.25) v = 0.25;
        ibi[n++] = v;
        t += v;
    }
    double k = 1;
    for (int iter = 0; iter < 6; iter++) {
        double first = -1, last = -1, tt = start;
        size_t inside = 0;
        for (size_t i = 0; i <= n; i++) {
            c->beats[i] = tt;
            if (tt >= 0 && tt <= T) {
                if (inside++ == 0) first = tt;
                last = tt;
            }
            if (i < n) tt += k * ibi[i];
        }
        if (inside < 2) break;
        k *= (60 / hr) / ((last - first) / (double)(inside - 1));
    }
    c->beat_count = n + 1;
    free(ibi);
    return 0;
}

/* ---- head motion -------------------------------------------------------- */

typedef struct {
    double t;     /* arrival at this pose */
    double hold;  /* stays this long before moving on */
    double p[4];  /* tx, ty (fractions of height), roll (rad), scale - 1 */
} keyframe;

/* `big` (+1 or -1; 0 for the motion scenarios): the head-moving scenario's
 * poses, two and a half times wider, swinging from one side to the other. */
static void random_pose(gt_rng *r, double *p, int big) {
    double k = big ? 2.5 : 1;
    p[0] = big ? big * gt_uniform_in(r, 0.03, 0.06) * k : gt_uniform_in(r, -0.06, 0.06);
    p[1] = k * gt_uniform_in(r, -0.035, 0.035);
    p[2] = k * gt_uniform_in(r, -4, 4) * M_PI / 180;
    p[3] = (big ? 1.6 : 1) * gt_uniform_in(r, -0.05, 0.05);
}

/* ---- capture-quality flaws ---------------------------------------------- */

/* What the quality scenarios add on top of the person, from their own
 * random stream (the person's numbers do not move). */
static void quality_flaws(gt_clip *c) {
    gt_rng r = gt_rng_stream(c->opt.seed, STREAM_QUALITY);
    const double T = c->duration, H = c->opt.height;
    switch (c->sc->quality) {
    case GTQ_FLICKER: {
        /* 100 Hz light (50 Hz mains) sampled at 30 fps aliases to 10 Hz: the
         * exposure integrates a different part of the ripple in each frame. */
        double phase = gt_uniform_in(&r, 0, 2 * M_PI);
        for (uint32_t i = 0; i < c->frame_count; i++) {
            float k = (float)(1 + 0.08 * sin(2 * M_PI * 10 * c->frames[i].t + phase));
            for (int ch = 0; ch < 3; ch++) c->frames[i].gain[ch] *= k;
        }
        break;
    }
    case GTQ_CAMERA_SHAKE: {
        /* A hand-held camera: two sinusoids per axis at 2-5 Hz, ~2% of the
         * height in all; whole pixels, so the backdrop moves exactly with it. */
        double a[2][2][3];
        for (int ax = 0; ax < 2; ax++)
            for (int k = 0; k < 2; k++) {
                a[ax][k][0] = 0.014 * H * gt_uniform_in(&r, 0.6, 1.0);
                a[ax][k][1] = gt_uniform_in(&r, 2, 5);
                a[ax][k][2] = gt_uniform_in(&r, 0, 2 * M_PI);
            }
        for (uint32_t i = 0; i < c->frame_count; i++) {
            gt_frame *f = &c->frames[i];
            double d[2] = {0, 0};
            for (int ax = 0; ax < 2; ax++)
                for (int k = 0; k < 2; k++) d[ax] += a[ax][k][0] * sin(2 * M_PI * a[ax][k][1] * f->t + a[ax][k][2]);
            f->shake_x = (int16_t)lround(d[0]), f->shake_y = (int16_t)lround(d[1]);
            f->tx += f->shake_x, f->ty += f->shake_y;
        }
        break;
    }
    case GTQ_TURNED_AWAY:
        /* cos(55 deg) = 0.57: the face's width foreshortens, its height does not. */
        for (uint32_t i = 0; i < c->frame_count; i++) c->frames[i].squeeze = 0.55f;
        break;
    case GTQ_OCCLUDED:
        for (uint32_t i = 0; i < c->frame_count; i++)
            c->frames[i].occluded = c->frames[i].t >= 0.2 * T && c->frames[i].t < 0.8 * T;
        break;
    default: break;
    }
}

/* ---- board cameras -------------------------------------------------------- */

/* Auto-exposure and auto-gain that cannot be locked (many UVC boards): the
 * camera re-decides 3-6 times a clip and steps its gain by 8-25% at once,
 * then hunts -- a damped overshoot of 3-8% over a second or two -- and
 * breathes slowly (+-2%) around its target. The sensor noise grows with the
 * gain. Auto white balance drifts the red and blue gains apart (+-3-5% over
 * tens of seconds) and re-converges by 1-3% when the exposure steps. */
static void camera_auto_gain(gt_clip *c) {
    gt_rng r = gt_rng_stream(c->opt.seed, STREAM_CAMERA);
    const double T = c->duration;
    int nsteps = 3 + (int)(gt_uniform(&r) * 4);
    double at[6], factor[6], hunt[6], tau[6], period[6], wb[6];
    for (int s = 0; s < nsteps; s++) {
        double lo = 0.08 + 0.84 * s / nsteps, hi = 0.08 + 0.84 * (s + 1) / nsteps;
        at[s] = T * gt_uniform_in(&r, lo, hi);
        double mag = gt_uniform_in(&r, 0.08, 0.25);
        factor[s] = gt_uniform(&r) < 0.5 ? 1 / (1 + mag) : 1 + mag;
        hunt[s] = gt_uniform_in(&r, 0.03, 0.08) * (gt_uniform(&r) < 0.5 ? -1 : 1);
        tau[s] = gt_uniform_in(&r, 0.4, 1.5);
        period[s] = gt_uniform_in(&r, 0.6, 2.0);
        wb[s] = gt_uniform_in(&r, -0.03, 0.03);
    }
    double slow_amp = gt_uniform_in(&r, 0.005, 0.02), slow_period = gt_uniform_in(&r, 5, 15);
    double slow_phase = gt_uniform_in(&r, 0, 2 * M_PI);
    double wb_amp = gt_uniform_in(&r, 0.03, 0.05), wb_period = gt_uniform_in(&r, 15, 40);
    double wb_phase = gt_uniform_in(&r, 0, 2 * M_PI);
    for (uint32_t i = 0; i < c->frame_count; i++) {
        gt_frame *f = &c->frames[i];
        double t = f->t, g = 1 + slow_amp * sin(2 * M_PI * t / slow_period + slow_phase);
        double warm = wb_amp * sin(2 * M_PI * t / wb_period + wb_phase);
        for (int s = 0; s < nsteps; s++) {
            if (t < at[s]) continue;
            double u = t - at[s];
            g *= factor[s] * (1 + hunt[s] * exp(-u / tau[s]) * cos(2 * M_PI * u / period[s]));
            warm += wb[s];
        }
        f->gain[0] *= (float)(g * (1 + warm));
        f->gain[1] *= (float)g;
        f->gain[2] *= (float)(g * (1 - warm));
        f->noise_gain = (float)g;
    }
}

/* Lamps on 50 or 60 Hz mains ripple at 100 or 120 Hz; a rolling shutter
 * reads each row a little later, so the ripple lies across the picture as
 * bands that move from frame to frame (beating with the frame rate: the
 * camera's clock and the grid are never exactly 30 Hz and 50 Hz). After the
 * exposure's averaging 2-8% of ripple is left. */
static void camera_mains_flicker(gt_clip *c) {
    gt_rng r = gt_rng_stream(c->opt.seed, STREAM_CAMERA + 100);
    double light_hz = (gt_uniform(&r) < 0.5 ? 100 : 120) * (1 + gt_uniform_in(&r, -0.002, 0.002));
    double clock = 1 + gt_uniform_in(&r, -0.001, 0.001); /* the camera's true frame interval, relative */
    double amp = gt_uniform_in(&r, 0.02, 0.08), phase = gt_uniform_in(&r, 0, 2 * M_PI);
    double readout = gt_uniform_in(&r, 0.5, 0.9) / c->opt.fps; /* top row to bottom row, s */
    for (uint32_t i = 0; i < c->frame_count; i++) {
        gt_frame *f = &c->frames[i];
        double t = f->t * clock;
        f->flicker_amp = (float)amp;
        f->flicker_phase = (float)fmod(2 * M_PI * light_hz * t + phase, 2 * M_PI);
        f->flicker_dphase = (float)(2 * M_PI * light_hz * readout / c->opt.height);
    }
}

/* ---- build -------------------------------------------------------------- */

int gt_signals_build(gt_clip *c, char *msg, size_t msg_size) {
    const gt_scenario_def *sc = c->sc;
    const double T = c->duration, H = c->opt.height;
    gt_rng person = gt_rng_stream(c->opt.seed, STREAM_PERSON);
    /* Draw every per-person number first and always, so options never shift them. */
    double hr_seed = gt_uniform_in(&person, 55, 100), rr_seed = gt_uniform_in(&person, 8, 25);
    if (sc->heart_range) {
        /* The ends of the range, from their own stream: fast 115-180, slow 45-55 bpm. */
        gt_rng rr = gt_rng_stream(c->opt.seed, STREAM_RANGE);
        hr_seed = sc->heart_range == 1 ? gt_uniform_in(&rr, 115, 180) : gt_uniform_in(&rr, 45, 55);
    }
    c->heart_rate = c->opt.heart_rate_bpm > 0 ? c->opt.heart_rate_bpm : hr_seed;
    breathing br = {
        .rate_hz = (c->opt.respiratory_rate > 0 ? c->opt.respiratory_rate : rr_seed) / 60.0,
        .var_depth = 0.06,
        .var_period = gt_uniform_in(&person, 20, 40),
        .var_phase = gt_uniform_in(&person, 0, 2 * M_PI),
        .depth_period = gt_uniform_in(&person, 15, 30),
        .depth_phase = gt_uniform_in(&person, 0, 2 * M_PI),
        .phase0 = gt_uniform_in(&person, 0, 2 * M_PI),
    };
    double breath_pp = gt_uniform_in(&person, 0.003, 0.010); /* head rise, fraction of height */
    c->respiratory_rate = 60 * (breath_phase(&br, T) - breath_phase(&br, 0)) / (2 * M_PI * T);

    int rc = make_beats(c, &br, &person);
    if (rc < 0) {
        gt_set_msg(msg, msg_size, "out of memory for the beat list");
        return rc;
    }

    c->frames = calloc(c->frame_count, sizeof *c->frames);
    if (!c->frames) {
        gt_set_msg(msg, msg_size, "out of memory for %u frames", c->frame_count);
        return -ENOMEM;
    }
    for (uint32_t i = 0; i < c->frame_count; i++) c->frames[i].t = i / (double)c->opt.fps;

    /* Pulse: PPG at each frame, 0-mean, unit peak-to-peak, its amplitude
     * modulated +-8% by breathing. */
    gt_rng morph = gt_rng_stream(c->opt.seed, STREAM_MORPHOLOGY);
    const ppg_shape shape = c->opt.variety ? random_shape(&morph) : classic_shape;
    double *beat_gain = NULL;
    if (sc->pulse && shape.beat_sd > 0) {
        /* Beat-to-beat amplitude: stroke volume varies, a little from beat to beat. */
        beat_gain = malloc(c->beat_count * sizeof *beat_gain);
        if (!beat_gain) return -ENOMEM;
        for (size_t k = 0; k < c->beat_count; k++) {
            double g = 1 + shape.beat_sd * gt_gauss(&morph);
            beat_gain[k] = g < 0.5 ? 0.5 : g > 1.5 ? 1.5 : g;
        }
    }
    if (sc->pulse) {
        double span = ppg_span(&shape, 60 / c->heart_rate), mean = 0;
        size_t cursor = 0;
        for (uint32_t i = 0; i < c->frame_count; i++) {
            double v = ppg_at(&shape, c->beats, beat_gain, c->beat_count, c->frames[i].t, &cursor);
            c->frames[i].pulse = (float)v;
            mean += v;
        }
        mean /= c->frame_count;
        for (uint32_t i = 0; i < c->frame_count; i++)
            c->frames[i].pulse = (float)((c->frames[i].pulse - mean) / span *
                                         (1 + 0.08 * breath_wave(&br, c->frames[i].t)));
    }
    free(beat_gain);

    /* Head: natural sway (three slow sinusoids per axis), breathing lift,
     * and for the motion scenarios smooth moves between random poses. */
    gt_rng mr = gt_rng_stream(c->opt.seed, STREAM_MOTION);
    const double sway_amp[4] = {0.0025, 0.0018, 0.25 * M_PI / 180, 0.0025};
    double sway[4][3][3]; /* axis, component, {amplitude, Hz, phase} */
    for (int a = 0; a < 4; a++)
        for (int k = 0; k < 3; k++) {
            sway[a][k][0] = sway_amp[a] * gt_uniform_in(&mr, 0.5, 1.0) / 1.8;
            sway[a][k][1] = gt_uniform_in(&mr, 0.05, 0.35);
            sway[a][k][2] = gt_uniform_in(&mr, 0, 2 * M_PI);
        }
    size_t nkeys = 0;
    keyframe *keys = NULL;
    const int big = sc->motion == 2; /* continuous: no pauses, a new pose every 0.5-0.9 s */
    if (sc->motion) {
        size_t cap = (size_t)(T / (big ? 0.5 : 1.2)) + 8;
        keys = malloc(cap * sizeof *keys);
        if (!keys) return -ENOMEM;
        double t = -1;
        while (nkeys < cap) {
            keyframe *k = &keys[nkeys++];
            k->t = t;
            k->hold = big ? 0 : gt_uniform_in(&mr, 0, 1.0);
            random_pose(&mr, k->p, big ? (nkeys % 2 ? 1 : -1) : 0);
            if (t > T) break;
            t += k->hold + (big ? gt_uniform_in(&mr, 0.5, 0.9) : gt_uniform_in(&mr, 1.2, 3.5));
        }
    }
    size_t key = 0;
    for (uint32_t i = 0; i < c->frame_count; i++) {
        gt_frame *f = &c->frames[i];
        double t = f->t, p[4] = {0, 0, 0, 0};
        for (int a = 0; a < 4; a++)
            for (int k = 0; k < 3; k++) p[a] += sway[a][k][0] * sin(2 * M_PI * sway[a][k][1] * t + sway[a][k][2]);
        if (nkeys >= 2) {
            while (key + 2 < nkeys && keys[key + 1].t <= t) key++;
            const keyframe *k0 = &keys[key], *k1 = &keys[key + 1];
            double u = (t - (k0->t + k0->hold)) / (k1->t - k0->t - k0->hold);
            u = u < 0 ? 0 : u > 1 ? 1 : u;
            double s = u * u * u * (10 - 15 * u + 6 * u * u); /* smootherstep: no jerk at either end */
            for (int a = 0; a < 4; a++) p[a] += k0->p[a] + (k1->p[a] - k0->p[a]) * s;
        }
        p[1] -= 0.5 * breath_pp * breath_wave(&br, t); /* inhaling lifts the head */
        f->tx = (float)(p[0] * H);
        f->ty = (float)(p[1] * H);
        f->rot = (float)p[2];
        f->scale = (float)(1 + p[3]);
        f->squeeze = c->look.face_width;
    }
    free(keys);

    /* Light: exposure per seed; the lighting scenarios drift +-15% over tens
     * of seconds, step 2-3 times by +-8-12% (a lamp, a cloud) and shift
     * colour temperature +-2%. Breathing shades the face by +-0.1%. */
    gt_rng lr = gt_rng_stream(c->opt.seed, STREAM_LIGHT);
    double exposure = gt_uniform_in(&lr, 0.94, 1.04) * (sc->lighting ? 0.92 : 1.0);
    double p1 = gt_uniform_in(&lr, 18, 40), p2 = gt_uniform_in(&lr, 7, 15), p3 = gt_uniform_in(&lr, 20, 45);
    double f1 = gt_uniform_in(&lr, 0, 2 * M_PI), f2 = gt_uniform_in(&lr, 0, 2 * M_PI), f3 = gt_uniform_in(&lr, 0, 2 * M_PI);
    int nsteps = gt_uniform(&lr) < 0.5 ? 2 : 3;
    double step_t[3], step_k[3];
    for (int s = 0; s < nsteps; s++) {
        /* Spread over the clip: one step per equal slice, away from the ends. */
        double lo = 0.12 + 0.80 * s / nsteps, hi = 0.12 + 0.80 * (s + 1) / nsteps;
        step_t[s] = T * gt_uniform_in(&lr, lo, hi);
        double mag = gt_uniform_in(&lr, 0.08, 0.12);
        step_k[s] = gt_uniform(&lr) < 0.5 ? 1 - mag : 1 + mag;
    }
    exposure *= sc->quality == GTQ_TOO_DARK ? 0.15 : sc->quality == GTQ_TOO_BRIGHT ? 1.8 : 1;
    for (uint32_t i = 0; i < c->frame_count; i++) {
        gt_frame *f = &c->frames[i];
        double t = f->t, g = exposure * (1 + 0.001 * breath_wave(&br, t)), warm = 0;
        if (sc->lighting) {
            g *= 1 + 0.15 * (0.6 * sin(2 * M_PI * t / p1 + f1) + 0.4 * sin(2 * M_PI * t / p2 + f2));
            for (int s = 0; s < nsteps; s++)
                if (t >= step_t[s]) g *= step_k[s];
            warm = 0.02 * sin(2 * M_PI * t / p3 + f3);
        }
        f->gain[0] = (float)(g * (1 + warm));
        f->gain[1] = (float)g;
        f->gain[2] = (float)(g * (1 - warm));
    }

    for (uint32_t i = 0; i < c->frame_count; i++) c->frames[i].noise_gain = 1;
    if (sc->camera & GT_CAM_AUTOGAIN) camera_auto_gain(c);
    if (sc->camera & GT_CAM_MAINS) camera_mains_flicker(c);
    if (sc->quality != GTQ_NONE) quality_flaws(c);

    /* Dropped frames: isolated losses and short bursts, ~4% in all; never
     * the first or the last frame. */
    if (sc->drops) {
        gt_rng dr = gt_rng_stream(c->opt.seed, STREAM_DROPS);
        uint32_t burst = 0, dropped = 0;
        for (uint32_t i = 1; i + 1 < c->frame_count; i++) {
            if (burst == 0 && gt_uniform(&dr) < 0.02) {
                double u = gt_uniform(&dr);
                burst = u < 0.6 ? 1 : u < 0.9 ? 2 + (uint32_t)(gt_uniform(&dr) * 2) : 4 + (uint32_t)(gt_uniform(&dr) * 5);
            }
            if (burst > 0) {
                c->frames[i].dropped = 1;
                burst--;
                dropped++;
            }
        }
        if (dropped == 0 && c->frame_count >= 3) c->frames[c->frame_count / 2].dropped = 1;
    }
    c->written_count = 0;
    for (uint32_t i = 0; i < c->frame_count; i++) c->written_count += !c->frames[i].dropped;
    return 0;
}

void gt_signals_free(gt_clip *c) {
    free(c->beats);
    free(c->frames);
    c->beats = NULL;
    c->frames = NULL;
}
