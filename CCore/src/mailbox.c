/* Triple buffer. Three slots: one the writer fills, one the reader holds, and
 * one "middle" slot exchanged atomically between them. The shared word packs
 * the middle slot's index with a "fresh" bit the writer sets on publish and
 * the reader clears when it takes the slot. */
#include "ccore/mailbox.h"

#include <errno.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FRESH 4u

struct ccore_mailbox {
    _Atomic unsigned middle; /* slot index | FRESH */
    unsigned write_index;    /* writer-owned */
    unsigned read_index;     /* reader-owned */
    int has_read;            /* reader-owned: took at least one value */
    size_t slot_size;        /* what the caller asked for */
    size_t stride;           /* slot_size rounded up, so every slot is aligned for any type */
    unsigned char *slots;
};

int ccore_mailbox_create(size_t slot_size, ccore_mailbox **out) {
    if (!out || slot_size == 0) return -EINVAL;
    *out = NULL;
    const size_t align = alignof(max_align_t);
    if (slot_size > SIZE_MAX - align) return -ENOMEM;
    ccore_mailbox *box = calloc(1, sizeof *box);
    if (!box) return -ENOMEM;
    /* Slots hold structs (headers before pixels): each starts on a max_align_t
     * boundary, as the first one does, whatever the size asked for. */
    box->stride = (slot_size + align - 1) / align * align;
    box->slots = calloc(3, box->stride);
    if (!box->slots) {
        free(box);
        return -ENOMEM;
    }
    box->slot_size = slot_size;
    box->write_index = 0;
    atomic_init(&box->middle, 1);
    box->read_index = 2;
    *out = box;
    return 0;
}

void ccore_mailbox_destroy(ccore_mailbox *box) {
    if (!box) return;
    free(box->slots);
    free(box);
}

size_t ccore_mailbox_slot_size(const ccore_mailbox *box) { return box ? box->slot_size : 0; }

void *ccore_mailbox_write_slot(ccore_mailbox *box) {
    return box ? box->slots + box->write_index * box->stride : NULL;
}

void ccore_mailbox_publish(ccore_mailbox *box) {
    if (!box) return;
    /* acq_rel: release our writes to the slot, acquire the slot we get back. */
    unsigned old = atomic_exchange_explicit(&box->middle, box->write_index | FRESH, memory_order_acq_rel);
    box->write_index = old & ~FRESH;
}

bool ccore_mailbox_refresh(ccore_mailbox *box) {
    if (!box || !(atomic_load_explicit(&box->middle, memory_order_relaxed) & FRESH)) return false;
    unsigned old = atomic_exchange_explicit(&box->middle, box->read_index, memory_order_acq_rel);
    box->read_index = old & ~FRESH;
    box->has_read = 1;
    return true;
}

const void *ccore_mailbox_read_slot(const ccore_mailbox *box) {
    return box && box->has_read ? box->slots + box->read_index * box->stride : NULL;
}
