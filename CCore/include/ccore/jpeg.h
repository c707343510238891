/* JPEG decode (libjpeg-turbo's libjpeg API) at a reduced scale into
 * preallocated planes, whole or only the rows a caller reads, and encoders
 * (TurboJPEG) for tools, tests and live pictures. */
#ifndef CCORE_JPEG_H
#define CCORE_JPEG_H

#include <stddef.h>
#include <stdint.h>

#include "image.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ccore_jpeg ccore_jpeg;

/** A decoder whose planes hold any JPEG up to max_width x max_height at
 *  scale 1, in any supported subsampling, padded as the decoder writes it
 *  (allocated here). libjpeg's working memory for each image comes from a
 *  block the decoder keeps, sized by the first frame: from the second frame
 *  on, a baseline decode allocates nothing. -E2BIG beyond
 *  CCORE_MAX_FRAME_SIDE / CCORE_MAX_FRAME_PIXELS (image.h). */
int ccore_jpeg_create(uint32_t max_width, uint32_t max_height, ccore_jpeg **out);
void ccore_jpeg_destroy(ccore_jpeg *jpeg);

/** Reads the frame size without decoding; CCORE_E_CORRUPT for a stream
 *  without a frame header (tables only). */
int ccore_jpeg_peek_size(ccore_jpeg *jpeg, const uint8_t *data, size_t size, uint32_t *width, uint32_t *height);

/** Decodes at 1/scale_denom (1, 2, 4 or 8) to Y'CbCr planes owned by the
 *  decoder, described by `out` (full range, format by the JPEG's chroma
 *  subsampling: YUV420 / YUV422P / YUV444P / GRAY). `out` stays valid until
 *  the next decode; its strides may exceed the widths (whole blocks). Corrupt
 *  or truncated data -> CCORE_E_CORRUPT with the decoder's message in
 *  ccore_jpeg_error_message; 4:4:0, 4:1:1, CMYK or RGB-coded JPEGs ->
 *  CCORE_E_UNSUPPORTED; a frame larger than the decoder's maximum -> -E2BIG. */
int ccore_jpeg_decode(ccore_jpeg *jpeg, const uint8_t *data, size_t size, uint32_t scale_denom, ccore_image *out);

/** The part of a frame a partial decode delivers, as fractions (0-1) of the
 *  frame's height from its top: luma from `luma_top` down to `luma_bottom`
 *  (the whole width), and luma and chroma from `colour_top` down to
 *  `colour_bottom`, between `colour_left` and `colour_right` of its width (both
 *  0: the whole width). An empty band asks for nothing. */
typedef struct {
    float luma_top, luma_bottom;
    float colour_top, colour_bottom;
    float colour_left, colour_right;
} ccore_jpeg_rows;

/** As ccore_jpeg_decode, but decodes only the part `part` asks for (and a
 *  row or column more on each side), while `out` still describes the whole
 *  frame. The pixels asked for are bit for bit those of a whole decode; the
 *  others hold whatever an earlier frame left there, so nothing may read them.
 *
 *  It stops below the last row asked for and skips the inverse DCT of what is
 *  not asked for; without restart markers every row above is still
 *  Huffman-decoded (the entropy-coded data has no index). A frame whose
 *  restart markers divide its MCU rows evenly (webcams commonly send one every
 *  few MCUs) has one: then only the restart intervals that hold what is asked
 *  for are decoded at all, from its first row down and, when no luma is asked
 *  for, across the colour band's columns. Damage in the data is found only
 *  where the decode reads. */
int ccore_jpeg_decode_part(ccore_jpeg *jpeg, const uint8_t *data, size_t size, uint32_t scale_denom,
                           const ccore_jpeg_rows *part, ccore_image *out);

const char *ccore_jpeg_error_message(const ccore_jpeg *jpeg);

/** How many partial decodes (ccore_jpeg_decode_part) read restart intervals
 *  alone rather than the frame from its top, since the decoder was created. */
