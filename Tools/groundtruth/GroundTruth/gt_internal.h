/* Shared between the generator's modules: the clip context, the RNG and the
 * face geometry. Nothing here is global or mutable outside a gt_clip. */
#ifndef GT_INTERNAL_H
#define GT_INTERNAL_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "groundtruth.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* ---- deterministic random numbers --------------------------------------- */

/* SplitMix64: tiny, fast, and every 64-bit state is a good seed, so a
 * stream per purpose is just a hashed (seed, stream id) pair. */
typedef struct {
    uint64_t state;
} gt_rng;

static inline uint64_t gt_rng_next(gt_rng *r) {
    uint64_t z = (r->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Independent streams: signals, motion and each frame's noise draw from
 * their own, so adding a frame or a knob never shifts another's numbers. */
static inline gt_rng gt_rng_stream(uint32_t seed, uint64_t stream) {
    gt_rng r = {((uint64_t)seed << 32) ^ (stream * 0xD1B54A32D192ED03ull) ^ 0x6A09E667F3BCC909ull};
    gt_rng_next(&r);
    return r;
}

/* Uniform in (0, 1): 53 random bits, never exactly 0 (log-safe). */
static inline double gt_uniform(gt_rng *r) { return ((gt_rng_next(r) >> 11) + 0.5) * (1.0 / 9007199254740992.0); }

static inline double gt_uniform_in(gt_rng *r, double lo, double hi) { return lo + (hi - lo) * gt_uniform(r); }

/* Standard normal (Box-Muller); for per-clip parameters, not per pixel. */
static inline double gt_gauss(gt_rng *r) { return sqrt(-2.0 * log(gt_uniform(r))) * cos(2.0 * M_PI * gt_uniform(r)); }

/* ---- scenarios ---------------------------------------------------------- */

/* Capture-quality flaws (one per quality scenario). */
typedef enum {
    GTQ_NONE = 0,
    GTQ_TOO_DARK, GTQ_TOO_BRIGHT, GTQ_UNEVEN, GTQ_FLICKER,
    GTQ_HEAD_MOVING, GTQ_CAMERA_SHAKE,
    GTQ_OFF_CENTER, GTQ_TOO_FAR, GTQ_TOO_CLOSE, GTQ_TURNED_AWAY,
    GTQ_OCCLUDED, GTQ_TWO_FACES, GTQ_NO_FACE,
} gt_quality;

typedef struct {
    const char *name;
    const char *description;
    float fps;             /* default frame rate */
    float noise;           /* sensor noise sigma, 8-bit levels */
    float amplitude_scale; /* times the seed's normal pulse amplitude */
    int jpeg_quality;      /* for MJPEG output */
    int jpeg_always;       /* JPEG artefacts even in Y4M (round trip) */
    int pulse;
    int motion;            /* 1: moves between poses; 2: large, continuous moves */
    int lighting;
    int dark;
    int drops;
    gt_format format;      /* what AUTO means without a telling extension */
    gt_quality quality;    /* the capture-quality flaw, GTQ_NONE for the accuracy scenarios */
    const char *warnings;  /* the quality warnings it should raise, comma-separated ("" none) */
    int camera;            /* GT_CAM_* flags: what a board camera does on its own */
    int heart_range;       /* 0: the seed's 55-100 bpm; 1: fast, 115-180; 2: slow, 45-55 */
} gt_scenario_def;

enum {
    GT_CAM_AUTOGAIN = 1, /* auto-gain/exposure steps and hunting, auto white balance drift */
    GT_CAM_MAINS = 2,    /* 100/120 Hz light ripple, rolling shutter */
};

const gt_scenario_def *gt_scenario_get(gt_scenario scenario);

/* ---- face geometry ------------------------------------------------------ */

/* A rectangle in some pixel space: top-left x, y, width, height. */
typedef struct {
    float x, y, w, h;
} gt_box;

enum { GT_ROI_FOREHEAD = 0, GT_ROI_LEFT_CHEEK = 1, GT_ROI_RIGHT_CHEEK = 2, GT_ROI_COUNT = 3 };

/* Channels of the face layer, per pixel, premultiplied by coverage alpha:
 * colour and alpha, then the colour's pulse swing (colour x relative
 * amplitude x channel weight) and a pad -- two 4-float vectors per pixel. */
enum { GT_L_R, GT_L_G, GT_L_B, GT_L_A, GT_L_DR, GT_L_DG, GT_L_DB, GT_L_PAD, GT_L_CHANNELS };

#define GT_BACKDROP_TERMS 6

typedef struct {
    float *pixels;          /* GT_L_CHANNELS floats per pixel, row-major */
    uint32_t width, height; /* includes a transparent border */
    float scale;            /* layer pixels per source-image pixel */
    float origin_x, origin_y; /* layer position of the source image's (0, 0) */
    float backdrop_poly[3][GT_BACKDROP_TERMS]; /* the photo's backdrop colour, a quadratic in source x, y */
    gt_box backdrop_box;    /* where that fit was measured (source pixels); clamp to it */
} gt_face_layer;

/* Face landmarks in the source image (skimage astronaut.png, 512x512). */
gt_box gt_face_box_source(void);
gt_box gt_face_roi_source(int roi);
void gt_face_centre_source(float *x, float *y);

/* How the seed varies the one portrait (all neutral when variety is off). */
typedef struct {
    int fitzpatrick;         /* 1-6; the portrait itself is about II */
    float skin_scale[3];     /* reflectance of the skin relative to the portrait's, per channel */
    float face_width;        /* horizontal scale of the head (face-shape warp) */
    int glasses;             /* drawn frames over the eyes */
    float glasses_rgb[3];
    float beard;             /* 0 none; else the beard's density (0.5-0.95) */
    float beard_rgb[3];
    float backdrop_tint[3];  /* the backdrop's colour, relative to the photo's */
} gt_look;

/* Builds the layer at `scale` (frame pixels per source pixel): decodes the
 * embedded JPEG, derives the skin mask from the face's own colour, bakes the
 * pulse swing (`amplitude` relative peak-to-peak in green, 0 = none) and the
 * look (skin tone, glasses, beard, backdrop). Returns 0 or -ENOMEM / -EIO with a message. */
int gt_face_layer_build(gt_face_layer *layer, float scale, float amplitude, const gt_look *look, uint32_t seed,
                        char *msg, size_t msg_size);
void gt_face_layer_free(gt_face_layer *layer);
/* Terms of the backdrop fit at source pixel (x, y). */
void gt_backdrop_basis(float x, float y, float *basis);

/* ---- the clip ----------------------------------------------------------- */

/* Everything that varies per frame, decided before any pixel is drawn. */
typedef struct {
    double t;         /* seconds since the clip's start */
    float pulse;      /* pulse waveform (blood volume, 0-mean, unit peak-to-peak) x breathing AM */
    float gain[3];    /* illumination x exposure x camera gain and white balance, per channel */
    float noise_gain; /* the sensor noise's scale: the camera's analog gain relative to its start */
    float flicker_amp, flicker_phase, flicker_dphase; /* rolling-shutter mains ripple: row y's gain is
                                                         1 + amp sin(phase + dphase y) */
    float tx, ty;     /* head translation, frame pixels */
    float rot;        /* head roll, radians */
    float scale;      /* head scale relative to the base */
    float squeeze;    /* horizontal scale of the head (1; < 1 approximates a turned head) */
    int16_t shake_x, shake_y; /* camera shake: the whole picture's shift, frame pixels */
    uint8_t occluded; /* the occluder is in front of the face */
    uint8_t dropped;  /* not written to the file */
} gt_frame;

/* Sensor noise is read from a table of unit Gaussians at a random offset
 * per row and frame: as random as drawing each sample, at the cost of a load. */
#define GT_NOISE_TABLE (1u << 18)

/* Scratch of one rendering thread. */
typedef struct {
    float *rgb;        /* width*height*3 floats (+4 of slack) */
    uint8_t *rgb8;     /* width*height*3 */
    uint8_t *planes;   /* Y4M frame: Y, Cb, Cr */
    uint8_t *jpeg;     /* malloc'ed by the encoder */
    size_t jpeg_size;
    void *tj;          /* TurboJPEG decompressor for the JPEG round trip */
    int rc;
} gt_worker;

struct gt_clip {
    gt_options opt;              /* resolved: no zeros left meaning "default" */
    const gt_scenario_def *sc;
    uint32_t frame_count, written_count;
    double duration;
    int jpeg_artefacts;

    /* signals */
    double *beats;               /* systolic peak times, covering the clip with margin */
    size_t beat_count;
    double heart_rate;           /* requested mean, bpm */
    double respiratory_rate;     /* truth mean, breaths/min */
    gt_look look;
    gt_frame *frames;

    /* pictures */
    gt_face_layer face;
    float *backdrop;             /* width*height*3 (+4 floats of slack), static */
    float *noise;                /* GT_NOISE_TABLE (+ a row of slack) unit Gaussians */
    float anchor_x, anchor_y;    /* frame position of the face centre at rest */
    float face_cx, face_cy;      /* layer position of the face centre */
    float frame_scale;           /* frame pixels per source-image pixel at rest */
    int oversample;              /* layer pixels per frame pixel (1 or 2) */
    int no_face;                 /* backdrop only */
    float *column_gain;          /* uneven light: gain per frame column, NULL when even */
    int second_face;             /* two-faces: another, smaller copy of the face */
    float second_x, second_y, second_scale; /* its centre (frame pixels) and scale relative to the main */

    gt_worker *workers;
    uint32_t worker_count;
};

int gt_signals_build(gt_clip *clip, char *msg, size_t msg_size);
void gt_signals_free(gt_clip *clip);

/* Region of a source-image box in frame `f`, normalized to [0, 1]. */
gt_box gt_clip_region(const gt_clip *clip, const gt_frame *f, gt_box source_box);
/* The same for the second face of the two-faces scenario. */
gt_box gt_clip_second_region(const gt_clip *clip, const gt_frame *f, gt_box source_box);
/* The occluder (source-image pixels) and its colour (8-bit RGB, before the light). */
gt_box gt_occluder_source(void);
extern const float gt_occluder_rgb[3];

int gt_worker_init(gt_worker *w, const gt_clip *clip);
void gt_worker_free(gt_worker *w);
/* Renders frame `index` into w->rgb (floats, 0-255, noise included). */
void gt_render_frame(const gt_clip *clip, gt_worker *w, uint32_t index);
/* Quantises w->rgb into w->rgb8, through a JPEG round trip when the clip has artefacts. */
int gt_render_rgb8(const gt_clip *clip, gt_worker *w);
/* Encodes the rendered frame for the file: Y4M planes or a JPEG. */
int gt_encode_frame(const gt_clip *clip, gt_worker *w);

/* Writes the truth JSON to `path`; messages name the file `name` (the path it will have). */
int gt_truth_write(const gt_clip *clip, const char *path, const char *name, char *msg, size_t msg_size);

void gt_set_msg(char *msg, size_t msg_size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
