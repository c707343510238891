/* Heap-allocation counter for the benchmark.
 *
 * The bench binary defines malloc, calloc, realloc, free and the aligned
 * variants itself; the dynamic linker binds every caller in the process
 * (CCore, libturbojpeg, libc) to them. They forward to glibc's __libc_*
 * entry points and, only while counting is switched on for the calling
 * thread, count the calls (relaxed atomics) and record each call site
 * (the return address into the caller) in a fixed table, so counting
 * itself allocates nothing. */
#ifndef CCORE_BENCH_ALLOC_COUNT_H
#define CCORE_BENCH_ALLOC_COUNT_H

#include <stddef.h>
#include <stdint.h>

#define ALLOC_MAX_SITES 64

typedef struct {
    uintptr_t address; /* return address into the caller of malloc & co. */
    uint64_t calls;
    uint64_t bytes;
    size_t min_size, max_size;
    char kind; /* 'm' malloc, 'c' calloc, 'r' realloc, 'a' aligned */
} alloc_site;

typedef struct {
    uint64_t allocations; /* malloc + calloc + realloc + aligned allocations */
    uint64_t frees;       /* free() of a non-NULL pointer */
    uint64_t bytes;       /* bytes requested by those allocations */
    uint32_t site_count;
    uint32_t sites_overflowed; /* call sites beyond ALLOC_MAX_SITES (counted, not itemised) */
    alloc_site sites[ALLOC_MAX_SITES];
} alloc_report;

/** Whether this build counts at all: malloc & co. are interposed only over glibc and
 *  without a sanitizer (AddressSanitizer and its kin bring their own allocator). Where
 *  it is 0 the counters stay at zero, which must not be read as "no allocations". */
int alloc_count_available(void);

/** Clears the counters and the site table. */
void alloc_count_reset(void);

/** Starts / stops counting the calling thread's allocations. */
void alloc_count_on(void);
void alloc_count_off(void);

/** Copies the counters out. */
void alloc_count_read(alloc_report *out);

#endif
