/* Ground-truth face videos for measuring the rPPG pipeline's accuracy.
 *
 * A clip is a real face photograph (NASA's portrait of astronaut Eileen
 * Collins, public domain, compiled in) placed on a backdrop and animated:
 * its skin pulses with a PPG waveform driven by known beat times, the head
 * breathes and moves, the light drifts or steps, and the sensor adds noise
 * and JPEG compression. Beside each video goes a JSON file with the truth:
 * beat times, heart rate, HRV, respiratory rate, dropped frames and the
 * face and skin regions of every frame and the capture-quality warnings the
 * clip should raise (format in Tools/groundtruth/README.md).
 *
 * Everything is a function of the options: the same options give the same
 * bytes, whatever the number of threads. */
#ifndef GROUNDTRUTH_H
#define GROUNDTRUTH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** What makes a clip hard. Names (gt_scenario_name) are used on the command
 *  line and in the truth file. */
typedef enum {
    GT_STILL = 0,          /* "still": tiny natural sway and breathing only */
    GT_MOTION = 1,         /* "motion": head translation, rotation, scale */
    GT_LIGHTING = 2,       /* "lighting": slow drift +-15% and 2-3 steps of +-10% */
    GT_NOISE = 3,          /* "noise": strong sensor noise (sigma 7 levels) */
    GT_JPEG = 4,           /* "jpeg": heavy JPEG compression (quality 55) */
    GT_DARK = 5,           /* "dark": darker skin (Fitzpatrick V-VI), lower pulse amplitude */
    GT_LOWFPS = 6,         /* "lowfps": 15 frames per second */
    GT_DROPPED = 7,        /* "dropped": some frames missing from the file */
    GT_LOWAMP = 8,         /* "lowamp": a third of the normal pulse amplitude */
    GT_NOPULSE = 9,        /* "nopulse": as still, but no pulse at all (a photo, a mannequin) */
    GT_NOPULSE_MOTION = 10, /* "nopulse-motion": no pulse, with motion */
    GT_HARD = 11,          /* "hard": motion + lighting + noise + JPEG + low amplitude */
    /* Board cameras and the ends of the heart-rate range. */
    GT_AUTOGAIN = 12,      /* "autogain": unlockable auto-gain/exposure: steps, hunting; white balance drifting */
    GT_MAINS_FLICKER = 13, /* "mains-flicker": 100/120 Hz light ripple read by a rolling shutter */
    GT_FAST = 14,          /* "fast": 115-180 bpm */
    GT_SLOW = 15,          /* "slow": 45-55 bpm */
    GT_BOARD = 16,         /* "board": 15 fps, MJPEG 50, autogain, white balance, mains flicker */
    /* Capture-quality scenarios: each breaks one condition the quality
     * monitor watches; the truth names the warnings it should raise. */
    GT_TOO_DARK = 17,      /* "too-dark": the whole scene dim, face luma well under 50 */
    GT_TOO_BRIGHT = 18,    /* "too-bright": overexposed, skin clipping */
    GT_UNEVEN = 19,        /* "uneven": strong left-right light gradient across the face */
    GT_FLICKER = 20,       /* "flicker": 10 Hz +-8% luminance (100 Hz light aliased at 30 fps) */
    GT_HEAD_MOVING = 21,   /* "head-moving": large, continuous head motion */
    GT_CAMERA_SHAKE = 22,  /* "camera-shake": the whole frame jitters by several pixels at 2-5 Hz */
    GT_OFF_CENTER = 23,    /* "off-center": the face well off the centre */
    GT_TOO_FAR = 24,       /* "too-far": small face, 16% of the frame height */
    GT_TOO_CLOSE = 25,     /* "too-close": face box 82% of the frame height */
    GT_TURNED_AWAY = 26,   /* "turned-away": a yawed head, approximated by a squeezed, shifted photo */
    GT_OCCLUDED = 27,      /* "occluded": a blue card over one cheek and part of the other, mid-clip */
    GT_TWO_FACES = 28,     /* "two-faces": a second, smaller face beside the main one */
    GT_NO_FACE = 29,       /* "no-face": the backdrop only */
    GT_SCENARIO_COUNT = 30
} gt_scenario;

/** The scenario's name ("still", "nopulse-motion", ...), NULL if out of range. */
const char *gt_scenario_name(gt_scenario scenario);

/** One line saying what the scenario does (for --list). */
const char *gt_scenario_description(gt_scenario scenario);

/** Looks a scenario up by name; 0 or -EINVAL. */
int gt_scenario_from_name(const char *name, gt_scenario *out);

