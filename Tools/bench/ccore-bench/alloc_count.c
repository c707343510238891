/* malloc & co. interposed in the bench binary; see alloc_count.h. */
#include "alloc_count.h"

#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#ifndef __has_feature
#define __has_feature(x) 0
#endif
#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__) && \
    !__has_feature(address_sanitizer) && !__has_feature(thread_sanitizer) && !__has_feature(memory_sanitizer)
#define INTERPOSED 1
#else
#define INTERPOSED 0
#endif

int alloc_count_available(void) { return INTERPOSED; }

#if INTERPOSED
/* glibc's real allocator, exported for exactly this purpose. */
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *ptr, size_t size);
extern void __libc_free(void *ptr);
extern void *__libc_memalign(size_t alignment, size_t size);
#endif

static _Thread_local int counting;
static _Atomic uint64_t n_alloc, n_free, n_bytes;
/* Written only by the counting thread (counting is per thread). */
static alloc_site sites[ALLOC_MAX_SITES];
static uint32_t site_count, sites_overflowed;

#if INTERPOSED
static void note(uintptr_t caller, size_t size, char kind) {
    atomic_fetch_add_explicit(&n_alloc, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&n_bytes, size, memory_order_relaxed);
    for (uint32_t i = 0; i < site_count; i++) {
        alloc_site *s = &sites[i];
        if (s->address == caller && s->kind == kind) {
            s->calls++;
            s->bytes += size;
            if (size < s->min_size) s->min_size = size;
            if (size > s->max_size) s->max_size = size;
            return;
        }
    }
    if (site_count == ALLOC_MAX_SITES) {
        sites_overflowed++;
        return;
    }
    sites[site_count++] =
        (alloc_site){.address = caller, .calls = 1, .bytes = size, .min_size = size, .max_size = size, .kind = kind};
}

#define CALLER ((uintptr_t)__builtin_extract_return_addr(__builtin_return_address(0)))

void *malloc(size_t size) {
    if (counting) note(CALLER, size, 'm');
    return __libc_malloc(size);
}

void *calloc(size_t n, size_t size) {
    if (counting) note(CALLER, n * size, 'c');
    return __libc_calloc(n, size);
}

void *realloc(void *ptr, size_t size) {
    if (counting) note(CALLER, size, 'r');
    return __libc_realloc(ptr, size);
}

void free(void *ptr) {
    if (counting && ptr) atomic_fetch_add_explicit(&n_free, 1, memory_order_relaxed);
    __libc_free(ptr);
}

void *memalign(size_t alignment, size_t size) {
    if (counting) note(CALLER, size, 'a');
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    if (counting) note(CALLER, size, 'a');
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **out, size_t alignment, size_t size) {
    if (alignment < sizeof(void *) || (alignment & (alignment - 1))) return EINVAL;
    if (counting) note(CALLER, size, 'a');
    void *p = __libc_memalign(alignment, size);
    if (!p) return ENOMEM;
    *out = p;
    return 0;
}

#endif /* INTERPOSED */

void alloc_count_reset(void) {
    atomic_store_explicit(&n_alloc, 0, memory_order_relaxed);
    atomic_store_explicit(&n_free, 0, memory_order_relaxed);
    atomic_store_explicit(&n_bytes, 0, memory_order_relaxed);
    memset(sites, 0, sizeof sites);
    site_count = sites_overflowed = 0;
}

/* Compiler barriers keep the measured calls on the right side of the switch. */
void alloc_count_on(void) {
    atomic_signal_fence(memory_order_seq_cst);
    counting = 1;
    atomic_signal_fence(memory_order_seq_cst);
}

void alloc_count_off(void) {
    atomic_signal_fence(memory_order_seq_cst);
    counting = 0;
    atomic_signal_fence(memory_order_seq_cst);
}

void alloc_count_read(alloc_report *out) {
    out->allocations = atomic_load_explicit(&n_alloc, memory_order_relaxed);
    out->frees = atomic_load_explicit(&n_free, memory_order_relaxed);
    out->bytes = atomic_load_explicit(&n_bytes, memory_order_relaxed);
    out->site_count = site_count;
    out->sites_overflowed = sites_overflowed;
    memcpy(out->sites, sites, sizeof sites);
}
