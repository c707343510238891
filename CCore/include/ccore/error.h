/* Error codes shared by every CCore module.
 *
 * Every fallible call returns 0 on success or a negative code: either a
 * negated errno value (-EBUSY, -EACCES, -ENODEV, ...) straight from the
 * system, or one of the CCore-specific codes below, which sit above the errno
 * range so the two never collide. Handles that can fail keep a detailed,
 * human message of their last error (see each module's *_error_message).
 *
 * NULL handles and outputs are handled alike everywhere: calls returning a code
 * return -EINVAL, getters clear their output (a NULL source's stats read
 * FAILED / -EINVAL), counts and sizes read 0, predicates false, pointers NULL,
 * messages "", and destroy / void calls do nothing. */
#ifndef CCORE_ERROR_H
#define CCORE_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

/* Plain macros (not an enum) so that Swift imports them as Int32, the type
 * every CCore call returns. */
#define CCORE_OK 0
/** The node exists but is not a V4L2 video capture device. */
#define CCORE_E_NOT_CAPTURE (-4097)
/** The device offers no pixel format this core can process. */
#define CCORE_E_NO_FORMAT (-4098)
/** A file ended in the middle of a header or frame. */
#define CCORE_E_TRUNCATED (-4099)
/** A file or frame is malformed (bad marker, bad header, undecodable). */
#define CCORE_E_CORRUPT (-4100)
/** A well-formed input uses a feature this core does not support. */
#define CCORE_E_UNSUPPORTED (-4101)
/** The driver reported a fatal streaming error. */
#define CCORE_E_STREAM (-4102)
/** The call is not valid in the handle's current state. */
#define CCORE_E_STATE (-4103)
/** A file source has delivered its last frame. */
#define CCORE_E_END (-4104)

/** Short symbolic name of a code: "EBUSY", "CCORE_E_TRUNCATED", "OK". */
const char *ccore_error_name(int code);

/** One-line human description of a code (strerror for errno codes). */
const char *ccore_error_string(int code);

#ifdef __cplusplus
}
#endif
#endif
