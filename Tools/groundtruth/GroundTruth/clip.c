/* The public API: scenarios, options, the clip's life cycle and writing the
 * video with worker threads (each frame's randomness is keyed by its index,
 * so the bytes do not depend on how many threads rendered them). */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gt_internal.h"

void gt_set_msg(char *msg, size_t msg_size, const char *fmt, ...) {
    if (!msg || msg_size == 0) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, msg_size, fmt, ap);
    va_end(ap);
}

/* name, description, fps, noise, amplitude scale, JPEG quality, JPEG always,
 * pulse, motion, lighting, dark, drops, format; the quality scenarios add
 * their flaw and the warnings (QualityWarning.Kind names) it should raise. */
static const gt_scenario_def scenarios[GT_SCENARIO_COUNT] = {
    [GT_STILL] = {"still", "tiny natural sway and breathing only", 30, 2.0f, 1.0f, 90, 0, 1, 0, 0, 0, 0, GT_FORMAT_Y4M,
                  GTQ_NONE, "", 0, 0},
    [GT_MOTION] = {"motion", "head moves: translation +-6%, roll +-4 deg, scale +-5%", 30, 2.0f, 1.0f, 90, 0, 1, 1, 0,
                   0, 0, GT_FORMAT_Y4M, GTQ_NONE, "", 0, 0},
    [GT_LIGHTING] = {"lighting", "light drifts +-15% and steps 2-3 times by +-8-12%", 30, 2.0f, 1.0f, 90, 0, 1, 0, 1, 0,
                     0, GT_FORMAT_Y4M, GTQ_NONE, "", 0, 0},
    [GT_NOISE] = {"noise", "strong sensor noise (sigma 7 levels)", 30, 7.0f, 1.0f, 90, 0, 1, 0, 0, 0, 0,
                  GT_FORMAT_Y4M, GTQ_NONE, "", 0, 0},
    [GT_JPEG] = {"jpeg", "heavy JPEG compression (quality 55), MJPEG by default", 30, 2.0f, 1.0f, 55, 1, 1, 0, 0, 0, 0,
                 GT_FORMAT_MJPEG, GTQ_NONE, "", 0, 0},
    [GT_DARK] = {"dark", "darker skin (Fitzpatrick V-VI), half the pulse amplitude", 30, 2.0f, 0.5f, 90, 0, 1, 0, 0, 1,
                 0, GT_FORMAT_Y4M, GTQ_NONE, "", 0, 0},
    [GT_LOWFPS] = {"lowfps", "15 frames per second", 15, 2.0f, 1.0f, 90, 0, 1, 0, 0, 0, 0, GT_FORMAT_Y4M, GTQ_NONE,
                   "", 0, 0},
    [GT_DROPPED] = {"dropped", "~4% of frames missing (single and bursts); truth lists frame times", 30, 2.0f, 1.0f,
                    90, 0, 1, 0, 0, 0, 1, GT_FORMAT_Y4M, GTQ_NONE, "", 0, 0},
    [GT_LOWAMP] = {"lowamp", "a third of the normal pulse amplitude", 30, 2.0f, 1.0f / 3, 90, 0, 1, 0, 0, 0, 0,
                   GT_FORMAT_Y4M, GTQ_NONE, "", 0, 0},
    [GT_NOPULSE] = {"nopulse", "no pulse at all (a photo or mannequin), otherwise as still", 30, 2.0f, 0.0f, 90, 0, 0,
                    0, 0, 0, 0, GT_FORMAT_Y4M, GTQ_NONE, "", 0, 0},
    [GT_NOPULSE_MOTION] = {"nopulse-motion", "no pulse, with motion", 30, 2.0f, 0.0f, 90, 0, 0, 1, 0, 0, 0,
                           GT_FORMAT_Y4M, GTQ_NONE, "", 0, 0},
    [GT_HARD] = {"hard", "motion + lighting + noise 4 + JPEG 65 + 0.6x amplitude, MJPEG by default", 30, 4.0f, 0.6f,
                 65, 1, 1, 1, 1, 0, 0, GT_FORMAT_MJPEG, GTQ_NONE, "", 0, 0},
    [GT_AUTOGAIN] = {"autogain", "auto-gain/exposure steps 3-6 times by 8-25% and hunts; white balance drifts", 30,
                     2.0f, 1.0f, 90, 0, 1, 0, 0, 0, 0, GT_FORMAT_Y4M, GTQ_NONE, "", GT_CAM_AUTOGAIN, 0},
    [GT_MAINS_FLICKER] = {"mains-flicker", "100/120 Hz light ripple (2-8%) read by a rolling shutter", 30, 2.0f,
                          1.0f, 90, 0, 1, 0, 0, 0, 0, GT_FORMAT_Y4M, GTQ_NONE, "", GT_CAM_MAINS, 0},
    [GT_FAST] = {"fast", "a fast pulse, 115-180 bpm", 30, 2.0f, 1.0f, 90, 0, 1, 0, 0, 0, 0, GT_FORMAT_Y4M, GTQ_NONE,
                 "", 0, 1},
    [GT_SLOW] = {"slow", "a slow pulse, 45-55 bpm", 30, 2.0f, 1.0f, 90, 0, 1, 0, 0, 0, 0, GT_FORMAT_Y4M, GTQ_NONE, "",
                 0, 2},
    [GT_BOARD] = {"board", "a board camera: 15 fps, MJPEG 50, autogain, white balance, mains flicker, noise 3", 15,
                  3.0f, 1.0f, 50, 1, 1, 0, 0, 0, 0, GT_FORMAT_MJPEG, GTQ_NONE, "", GT_CAM_AUTOGAIN | GT_CAM_MAINS, 0},
#define QUALITY(id, name, text, motion, pulse, flaw, warnings) \
    [id] = {name, text, 30, 2.0f, 1.0f, 90, 0, pulse, motion, 0, 0, 0, GT_FORMAT_Y4M, flaw, warnings, 0, 0}
    QUALITY(GT_TOO_DARK, "too-dark", "the whole scene dim (exposure x0.15): face luma ~25-40", 0, 1, GTQ_TOO_DARK,
            "tooDark"),
    QUALITY(GT_TOO_BRIGHT, "too-bright", "overexposed (x1.8): the skin clips", 0, 1, GTQ_TOO_BRIGHT, "tooBright"),
    QUALITY(GT_UNEVEN, "uneven", "light from one side: gain 0.25 to 1.3 across the face", 0, 1, GTQ_UNEVEN,
            "unevenLighting"),
    QUALITY(GT_FLICKER, "flicker", "10 Hz +-8% luminance (100 Hz light aliased at 30 fps)", 0, 1, GTQ_FLICKER,
            "flicker"),
    QUALITY(GT_HEAD_MOVING, "head-moving", "large continuous head motion: +-15% of the height every 0.5-0.9 s", 2, 1,
            GTQ_HEAD_MOVING, "headMoving"),
    QUALITY(GT_CAMERA_SHAKE, "camera-shake", "the whole picture jitters by ~2% of the height at 2-5 Hz", 0, 1,
            GTQ_CAMERA_SHAKE, "cameraShaking"),
    QUALITY(GT_OFF_CENTER, "off-center", "the face centred at 20% or 80% of the width", 0, 1, GTQ_OFF_CENTER,
            "notCentered"),
    QUALITY(GT_TOO_FAR, "too-far", "small face: box 16% of the frame height", 0, 1, GTQ_TOO_FAR, "tooFar"),
    QUALITY(GT_TOO_CLOSE, "too-close", "large face: box 82% of the frame height", 0, 1, GTQ_TOO_CLOSE, "tooClose"),
    QUALITY(GT_TURNED_AWAY, "turned-away", "head turned ~55 deg (photo squeezed to 55% and shifted)", 0, 1,
            GTQ_TURNED_AWAY, "turnedAway"),
    QUALITY(GT_OCCLUDED, "occluded", "a blue card over one cheek and half the other, 20-80% of the clip", 0, 1,
            GTQ_OCCLUDED, "occluded"),
    QUALITY(GT_TWO_FACES, "two-faces", "a second face, 55% the size, beside the main one", 0, 1, GTQ_TWO_FACES,
            "multipleFaces"),
    QUALITY(GT_NO_FACE, "no-face", "the backdrop only: no face, no pulse", 0, 0, GTQ_NO_FACE, "faceNotDetected"),
#undef QUALITY
};

