/* The fixed-size record the capture thread hands to the layers above, and
 * the ROI set they hand back. Both are plain structs so Swift and C can copy
 * them without allocation. */
#ifndef CCORE_SAMPLE_H
#define CCORE_SAMPLE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CCORE_MAX_ROIS 8

/** A rectangle in normalized image coordinates: [0,1] on both axes, origin
 *  top-left, in the sensor's (unmirrored) orientation. Normalized so that a
 *  ROI stays valid across resolutions and MJPEG decode scales. */
typedef struct {
    float x;
    float y;
    float width;
    float height;
} ccore_rect;

/** Skin classification in Y'CbCr: a pixel is skin when all three
 *  components lie inside their [min, max] bounds (inclusive, 8-bit). */
typedef struct {
    uint8_t y_min, y_max;
    uint8_t cb_min, cb_max;
    uint8_t cr_min, cr_max;
} ccore_skin_bounds;

/** The regions to measure, published by the layers above through an atomic
 *  slot (see ccore_source_set_rois). */
typedef struct {
    uint32_t count;              /* 0 ... CCORE_MAX_ROIS */
    uint32_t generation;         /* echoed in each sample; lets readers tell ROI sets apart */
    ccore_rect rects[CCORE_MAX_ROIS];
    ccore_skin_bounds skin;
} ccore_roi_set;

/** Per-ROI measurement: mean R, G, B (0-255 scale) over the skin pixels. */
typedef struct {
    float r;
    float g;
    float b;
    /** Share of the ROI's pixels that passed the skin mask, 0-1. When 0, r/g/b are 0. */
    float skin_fraction;
    /** Pixels examined (the ROI's area at the processing resolution). */
    uint32_t pixel_count;
    uint32_t reserved;
} ccore_roi_stats;

enum {
    /** Frames were lost right before this one; see the *_before counters. */
    CCORE_SAMPLE_GAP = 1u << 0,
    /** Exposure / gain / white balance were locked when this frame was taken. */
    CCORE_SAMPLE_CONTROLS_LOCKED = 1u << 1,
    /** A luma thumbnail of this frame was published to the thumbnail mailbox. */
    CCORE_SAMPLE_THUMBNAIL = 1u << 2,
    /** No ROI set had been published; only the global statistics are valid. */
    CCORE_SAMPLE_NO_ROI = 1u << 3,
};

typedef struct {
    /** Driver sequence number (V4L2) or frame index (files). */
    uint64_t sequence;
    /** CLOCK_MONOTONIC time the frame was captured, in nanoseconds. */
    int64_t timestamp_ns;
    /** CLOCK_MONOTONIC time the sample was completed, in nanoseconds. */
    int64_t processed_ns;
    uint32_t flags;
    /** Frames the driver dropped before this one (sequence / timestamp gaps). */
    uint32_t dropped_before;
    /** Frames skipped before this one because they were flagged or corrupt. */
    uint32_t errors_before;
    /** Samples lost before this one because the ring was full. */
    uint32_t overflow_before;
    /** Generation of the ROI set these statistics were computed with. */
    uint32_t roi_generation;
    uint32_t roi_count;
    /** Mean luma (0-255), sampled on a sparse grid: over the whole frame for
     *  raw formats, over a band of rows for MJPEG (whose frames are decoded
     *  only as far as they are read): the top half, or rows 0.3-0.5 on a
     *  camera that sends restart markers (see processor.c). */
    float mean_luma;
    /** MJPEG decode scale denominator (1, 2, 4, 8); 1 for raw formats. */
    uint32_t decode_scale;
    /** Stage timing (see ccore_source_set_stage_timing): all four are 0 while it
     *  is off. CLOCK_MONOTONIC time the capture thread took the frame in
     *  (after VIDIOC_DQBUF, or once a replayed frame was due), nanoseconds. */
    int64_t dequeued_ns;
    /** Nanoseconds decoding MJPEG; 0 for raw formats. */
    uint32_t decode_ns;
    /** Nanoseconds in the kernels: mean luma, band luma and the skin-masked ROI means. */
    uint32_t kernels_ns;
    /** Nanoseconds making the detector thumbnail and the preview; 0 for a frame that made neither. */
    uint32_t thumbnail_ns;
    /** Mean luma (0-255) of rows 0.3-0.5 of the frame, on mean_luma's grid:
     *  the same rows whatever the format, and whether an MJPEG camera sends
     *  restart markers (every MJPEG decode covers them), so what is judged
     *  from it (the light share) means the same on every camera. */
    float band_luma;
    ccore_roi_stats rois[CCORE_MAX_ROIS];
} ccore_frame_sample;

/** Default skin bounds: the classic Chai & Ngan Cr/Cb box with the darkest
 *  and clipped pixels excluded. The layers above refine them from the face's
 *  own colour statistics. */
ccore_skin_bounds ccore_skin_bounds_default(void);

/** Bounds that accept every pixel (measure plain rectangle means). */
ccore_skin_bounds ccore_skin_bounds_all(void);

#ifdef __cplusplus
}
#endif
#endif
