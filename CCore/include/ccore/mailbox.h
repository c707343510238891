/* A latest-value mailbox (triple buffer) for one writer and one reader.
 *
 * The writer fills a private slot and publishes it with one atomic swap; the
 * reader takes the newest published slot with another. Neither waits for the
 * other and nothing is allocated after create. Used for the ROI set (layers
 * above -> capture thread) and the luma thumbnail (capture thread -> face
 * detector). */
#ifndef CCORE_MAILBOX_H
#define CCORE_MAILBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ccore_mailbox ccore_mailbox;

/** Three slots of slot_size bytes each, zeroed; every slot is aligned for any type
 *  (max_align_t), whatever slot_size is. */
int ccore_mailbox_create(size_t slot_size, ccore_mailbox **out);
void ccore_mailbox_destroy(ccore_mailbox *box);

size_t ccore_mailbox_slot_size(const ccore_mailbox *box);

/** Writer: the private slot to fill. Stays the writer's until publish. */
void *ccore_mailbox_write_slot(ccore_mailbox *box);
/** Writer: makes the filled slot the newest value. */
void ccore_mailbox_publish(ccore_mailbox *box);

/** Reader: if a newer value was published since the last call, makes it the
 *  reader's slot and returns true. Cheap (one atomic load) when nothing changed. */
bool ccore_mailbox_refresh(ccore_mailbox *box);
/** Reader: the reader's current slot (the newest value taken by refresh), or
 *  NULL before anything was ever taken. Stable until the next refresh. */
const void *ccore_mailbox_read_slot(const ccore_mailbox *box);

#ifdef __cplusplus
}
#endif
#endif
