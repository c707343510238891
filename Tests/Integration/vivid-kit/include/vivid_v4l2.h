/* Raw V4L2 access to the vivid driver, shared by the kernel-driver suite and the loopback
 * feeder: ioctl with EINTR retry, controls by name, and finding vivid's nodes. These never
 * go through the C core, so what they set up does not depend on the code under test. */
#ifndef VIVID_V4L2_H
#define VIVID_V4L2_H

#include <stddef.h>
#include <stdint.h>

/* ioctl that retries on EINTR; returns 0 or -errno. */
int xioctl(int fd, unsigned long request, void *arg);

/* The vivid capture and output nodes, e.g. /dev/video0 and /dev/video1. */
typedef struct {
    char capture[64];
    char output[64];
} vivid_nodes;

/* Finds the lowest-numbered vivid capture and output nodes by driver name and capabilities. */
int find_vivid_nodes(vivid_nodes *nodes, char *message, size_t message_size);

/* vivid controls, found with VIDIOC_QUERY_EXT_CTRL by name. Names compare after
 * v4l2-ctl's normalisation (lower case, runs of other characters -> '_'), so
 * "Percentage of Dropped Buffers" and "percentage_of_dropped_buffers" both match. */
int raw_control_find(int fd, const char *name, uint32_t *id, uint32_t *type);
int raw_control_set(int fd, const char *name, int64_t value);
int raw_control_get(int fd, const char *name, int64_t *value);
int raw_control_set_id(int fd, uint32_t id, uint32_t type, int64_t value);
int raw_control_get_id(int fd, uint32_t id, uint32_t type, int64_t *value);
/* Opens `path`, sets one control, closes it. */
int raw_control_set_path(const char *path, const char *name, int64_t value);

#endif
