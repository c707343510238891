#include "clip.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ccore/error.h"
#include "convert.h"

/* Reads the file's next frame, starting over at its end. */
static int read_next(feeder_clip *clip, ccore_videofile_frame *frame, char *message, size_t message_size) {
    int r = ccore_videofile_next(clip->file, frame);
    if (r == CCORE_E_END) {
        if (clip->frames_in_file == 0) clip->frames_in_file = clip->position + 1;
        if ((r = ccore_videofile_rewind(clip->file)) == 0) {
            clip->loops++;
            r = ccore_videofile_next(clip->file, frame);
        }
    }
    if (r < 0)
        snprintf(message, message_size, "reading the clip: %s: %s", ccore_error_name(r),
                 ccore_videofile_error_message(clip->file));
    return r;
}

int clip_open(feeder_clip *clip, const char *path, uint32_t width, uint32_t height, uint32_t bytesperline,
              uint32_t sizeimage, char *message, size_t message_size) {
    memset(clip, 0, sizeof *clip);
    clip->bytesperline = bytesperline;
    char why[256] = "";
    int r = ccore_videofile_open(path, 0, &clip->file, why, sizeof why);
    if (r < 0) {
        snprintf(message, message_size, "the clip: %s", why);
        return r;
    }
    ccore_videofile_get_info(clip->file, &clip->info);
    const ccore_videofile_info *in = &clip->info;
    if (in->kind != CCORE_VIDEOFILE_Y4M) {
        snprintf(message, message_size, "%s is MJPEG; the feeder plays Y4M 4:2:0 clips", path);
        r = CCORE_E_UNSUPPORTED;
    } else if (in->pixel_format != CCORE_PIXEL_YUV420) {
        snprintf(message, message_size, "%s is Y4M %s; the feeder plays 4:2:0 only", path,
                 ccore_pixel_format_name(in->pixel_format));
        r = CCORE_E_UNSUPPORTED;
    } else if (in->range != CCORE_RANGE_LIMITED) {
        snprintf(message, message_size, "%s is full-range; the loopback carries studio-swing YUYV", path);
        r = CCORE_E_UNSUPPORTED;
    } else if (in->width != width || in->height != height) {
        snprintf(message, message_size, "%s is %ux%u but the loopback runs at %ux%u: render the clip at that size",
                 path, in->width, in->height, width, height);
        r = CCORE_E_UNSUPPORTED;
    } else if (in->fps_numerator == 0 || in->fps_denominator == 0) {
        snprintf(message, message_size, "%s has no frame rate", path);
        r = CCORE_E_UNSUPPORTED;
    } else if (!(clip->yuyv = malloc(sizeimage))) {
        snprintf(message, message_size, "out of memory for a %u-byte frame", sizeimage);
        r = -ENOMEM;
    }
    ccore_videofile_frame frame;
    if (r == 0 && (r = ccore_videofile_next(clip->file, &frame)) < 0)
        snprintf(message, message_size, "%s has no readable first frame: %s: %s", path, ccore_error_name(r),
                 ccore_videofile_error_message(clip->file));
    if (r < 0) {
        clip_close(clip);
        return r;
    }
    i420_to_yuyv(&frame.image, clip->yuyv, bytesperline);
    return 0;
}

int clip_advance(feeder_clip *clip, uint64_t index, char *message, size_t message_size) {
    if (index <= clip->position) return 0;
    clip->skipped += index - clip->position - 1;
    ccore_videofile_frame frame;
    while (clip->position < index) {
        int r = read_next(clip, &frame, message, message_size);
        if (r < 0) return r;
        clip->position++;
    }
    i420_to_yuyv(&frame.image, clip->yuyv, clip->bytesperline);
    return 0;
}

void clip_close(feeder_clip *clip) {
    if (clip->file) ccore_videofile_close(clip->file);
    free(clip->yuyv);
    memset(clip, 0, sizeof *clip);
}
