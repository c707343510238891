/* Evaluation of upright Haar cascades, one window at a time.
 *
 * Feature values are compared in units of the window's contrast (its area
 * times its grey-level standard deviation, over the window inset by one
 * pixel), which makes the trained thresholds independent of exposure. */
#include <math.h>

#include "cascade_internal.h"

/* Windows this flat (standard deviation in grey levels) hold no face and are
 * rejected before any stage. */
static const double MIN_STDDEV = 10.0;

static int32_t offset(uint32_t stride, int32_t x, int32_t y) { return y * (int32_t)stride + x; }

void ccore_cascade_haar_corners(const ccore_cascade *cc, uint32_t stride, cascade_haar_offsets *out) {
    for (uint32_t f = 0; f < cc->feature_count; f++) {
        const cascade_haar_feature *hf = &cc->haar[f];
        int32_t *c = out->corners + (size_t)f * CASCADE_HAAR_CORNERS;
        for (uint32_t r = 0; r < hf->rect_count; r++) {
            const cascade_haar_rect *q = &hf->rects[r];
            c[4 * r + 0] = offset(stride, q->x, q->y);
            c[4 * r + 1] = offset(stride, q->x + q->w, q->y);
            c[4 * r + 2] = offset(stride, q->x, q->y + q->h);
            c[4 * r + 3] = offset(stride, q->x + q->w, q->y + q->h);
        }
    }
    int32_t w = (int32_t)cc->window_width, h = (int32_t)cc->window_height;
    out->inset[0] = offset(stride, 1, 1);
    out->inset[1] = offset(stride, w - 1, 1);
    out->inset[2] = offset(stride, 1, h - 1);
    out->inset[3] = offset(stride, w - 1, h - 1);
}

int ccore_cascade_haar_window(const ccore_cascade *cc, const cascade_haar_offsets *o, const uint32_t *p, const uint64_t *sq) {
    const int32_t *n = o->inset;
    double area = (double)(cc->window_width - 2) * (cc->window_height - 2);
    double sum = (double)(uint32_t)(p[n[0]] - p[n[1]] - p[n[2]] + p[n[3]]);
    double squares = (double)(sq[n[0]] - sq[n[1]] - sq[n[2]] + sq[n[3]]);
    double spread = area * squares - sum * sum;
    if (spread <= 0) return 0;
    float norm = (float)sqrt(spread);
    if (norm <= MIN_STDDEV * area) return 0;
    const cascade_stump *stump = cc->stumps;
    for (uint32_t s = 0; s < cc->stage_count; s++) {
        const cascade_stage *stage = &cc->stages[s];
        float total = 0;
        for (uint32_t k = 0; k < stage->stump_count; k++, stump++) {
            const cascade_haar_feature *f = &cc->haar[stump->feature];
            const int32_t *c = o->corners + (size_t)stump->feature * CASCADE_HAAR_CORNERS;
            float value = 0;
            for (uint32_t r = 0; r < f->rect_count; r++, c += 4)
                value += f->rects[r].weight * (float)(uint32_t)(p[c[0]] - p[c[1]] - p[c[2]] + p[c[3]]);
            total += value < stump->threshold * norm ? stump->leaf[0] : stump->leaf[1];
        }
        if (total < stage->threshold) return 0;
    }
    return 1;
}