const gt_scenario_def *gt_scenario_get(gt_scenario s) {
    return (unsigned)s < GT_SCENARIO_COUNT ? &scenarios[s] : NULL;
}

const char *gt_scenario_name(gt_scenario s) {
    const gt_scenario_def *d = gt_scenario_get(s);
    return d ? d->name : NULL;
}

const char *gt_scenario_description(gt_scenario s) {
    const gt_scenario_def *d = gt_scenario_get(s);
    return d ? d->description : NULL;
}

int gt_scenario_from_name(const char *name, gt_scenario *out) {
    if (!name) return -EINVAL;
    for (int i = 0; i < GT_SCENARIO_COUNT; i++)
        if (strcmp(scenarios[i].name, name) == 0) {
            if (out) *out = (gt_scenario)i;
            return 0;
        }
    return -EINVAL;
}

void gt_options_init(gt_options *o) {
    memset(o, 0, sizeof *o);
    o->scenario = GT_STILL;
    o->seed = 1;
    o->width = 640;
    o->height = 480;
    o->duration_s = 30;
    o->format = GT_FORMAT_AUTO;
    o->noise_sigma = -1;
}

static gt_format format_for_path(const char *path, gt_format fallback) {
    const char *dot = path ? strrchr(path, '.') : NULL;
    if (dot && strchr(dot, '/') == NULL) {
        if (strcasecmp(dot, ".y4m") == 0) return GT_FORMAT_Y4M;
        if (strcasecmp(dot, ".mjpeg") == 0 || strcasecmp(dot, ".mjpg") == 0 || strcasecmp(dot, ".jpg") == 0 ||
            strcasecmp(dot, ".jpeg") == 0)
            return GT_FORMAT_MJPEG;
    }
    return fallback;
}

