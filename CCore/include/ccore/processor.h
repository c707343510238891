/* The per-frame path every source shares: gap accounting, MJPEG decode at a
 * reduced scale, skin-masked ROI means, mean luma and the luma thumbnail.
 *
 * One processor serves one stream. Its per-frame call runs on the capture
 * thread, allocates nothing, takes no lock and makes no system call; the ROI
 * set comes in, and the thumbnail goes out, through lock-free mailboxes. */
#ifndef CCORE_PROCESSOR_H
#define CCORE_PROCESSOR_H

#include <stddef.h>
#include <stdint.h>

#include "image.h"
#include "sample.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ccore_processor ccore_processor;

typedef struct {
    /** Raw format of the frames, or CCORE_PIXEL_NONE with is_mjpeg = 1. */
    ccore_pixel_format pixel_format;
    uint32_t is_mjpeg;
    uint32_t width;
    uint32_t height;
    /** Nominal frame interval, for timestamp-gap detection; 0 disables it. */
    int64_t frame_interval_ns;
    /** Thumbnail size (0 disables) and period in frames. */
    uint32_t thumbnail_width;
    uint32_t thumbnail_height;
    uint32_t thumbnail_every;
    /** Smallest ROI side, in decoded pixels, an MJPEG decode scale may leave. */
    uint32_t min_roi_pixels;
    /** RGB preview size (0 disables) and period in frames; produced only
     *  while switched on with ccore_processor_set_preview. */
    uint32_t preview_width;
    uint32_t preview_height;
    uint32_t preview_every;
} ccore_processor_config;

/** One frame as a source hands it over. */
typedef struct {
    uint64_t sequence;
    int64_t timestamp_ns;
    /** The driver marked the buffer as damaged: counted and skipped. */
    uint32_t flagged;
    uint32_t reserved;
    /** Raw frames: the pixels (typically the mmap'ed driver buffer). */
    ccore_image image;
    /** MJPEG frames: the compressed bytes. */
    const uint8_t *jpeg;
    size_t jpeg_size;
} ccore_frame;

int ccore_processor_create(const ccore_processor_config *config, ccore_processor **out);
void ccore_processor_destroy(ccore_processor *proc);

/** Publisher side (one thread): the ROI set used from the next frame on. */
int ccore_processor_set_rois(ccore_processor *proc, const ccore_roi_set *rois);

/** Capture thread: turns one frame into `*sample`. Returns 1 when a sample
 *  was produced, 0 when the frame was skipped (flagged), or CCORE_E_CORRUPT /
 *  CCORE_E_UNSUPPORTED when an MJPEG frame cannot be decoded (also counted
 *  and skipped; see ccore_processor_error_message). Frames lost before a
 *  sample are reported in its *_before counters. */
int ccore_processor_process(ccore_processor *proc, const ccore_frame *frame, ccore_frame_sample *sample);

/** Capture thread: `sample` could not be delivered (ring full). Its loss
 *  counters, plus one overflow, carry over to the next sample. */
void ccore_processor_sample_lost(ccore_processor *proc, const ccore_frame_sample *sample);

/** Reader side (one thread): copies the newest thumbnail published since the
 *  last call into `dst` and returns 1, or returns 0 when there is none. */
int ccore_processor_take_thumbnail(ccore_processor *proc, uint8_t *dst, uint32_t dst_size, uint32_t *width,
                                   uint32_t *height, uint64_t *sequence);

/** Any thread: switches stage timing on or off (off at create). While on,
 *  each sample carries the time its frame came in and the nanoseconds of
 *  decode, kernels and thumbnail (four CLOCK_MONOTONIC reads per frame);
 *  while off those fields are 0 and the clock is not read. */
void ccore_processor_set_stage_timing(ccore_processor *proc, int on);

/** Any thread: switches the RGB preview on or off (off at create). */
void ccore_processor_set_preview(ccore_processor *proc, int on);

/** Any thread: from the next frame, previews of `width` x `height` (at most
 *  the configured size, whose memory the mailbox holds) every `every`-th
 *  frame. -EINVAL for a zero argument or no preview, -E2BIG beyond the
 *  configured size. The preview's consumers differ: a small picture now and
 *  then for imageOutput, a full one every frame for the preview renderer. */
int ccore_processor_set_preview_shape(ccore_processor *proc, uint32_t width, uint32_t height, uint32_t every);

/** Reader side (one thread): draws the newest RGB24 preview published since
 *  the last call into `dst` (width * height * 3 bytes) and returns 1, or
 *  returns 0 when there is none. The capture thread only copies the frame's
 *  planes into the mailbox; the conversion (ccore_image_rgb_preview) runs
 *  here, on the reader's thread. */
int ccore_processor_take_preview(ccore_processor *proc, uint8_t *dst, uint32_t dst_size, uint32_t *width,
                                 uint32_t *height, uint64_t *sequence);

typedef struct {
    uint64_t frames;       /* frames handed in */
    uint64_t dropped;      /* missing by sequence / timestamp gaps */
    uint64_t dropped_by_timestamp; /* of those, counted from timestamp gaps (no sequence gap) */
    uint64_t error_frames; /* flagged or undecodable */
    uint64_t box_decodes;  /* MJPEG frames decoded from a box of their restart intervals (ccore_jpeg_decode_part) */
} ccore_processor_counters;

/** Safe from any thread. */
void ccore_processor_get_counters(const ccore_processor *proc, ccore_processor_counters *out);

/** Detail of the last decode failure (capture thread; read after it stopped). */
const char *ccore_processor_error_message(const ccore_processor *proc);

#ifdef __cplusplus
}
#endif
#endif
