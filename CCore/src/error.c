/* Names and descriptions for CCore's error codes. */
#include "ccore/error.h"

#include <errno.h>
#include <string.h>

const char *ccore_error_name(int code) {
    switch (code) {
    case CCORE_OK: return "OK";
    case CCORE_E_NOT_CAPTURE: return "CCORE_E_NOT_CAPTURE";
    case CCORE_E_NO_FORMAT: return "CCORE_E_NO_FORMAT";
    case CCORE_E_TRUNCATED: return "CCORE_E_TRUNCATED";
    case CCORE_E_CORRUPT: return "CCORE_E_CORRUPT";
    case CCORE_E_UNSUPPORTED: return "CCORE_E_UNSUPPORTED";
    case CCORE_E_STREAM: return "CCORE_E_STREAM";
    case CCORE_E_STATE: return "CCORE_E_STATE";
    case CCORE_E_END: return "CCORE_E_END";
    case -ENOENT: return "ENOENT";
    case -EACCES: return "EACCES";
    case -EPERM: return "EPERM";
    case -EBUSY: return "EBUSY";
    case -ENODEV: return "ENODEV";
    case -ENXIO: return "ENXIO";
    case -EINVAL: return "EINVAL";
    case -ENOMEM: return "ENOMEM";
    case -EIO: return "EIO";
    case -ETIMEDOUT: return "ETIMEDOUT";
    case -ENOTTY: return "ENOTTY";
    case -E2BIG: return "E2BIG";
    case -ESPIPE: return "ESPIPE";
    case -ENODATA: return "ENODATA";
    default: return code < 0 && code > -4096 ? "ERRNO" : "UNKNOWN";
    }
}

const char *ccore_error_string(int code) {
    switch (code) {
    case CCORE_OK: return "success";
    case CCORE_E_NOT_CAPTURE: return "not a video capture device";
    case CCORE_E_NO_FORMAT: return "the device offers no pixel format the core can process";
    case CCORE_E_TRUNCATED: return "the file ends in the middle of a frame or header";
    case CCORE_E_CORRUPT: return "malformed or undecodable data";
    case CCORE_E_UNSUPPORTED: return "unsupported video format feature";
    case CCORE_E_STREAM: return "the driver reported a fatal streaming error";
    case CCORE_E_STATE: return "call not valid in the current state";
    case CCORE_E_END: return "end of stream";
    default:
        /* strerror's table is static and read-only in glibc: thread-safe for valid codes. */
        if (code < 0 && code > -4096) return strerror(-code);
        return "unknown error";
    }
}