gt_format gt_format_for_path(const char *path, gt_scenario scenario) {
    const gt_scenario_def *sc = gt_scenario_get(scenario);
    return format_for_path(path, sc ? sc->format : GT_FORMAT_Y4M);
}

/* Checks the options and replaces every "default" by its value. */
static int resolve(const gt_options *in, gt_options *o, char *msg, size_t msg_size) {
    *o = *in;
    const gt_scenario_def *sc = gt_scenario_get(o->scenario);
    if (!sc) {
        gt_set_msg(msg, msg_size, "unknown scenario %d", (int)o->scenario);
        return -EINVAL;
    }
    if (o->width < 16 || o->height < 16 || o->width > 4096 || o->height > 4096 || (o->width & 1) || (o->height & 1)) {
        gt_set_msg(msg, msg_size, "invalid size %ux%u: width and height must be even, 16 to 4096", o->width,
                   o->height);
        return -EINVAL;
    }
    if (o->fps == 0) o->fps = sc->fps;
    if (!(o->fps >= 1 && o->fps <= 240)) {
        gt_set_msg(msg, msg_size, "invalid frame rate %g: 1 to 240 fps", o->fps);
        return -EINVAL;
    }
    if (!(o->duration_s > 0 && o->duration_s <= 3600)) {
        gt_set_msg(msg, msg_size, "invalid duration %g s: more than 0, at most 3600", o->duration_s);
        return -EINVAL;
    }
    if (o->heart_rate_bpm != 0 && !(o->heart_rate_bpm >= 30 && o->heart_rate_bpm <= 220)) {
        gt_set_msg(msg, msg_size, "invalid heart rate %g bpm: 30 to 220 (0 = from the seed)", o->heart_rate_bpm);
        return -EINVAL;
    }
    if (o->respiratory_rate != 0 && !(o->respiratory_rate >= 4 && o->respiratory_rate <= 60)) {
        gt_set_msg(msg, msg_size, "invalid respiratory rate %g /min: 4 to 60 (0 = from the seed)",
                   o->respiratory_rate);
        return -EINVAL;
    }
    if (!(o->pulse_amplitude >= 0 && o->pulse_amplitude <= 0.2f)) {
        gt_set_msg(msg, msg_size, "invalid pulse amplitude %g: 0 to 0.2 (relative; 0 = the scenario's)",
                   o->pulse_amplitude);
        return -EINVAL;
    }
    if (o->noise_sigma < 0) o->noise_sigma = sc->noise;
    if (!(o->noise_sigma <= 50)) {
        gt_set_msg(msg, msg_size, "invalid noise sigma %g: 0 to 50 levels", o->noise_sigma);
        return -EINVAL;
    }
    if (o->jpeg_quality == 0) o->jpeg_quality = sc->jpeg_quality;
    if (o->restart_interval > 65535) {
        gt_set_msg(msg, msg_size, "invalid restart interval %u: 0 (none) to 65535 MCUs", o->restart_interval);
        return -EINVAL;
    }
    if (o->jpeg_quality < 1 || o->jpeg_quality > 100) {
        gt_set_msg(msg, msg_size, "invalid JPEG quality %d: 1 to 100", o->jpeg_quality);
        return -EINVAL;
    }
    if (o->format == GT_FORMAT_AUTO) o->format = sc->format;
    if (o->format != GT_FORMAT_Y4M && o->format != GT_FORMAT_MJPEG) {
        gt_set_msg(msg, msg_size, "unknown format %d", (int)o->format);
        return -EINVAL;
    }
    o->variety = o->variety != 0;
    if (o->threads == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        o->threads = n < 1 ? 1 : n > 8 ? 8 : (uint32_t)n;
    }
    if (o->threads > 64) o->threads = 64;
    return 0;
}

/* A source box under a pose: centre (ax, ay) + translation, roll, scale and
 * horizontal squeeze. */