uint64_t ccore_jpeg_box_decodes(const ccore_jpeg *jpeg);

/** 1 when the last frame the decoder read declares restart markers that divide
 *  its MCU rows evenly (its partial decodes may start below its top), else 0. */
int ccore_jpeg_restart_grid(const ccore_jpeg *jpeg);

/** Smallest decode scale denominator (largest reduction, of 1, 2, 4, 8) that
 *  still leaves `min_roi_pixels` pixels across the smallest ROI side, given
 *  that side as a fraction of the frame (`roi_fraction`) and the frame size
 *  in pixels along that axis. */
uint32_t ccore_jpeg_choose_scale(uint32_t frame_pixels, float roi_fraction, uint32_t min_roi_pixels);

/** Encodes an RGB24 image (to 4:2:0), a YUYV image (to 4:2:2) or YUV420
 *  planes (to 4:2:0) into a JPEG at `quality` (1-100). `*out` is malloc'ed; free() it.
 *  Tools and tests only: never on the capture path. */
int ccore_jpeg_encode(const ccore_image *image, int quality, uint8_t **out, size_t *out_size);

/** Chroma subsampling of an encoded JPEG (TurboJPEG's order). */
typedef enum {
    CCORE_JPEG_444 = 0,
    CCORE_JPEG_422 = 1,
    CCORE_JPEG_420 = 2,
    CCORE_JPEG_GRAY = 3,
    CCORE_JPEG_440 = 4, /* the decoder refuses this one */
    CCORE_JPEG_411 = 5, /* and this one */
} ccore_jpeg_subsampling;

/** The same JPEG with a restart marker every `interval` MCUs (0: none), as
 *  many webcams send their frames, losslessly rewritten (the coefficients are
 *  copied, not re-encoded). `*out` is malloc'ed; free() it. Tools and tests
 *  only. CCORE_E_CORRUPT for data libjpeg cannot read. */
int ccore_jpeg_set_restart_interval(const uint8_t *jpeg, size_t size, uint32_t interval, uint8_t **out,
                                    size_t *out_size);

/** Encodes an RGB24 image with the given chroma subsampling, for tests and
 *  fuzzing seeds that need every kind of JPEG. `*out` is malloc'ed; free() it. */
int ccore_jpeg_encode_rgb(const ccore_image *image, int quality, ccore_jpeg_subsampling subsampling, uint8_t **out,
                          size_t *out_size);

/** A JPEG encoder for live pictures (the preview's MJPEG stream and
 *  snapshots): its output buffer is allocated at create for the largest
 *  picture, so encoding a frame allocates nothing. One thread at a time. */
typedef struct ccore_jpeg_encoder ccore_jpeg_encoder;

/** An encoder for pictures up to max_width x max_height. -E2BIG beyond
 *  CCORE_MAX_FRAME_SIDE / CCORE_MAX_FRAME_PIXELS (image.h). */
int ccore_jpeg_encoder_create(uint32_t max_width, uint32_t max_height, ccore_jpeg_encoder **out);
void ccore_jpeg_encoder_destroy(ccore_jpeg_encoder *encoder);

/** Encodes packed 8-bit RGB (`channels` 3) or RGBA (4, alpha ignored) rows,
 *  `stride` bytes apart, to a 4:2:0 JPEG at `quality` (1-100). `*out` points
 *  into the encoder's buffer and stays valid until the next call or destroy.
 *  -EINVAL for a bad argument, -E2BIG for a picture beyond the encoder's
 *  maximum, CCORE_E_CORRUPT when TurboJPEG fails (its message in
 *  ccore_jpeg_encoder_error_message). */
int ccore_jpeg_encoder_encode(ccore_jpeg_encoder *encoder, const uint8_t *pixels, uint32_t width, uint32_t height,
                              uint32_t stride, uint32_t channels, int quality, const uint8_t **out, size_t *out_size);

const char *ccore_jpeg_encoder_error_message(const ccore_jpeg_encoder *encoder);

#ifdef __cplusplus
}
#endif
#endif
