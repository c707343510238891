/* Clustering of raw cascade hits into faces.
 *
 * A real face fires the cascade at many nearby positions and scales; an
 * accidental hit fires once or twice. Hits whose four sides lie within
 * eps * (mean of the smaller width and height) of each other join one
 * cluster (transitively); a cluster of more than min_neighbours hits becomes
 * a face at the average rectangle, unless it sits inside a clearly stronger
 * face. This is the grouping rule of OpenCV's detectMultiScale, so boxes
 * agree with it. Allocation-free: scratch comes from the detector. */
#include <math.h>
#include <stdlib.h>

#include "cascade_internal.h"

static int32_t find_root(int32_t *parent, int32_t i) {
    while (parent[i] != i) {
        parent[i] = parent[parent[i]]; /* path halving keeps the trees flat */
        i = parent[i];
    }
    return i;
}

static int32_t min32(int32_t a, int32_t b) { return a < b ? a : b; }

static int similar(const ccore_face *a, const ccore_face *b, double eps) {
    double delta = eps * (double)(min32(a->width, b->width) + min32(a->height, b->height)) * 0.5;
    return fabs((double)a->x - b->x) <= delta && fabs((double)a->y - b->y) <= delta &&
           fabs((double)(a->x + a->width) - (b->x + b->width)) <= delta &&
           fabs((double)(a->y + a->height) - (b->y + b->height)) <= delta;
}

/* Inserts `face` into `out` (sorted by area, largest first, `*n` entries,
 * capacity max_out); a face smaller than all of a full list is dropped. */
static void insert_largest_first(ccore_face *out, uint32_t *n, uint32_t max_out, ccore_face face) {
    int64_t area = (int64_t)face.width * face.height;
    uint32_t i = *n < max_out ? (*n)++ : max_out;
    while (i > 0 && (int64_t)out[i - 1].width * out[i - 1].height < area) {
        if (i < max_out) out[i] = out[i - 1];
        i--;
    }
    if (i < max_out) out[i] = face;
}

uint32_t ccore_cascade_group(const ccore_face *hits, uint32_t n, uint32_t min_neighbours, double eps, int32_t *parent,
                       cascade_cluster *sums, ccore_face *out, uint32_t max_out) {
    uint32_t written = 0;
    if (min_neighbours == 0) {
        for (uint32_t i = 0; i < n; i++) insert_largest_first(out, &written, max_out, hits[i]);
        return written;
    }
    for (uint32_t i = 0; i < n; i++) parent[i] = (int32_t)i;
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = i + 1; j < n; j++)
            if (similar(&hits[i], &hits[j], eps)) {
                int32_t a = find_root(parent, (int32_t)i), b = find_root(parent, (int32_t)j);
                if (a != b) parent[b] = a;
            }
    /* Sum each cluster's rectangles at its root's slot. */
    for (uint32_t i = 0; i < n; i++) sums[i] = (cascade_cluster){0, 0, 0, 0, 0, -1};
    for (uint32_t i = 0; i < n; i++) {
        cascade_cluster *c = &sums[find_root(parent, (int32_t)i)];
        c->x += hits[i].x;
        c->y += hits[i].y;
        c->width += hits[i].width;
        c->height += hits[i].height;
        c->count++;
    }
    /* Average the clusters that have enough hits, compacted to the front. */
    uint32_t clusters = 0;
    for (uint32_t i = 0; i < n; i++) {
        cascade_cluster c = sums[i];
        if (c.count <= (int32_t)min_neighbours) continue;
        double s = 1.0 / c.count;
        sums[clusters++] = (cascade_cluster){lrint((double)c.x * s), lrint((double)c.y * s), lrint((double)c.width * s),
                                             lrint((double)c.height * s), c.count, 0};
    }
    /* Drop a face nested in another (with eps slack) that has more hits,
     * unless both are well supported: then the inner one is a second face. */
    for (uint32_t i = 0; i < clusters; i++) {
        const cascade_cluster *a = &sums[i];
        int nested = 0;
        for (uint32_t j = 0; j < clusters && !nested; j++) {
            const cascade_cluster *b = &sums[j];
            if (i == j) continue;
            int64_t dx = lrint((double)b->width * eps), dy = lrint((double)b->height * eps);
            int stronger = b->count > (a->count > 3 ? a->count : 3) || a->count < 3;
            nested = stronger && a->x >= b->x - dx && a->y >= b->y - dy && a->x + a->width <= b->x + b->width + dx &&
                     a->y + a->height <= b->y + b->height + dy;
        }
        if (!nested)
            insert_largest_first(out, &written, max_out,
                                 (ccore_face){(int32_t)a->x, (int32_t)a->y, (int32_t)a->width, (int32_t)a->height,
                                              a->count});
    }
    return written;
}