static gt_box region_at(const gt_clip *c, float ax, float ay, float tx, float ty, float rot, float scale,
                        float squeeze, gt_box b) {
    const gt_face_layer *L = &c->face;
    /* The box's centre follows the head exactly; its size scales with it
     * (roll turns the patch, but the axis-aligned box keeps its area). */
    float lx = (L->origin_x + (b.x + b.w / 2) * L->scale - c->face_cx) / c->oversample * squeeze;
    float ly = (L->origin_y + (b.y + b.h / 2) * L->scale - c->face_cy) / c->oversample;
    float cs = cosf(rot), sn = sinf(rot);
    float x = ax + tx + scale * (cs * lx - sn * ly);
    float y = ay + ty + scale * (sn * lx + cs * ly);
    float w = b.w * c->frame_scale * scale * squeeze, h = b.h * c->frame_scale * scale;
    float x0 = (x - w / 2) / c->opt.width, y0 = (y - h / 2) / c->opt.height;
    float x1 = (x + w / 2) / c->opt.width, y1 = (y + h / 2) / c->opt.height;
    x0 = x0 < 0 ? 0 : x0 > 1 ? 1 : x0, x1 = x1 < 0 ? 0 : x1 > 1 ? 1 : x1;
    y0 = y0 < 0 ? 0 : y0 > 1 ? 1 : y0, y1 = y1 < 0 ? 0 : y1 > 1 ? 1 : y1;
    return (gt_box){x0, y0, x1 - x0, y1 - y0};
}

gt_box gt_clip_region(const gt_clip *c, const gt_frame *f, gt_box b) {
    return region_at(c, c->anchor_x, c->anchor_y, f->tx, f->ty, f->rot, f->scale, f->squeeze, b);
}

/* The second face stands still (upright, no sway); only the camera's shake moves it. */
gt_box gt_clip_second_region(const gt_clip *c, const gt_frame *f, gt_box b) {
    return region_at(c, c->second_x, c->second_y, f->shake_x, f->shake_y, 0, c->second_scale, 1, b);
}

/* Static backdrop: the photo's own backdrop, as fitted around the subject
 * and extended beyond the photo (held constant past where it was measured),
 * with a soft two-octave mottling like a studio canvas. */
static int build_backdrop(gt_clip *c, float fcx, float fcy) {
    const uint32_t W = c->opt.width, H = c->opt.height;
    const gt_face_layer *L = &c->face;
    c->backdrop = calloc((size_t)W * H * 3 + 4, sizeof *c->backdrop);
    c->noise = malloc((GT_NOISE_TABLE + 3 * (size_t)W + 4) * sizeof *c->noise);
    if (!c->backdrop || !c->noise) return -ENOMEM;
    /* Unit Gaussians (Box-Muller); the tail repeats the head so a row read never wraps. */
    gt_rng nr = gt_rng_stream(c->opt.seed, 8);
    for (size_t i = 0; i < GT_NOISE_TABLE; i += 2) {
        double rad = sqrt(-2.0 * log(gt_uniform(&nr))), ang = 2 * M_PI * gt_uniform(&nr);
        c->noise[i] = (float)(rad * cos(ang));
        c->noise[i + 1] = (float)(rad * sin(ang));
    }
    memcpy(c->noise + GT_NOISE_TABLE, c->noise, (3 * (size_t)W + 4) * sizeof *c->noise);
    gt_rng r = gt_rng_stream(c->opt.seed, 6);
    enum { G1 = 7, G2 = 25 };
    float coarse[G1 + 1][G1 + 1], fine[G2 + 1][G2 + 1];
    for (int j = 0; j <= G1; j++)
        for (int i = 0; i <= G1; i++) coarse[j][i] = (float)gt_uniform_in(&r, -1, 1);
    for (int j = 0; j <= G2; j++)
        for (int i = 0; i <= G2; i++) fine[j][i] = (float)gt_uniform_in(&r, -1, 1);
    const float S = (float)(W > H ? W : H);
    const gt_box bb = L->backdrop_box;
    for (uint32_t y = 0; y < H; y++)
        for (uint32_t x = 0; x < W; x++) {
            float tex = 0;
            for (int o = 0; o < 2; o++) {
                int g = o ? G2 : G1;
                float fx = x / S * (g - 1), fy = y / S * (g - 1);
                int i = (int)fx, j = (int)fy;
                float ax = fx - i, ay = fy - j;
                /* Smoothstep weights: no creases along the lattice. */
                ax = ax * ax * (3 - 2 * ax), ay = ay * ay * (3 - 2 * ay);
                float v00 = o ? fine[j][i] : coarse[j][i], v01 = o ? fine[j][i + 1] : coarse[j][i + 1];
                float v10 = o ? fine[j + 1][i] : coarse[j + 1][i], v11 = o ? fine[j + 1][i + 1] : coarse[j + 1][i + 1];
                float v = (v00 * (1 - ax) + v01 * ax) * (1 - ay) + (v10 * (1 - ax) + v11 * ax) * ay;
                tex += o ? 0.010f * v : 0.025f * v;
            }
            /* Where this frame pixel falls in the photo at the rest pose. */
            float sx = fcx + (x + 0.5f - c->anchor_x) / c->frame_scale;
            float sy = fcy + (y + 0.5f - c->anchor_y) / c->frame_scale;
            sx = sx < bb.x ? bb.x : sx > bb.x + bb.w ? bb.x + bb.w : sx;
            sy = sy < bb.y ? bb.y : sy > bb.y + bb.h ? bb.y + bb.h : sy;
            float basis[GT_BACKDROP_TERMS];
            gt_backdrop_basis(sx, sy, basis);
            float *p = c->backdrop + ((size_t)y * W + x) * 3;
            for (int k = 0; k < 3; k++) {
                float v = 0;
                for (int t = 0; t < GT_BACKDROP_TERMS; t++) v += L->backdrop_poly[k][t] * basis[t];
                p[k] = v * (1 + tex) * c->look.backdrop_tint[k];
            }
        }
    return 0;
}

