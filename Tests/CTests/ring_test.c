/* The SPSC ring: its contract on one thread, then a producer and a consumer thread
 * hammering a small ring. Every record carries its sequence number and values derived
 * from it, so a record read before its bytes were published (a missing release/acquire
 * pair: invisible on x86, real on arm64 hardware) shows up as a torn or stale record. */
#include <pthread.h>
#include <sched.h>
#include <string.h>

#include "ccore/ring.h"
#include "ccore/sample.h"
#include "ctest.h"

void test_ring_single_thread(void) {
    ccore_ring *ring = NULL;
    REQUIRE(ccore_ring_create(sizeof(uint64_t), 5, &ring) == 0);
    CHECK_INT(ccore_ring_capacity(ring), 8);
    uint64_t v = 0;
    CHECK(!ccore_ring_pop(ring, &v));
    for (uint64_t i = 0; i < 8; i++) CHECK(ccore_ring_push(ring, &i));
    uint64_t extra = 99;
    CHECK(!ccore_ring_push(ring, &extra));
    CHECK_INT(ccore_ring_overflows(ring), 1);
    CHECK_INT(ccore_ring_count(ring), 8);
    uint64_t out[8] = {0};
    CHECK_INT(ccore_ring_pop_many(ring, out, 8), 8);
    for (uint64_t i = 0; i < 8; i++) CHECK_INT(out[i], i);
    CHECK_INT(ccore_ring_count(ring), 0);
    ccore_ring_destroy(ring);
    CHECK(ccore_ring_create(0, 4, &ring) < 0);
}

/* Word k of record n: a mix of n and k no two records share. */
static uint64_t word(uint64_t n, unsigned k) { return (n + 1) * 0x9E3779B97F4A7C15ull ^ ((uint64_t)k << 56 | k); }

typedef struct {
    ccore_ring *ring;
    size_t record_size;
    uint64_t count;
    uint64_t refused; /* producer: pushes refused because the ring was full */
    uint64_t errors;  /* consumer: records out of order or torn */
    uint64_t first_bad;
} stress;

static void fill(unsigned char *record, size_t size, uint64_t n) {
    for (size_t k = 0; k * 8 < size; k++) {
        uint64_t w = k == 0 ? n : word(n, (unsigned)k);
        memcpy(record + k * 8, &w, size - k * 8 < 8 ? size - k * 8 : 8);
    }
}

static int intact(const unsigned char *record, size_t size, uint64_t n) {
    for (size_t k = 0; k * 8 < size; k++) {
        uint64_t w = k == 0 ? n : word(n, (unsigned)k), got = 0;
        size_t len = size - k * 8 < 8 ? size - k * 8 : 8;
        memcpy(&got, record + k * 8, len);
        if (memcmp(&got, &w, len) != 0) return 0;
    }
    return 1;
}

static void *produce(void *arg) {
    stress *s = arg;
    unsigned char record[512];
    for (uint64_t n = 0; n < s->count; n++) {
        /* Alternate the pace in blocks: a fast producer keeps the ring full (the race is
         * on reusing a slot the consumer is reading), a slow one keeps it nearly empty
         * (the consumer spins on head and races the slot being written). */
        if ((n / 4096) & 1)
            for (volatile unsigned k = 0; k < 200; k++) {
            }
        fill(record, s->record_size, n);
        unsigned spins = 0;
        while (!ccore_ring_push(s->ring, record)) {
            s->refused++;
            if (++spins % 64 == 0) sched_yield(); /* two cores shared by many: let the consumer run */
        }
    }
    return NULL;
}

static void *consume(void *arg) {
    stress *s = arg;
    unsigned char batch[7 * 512];
    uint64_t next = 0;
    unsigned spins = 0, turn = 0;
    while (next < s->count) {
        /* Alternate single pops and batches, so both consumer paths race the producer. */
        uint32_t got = (turn++ & 1) ? ccore_ring_pop_many(s->ring, batch, 7) : ccore_ring_pop(s->ring, batch);
        if (got == 0) {
            if (++spins % 64 == 0) sched_yield();
            continue;
        }
        for (uint32_t i = 0; i < got; i++, next++) {
            if (!intact(batch + (size_t)i * s->record_size, s->record_size, next)) {
                if (s->errors++ == 0) s->first_bad = next;
            }
        }
    }
    return NULL;
}

static void run_stress(size_t record_size, uint32_t capacity, uint64_t count) {
    stress s = {.record_size = record_size, .count = count};
    REQUIRE(record_size <= 512 && record_size >= 8);
    REQUIRE(ccore_ring_create(record_size, capacity, &s.ring) == 0);
    pthread_t producer, consumer;
    REQUIRE(pthread_create(&consumer, NULL, consume, &s) == 0);
    REQUIRE(pthread_create(&producer, NULL, produce, &s) == 0);
    pthread_join(producer, NULL);
    pthread_join(consumer, NULL);
    if (s.errors) printf("    first bad record: %llu\n", (unsigned long long)s.first_bad);
    CHECK_INT(s.errors, 0);
    CHECK_INT(ccore_ring_count(s.ring), 0);
    /* Every refused push, and nothing else, is counted as an overflow. */
    CHECK_INT(ccore_ring_overflows(s.ring), s.refused);
    CHECK(!ccore_ring_pop(s.ring, (unsigned char[512]){0}));
    printf("    %llu records of %zu bytes through a ring of %u, %llu pushes refused (ring full)\n",
           (unsigned long long)count, record_size, ccore_ring_capacity(s.ring), (unsigned long long)s.refused);
    ccore_ring_destroy(s.ring);
}

void test_ring_two_thread_stress(void) { run_stress(40, 16, ctest_scaled(2000000)); }

/* The real record: ccore_frame_sample (a few hundred bytes, many cache lines). */
void test_ring_two_thread_stress_samples(void) {
    run_stress(sizeof(ccore_frame_sample), 8, ctest_scaled(300000));
}
