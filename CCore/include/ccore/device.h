/* Finding cameras: capture-capable /dev/video* nodes, what they offer, and
 * whether this process may use them. */
#ifndef CCORE_DEVICE_H
#define CCORE_DEVICE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The four states of AVAuthorizationStatus, derived from the device node. */
typedef enum {
    /** The node does not exist (yet): nothing has been decided. */
    CCORE_ACCESS_NOT_DETERMINED = 0,
    /** The mode bits would allow it but a policy blocks it (cgroup device
     *  rules, an LSM, a nodev mount): the user cannot change that here. */
    CCORE_ACCESS_RESTRICTED = 1,
    /** This process lacks read/write permission (not in the node's group). */
    CCORE_ACCESS_DENIED = 2,
    /** The node can be opened read/write. */
    CCORE_ACCESS_AUTHORIZED = 3,
} ccore_access_status;

/** Longest device path (bytes, NUL excluded) the access check describes;
 *  a longer one is reported as NOT_DETERMINED with error ENAMETOOLONG. */
#define CCORE_DEVICE_PATH_MAX 511
/** Size of ccore_access.reason: the longest reason, naming a path of
 *  CCORE_DEVICE_PATH_MAX bytes and its group, fits whole (never truncated). */
#define CCORE_ACCESS_REASON_SIZE 1024

typedef struct {
    ccore_access_status status;
    /** errno of the failing check, 0 when authorized. */
    int error;
    /** Plain-words reason and, when denied, the fix (udev rule, group). */
    char reason[CCORE_ACCESS_REASON_SIZE];
} ccore_access;

/** Checks access to a device node without streaming from it. */
ccore_access ccore_device_access(const char *path);

typedef struct {
    char path[64];
    char driver[16];
    char card[32];
    char bus_info[32];
    /** V4L2 device capabilities (V4L2_CAP_*): V4L2_CAP_VIDEO_CAPTURE and/or
     *  V4L2_CAP_VIDEO_CAPTURE_MPLANE (both APIs are used). */
    uint32_t capabilities;
    ccore_access access;
} ccore_device_info;

/** One (format, size, frame interval) combination a device offers. */
typedef struct {
    /** V4L2 fourcc, e.g. 'YUYV', 'MJPG'. */
    uint32_t fourcc;
    char format_name[32];
    uint32_t width;
    uint32_t height;
    /** Frame interval as a fraction of a second (1/30 -> 1, 30); 0/0 when
     *  the driver does not enumerate intervals. */
    uint32_t interval_numerator;
    uint32_t interval_denominator;
    /** 1 when the core can process this format: natively (in place, or MJPEG)
     *  or converted to RGB through libv4lconvert (Bayer and other orders). */
    uint32_t supported;
} ccore_device_mode;

/** Scans /dev/video* (sorted by node number) and reports the capture-capable
 *  nodes; nodes this process cannot open are reported too, with their access
 *  status, when their capabilities are unknown (capabilities == 0).
 *  Writes up to `max` entries; `*count` gets the number found. */
int ccore_device_list(ccore_device_info *out, uint32_t max, uint32_t *count);

/** Like ccore_device_list for one node. -ENOENT when missing,
 *  CCORE_E_NOT_CAPTURE when it is not a capture device. */
int ccore_device_probe(const char *path, ccore_device_info *out);

/** Enumerates formats x sizes x intervals (stepwise ranges are sampled at
 *  common sizes). Writes up to `max`; `*count` gets the number found. */
int ccore_device_modes(const char *path, ccore_device_mode *out, uint32_t max, uint32_t *count);

/** Fourcc as four characters plus NUL into `buf` (at least 5 bytes). */
void ccore_fourcc_string(uint32_t fourcc, char buf[5]);

#ifdef __cplusplus
}
#endif
#endif
