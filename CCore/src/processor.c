/* The per-frame path: gap accounting -> (MJPEG decode) -> ROI means, mean
 * luma, thumbnail -> sample. */
#include "ccore/processor.h"

#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ccore/error.h"
#include "ccore/jpeg.h"
#include "ccore/mailbox.h"
#include "ccore/preview.h"
#include "ccore/roi.h"

/* Header of a thumbnail mailbox slot; the pixels follow it. */
typedef struct {
    uint32_t width, height;
    uint64_t sequence;
} thumbnail_header;

/* Header of a preview mailbox slot: the size to draw, and a copy of the
 * frame's planes (after the header, `image` pointing at them). The capture
 * thread only copies; the RGB conversion runs on the reader's thread. */
typedef struct {
    uint32_t width, height;
    uint64_t sequence;
    ccore_image image;
} preview_header;

/* Bytes a preview slot needs for any frame of up to width x height, in any
 * format, odd sizes' rounded-up chroma included: at most 3 bytes a pixel. */
static size_t preview_slot_size(uint32_t width, uint32_t height) {
    return sizeof(preview_header) + ((size_t)width + 2) * ((size_t)height + 2) * 3;
}

static int copy_planes(const ccore_image *im, uint8_t *dst, size_t room, ccore_image *out);

struct ccore_processor {
    ccore_processor_config config;
    ccore_mailbox *rois;       /* publisher: layers above; reader: capture thread */
    ccore_mailbox *thumbnails; /* publisher: capture thread; reader: face detector */
    ccore_mailbox *previews;   /* publisher: capture thread; reader: imageOutput / preview */
    _Atomic int preview_on;
    _Atomic int stage_timing;
    /* The preview's current width << 48 | height << 32 | period: one atomic
     * word, so the capture thread never sees half of a change. */
    _Atomic uint64_t preview_shape;
    ccore_jpeg *jpeg;
    _Atomic uint64_t frames, dropped, dropped_by_timestamp, error_frames, box_decodes;
    /* Capture-thread state. */
    int have_last;
    uint64_t last_sequence;
    int64_t last_timestamp_ns;
    uint64_t produced;
    /* MJPEG: the rows the mean luma covers, chosen on the first frame decoded (mjpeg_luma_band). */
    const float *luma_band;
    uint32_t pending_dropped, pending_errors, pending_overflow;
    char message[200];
};

static uint64_t pack_shape(uint32_t width, uint32_t height, uint32_t every) {
    return (uint64_t)(width & 0xFFFFu) << 48 | (uint64_t)(height & 0xFFFFu) << 32 | every;
}

int ccore_processor_create(const ccore_processor_config *config, ccore_processor **out) {
    if (!config || !out || config->width == 0 || config->height == 0) return -EINVAL;
    if (!config->is_mjpeg && config->pixel_format == CCORE_PIXEL_NONE) return -EINVAL;
    *out = NULL;
    ccore_processor *p = calloc(1, sizeof *p);
    if (!p) return -ENOMEM;
    p->config = *config;
    if (p->config.thumbnail_every == 0) p->config.thumbnail_every = 1;
    if (p->config.min_roi_pixels == 0) p->config.min_roi_pixels = 16;
    if (p->config.preview_every == 0) p->config.preview_every = 1;
    atomic_init(&p->preview_shape, pack_shape(p->config.preview_width, p->config.preview_height,
                                              p->config.preview_every));
    int rc = ccore_mailbox_create(sizeof(ccore_roi_set), &p->rois);
    if (rc == 0 && config->thumbnail_width && config->thumbnail_height)
        rc = ccore_mailbox_create(sizeof(thumbnail_header) + (size_t)config->thumbnail_width * config->thumbnail_height,
                                  &p->thumbnails);
    if (rc == 0 && config->preview_width && config->preview_height)
        rc = ccore_mailbox_create(preview_slot_size(config->width, config->height), &p->previews);
    if (rc == 0 && config->is_mjpeg) rc = ccore_jpeg_create(config->width, config->height, &p->jpeg);
    if (rc < 0) {
        ccore_processor_destroy(p);
        return rc;
    }
    *out = p;
    return 0;
}

