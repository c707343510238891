/* Lock-free SPSC ring: the producer owns `head`, the consumer owns `tail`.
 * Each index lives on its own cache line so the two threads never share one
 * for writing; each side also caches the other's index to touch the shared
 * line only when the ring looks full (producer) or empty (consumer). */
#include "ccore/ring.h"

#include <errno.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define CACHE_LINE 64

struct ccore_ring {
    alignas(CACHE_LINE) _Atomic uint64_t head; /* next slot to write (producer) */
    uint64_t cached_tail;                      /* producer's last view of tail */
    _Atomic uint64_t overflows;                /* written by the producer only */
    alignas(CACHE_LINE) _Atomic uint64_t tail; /* next slot to read (consumer) */
    uint64_t cached_head;                      /* consumer's last view of head */
    alignas(CACHE_LINE) uint32_t mask;
    size_t record_size;
    unsigned char *records;
};

int ccore_ring_create(size_t record_size, uint32_t capacity, ccore_ring **out) {
    if (!out || record_size == 0 || capacity > (1u << 30)) return -EINVAL;
    *out = NULL;
    uint32_t cap = 2;
    while (cap < capacity) cap <<= 1;
    ccore_ring *ring = aligned_alloc(CACHE_LINE, sizeof *ring);
    if (!ring) return -ENOMEM;
    memset(ring, 0, sizeof *ring);
    ring->records = calloc(cap, record_size);
    if (!ring->records) {
        free(ring);
        return -ENOMEM;
    }
    ring->mask = cap - 1;
    ring->record_size = record_size;
    atomic_init(&ring->head, 0);
    atomic_init(&ring->tail, 0);
    atomic_init(&ring->overflows, 0);
    *out = ring;
    return 0;
}

void ccore_ring_destroy(ccore_ring *ring) {
    if (!ring) return;
    free(ring->records);
    free(ring);
}

bool ccore_ring_push(ccore_ring *ring, const void *record) {
    if (!ring || !record) return false;
    uint64_t head = atomic_load_explicit(&ring->head, memory_order_relaxed);
    if (head - ring->cached_tail > ring->mask) {
        ring->cached_tail = atomic_load_explicit(&ring->tail, memory_order_acquire);
        if (head - ring->cached_tail > ring->mask) {
            atomic_fetch_add_explicit(&ring->overflows, 1, memory_order_relaxed);
            return false;
        }
    }
    memcpy(ring->records + (head & ring->mask) * ring->record_size, record, ring->record_size);
    /* Release: the record's bytes are visible before the consumer sees the new head. */
    atomic_store_explicit(&ring->head, head + 1, memory_order_release);
    return true;
}

bool ccore_ring_pop(ccore_ring *ring, void *record) {
    if (!ring || !record) return false;
    uint64_t tail = atomic_load_explicit(&ring->tail, memory_order_relaxed);
    if (tail == ring->cached_head) {
        ring->cached_head = atomic_load_explicit(&ring->head, memory_order_acquire);
        if (tail == ring->cached_head) return false;
    }
    memcpy(record, ring->records + (tail & ring->mask) * ring->record_size, ring->record_size);
    /* Release: we are done reading the slot before the producer may reuse it. */
    atomic_store_explicit(&ring->tail, tail + 1, memory_order_release);
    return true;
}

uint32_t ccore_ring_pop_many(ccore_ring *ring, void *records, uint32_t max) {
    uint32_t n = 0;
    unsigned char *dst = records;
    if (!ring || !records) return 0;
    while (n < max && ccore_ring_pop(ring, dst + (size_t)n * ring->record_size)) n++;
    return n;
}

uint32_t ccore_ring_capacity(const ccore_ring *ring) { return ring ? ring->mask + 1 : 0; }

size_t ccore_ring_record_size(const ccore_ring *ring) { return ring ? ring->record_size : 0; }

uint32_t ccore_ring_count(const ccore_ring *ring) {
    if (!ring) return 0;
    uint64_t tail = atomic_load_explicit(&((ccore_ring *)ring)->tail, memory_order_acquire);
    uint64_t head = atomic_load_explicit(&((ccore_ring *)ring)->head, memory_order_acquire);
    return head >= tail ? (uint32_t)(head - tail) : 0;
}

uint64_t ccore_ring_overflows(const ccore_ring *ring) {
    if (!ring) return 0;
    return atomic_load_explicit(&((ccore_ring *)ring)->overflows, memory_order_relaxed);
}
