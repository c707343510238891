/* V4L2 camera controls: query, get and set by ID, and the exposure lock rPPG
 * needs (auto exposure, gain and white balance frozen after settling, the
 * user's settings restored afterwards). */
#ifndef CCORE_CONTROLS_H
#define CCORE_CONTROLS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    uint32_t id;
    /** V4L2_CTRL_TYPE_* */
    uint32_t type;
    char name[32];
    int64_t minimum;
    int64_t maximum;
    uint64_t step;
    int64_t default_value;
    /** V4L2_CTRL_FLAG_* */
    uint32_t flags;
    uint32_t reserved;
} ccore_control_info;

/** -EINVAL when the device has no such control. */
int ccore_control_query(int fd, uint32_t id, ccore_control_info *out);
int ccore_control_get(int fd, uint32_t id, int64_t *value);
int ccore_control_set(int fd, uint32_t id, int64_t value);

/** Finds a control by its name as the driver spells it ("Auto Gain"),
 *  case-insensitively, among all controls (private ones included). */
int ccore_control_find(int fd, const char *name, ccore_control_info *out);

/** The automatic controls that move the pulse signal: auto exposure,
 *  auto gain, auto white balance. Holds at most CCORE_AUTO_LOCK_MAX of them. */
#define CCORE_AUTO_LOCK_MAX 4
typedef struct {
    uint32_t count;
    uint32_t ids[CCORE_AUTO_LOCK_MAX];
    int64_t saved[CCORE_AUTO_LOCK_MAX];
} ccore_auto_lock;

/** Switches every automatic control the device has to manual, remembering
 *  the user's values in `lock`. Controls the device lacks are skipped.
 *  Returns the number locked, or a negative error. */
int ccore_controls_lock_auto(int fd, ccore_auto_lock *lock);

/** Puts back what ccore_controls_lock_auto saved. Safe to call twice. */
int ccore_controls_restore(int fd, ccore_auto_lock *lock);

/** Sets the power-line (anti-flicker) frequency: 50 or 60 Hz. */
int ccore_controls_set_power_line(int fd, uint32_t hz);

#ifdef __cplusplus
}
#endif
#endif