/* Reflectance of skin relative to the portrait's (about Fitzpatrick II), per
 * type: melanin absorbs blue and green more than red, so darker types lose
 * blue most. Type VI is the dark scenario's long-standing scale. */
static const float fitzpatrick_scale[7][3] = {
    {1, 1, 1},          {1.07f, 1.09f, 1.11f}, {1, 1, 1},          {0.87f, 0.79f, 0.73f},
    {0.70f, 0.59f, 0.52f}, {0.52f, 0.41f, 0.36f}, {0.40f, 0.31f, 0.27f},
};

/* The seed's variation of the portrait, from its own stream (drawn always,
 * so the person's other numbers never move). Without variety the portrait
 * stays as it is, darkened for the dark scenario. */
static void pick_look(gt_clip *c) {
    gt_rng r = gt_rng_stream(c->opt.seed, 11);
    gt_look *L = &c->look;
    int type = 1 + (int)(gt_uniform(&r) * 6);
    int dark_type = gt_uniform(&r) < 0.5 ? 5 : 6;
    float width = (float)gt_uniform_in(&r, 0.88, 1.12);
    int glasses = gt_uniform(&r) < 0.35;
    float frame_shade = (float)gt_uniform_in(&r, 0.1, 1);
    float beard = gt_uniform(&r) < 0.25 ? (float)gt_uniform_in(&r, 0.5, 0.95) : 0;
    float hair = (float)gt_uniform_in(&r, 0.4, 1.3);
    static const float tints[6][3] = {{1, 1, 1},          {0.72f, 0.84f, 1.05f}, {0.80f, 0.97f, 0.80f},
                                      {1.05f, 0.88f, 0.72f}, {0.55f, 0.55f, 0.58f}, {0.95f, 0.80f, 0.85f}};
    int tint = (int)(gt_uniform(&r) * 6);
    memset(L, 0, sizeof *L);
    L->fitzpatrick = c->sc->dark ? (c->opt.variety ? dark_type : 6) : (c->opt.variety ? type : 2);
    memcpy(L->skin_scale, fitzpatrick_scale[L->fitzpatrick], sizeof L->skin_scale);
    L->face_width = c->opt.variety ? width : 1;
    for (int k = 0; k < 3; k++) L->backdrop_tint[k] = c->opt.variety ? tints[tint][k] : 1;
    if (!c->opt.variety) return;
    L->glasses = glasses;
    /* Black, or tortoiseshell brown. */
    L->glasses_rgb[0] = 25 + 60 * frame_shade, L->glasses_rgb[1] = 22 + 35 * frame_shade, L->glasses_rgb[2] = 22 + 15 * frame_shade;
    L->beard = beard;
    L->beard_rgb[0] = 48 * hair, L->beard_rgb[1] = 36 * hair, L->beard_rgb[2] = 28 * hair;
}

/* Framing of the quality scenarios, after the per-seed look was drawn (so
 * the person and the light stay those of the seed). Fractions of the frame. */
