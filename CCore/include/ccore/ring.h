/* Lock-free single-producer / single-consumer ring of fixed-size records.
 *
 * One thread pushes, one thread pops; neither ever blocks or allocates.
 * A push into a full ring fails and is counted: nothing is overwritten. */
#ifndef CCORE_RING_H
#define CCORE_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ccore_ring ccore_ring;

/** `capacity` is rounded up to a power of two (at least 2). */
int ccore_ring_create(size_t record_size, uint32_t capacity, ccore_ring **out);
void ccore_ring_destroy(ccore_ring *ring);

/** Producer side. Copies one record in; false (and the overflow counter
 *  grows) when the ring is full. */
bool ccore_ring_push(ccore_ring *ring, const void *record);

/** Consumer side. Copies the oldest record out; false when empty. */
bool ccore_ring_pop(ccore_ring *ring, void *record);

/** Consumer side. Pops up to `max` records into `records`; returns how many. */
uint32_t ccore_ring_pop_many(ccore_ring *ring, void *records, uint32_t max);

uint32_t ccore_ring_capacity(const ccore_ring *ring);
size_t ccore_ring_record_size(const ccore_ring *ring);
/** Records currently queued (exact from either side, approximate from others). */
uint32_t ccore_ring_count(const ccore_ring *ring);
/** Pushes refused because the ring was full. */
uint64_t ccore_ring_overflows(const ccore_ring *ring);

#ifdef __cplusplus
}
#endif
#endif
