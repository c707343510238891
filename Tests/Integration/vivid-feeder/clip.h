/* The clip being fed: a Y4M file read frame by frame, played in a loop, with the frame due
 * now kept converted to the output node's YUYV layout. */
#ifndef VIVID_FEEDER_CLIP_H
#define VIVID_FEEDER_CLIP_H

#include <stddef.h>
#include <stdint.h>

#include "ccore/videofile.h"

typedef struct {
    ccore_videofile *file;
    ccore_videofile_info info;
    uint8_t *yuyv;          /* the current frame, sizeimage bytes in the output's layout */
    uint32_t bytesperline;
    uint64_t position;      /* timeline index of the current frame, counting across loops */
    uint64_t frames_in_file; /* known after the first pass, 0 before */
    uint64_t loops;         /* times the file was rewound */
    uint64_t skipped;       /* frames read but never shown because the feed fell behind */
} feeder_clip;

/* Opens a Y4M 4:2:0 studio-swing clip of exactly `width`x`height`, reads its first frame
 * and converts it. On failure, `message` says why and nothing is left open. */
int clip_open(feeder_clip *clip, const char *path, uint32_t width, uint32_t height, uint32_t bytesperline,
              uint32_t sizeimage, char *message, size_t message_size);

/* Reads on to timeline frame `index` (never back), rewinding at the end of the file, and
 * converts that frame. Returns 0 or a negative code with `message` set. */
int clip_advance(feeder_clip *clip, uint64_t index, char *message, size_t message_size);

void clip_close(feeder_clip *clip);

#endif
