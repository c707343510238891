/* Frame-by-frame readers for recorded video: Y4M (8-bit 4:2:0, 4:2:2, 4:4:4,
 * mono) and raw MJPEG streams (concatenated JPEG images). All buffers are
 * allocated at open; reading a frame allocates nothing. Errors name the
 * frame where the file breaks (ccore_videofile_error_message). */
#ifndef CCORE_VIDEOFILE_H
#define CCORE_VIDEOFILE_H

#include <stddef.h>
#include <stdint.h>

#include "image.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ccore_videofile ccore_videofile;

typedef enum {
    CCORE_VIDEOFILE_Y4M = 1,
    CCORE_VIDEOFILE_MJPEG = 2,
} ccore_videofile_kind;

typedef struct {
    ccore_videofile_kind kind;
    /** Raw planar format for Y4M; CCORE_PIXEL_NONE for MJPEG. */
    ccore_pixel_format pixel_format;
    ccore_color_range range;
    /** Frame size; for MJPEG read from the first frame's header. */
    uint32_t width;
    uint32_t height;
    uint32_t fps_numerator;
    uint32_t fps_denominator;
} ccore_videofile_info;

/** One frame as read: for Y4M, `image` is valid; for MJPEG, `jpeg`/`jpeg_size`
 *  hold the compressed frame. Both point into the reader's buffer. */
typedef struct {
    uint64_t index;
    ccore_image image;
    const uint8_t *jpeg;
    size_t jpeg_size;
} ccore_videofile_frame;

/** Opens a file; `mjpeg_fps` is the frame rate of an MJPEG stream (ignored
 *  for Y4M, whose header carries it). Largest accepted JPEG frame: 16 MiB;
 *  frame sizes within CCORE_MAX_FRAME_SIDE / CCORE_MAX_FRAME_PIXELS, rates
 *  1-999 fps. Only regular files: a directory is -EISDIR, a FIFO, device or
 *  socket CCORE_E_UNSUPPORTED (opening never blocks). The message of a
 *  failed open names the file. */
int ccore_videofile_open(const char *path, uint32_t mjpeg_fps, ccore_videofile **out, char *message,
                         uint32_t message_size);

/** Same, over a memory buffer (tests, fuzzing). The buffer must outlive the reader. */
int ccore_videofile_open_memory(const uint8_t *data, size_t size, uint32_t mjpeg_fps, ccore_videofile **out,
                                char *message, uint32_t message_size);

void ccore_videofile_close(ccore_videofile *file);

void ccore_videofile_get_info(const ccore_videofile *file, ccore_videofile_info *out);

/** Reads the next frame. CCORE_E_END after the last one; CCORE_E_TRUNCATED or
 *  CCORE_E_CORRUPT (with the frame index in the message) where it breaks. */
int ccore_videofile_next(ccore_videofile *file, ccore_videofile_frame *frame);

/** Starts again from the first frame (files only; -ESPIPE for pipes). */
int ccore_videofile_rewind(ccore_videofile *file);

const char *ccore_videofile_error_message(const ccore_videofile *file);

#ifdef __cplusplus
}
#endif
#endif