static void place_for_quality(gt_clip *c, float *face_frac) {
    gt_rng r = gt_rng_stream(c->opt.seed, 9);
    const float W = (float)c->opt.width, H = (float)c->opt.height;
    switch (c->sc->quality) {
    case GTQ_OFF_CENTER: c->anchor_x = W * (gt_uniform(&r) < 0.5 ? 0.20f : 0.80f); break;
    case GTQ_TOO_FAR: *face_frac = 0.16f; break; /* small, yet above the detector's 24-pixel window on a 320x240 thumbnail */
    case GTQ_TOO_CLOSE: *face_frac = 0.82f; break;
    /* A head turned by ~55 degrees shows its near side: the face's centre
     * moves towards the turned side by about a sixth of its width. */
    case GTQ_TURNED_AWAY: c->anchor_x += W * 0.04f * (gt_uniform(&r) < 0.5 ? -1 : 1); break;
    case GTQ_TWO_FACES:
        c->anchor_x = W * 0.38f;
        c->second_face = 1;
        c->second_scale = 0.55f;
        c->second_x = W * 0.80f, c->second_y = H * 0.30f;
        break;
    case GTQ_NO_FACE: c->no_face = 1; break;
    default: break;
    }
}

/* Light from one side: a smooth step of the gain across the face's centre,
 * 0.25 on the dark side to 1.3 on the lit one (a window beside the person). */
static int build_column_gain(gt_clip *c) {
    const uint32_t W = c->opt.width;
    c->column_gain = malloc(W * sizeof *c->column_gain);
    if (!c->column_gain) return -ENOMEM;
    const float width = 0.035f * W;
    for (uint32_t x = 0; x < W; x++)
        c->column_gain[x] = 0.25f + 1.05f / (1 + expf(-((float)x + 0.5f - c->anchor_x) / width));
    return 0;
}

int gt_clip_create(const gt_options *options, gt_clip **out, char *msg, size_t msg_size) {
    if (!options || !out) return -EINVAL;
    *out = NULL;
    gt_set_msg(msg, msg_size, "%s", "");
    gt_clip *c = calloc(1, sizeof *c);
    if (!c) return -ENOMEM;
    int rc = resolve(options, &c->opt, msg, msg_size);
    if (rc < 0) goto fail;
    c->sc = gt_scenario_get(c->opt.scenario);
    c->duration = c->opt.duration_s;
    double frames = floor(c->duration * c->opt.fps + 0.5);
    c->frame_count = frames < 1 ? 1 : (uint32_t)frames;
    c->jpeg_artefacts = c->sc->jpeg_always;

    /* Per-seed look: face size 37-43% of the frame height, placed near the centre. */
    gt_rng look = gt_rng_stream(c->opt.seed, 7);
    double seed_amplitude = gt_uniform_in(&look, 0.0025, 0.004);
    float face_frac = (float)gt_uniform_in(&look, 0.37, 0.43);
    c->anchor_x = (float)(c->opt.width * gt_uniform_in(&look, 0.48, 0.52));
    c->anchor_y = (float)(c->opt.height * gt_uniform_in(&look, 0.45, 0.49));
    if (c->opt.pulse_amplitude == 0) c->opt.pulse_amplitude = (float)(seed_amplitude * c->sc->amplitude_scale);
    if (!c->sc->pulse) c->opt.pulse_amplitude = 0;
    place_for_quality(c, &face_frac);

    pick_look(c);
    if (c->opt.variety && !c->sc->dark && options->pulse_amplitude == 0) {
        /* Melanin absorbs in the same band as blood: darker skin pulses less, relative to
         * its own darker colour (the dark scenario's factor already says so). */
        static const float tone_amplitude[7] = {1, 1.1f, 1.0f, 0.9f, 0.8f, 0.65f, 0.5f};
        c->opt.pulse_amplitude *= tone_amplitude[c->look.fitzpatrick];
    }
    if ((rc = gt_signals_build(c, msg, msg_size)) < 0) goto fail;
    gt_box fb = gt_face_box_source();
    c->frame_scale = face_frac * c->opt.height / fb.h;
    /* Small frames shrink the photo and keep detail right up to the pixel
     * grid; warping that by fractions of a pixel would flicker (bilinear
     * blurs more at half-pixel offsets). There the layer is built at twice
     * the resolution and each frame pixel averages 2x2 samples, as a sensor
     * integrates light over its area. */
    c->oversample = c->frame_scale < 1.2f ? 2 : 1;
    float scale = c->frame_scale * c->oversample;
    if ((rc = gt_face_layer_build(&c->face, scale, c->opt.pulse_amplitude, &c->look, c->opt.seed, msg, msg_size)) < 0)
        goto fail;
    float fcx, fcy;
    gt_face_centre_source(&fcx, &fcy);
    c->face_cx = c->face.origin_x + fcx * scale;
    c->face_cy = c->face.origin_y + fcy * scale;
    if ((rc = build_backdrop(c, fcx, fcy)) < 0) goto fail;
    if (c->sc->quality == GTQ_UNEVEN && (rc = build_column_gain(c)) < 0) goto fail;

    c->worker_count = c->opt.threads < c->written_count ? c->opt.threads : (c->written_count ? c->written_count : 1);
    c->workers = calloc(c->worker_count, sizeof *c->workers);
    if (!c->workers) {
        rc = -ENOMEM;
        goto fail;
    }
    for (uint32_t i = 0; i < c->worker_count; i++)
        if ((rc = gt_worker_init(&c->workers[i], c)) < 0) goto fail;
    *out = c;
    return 0;
fail:
    if (rc == -ENOMEM) gt_set_msg(msg, msg_size, "out of memory");
    gt_clip_destroy(c);
    return rc;
}

