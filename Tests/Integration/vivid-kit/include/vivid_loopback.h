/* vivid's output->capture loopback (DESIGN.md §6), shared by the suite's loopback tests
 * and the feeder that plays a video file into it.
 *
 * Capture input 3 and output 1 are HDMI; with the same DV timings and pixel format on
 * both, loop_video=1 and the on-screen text off, vivid copies the output buffer it is
 * showing into each capture buffer, so the capture node delivers the bytes written. */
#ifndef VIVID_LOOPBACK_H
#define VIVID_LOOPBACK_H

#include <stddef.h>
#include <stdint.h>

#include <linux/videodev2.h>

#define VIVID_CAPTURE_HDMI_INPUT 3
#define VIVID_OUTPUT_HDMI_OUTPUT 1
#define VIVID_OUTPUT_MAX_BUFFERS 8

/* Selects the HDMI input (capture node) or output (output node) on `fd` and the
 * `timings_index`-th DV timings vivid enumerates there (0 = 640x480p60); fills `timings`. */
int vivid_select_hdmi(int fd, int is_output, uint32_t timings_index, struct v4l2_dv_timings *timings,
                      char *message, size_t message_size);

/* Capture side: HDMI input with those timings, loop_video=1, osd_text_mode=2 (none). */
int vivid_loopback_capture_on(const char *capture_path, uint32_t timings_index, struct v4l2_dv_timings *timings,
                              char *message, size_t message_size);

/* Puts the capture node back as other users expect it: loop off, full OSD, input 0. */
void vivid_loopback_capture_off(const char *capture_path);

#define VIVID_OUTPUT_MAX_PLANES 3

/* The output node, streaming from mmap'ed buffers, through the single-planar API or,
 * when vivid was loaded with multiplanar=2, the multi-planar one. A frame is always
 * handed over as its planes one after the other (plane p: plane_size[p] bytes). */
typedef struct {
    int fd;
    int mplane;
    uint32_t planes;
    void *addr[VIVID_OUTPUT_MAX_BUFFERS][VIVID_OUTPUT_MAX_PLANES];
    size_t len[VIVID_OUTPUT_MAX_BUFFERS][VIVID_OUTPUT_MAX_PLANES];
    uint32_t plane_size[VIVID_OUTPUT_MAX_PLANES];
    uint32_t count;
    uint32_t fourcc;
    uint32_t width;
    uint32_t height;
    uint32_t bytesperline; /* plane 0 */
    uint32_t sizeimage;    /* all planes */
    int streaming;
} vivid_output;

/* Opens the output node, selects the HDMI output with `timings` (as set on the capture
 * node), sets `fourcc` at the timings' size and maps up to `buffers` buffers. On failure
 * the node is closed again. `o->fd` is -1 whenever the node is closed. */
int vivid_output_open(vivid_output *o, const char *output_path, const struct v4l2_dv_timings *timings,
                      uint32_t fourcc, uint32_t buffers, char *message, size_t message_size);

/* Copies one frame (sizeimage bytes: its planes one after the other) into buffer `index`
 * and queues it. */
int vivid_output_queue(vivid_output *o, uint32_t index, const uint8_t *frame);

int vivid_output_start(vivid_output *o);

/* Takes back a buffer vivid has shown: 0 with its index, -EAGAIN if none is done yet. */
int vivid_output_dequeue(vivid_output *o, uint32_t *index);

/* Stops streaming, unmaps, frees the buffers and closes the node. Safe to call twice. */
void vivid_output_close(vivid_output *o);

#endif