typedef enum {
    GT_FORMAT_AUTO = 0,  /* from the video path's extension (.y4m; .mjpeg/.mjpg/.jpg), else the
                            scenario's: MJPEG for jpeg and hard, Y4M for the others */
    GT_FORMAT_Y4M = 1,   /* YUV4MPEG2, 4:2:0 (C420jpeg), BT.601 studio swing */
    GT_FORMAT_MJPEG = 2, /* raw MJPEG: concatenated baseline JPEGs, 4:2:0, full range */
} gt_format;

/** The format AUTO means for this video path and scenario. */
gt_format gt_format_for_path(const char *path, gt_scenario scenario);

/** Called after each frame written (from the calling thread). */
typedef void (*gt_progress_fn)(void *user, uint32_t frames_done, uint32_t frames_total);

typedef struct {
    gt_scenario scenario;
    uint32_t seed;
    uint32_t width, height;   /* even, 16 ... 4096; default 640x480 */
    float fps;                /* 0 = the scenario's rate (30, or 15 for lowfps) */
    float duration_s;         /* default 30 */
    gt_format format;
    int jpeg_quality;         /* 0 = the scenario's (90; 55 for jpeg, 65 for hard) */
    uint32_t restart_interval; /* MJPEG: a restart marker every this many MCUs, as many webcams
                                  send their frames (a Logitech C270: 10); 0 = none */
    float heart_rate_bpm;     /* mean heart rate; 0 = from the seed (55-100) */
    float respiratory_rate;   /* breaths per minute; 0 = from the seed (8-25) */
    float pulse_amplitude;    /* relative peak-to-peak green modulation of skin
                                 (0.003 = 0.3%); 0 = the scenario's */
    float noise_sigma;        /* sensor noise, 8-bit levels; < 0 = the scenario's, 0 = none */
    uint32_t threads;         /* 0 = one per CPU (at most 8) */
    int variety;              /* 1: the seed also varies the person and the pulse's shape: skin tone
                                 (Fitzpatrick I-VI), face width, glasses, beard, backdrop colour,
                                 PPG morphology and beat amplitudes; 0: the portrait as it is */
    gt_progress_fn progress;  /* optional */
    void *progress_user;
} gt_options;

/** Defaults: still, seed 1, 640x480, scenario fps, 30 s, format from the path. */
void gt_options_init(gt_options *options);

/** Renders the clip: writes the video to `video_path` and the truth JSON to
 *  `truth_path` (either may be NULL to skip it). Returns 0 or a negative
 *  errno-style code (-EINVAL for bad options, -errno for files, -ENOMEM),
 *  with a one-line human message in `msg`. */
int gt_write_clip(const gt_options *options, const char *video_path, const char *truth_path, char *msg,
                  size_t msg_size);

/* ---- lower level: one clip, frame by frame ------------------------------ */

typedef struct gt_clip gt_clip;

typedef struct {
    uint32_t width, height;
    float fps;
    gt_format format;          /* resolved, never AUTO */
    uint32_t frame_count;      /* frames on the timeline, dropped ones included */
    uint32_t written_count;    /* frames actually written */
    int pulse_present;
    float pulse_amplitude;     /* resolved relative green peak-to-peak */
    float noise_sigma;         /* resolved */
    int jpeg_quality;          /* resolved; applies to MJPEG and to jpeg-artefact scenarios */
    double mean_heart_rate;    /* truth values (NaN when there is no pulse) */
    double respiratory_rate;
} gt_clip_info;

/** Prepares a clip (signals, face layer, backdrop); renders nothing yet.
 *  `format` AUTO resolves to the scenario's format here. */
int gt_clip_create(const gt_options *options, gt_clip **out, char *msg, size_t msg_size);
void gt_clip_destroy(gt_clip *clip);
void gt_clip_get_info(const gt_clip *clip, gt_clip_info *out);

/** Renders timeline frame `index` (0 ..< frame_count) as packed RGB24
 *  (width*height*3 bytes), including noise and, for the jpeg scenarios, the
 *  JPEG round trip. Not safe to call concurrently on one clip. */
int gt_clip_render_rgb(gt_clip *clip, uint32_t index, uint8_t *rgb);

/** Writes the video (all kept frames) / the truth JSON, as PATH.part renamed to
 *  PATH once whole (a path that is not itself a regular file, such as a pipe or a
 *  symbolic link like /dev/stdout, is written through directly). */
int gt_clip_write_video(gt_clip *clip, const char *path, char *msg, size_t msg_size);
int gt_clip_write_truth(gt_clip *clip, const char *path, char *msg, size_t msg_size);

/** Removes `path` if it is itself a regular file (an older video, once its new truth
 *  is written: a render stopped midway must not leave the two side by side). */
int gt_remove_regular_file(const char *path, char *msg, size_t msg_size);

#ifdef __cplusplus
}
#endif
#endif
