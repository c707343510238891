/* V4L2 controls by ID, and the auto-exposure / gain / white-balance lock. */
#include "ccore/controls.h"

#include <linux/videodev2.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "ccore/error.h"
#include "v4l2_util.h"

static void fill_info(const struct v4l2_query_ext_ctrl *q, ccore_control_info *out) {
    memset(out, 0, sizeof *out);
    out->id = q->id;
    out->type = q->type;
    size_t n = strnlen(q->name, sizeof q->name);
    if (n >= sizeof out->name) n = sizeof out->name - 1;
    memcpy(out->name, q->name, n);
    out->minimum = q->minimum;
    out->maximum = q->maximum;
    out->step = q->step;
    out->default_value = q->default_value;
    out->flags = q->flags;
}

int ccore_control_query(int fd, uint32_t id, ccore_control_info *out) {
    if (!out) return -EINVAL;
    struct v4l2_query_ext_ctrl q;
    memset(&q, 0, sizeof q);
    q.id = id;
    int rc = xioctl(fd, VIDIOC_QUERY_EXT_CTRL, &q);
    if (rc < 0) return rc;
    if (q.flags & V4L2_CTRL_FLAG_DISABLED) return -EINVAL;
    fill_info(&q, out);
    return 0;
}

int ccore_control_get(int fd, uint32_t id, int64_t *value) {
    if (!value) return -EINVAL;
    struct v4l2_ext_control c;
    struct v4l2_ext_controls cs;
    memset(&c, 0, sizeof c);
    memset(&cs, 0, sizeof cs);
    c.id = id;
    cs.which = V4L2_CTRL_WHICH_CUR_VAL;
    cs.count = 1;
    cs.controls = &c;
    int rc = xioctl(fd, VIDIOC_G_EXT_CTRLS, &cs);
    if (rc < 0) return rc;
    struct v4l2_query_ext_ctrl q;
    memset(&q, 0, sizeof q);
    q.id = id;
    int is64 = xioctl(fd, VIDIOC_QUERY_EXT_CTRL, &q) == 0 && q.type == V4L2_CTRL_TYPE_INTEGER64;
    *value = is64 ? c.value64 : c.value;
    return 0;
}

int ccore_control_set(int fd, uint32_t id, int64_t value) {
    struct v4l2_query_ext_ctrl q;
    memset(&q, 0, sizeof q);
    q.id = id;
    int rc = xioctl(fd, VIDIOC_QUERY_EXT_CTRL, &q);
    if (rc < 0) return rc;
    struct v4l2_ext_control c;
    struct v4l2_ext_controls cs;
    memset(&c, 0, sizeof c);
    memset(&cs, 0, sizeof cs);
    c.id = id;
    if (q.type == V4L2_CTRL_TYPE_INTEGER64)
        c.value64 = value;
    else
        c.value = (int32_t)value;
    cs.which = V4L2_CTRL_WHICH_CUR_VAL;
    cs.count = 1;
    cs.controls = &c;
    return xioctl(fd, VIDIOC_S_EXT_CTRLS, &cs);
}

int ccore_control_find(int fd, const char *name, ccore_control_info *out) {
    if (!name || !out) return -EINVAL;
    struct v4l2_query_ext_ctrl q;
    memset(&q, 0, sizeof q);
    q.id = V4L2_CTRL_FLAG_NEXT_CTRL | V4L2_CTRL_FLAG_NEXT_COMPOUND;
    while (xioctl(fd, VIDIOC_QUERY_EXT_CTRL, &q) == 0) {
        if (q.type != V4L2_CTRL_TYPE_CTRL_CLASS && strncasecmp(q.name, name, sizeof q.name) == 0) {
            fill_info(&q, out);
            return 0;
        }
        q.id |= V4L2_CTRL_FLAG_NEXT_CTRL | V4L2_CTRL_FLAG_NEXT_COMPOUND;
    }
    return -EINVAL;
}

/* Whether a menu control offers `index` (UVC cameras often lack "manual"). */
static int menu_has(int fd, uint32_t id, uint32_t index) {
    struct v4l2_querymenu m;
    memset(&m, 0, sizeof m);
    m.id = id;
    m.index = index;
    return xioctl(fd, VIDIOC_QUERYMENU, &m) == 0;
}

/* The value that turns each automatic control off, or -1 if it cannot be. */
static int64_t manual_value(int fd, uint32_t id) {
    switch (id) {
    case V4L2_CID_EXPOSURE_AUTO: return menu_has(fd, id, V4L2_EXPOSURE_MANUAL) ? V4L2_EXPOSURE_MANUAL : -1;
    case V4L2_CID_AUTO_N_PRESET_WHITE_BALANCE:
        return menu_has(fd, id, V4L2_WHITE_BALANCE_MANUAL) ? V4L2_WHITE_BALANCE_MANUAL : -1;
    default: return 0; /* booleans: 0 = off */
    }
}

int ccore_controls_lock_auto(int fd, ccore_auto_lock *lock) {
    if (!lock) return -EINVAL;
    memset(lock, 0, sizeof *lock);
    /* Exposure priority lets the camera stretch exposure and so the frame
     * interval in dim light: off, so frames keep a steady rate. */
    static const uint32_t candidates[] = {V4L2_CID_EXPOSURE_AUTO, V4L2_CID_EXPOSURE_AUTO_PRIORITY, V4L2_CID_AUTOGAIN,
                                          V4L2_CID_AUTO_WHITE_BALANCE, V4L2_CID_AUTO_N_PRESET_WHITE_BALANCE};
    int failed = 0;
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0] && lock->count < CCORE_AUTO_LOCK_MAX; i++) {
        uint32_t id = candidates[i];
        ccore_control_info info;
        if (ccore_control_query(fd, id, &info) < 0) continue;
        if (info.flags & (V4L2_CTRL_FLAG_READ_ONLY | V4L2_CTRL_FLAG_GRABBED)) continue;
        /* One white-balance switch is enough. */
        if (id == V4L2_CID_AUTO_N_PRESET_WHITE_BALANCE) {
            int have_awb = 0;
            for (uint32_t k = 0; k < lock->count; k++) have_awb |= lock->ids[k] == V4L2_CID_AUTO_WHITE_BALANCE;
            if (have_awb) continue;
        }
        int64_t manual = manual_value(fd, id), saved;
        if (manual < 0 || ccore_control_get(fd, id, &saved) < 0) continue;
        if (ccore_control_set(fd, id, manual) < 0) {
            failed++;
            continue;
        }
        lock->ids[lock->count] = id;
        lock->saved[lock->count] = saved;
        lock->count++;
    }
    return lock->count == 0 && failed ? -EIO : (int)lock->count;
}

int ccore_controls_restore(int fd, ccore_auto_lock *lock) {
    if (!lock) return -EINVAL;
    int rc = 0;
    /* Reverse order: exposure mode last, so its automatic mode re-engages on
     * the user's other settings. */
    for (uint32_t i = lock->count; i-- > 0;) {
        int r = ccore_control_set(fd, lock->ids[i], lock->saved[i]);
        if (r < 0 && rc == 0) rc = r;
    }
    lock->count = 0;
    return rc;
}

int ccore_controls_set_power_line(int fd, uint32_t hz) {
    int64_t value;
    if (hz == 50)
        value = V4L2_CID_POWER_LINE_FREQUENCY_50HZ;
    else if (hz == 60)
        value = V4L2_CID_POWER_LINE_FREQUENCY_60HZ;
    else
        return -EINVAL;
    return ccore_control_set(fd, V4L2_CID_POWER_LINE_FREQUENCY, value);
}