void ccore_processor_destroy(ccore_processor *p) {
    if (!p) return;
    ccore_jpeg_destroy(p->jpeg);
    ccore_mailbox_destroy(p->thumbnails);
    ccore_mailbox_destroy(p->previews);
    ccore_mailbox_destroy(p->rois);
    free(p);
}

int ccore_processor_set_rois(ccore_processor *p, const ccore_roi_set *rois) {
    if (!p || !rois || rois->count > CCORE_MAX_ROIS) return -EINVAL;
    for (uint32_t i = 0; i < rois->count; i++) {
        const ccore_rect *r = &rois->rects[i];
        if (!isfinite(r->x) || !isfinite(r->y) || !(r->width > 0 && r->height > 0) || !isfinite(r->width) ||
            !isfinite(r->height))
            return -EINVAL;
    }
    *(ccore_roi_set *)ccore_mailbox_write_slot(p->rois) = *rois;
    ccore_mailbox_publish(p->rois);
    return 0;
}

/* CLOCK_MONOTONIC now, for stage timing (the clock the V4L2 timestamps use). */
static int64_t monotonic_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Nanoseconds from `start` to now, saturated to the field's range. */
static uint32_t elapsed_since(int64_t start, int64_t *now) {
    int64_t t = monotonic_ns(), d = t - start;
    *now = t;
    return d <= 0 ? 0 : d >= (int64_t)UINT32_MAX ? UINT32_MAX : (uint32_t)d;
}

/* Frames missing between the previous frame and this one. V4L2 drivers count
 * dropped frames in the sequence number, so a sequence gap is taken as it is:
 * timestamps jitter (by most of a frame interval on a loaded machine; vivid
 * under QEMU shows 1.7) and would add drops that did not happen. Only when the
 * sequence shows no gap is a timestamp gap counted, for drivers that do not
 * count drops, and then only one that jitter cannot explain: at least 2.5
 * frame intervals. */