void gt_clip_destroy(gt_clip *c) {
    if (!c) return;
    if (c->workers)
        for (uint32_t i = 0; i < c->worker_count; i++) gt_worker_free(&c->workers[i]);
    free(c->workers);
    gt_signals_free(c);
    gt_face_layer_free(&c->face);
    free(c->column_gain);
    free(c->backdrop);
    free(c->noise);
    free(c);
}

void gt_clip_get_info(const gt_clip *c, gt_clip_info *out) {
    memset(out, 0, sizeof *out);
    out->width = c->opt.width;
    out->height = c->opt.height;
    out->fps = c->opt.fps;
    out->format = c->opt.format;
    out->frame_count = c->frame_count;
    out->written_count = c->written_count;
    out->pulse_present = c->sc->pulse;
    out->pulse_amplitude = c->opt.pulse_amplitude;
    out->noise_sigma = c->opt.noise_sigma;
    out->jpeg_quality = c->opt.jpeg_quality;
    out->mean_heart_rate = c->sc->pulse ? c->heart_rate : NAN;
    out->respiratory_rate = c->respiratory_rate;
}

int gt_clip_render_rgb(gt_clip *c, uint32_t index, uint8_t *rgb) {
    if (!c || !rgb || index >= c->frame_count) return -EINVAL;
    gt_worker *w = &c->workers[0];
    gt_render_frame(c, w, index);
    int rc = gt_render_rgb8(c, w);
    if (rc < 0) return rc;
    memcpy(rgb, w->rgb8, (size_t)c->opt.width * c->opt.height * 3);
    return 0;
}

typedef struct {
    gt_clip *clip;
    gt_worker *worker;
    uint32_t index;
    pthread_t thread;
    int threaded;
} job;

static void *run_job(void *arg) {
    job *j = arg;
    gt_render_frame(j->clip, j->worker, j->index);
    j->worker->rc = gt_encode_frame(j->clip, j->worker);
    return NULL;
}

static int write_worker(const gt_clip *c, const gt_worker *w, FILE *f) {
    if (c->opt.format == GT_FORMAT_MJPEG) return fwrite(w->jpeg, 1, w->jpeg_size, f) == w->jpeg_size ? 0 : -EIO;
    size_t n = (size_t)c->opt.width * c->opt.height * 3 / 2;
    return fputs("FRAME\n", f) >= 0 && fwrite(w->planes, 1, n, f) == n ? 0 : -EIO;
}

/* Writes the kept frames in batches: worker k renders the batch's k-th
 * frame (the calling thread does the first), then all are written in order. */
static int write_frames(gt_clip *c, FILE *f, char *msg, size_t msg_size) {
    if (c->opt.format == GT_FORMAT_Y4M) {
        /* F as a reduced fraction; 29.97 becomes 2997:100. */
        uint32_t num = (uint32_t)lround(c->opt.fps * 1000.0), den = 1000, a = num, b = den;
        while (b) {
            uint32_t t = a % b;
            a = b, b = t;
        }
        fprintf(f, "YUV4MPEG2 W%u H%u F%u:%u Ip A1:1 C420jpeg\n", c->opt.width, c->opt.height, num / a, den / a);
    }
    uint32_t *kept = malloc((c->written_count ? c->written_count : 1) * sizeof *kept), nk = 0;
    job *jobs = calloc(c->worker_count, sizeof *jobs);
    int rc = 0;
    if (!kept || !jobs) {
        gt_set_msg(msg, msg_size, "out of memory");
        rc = -ENOMEM;
        goto done;
    }
    for (uint32_t i = 0; i < c->frame_count; i++)
        if (!c->frames[i].dropped) kept[nk++] = i;
    for (uint32_t b = 0; b < nk && rc == 0; b += c->worker_count) {
        uint32_t n = nk - b < c->worker_count ? nk - b : c->worker_count;
        for (uint32_t k = 0; k < n; k++) jobs[k] = (job){.clip = c, .worker = &c->workers[k], .index = kept[b + k]};
        for (uint32_t k = 1; k < n; k++) {
            jobs[k].threaded = pthread_create(&jobs[k].thread, NULL, run_job, &jobs[k]) == 0;
            if (!jobs[k].threaded) run_job(&jobs[k]); /* no thread to spare: do it here */
        }
        run_job(&jobs[0]);
        for (uint32_t k = 1; k < n; k++)
            if (jobs[k].threaded) pthread_join(jobs[k].thread, NULL);
        for (uint32_t k = 0; k < n && rc == 0; k++) {
            if ((rc = c->workers[k].rc) < 0) {
                gt_set_msg(msg, msg_size, "encoding frame %u failed (%d)", kept[b + k], rc);
                break;
            }
            if ((rc = write_worker(c, &c->workers[k], f)) < 0) {
                gt_set_msg(msg, msg_size, "writing frame %u failed: %s", kept[b + k], strerror(errno ? errno : EIO));
                break;
            }
            if (c->opt.progress) c->opt.progress(c->opt.progress_user, b + k + 1, nk);
        }
    }
done:
    free(kept);
    free(jobs);
    return rc;
}