static uint32_t missing_frames(const ccore_processor *p, const ccore_frame *f, int *by_timestamp) {
    *by_timestamp = 0;
    if (!p->have_last) return 0;
    uint64_t n = 0;
    if (f->sequence > p->last_sequence + 1) {
        n = f->sequence - p->last_sequence - 1;
    } else {
        int64_t interval = p->config.frame_interval_ns, dt = f->timestamp_ns - p->last_timestamp_ns;
        if (interval > 0 && 2 * dt >= 5 * interval) {
            n = (uint64_t)llround((double)dt / (double)interval) - 1;
            *by_timestamp = 1;
        }
    }
    return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

/* MJPEG decode scale: as coarse as the smallest ROI and the thumbnail allow. */
static uint32_t choose_scale(const ccore_processor *p, const ccore_roi_set *rois) {
    uint32_t w = p->config.width, h = p->config.height, scale = 8;
    for (uint32_t i = 0; rois && i < rois->count && i < CCORE_MAX_ROIS; i++) {
        uint32_t sx = ccore_jpeg_choose_scale(w, rois->rects[i].width, p->config.min_roi_pixels);
        uint32_t sy = ccore_jpeg_choose_scale(h, rois->rects[i].height, p->config.min_roi_pixels);
        if (sx < scale) scale = sx;
        if (sy < scale) scale = sy;
    }
    while (scale > 1 && (w / scale < p->config.thumbnail_width || h / scale < p->config.thumbnail_height)) scale /= 2;
    return scale;
}

/* MJPEG frames are decoded only as far as this frame's readers need: the
 * ROIs' rows (luma and chroma), the mean luma's band of luma across the frame,
 * and all of the luma when the frame makes a thumbnail. Most of a decode is
 * Huffman decoding down to the last row read (from the top, or, when the
 * camera sends restart markers, from the first row wanted: see
 * ccore_jpeg_decode_part), so the two frames in three that make no thumbnail
 * cost about half, or a third with restart markers. A preview frame is
 * decoded whole. Every frame measures the same pixels the same way whatever
 * its extent (the rows decoded are those of a whole decode, bit for bit, and
 * the mean luma always covers the same band), so no pattern with the
 * thumbnail's period enters the traces.
 *
 * The mean luma covers the top half of a frame, which a decode from the top
 * reads anyway. On a camera whose frames carry restart markers (as the first
 * frame decoded shows) it covers rows 0.3-0.5 instead: the face's middle,
 * which the user is guided to centre, and the background beside it, rows the
 * ROIs mostly span already, so that the decode need not start far above them.
 * The choice holds for the stream: a change of band would step the trace.
 * Every frame, of every format, also measures the band luma over rows 0.3-0.5
 * (ccore_frame_sample.band_luma): the one brightness that means the same on
 * every camera, which the light share is judged by. */
static const float TOP_HALF[2] = {0.0f, 0.5f};
static const float MIDDLE_BAND[2] = {0.3f, 0.5f};

static const float *mjpeg_luma_band(ccore_processor *p) {
    if (!p->luma_band) p->luma_band = ccore_jpeg_restart_grid(p->jpeg) ? MIDDLE_BAND : TOP_HALF;
    return p->luma_band;
}

static ccore_jpeg_rows mjpeg_rows(const ccore_roi_set *rois, const float *band, int thumbnail) {
    ccore_jpeg_rows part = {.luma_top = thumbnail ? 0 : band[0], .luma_bottom = thumbnail ? 1.0f : band[1]};
    uint32_t count = rois ? (rois->count > CCORE_MAX_ROIS ? CCORE_MAX_ROIS : rois->count) : 0;
    for (uint32_t i = 0; i < count; i++) {
        float top = rois->rects[i].y, bottom = rois->rects[i].y + rois->rects[i].height;
        if (i == 0 || top < part.colour_top) part.colour_top = top;
        if (i == 0 || bottom > part.colour_bottom) part.colour_bottom = bottom;
    }
    return part;
}

/* Rows [band[0], band[1]) of a picture, for a mean luma (which reads the luma
 * plane alone): an MJPEG frame's mean luma band, and every frame's band luma. */
static ccore_image mean_luma_view(const ccore_image *image, const float *band) {
    ccore_image view = *image;
    uint32_t top = (uint32_t)floorf((float)image->height * band[0]);
    uint32_t bottom = (uint32_t)ceilf((float)image->height * band[1]);
    if (bottom <= top) bottom = top + 1;
    if (bottom > image->height) bottom = image->height;
    view.plane0 = image->plane0 + (size_t)top * image->stride0;
    view.height = bottom > top ? bottom - top : 0;
    return view;
}

static void publish_thumbnail(ccore_processor *p, const ccore_image *image, uint64_t sequence) {
    thumbnail_header *hdr = ccore_mailbox_write_slot(p->thumbnails);
    hdr->width = p->config.thumbnail_width;
    hdr->height = p->config.thumbnail_height;
    hdr->sequence = sequence;
    ccore_image_luma_thumbnail(image, (uint8_t *)(hdr + 1), hdr->width, hdr->height);
    ccore_mailbox_publish(p->thumbnails);
}

/* The counters have one writer, the capture thread, so a relaxed load and
 * store update them: no locked read-modify-write on the per-frame path, and
 * readers (ccore_processor_get_counters) still see whole 64-bit values. */
static inline void bump(_Atomic uint64_t *counter, uint64_t n) {
    atomic_store_explicit(counter, atomic_load_explicit(counter, memory_order_relaxed) + n, memory_order_relaxed);
}

static void count_error(ccore_processor *p) {
    p->pending_errors++;
    bump(&p->error_frames, 1);
}

int ccore_processor_process(ccore_processor *p, const ccore_frame *f, ccore_frame_sample *s) {
    if (!p || !f || !s) return -EINVAL;
    /* Stage timing: the clock is read only while someone profiles. */
    int timed = atomic_load_explicit(&p->stage_timing, memory_order_relaxed);
    int64_t dequeued = timed ? monotonic_ns() : 0, mark = dequeued;
    uint32_t decode_ns = 0;
    bump(&p->frames, 1);
    int by_timestamp;
    uint32_t missing = missing_frames(p, f, &by_timestamp);
    p->have_last = 1;
    p->last_sequence = f->sequence;
    p->last_timestamp_ns = f->timestamp_ns;
    if (missing) {
        p->pending_dropped += missing;
        bump(&p->dropped, missing);
        if (by_timestamp) bump(&p->dropped_by_timestamp, missing);
    }
    if (f->flagged) {
        count_error(p);
        return 0;
    }

    ccore_mailbox_refresh(p->rois);
    const ccore_roi_set *rois = ccore_mailbox_read_slot(p->rois);
    int thumbnail_due = p->thumbnails && p->produced % p->config.thumbnail_every == 0;
    uint64_t shape = atomic_load_explicit(&p->preview_shape, memory_order_relaxed);
    int preview_due = p->previews && atomic_load_explicit(&p->preview_on, memory_order_relaxed) &&
                      p->produced % (uint32_t)shape == 0;
    ccore_image decoded, luma_view;
    const ccore_image *image = &f->image, *luma_image = &f->image;
    uint32_t scale = 1;
    if (p->config.is_mjpeg) {
        scale = choose_scale(p, rois);
        /* Until the first frame is decoded the band is unknown: that frame asks for the top half. */
        ccore_jpeg_rows part = mjpeg_rows(rois, p->luma_band ? p->luma_band : TOP_HALF, thumbnail_due);
        uint64_t boxes = ccore_jpeg_box_decodes(p->jpeg);
        int rc = !f->jpeg       ? CCORE_E_CORRUPT
                 : preview_due ? ccore_jpeg_decode(p->jpeg, f->jpeg, f->jpeg_size, scale, &decoded)
                               : ccore_jpeg_decode_part(p->jpeg, f->jpeg, f->jpeg_size, scale, &part, &decoded);
        boxes = ccore_jpeg_box_decodes(p->jpeg) - boxes;
        if (boxes) bump(&p->box_decodes, boxes);
        if (rc < 0) {
            count_error(p);
            snprintf(p->message, sizeof p->message, "frame %llu: %s", (unsigned long long)f->sequence,
                     f->jpeg ? ccore_jpeg_error_message(p->jpeg) : "no JPEG data");
            return rc == -E2BIG ? CCORE_E_CORRUPT : rc;
        }
        image = &decoded;
        luma_view = mean_luma_view(&decoded, mjpeg_luma_band(p));
        luma_image = &luma_view;
        if (timed) decode_ns = elapsed_since(mark, &mark);
    }

    memset(s, 0, sizeof *s);
    s->sequence = f->sequence;
    s->timestamp_ns = f->timestamp_ns;
    s->decode_scale = scale;
    s->mean_luma = ccore_image_mean_luma(luma_image);
    if (p->config.is_mjpeg && p->luma_band == MIDDLE_BAND) {
        s->band_luma = s->mean_luma; /* a camera with restart markers: the mean luma covers the band already */
    } else {
        ccore_image band = mean_luma_view(image, MIDDLE_BAND);
        s->band_luma = ccore_image_mean_luma(&band);
    }
    if (rois) {
        s->roi_generation = rois->generation;
        s->roi_count = rois->count;
        ccore_roi_measure(image, rois, s->rois);
    } else {
        s->flags |= CCORE_SAMPLE_NO_ROI;
    }
    if (timed) {
        s->dequeued_ns = dequeued;
        s->decode_ns = decode_ns;
        s->kernels_ns = elapsed_since(mark, &mark);
    }
    int pictured = 0;
    if (thumbnail_due) {
        publish_thumbnail(p, image, f->sequence);
        s->flags |= CCORE_SAMPLE_THUMBNAIL;
        pictured = 1;
    }
    /* Drawn from the frame as decoded for measuring: switching the preview on
     * must not change the decode scale, which would step the colour traces. */
    if (preview_due) {
        preview_header *hdr = ccore_mailbox_write_slot(p->previews);
        hdr->width = (uint32_t)(shape >> 48);
        hdr->height = (uint32_t)(shape >> 32) & 0xFFFFu;
        hdr->sequence = f->sequence;
        size_t room = ccore_mailbox_slot_size(p->previews) - sizeof *hdr;
        if (copy_planes(image, (uint8_t *)(hdr + 1), room, &hdr->image) == 0) ccore_mailbox_publish(p->previews);
        pictured = 1;
    }
    if (timed && pictured) s->thumbnail_ns = elapsed_since(mark, &mark);
    p->produced++;
    s->dropped_before = p->pending_dropped;
    s->errors_before = p->pending_errors;
    s->overflow_before = p->pending_overflow;
    if (s->dropped_before || s->errors_before || s->overflow_before) s->flags |= CCORE_SAMPLE_GAP;
    p->pending_dropped = p->pending_errors = p->pending_overflow = 0;
    return 1;
}

void ccore_processor_sample_lost(ccore_processor *p, const ccore_frame_sample *s) {
    if (!p || !s) return;
    p->pending_dropped += s->dropped_before;
    p->pending_errors += s->errors_before;
    p->pending_overflow += s->overflow_before + 1;
}

/* Copies `im`'s visible rows of each plane, tightly packed, into `dst` and
 * describes the copy in `out`. -E2BIG when it does not fit, -EINVAL for an
 * unknown format. */
static int copy_planes(const ccore_image *im, uint8_t *dst, size_t room, ccore_image *out) {
    size_t w = im->width, h = im->height, cw = (w + 1) / 2, ch = (h + 1) / 2;
    size_t row[3] = {w, 0, 0}, rows[3] = {h, 0, 0};
    switch (im->format) {
    case CCORE_PIXEL_YUYV:
        if (w % 2) return -EINVAL; /* pixels in pairs (ccore_image_wrap_packed refuses it too) */
        row[0] = w * 2;
        break;
    case CCORE_PIXEL_RGB24: row[0] = w * 3; break;
    case CCORE_PIXEL_GRAY: break;
    case CCORE_PIXEL_NV12: row[1] = cw * 2; rows[1] = ch; break;
    case CCORE_PIXEL_YUV420: row[1] = row[2] = cw; rows[1] = rows[2] = ch; break;
    case CCORE_PIXEL_YUV422P: row[1] = row[2] = cw; rows[1] = rows[2] = h; break;
    case CCORE_PIXEL_YUV444P: row[1] = row[2] = w; rows[1] = rows[2] = h; break;
    default: return -EINVAL;
    }
    const uint8_t *src[3] = {im->plane0, im->plane1, im->plane2};
    const uint32_t stride[3] = {im->stride0, im->stride1, im->stride2};
    const uint8_t *planes[3] = {NULL, NULL, NULL};
    size_t used = 0;
    for (int i = 0; i < 3 && rows[i]; i++) {
        if (!src[i] || stride[i] < row[i]) return -EINVAL;
        if (row[i] * rows[i] > room - used) return -E2BIG;
        planes[i] = dst + used;
        for (size_t y = 0; y < rows[i]; y++) memcpy(dst + used + y * row[i], src[i] + y * stride[i], row[i]);
        used += row[i] * rows[i];
    }
    *out = *im;
    out->plane0 = planes[0];
    out->plane1 = planes[1];
    out->plane2 = planes[2];
    out->stride0 = (uint32_t)row[0];
    out->stride1 = (uint32_t)row[1];
    out->stride2 = (uint32_t)row[2];
    return 0;
}

/* Copies the newest picture published in `box` since the last call (a
 * thumbnail_header, then width * height * channels bytes); 1 when there was one. */
static int take_picture(ccore_mailbox *box, size_t channels, uint8_t *dst, uint32_t dst_size, uint32_t *width,
                        uint32_t *height, uint64_t *sequence) {
    if (!box || !ccore_mailbox_refresh(box)) return 0;
    const thumbnail_header *hdr = ccore_mailbox_read_slot(box);
    size_t n = (size_t)hdr->width * hdr->height * channels;
    if (dst_size < n) return -E2BIG;
    memcpy(dst, hdr + 1, n);
    if (width) *width = hdr->width;
    if (height) *height = hdr->height;
    if (sequence) *sequence = hdr->sequence;
    return 1;
}

int ccore_processor_take_thumbnail(ccore_processor *p, uint8_t *dst, uint32_t dst_size, uint32_t *width,
                                   uint32_t *height, uint64_t *sequence) {
    if (!p || !dst) return -EINVAL;
    return take_picture(p->thumbnails, 1, dst, dst_size, width, height, sequence);
}

void ccore_processor_set_stage_timing(ccore_processor *p, int on) {
    if (p) atomic_store_explicit(&p->stage_timing, on != 0, memory_order_relaxed);
}

void ccore_processor_set_preview(ccore_processor *p, int on) {
    if (p) atomic_store_explicit(&p->preview_on, on != 0, memory_order_relaxed);
}

int ccore_processor_set_preview_shape(ccore_processor *p, uint32_t width, uint32_t height, uint32_t every) {
    if (!p || !p->previews || width == 0 || height == 0 || every == 0) return -EINVAL;
    if (width > p->config.preview_width || height > p->config.preview_height) return -E2BIG;
    atomic_store_explicit(&p->preview_shape, pack_shape(width, height, every), memory_order_relaxed);
    return 0;
}

int ccore_processor_take_preview(ccore_processor *p, uint8_t *dst, uint32_t dst_size, uint32_t *width,
                                 uint32_t *height, uint64_t *sequence) {
    if (!p || !dst) return -EINVAL;
    if (!p->previews || !ccore_mailbox_refresh(p->previews)) return 0;
    const preview_header *hdr = ccore_mailbox_read_slot(p->previews);
    if (dst_size < (size_t)hdr->width * hdr->height * 3) return -E2BIG;
    int rc = ccore_image_rgb_preview(&hdr->image, dst, hdr->width, hdr->height);
    if (rc < 0) return rc;
    if (width) *width = hdr->width;
    if (height) *height = hdr->height;
    if (sequence) *sequence = hdr->sequence;
    return 1;
}

void ccore_processor_get_counters(const ccore_processor *cp, ccore_processor_counters *out) {
    ccore_processor *p = (ccore_processor *)cp;
    if (!out) return;
    if (!p) {
        memset(out, 0, sizeof *out);
        return;
    }
    out->frames = atomic_load_explicit(&p->frames, memory_order_relaxed);
    out->dropped = atomic_load_explicit(&p->dropped, memory_order_relaxed);
    out->dropped_by_timestamp = atomic_load_explicit(&p->dropped_by_timestamp, memory_order_relaxed);
    out->error_frames = atomic_load_explicit(&p->error_frames, memory_order_relaxed);
    out->box_decodes = atomic_load_explicit(&p->box_decodes, memory_order_relaxed);
}

const char *ccore_processor_error_message(const ccore_processor *p) { return p ? p->message : ""; }