/* Files are written as PATH.part and renamed into place once whole: a run
 * stopped midway (Ctrl-C, a kill) leaves a .part file, never a short file
 * under the real name that looks whole. A path that is not a regular file
 * itself (/dev/stdout, a pipe, a symbolic link) is written through as it is. */
static char *part_path(const char *path) {
    struct stat st;
    if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) return strdup(path);
    size_t n = strlen(path);
    char *part = malloc(n + sizeof ".part");
    if (part) {
        memcpy(part, path, n);
        memcpy(part + n, ".part", sizeof ".part");
    }
    return part;
}

static int commit_part(const char *part, const char *path, int rc, char *msg, size_t msg_size) {
    if (strcmp(part, path) == 0) return rc;
    if (rc == 0 && rename(part, path) != 0) {
        rc = -errno;
        gt_set_msg(msg, msg_size, "cannot write %s: %s", path, strerror(-rc));
    }
    if (rc < 0) remove(part);
    return rc;
}

static int write_video_to(gt_clip *c, const char *path, const char *name, char *msg, size_t msg_size) {
    FILE *f = fopen(path, "wb");
    if (!f) {
        int err = errno;
        gt_set_msg(msg, msg_size, "cannot write %s: %s", name, strerror(err));
        return -err;
    }
    int rc = write_frames(c, f, msg, msg_size);
    if (fclose(f) != 0 && rc == 0) {
        gt_set_msg(msg, msg_size, "writing %s failed: %s", name, strerror(errno));
        rc = -EIO;
    }
    return rc;
}

int gt_remove_regular_file(const char *path, char *msg, size_t msg_size) {
    struct stat st;
    if (!path || lstat(path, &st) != 0 || !S_ISREG(st.st_mode) || remove(path) == 0) return 0;
    int err = errno;
    gt_set_msg(msg, msg_size, "cannot replace %s: %s", path, strerror(err));
    return -err;
}

int gt_clip_write_video(gt_clip *c, const char *path, char *msg, size_t msg_size) {
    if (!c || !path) return -EINVAL;
    char *part = part_path(path);
    if (!part) return -ENOMEM;
    int rc = commit_part(part, path, write_video_to(c, part, path, msg, msg_size), msg, msg_size);
    free(part);
    return rc;
}

int gt_clip_write_truth(gt_clip *c, const char *path, char *msg, size_t msg_size) {
    if (!c || !path) return -EINVAL;
    char *part = part_path(path);
    if (!part) return -ENOMEM;
    int rc = commit_part(part, path, gt_truth_write(c, part, path, msg, msg_size), msg, msg_size);
    free(part);
    return rc;
}

int gt_write_clip(const gt_options *options, const char *video_path, const char *truth_path, char *msg,
                  size_t msg_size) {
    if (!options) return -EINVAL;
    gt_options o = *options;
    const gt_scenario_def *sc = gt_scenario_get(o.scenario);
    if (o.format == GT_FORMAT_AUTO && sc && video_path) o.format = format_for_path(video_path, sc->format);
    gt_clip *c;
    int rc = gt_clip_create(&o, &c, msg, msg_size);
    if (rc < 0) return rc;
    /* The truth first: it is quick, so a bad truth path fails before the long render
     * (and touches nothing). Then an older video of that name goes, or a stopped render
     * would leave it beside the new truth, a pair that looks whole. */
    if (truth_path) rc = gt_clip_write_truth(c, truth_path, msg, msg_size);
    if (rc == 0 && truth_path && video_path) rc = gt_remove_regular_file(video_path, msg, msg_size);
    if (rc == 0 && video_path) {
        rc = gt_clip_write_video(c, video_path, msg, msg_size);
        if (rc < 0 && truth_path) remove(truth_path); /* no truth without its video */
    }
    gt_clip_destroy(c);
    return rc;
}
