/* The face: landmarks measured on the photograph, the skin mask derived from
 * its own colour, and the premultiplied layer the renderer warps per frame.
 *
 * Source: skimage/data/astronaut.png (512x512, NASA, public domain). All
 * coordinates below are that image's pixels (x right, y down), measured by
 * eye on magnified crops. The embedded JPEG is the crop GT_CROP_*. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <turbojpeg.h>

#include "face_data.h"
#include "gt_internal.h"

/* The crop stored in face_astronaut.c (keep in sync with make-face-data.sh). */
#define GT_CROP_X 16
#define GT_CROP_Y 0

/* Face bounding box as a face detector would draw it: cheek to cheek,
 * eyebrows' upper edge (the fringe) to chin. */
static const gt_box face_box = {180, 72, 89, 110};
/* Face oval (centre, radii): the skin of the face, hairline to chin. */
static const float oval_cx = 224.5f, oval_cy = 127.0f, oval_rx = 44.0f, oval_ry = 57.0f;
/* Truth ROIs. The fringe hides most of the forehead; what shows is a thin
 * band above the brows and the glabella between them, so the forehead ROI
 * is the lower forehead between the brows, x 214-234, y 85-97, clear of
 * hair, brows and eyes by 1-2 px (edges at a ROI's border would make its
 * mean flicker as the head moves by fractions of a pixel). Subject's left
 * cheek is on the image's right (the photo is not mirrored). */
static const gt_box rois[GT_ROI_COUNT] = {
    {214, 85, 20, 12}, /* forehead */
    {242, 110, 20, 20}, /* subject's left cheek (image right) */
    {184, 106, 20, 18}, /* subject's right cheek (image left) */
};
/* Features excluded from the pulse (ellipses: centre x, y, radius x, y). */
static const float features[][4] = {
    {203.5f, 101.0f, 13.0f, 6.0f}, /* eye, image left */
    {246.0f, 102.5f, 12.0f, 6.0f}, /* eye, image right */
    {202.0f, 89.5f, 12.0f, 2.5f},  /* brow, image left */
    {248.0f, 91.5f, 12.0f, 2.5f},  /* brow, image right */
    {224.0f, 145.5f, 24.0f, 8.5f}, /* mouth */
};
/* The neck between chin and turtleneck (ellipse), darkened with the face. */
static const float neck[4] = {222.0f, 178.0f, 38.0f, 16.0f};
/* Lower edge of the fringe, piecewise linear; no skin above it. */
static const float fringe_x[] = {170, 190, 200, 220, 235, 245, 250, 258, 280};
static const float fringe_y[] = {74, 77, 81, 82, 84, 86, 89, 92, 100};
/* The subject's silhouette: head (hair included) as an ellipse, plus the
 * torso in the orange suit as a polygon; everything outside (flag, shuttle
 * model, helmet) is replaced by the synthetic backdrop. */
static const float head_cx = 227.0f, head_cy = 100.0f, head_rx = 77.0f, head_ry = 86.0f;
static const float torso[][2] = {{126, 160}, {114, 190}, {113, 201}, {97, 216}, {77, 236}, {62, 253},
                                 {51, 270}, {42, 290}, {36, 312}, {33, 335}, {354, 335}, {350, 302},
                                 {345, 280}, {337, 261}, {323, 244}, {303, 228}, {302, 200}, {298, 160}};

/* Pulsatility of skin per channel (skin-reflection model: R : G : B =
 * 0.33 : 0.77 : 0.53), relative to green. */
static const float channel_weight[3] = {0.33f / 0.77f, 1.0f, 0.53f / 0.77f};
/* Drawn glasses: a lens (ellipse) over each eye, the bridge and the temples'
 * ends, in source pixels; and the beard's reach (below the cheekbones). */
static const float lens[2][4] = {{203.5f, 101.5f, 15.5f, 10.5f}, {246.0f, 102.5f, 15.0f, 10.5f}};
static const float bridge[2][2] = {{219.0f, 99.5f}, {231.0f, 100.0f}};
static const float temples[2][2][2] = {{{188.0f, 99.0f}, {178.0f, 97.0f}}, {{261.0f, 100.5f}, {271.0f, 98.5f}}};

/* The occluded scenario's card: over the subject's left cheek (image right)
 * and the inner half of the other, nose and upper lip included. A light blue
 * no skin model takes for skin (Cb well above skin's). */
static const gt_box occluder = {194, 103, 91, 39};
const float gt_occluder_rgb[3] = {95, 140, 195};

gt_box gt_occluder_source(void) { return occluder; }
gt_box gt_face_box_source(void) { return face_box; }
gt_box gt_face_roi_source(int roi) { return rois[roi]; }
void gt_face_centre_source(float *x, float *y) {
    *x = face_box.x + 0.5f * face_box.w;
    *y = face_box.y + 0.5f * face_box.h;
}

static float clamp01(float v) { return v < 0 ? 0 : v > 1 ? 1 : v; }

/* Distance from (x, y) to the segment a-b. */
static float segment_distance(float x, float y, const float *a, const float *b) {
    float dx = b[0] - a[0], dy = b[1] - a[1];
    float u = clamp01(((x - a[0]) * dx + (y - a[1]) * dy) / (dx * dx + dy * dy));
    return hypotf(x - a[0] - u * dx, y - a[1] - u * dy);
}

/* Glasses at a source pixel: how much the frame covers it (0-1) and the
 * lens's transmission over it (1 outside the lenses). */
static void glasses_at(float x, float y, float *frame, float *transmit) {
    float cover = 0, t = 1;
    for (int e = 0; e < 2; e++) {
        float ex = (x - lens[e][0]) / lens[e][2], ey = (y - lens[e][1]) / lens[e][3];
        float r = sqrtf(ex * ex + ey * ey), d = (r - 1) * fminf(lens[e][2], lens[e][3]);
        cover = fmaxf(cover, clamp01(1.6f - fabsf(d)));
        if (r < 1) t = 0.9f;
        cover = fmaxf(cover, clamp01(1.4f - segment_distance(x, y, temples[e][0], temples[e][1])));
    }
    cover = fmaxf(cover, clamp01(1.3f - segment_distance(x, y, bridge[0], bridge[1])));
    *frame = cover, *transmit = t;
}

/* Beard coverage at a source pixel (0-1) before its density: moustache,
 * chin and jaw, inside the face oval widened a little, the lips left bare. */
static float beard_at(float x, float y, float texture) {
    float ox = (x - oval_cx) / (oval_rx + 3), oy = (y - oval_cy) / (oval_ry + 3), oval = ox * ox + oy * oy;
    float inside = clamp01((1 - oval) / 0.1f);
    float mx = (x - features[4][0]) / features[4][2], my = (y - features[4][1]) / features[4][3];
    float lips = clamp01((1.15f - mx * mx - my * my) / 0.2f);
    float moustache = clamp01((y - 134) / 2) * clamp01((11 - fabsf(my * features[4][3] + 6)) / 2) *
                      clamp01((30 - fabsf(x - features[4][0])) / 3);
    float chin = clamp01((y - 141) / 4);
    float jaw = clamp01((y - 134) / 4) * clamp01((fabsf(x - oval_cx) - 27) / 4);
    float c = fmaxf(moustache, fmaxf(chin, jaw)) * inside * (1 - lips);
    return c * (0.75f + 0.25f * texture);
}

/* A hashed value in [0, 1) per source pixel and seed: hair's strand texture. */
static float pixel_hash(uint32_t i, uint32_t j, uint32_t seed) {
    uint32_t h = i * 0x8da6b343u ^ j * 0xd8163841u ^ seed * 0xcb1ab31fu;
    h ^= h >> 13, h *= 0x5bd1e995u, h ^= h >> 15;
    return (h & 0xffffff) / 16777216.0f;
}

static float fringe_at(float x) {
    size_t n = sizeof fringe_x / sizeof fringe_x[0];
    if (x <= fringe_x[0]) return fringe_y[0];
    for (size_t i = 1; i < n; i++)
        if (x <= fringe_x[i])
            return fringe_y[i - 1] + (fringe_y[i] - fringe_y[i - 1]) * (x - fringe_x[i - 1]) / (fringe_x[i] - fringe_x[i - 1]);
    return fringe_y[n - 1];
}

static int in_polygon(float x, float y, const float (*p)[2], size_t n) {
    int inside = 0;
    for (size_t i = 0, j = n - 1; i < n; j = i++)
        if ((p[i][1] > y) != (p[j][1] > y) && x < p[j][0] + (y - p[j][1]) * (p[i][0] - p[j][0]) / (p[i][1] - p[j][1]))
            inside = !inside;
    return inside;
}

/* 3x3 box blur of a single-channel map, `passes` times (softens mask edges). */
static int blur(float *map, uint32_t w, uint32_t h, int passes) {
    float *tmp = malloc((size_t)w * h * sizeof *tmp);
    if (!tmp) return -ENOMEM;
    for (int p = 0; p < passes; p++) {
        for (uint32_t y = 0; y < h; y++)
            for (uint32_t x = 0; x < w; x++) {
                uint32_t x0 = x ? x - 1 : x, x1 = x + 1 < w ? x + 1 : x;
                const float *r = map + (size_t)y * w;
                tmp[(size_t)y * w + x] = (r[x0] + r[x] + r[x1]) * (1.0f / 3);
            }
        for (uint32_t y = 0; y < h; y++) {
            uint32_t y0 = y ? y - 1 : y, y1 = y + 1 < h ? y + 1 : y;
            for (uint32_t x = 0; x < w; x++)
                map[(size_t)y * w + x] =
                    (tmp[(size_t)y0 * w + x] + tmp[(size_t)y * w + x] + tmp[(size_t)y1 * w + x]) * (1.0f / 3);
        }
    }
    free(tmp);
    return 0;
}

static int decode_face(float **rgb_out, uint32_t *w_out, uint32_t *h_out, char *msg, size_t msg_size) {
    tjhandle tj = tjInitDecompress();
    if (!tj) return -ENOMEM;
    int w, h, subsamp, colorspace, rc = 0;
    uint8_t *rgb8 = NULL;
    float *rgb = NULL;
    if (tjDecompressHeader3(tj, gt_face_astronaut_jpeg, gt_face_astronaut_jpeg_size, &w, &h, &subsamp, &colorspace)) {
        gt_set_msg(msg, msg_size, "embedded face image: %s", tjGetErrorStr2(tj));
        rc = -EIO;
        goto done;
    }
    rgb8 = malloc((size_t)w * h * 3);
    rgb = malloc((size_t)w * h * 3 * sizeof *rgb);
    if (!rgb8 || !rgb) {
        rc = -ENOMEM;
        goto done;
    }
    if (tjDecompress2(tj, gt_face_astronaut_jpeg, gt_face_astronaut_jpeg_size, rgb8, w, 0, h, TJPF_RGB,
                      TJFLAG_ACCURATEDCT)) {
        gt_set_msg(msg, msg_size, "embedded face image: %s", tjGetErrorStr2(tj));
        rc = -EIO;
        goto done;
    }
    for (size_t i = 0; i < (size_t)w * h * 3; i++) rgb[i] = rgb8[i];
    *rgb_out = rgb, *w_out = (uint32_t)w, *h_out = (uint32_t)h;
    rgb = NULL;
done:
    free(rgb8);
    free(rgb);
    tjDestroy(tj);
    return rc;
}

/* Full-range (JFIF) Y'CbCr. */
static void ycc(const float *p, float *y, float *cb, float *cr) {
    *y = 0.299f * p[0] + 0.587f * p[1] + 0.114f * p[2];
    *cb = 128 - 0.168736f * p[0] - 0.331264f * p[1] + 0.5f * p[2];
    *cr = 128 + 0.5f * p[0] - 0.418688f * p[1] - 0.081312f * p[2];
}

/* Bilinear sample of an n-channel image, transparent (zero) outside.
 * (x, y) in pixel units with pixel centres at +0.5. */
static void sample(const float *img, uint32_t w, uint32_t h, int n, float x, float y, float *out) {
    float fx = x - 0.5f, fy = y - 0.5f;
    int x0 = (int)floorf(fx), y0 = (int)floorf(fy);
    float ax = fx - x0, ay = fy - y0;
    const float wt[4] = {(1 - ax) * (1 - ay), ax * (1 - ay), (1 - ax) * ay, ax * ay};
    const int xs[4] = {x0, x0 + 1, x0, x0 + 1}, ys[4] = {y0, y0, y0 + 1, y0 + 1};
    for (int k = 0; k < n; k++) out[k] = 0;
    for (int i = 0; i < 4; i++) {
        if (xs[i] < 0 || ys[i] < 0 || xs[i] >= (int)w || ys[i] >= (int)h) continue;
        const float *p = img + ((size_t)ys[i] * w + xs[i]) * n;
        for (int k = 0; k < n; k++) out[k] += wt[i] * p[k];
    }
}

/* Chamfer distance (in pixels, 3-4 metric) from every pixel to the nearest
 * pixel where mask > 0.5. */
static int distance_to_mask(const float *mask, uint32_t w, uint32_t h, float *dist) {
    const float big = 1e9f;
    for (size_t k = 0; k < (size_t)w * h; k++) dist[k] = mask[k] > 0.5f ? 0 : big;
    for (int pass = 0; pass < 2; pass++) {
        int forward = pass == 0;
        for (uint32_t jj = 0; jj < h; jj++) {
            uint32_t j = forward ? jj : h - 1 - jj;
            for (uint32_t ii = 0; ii < w; ii++) {
                uint32_t i = forward ? ii : w - 1 - ii;
                float d = dist[(size_t)j * w + i];
                const int di[4] = {-1, 0, 1, -1}, dj[4] = {-1, -1, -1, 0};
                const float cost[4] = {4, 3, 4, 3};
                for (int k = 0; k < 4; k++) {
                    int x = (int)i + (forward ? di[k] : -di[k]), y = (int)j + (forward ? dj[k] : -dj[k]);
                    if (x < 0 || y < 0 || x >= (int)w || y >= (int)h) continue;
                    float v = dist[(size_t)y * w + x] + cost[k];
                    if (v < d) d = v;
                }
                dist[(size_t)j * w + i] = d;
            }
        }
    }
    for (size_t k = 0; k < (size_t)w * h; k++) dist[k] /= 3;
    return 0;
}

/* Solves the n x n system a x = b in place (Gaussian elimination, partial pivoting). */
static int solve(double *a, double *b, int n) {
    for (int c = 0; c < n; c++) {
        int p = c;
        for (int r = c + 1; r < n; r++)
            if (fabs(a[r * n + c]) > fabs(a[p * n + c])) p = r;
        if (fabs(a[p * n + c]) < 1e-12) return -1;
        for (int k = 0; k < n; k++) {
            double t = a[c * n + k];
            a[c * n + k] = a[p * n + k], a[p * n + k] = t;
        }
        double t = b[c];
        b[c] = b[p], b[p] = t;
        for (int r = c + 1; r < n; r++) {
            double f = a[r * n + c] / a[c * n + c];
            for (int k = c; k < n; k++) a[r * n + k] -= f * a[c * n + k];
            b[r] -= f * b[c];
        }
    }
    for (int c = n - 1; c >= 0; c--) {
        for (int k = c + 1; k < n; k++) b[c] -= a[c * n + k] * b[k];
        b[c] /= a[c * n + c];
    }
    return 0;
}

void gt_backdrop_basis(float x, float y, float *basis) {
    float u = x / 512, v = y / 512;
    basis[0] = 1, basis[1] = u, basis[2] = v, basis[3] = u * u, basis[4] = u * v, basis[5] = v * v;
}

/* The photo's own backdrop (plain, neutral, bright pixels within 40 px of
 * the silhouette) fitted by a quadratic per channel, so the synthetic
 * backdrop meets the photo's without a visible seam. */
static int fit_backdrop(gt_face_layer *layer, const float *rgb, const float *alpha, uint32_t w, uint32_t h) {
    float *dist = malloc((size_t)w * h * sizeof *dist);
    if (!dist) return -ENOMEM;
    distance_to_mask(alpha, w, h, dist);
    double ata[GT_BACKDROP_TERMS * GT_BACKDROP_TERMS] = {0}, atb[3][GT_BACKDROP_TERMS] = {{0}};
    float x_lo = 1e9f, x_hi = -1e9f, y_lo = 1e9f, y_hi = -1e9f;
    size_t used = 0;
    for (uint32_t j = 0; j < h; j++)
        for (uint32_t i = 0; i < w; i++) {
            size_t k = (size_t)j * w + i;
            const float *p = rgb + k * 3;
            float mx = fmaxf(p[0], fmaxf(p[1], p[2])), mn = fminf(p[0], fminf(p[1], p[2]));
            if (dist[k] < 4 || dist[k] > 40 || mx - mn > 40 || mn < 140) continue;
            float x = i + GT_CROP_X + 0.5f, y = j + GT_CROP_Y + 0.5f, basis[GT_BACKDROP_TERMS];
            gt_backdrop_basis(x, y, basis);
            for (int a = 0; a < GT_BACKDROP_TERMS; a++) {
                for (int b = 0; b < GT_BACKDROP_TERMS; b++) ata[a * GT_BACKDROP_TERMS + b] += basis[a] * basis[b];
                for (int ch = 0; ch < 3; ch++) atb[ch][a] += basis[a] * p[ch];
            }
            x_lo = fminf(x_lo, x), x_hi = fmaxf(x_hi, x), y_lo = fminf(y_lo, y), y_hi = fmaxf(y_hi, y);
            used++;
        }
    free(dist);
    for (int ch = 0; ch < 3; ch++) {
        double a[GT_BACKDROP_TERMS * GT_BACKDROP_TERMS];
        memcpy(a, ata, sizeof a);
        if (used < 100 || solve(a, atb[ch], GT_BACKDROP_TERMS) < 0) return -EIO;
        for (int t = 0; t < GT_BACKDROP_TERMS; t++) layer->backdrop_poly[ch][t] = (float)atb[ch][t];
    }
    layer->backdrop_box = (gt_box){x_lo, y_lo, x_hi - x_lo, y_hi - y_lo};
    return 0;
}

int gt_face_layer_build(gt_face_layer *layer, float scale, float amplitude, const gt_look *look, uint32_t seed,
                        char *msg, size_t msg_size) {
    memset(layer, 0, sizeof *layer);
    float *rgb = NULL, *skin = NULL, *darkw = NULL, *alpha = NULL, *src = NULL, *backw = NULL;
    uint32_t w = 0, h = 0;
    int rc = decode_face(&rgb, &w, &h, msg, msg_size);
    if (rc < 0) return rc;
    size_t n = (size_t)w * h;
    skin = malloc(n * sizeof *skin), darkw = malloc(n * sizeof *darkw), alpha = malloc(n * sizeof *alpha);
    src = malloc(n * GT_L_CHANNELS * sizeof *src), backw = malloc(n * sizeof *backw);
    if (!skin || !darkw || !alpha || !src || !backw) {
        rc = -ENOMEM;
        goto done;
    }

    /* Skin colour model from the truth ROIs: mean and covariance of (Cb, Cr)
     * and mean luma. Deriving it from the face itself is what keeps the mask
     * right for any skin tone and white balance. */
    double sy = 0, sb = 0, sr = 0, sbb = 0, srr = 0, sbr = 0, cnt = 0;
    for (int r = 0; r < GT_ROI_COUNT; r++)
        for (int y = (int)rois[r].y; y < (int)(rois[r].y + rois[r].h); y++)
            for (int x = (int)rois[r].x; x < (int)(rois[r].x + rois[r].w); x++) {
                float Y, cb, cr;
                ycc(rgb + ((size_t)(y - GT_CROP_Y) * w + (x - GT_CROP_X)) * 3, &Y, &cb, &cr);
                sy += Y, sb += cb, sr += cr, sbb += cb * cb, srr += cr * cr, sbr += cb * cr, cnt++;
            }
    double mb = sb / cnt, mr = sr / cnt, my = sy / cnt;
    double vbb = sbb / cnt - mb * mb, vrr = srr / cnt - mr * mr, vbr = sbr / cnt - mb * mr;
    double det = vbb * vrr - vbr * vbr;
    if (det < 1e-6) det = 1e-6;
    const double ibb = vrr / det, irr = vbb / det, ibr = -vbr / det; /* inverse covariance */

    for (uint32_t j = 0; j < h; j++)
        for (uint32_t i = 0; i < w; i++) {
            size_t k = (size_t)j * w + i;
            float x = i + GT_CROP_X + 0.5f, y = j + GT_CROP_Y + 0.5f, Y, cb, cr;
            ycc(rgb + k * 3, &Y, &cb, &cr);
            double db = cb - mb, dr = cr - mr, d2 = ibb * db * db + irr * dr * dr + 2 * ibr * db * dr;
            float ox = (x - oval_cx) / oval_rx, oy = (y - oval_cy) / oval_ry, oval = ox * ox + oy * oy;
            float below_fringe = y - fringe_at(x);
            /* Pulse mask: skin-coloured, not shadowed, inside the oval, below the fringe, off the features. */
            float s = clamp01((float)(12.0 - d2) / 7.0f) * clamp01((Y - 0.6f * (float)my) / (0.15f * (float)my)) *
                      clamp01((1 - oval) / 0.08f) * clamp01(below_fringe);
            for (size_t f = 0; f < sizeof features / sizeof features[0]; f++) {
                float ex = (x - features[f][0]) / features[f][2], ey = (y - features[f][1]) / features[f][3];
                s *= clamp01((ex * ex + ey * ey - 1) / 0.4f);
            }
            skin[k] = s;
            /* Darkening matte: all of the face and neck that is not backdrop,
             * hair, the whites of the eyes or teeth -- shadows and lips included,
             * so the darker skin has no light seams or speckles. */
            float ox2 = (x - oval_cx) / (oval_rx + 2), oy2 = (y - (oval_cy + 3)) / (oval_ry + 4);
            float mx = (x - features[4][0]) / features[4][2], my2 = (y - features[4][1]) / features[4][3];
            float lips = clamp01((1 - mx * mx - my2 * my2) / 0.3f);
            float colour = fmaxf(clamp01((float)(40.0 - d2) / 15.0f), lips);
            /* Whites of the eyes and teeth: bright and colourless, but only in
             * the eyes and the mouth (a cheek's highlight is as colourless). */
            float in_eye_or_mouth = lips;
            for (int f = 0; f < 2; f++) {
                float ex = (x - features[f][0]) / features[f][2], ey = (y - features[f][1]) / features[f][3];
                in_eye_or_mouth = fmaxf(in_eye_or_mouth, clamp01((1.3f - ex * ex - ey * ey) / 0.3f));
            }
            float chroma = hypotf(cb - 128, cr - 128);
            float white = in_eye_or_mouth * clamp01((Y - 0.75f * (float)my) / (0.1f * (float)my)) *
                          clamp01((16 - chroma) / 6);
            float nx = (x - neck[0]) / neck[2], ny = (y - neck[1]) / neck[3];
            float region = fmaxf(clamp01((1 - ox2 * ox2 - oy2 * oy2) / 0.08f), clamp01((1 - nx * nx - ny * ny) / 0.2f));
            darkw[k] = colour * (1 - white) * region * clamp01(below_fringe / 1.5f);
            float hx = (x - head_cx) / head_rx, hy = (y - head_cy) / head_ry;
            alpha[k] = (hx * hx + hy * hy <= 1 || in_polygon(x, y, torso, sizeof torso / sizeof torso[0])) ? 1.0f : 0.0f;
            /* The photo's own backdrop inside the silhouette (bright, colourless, off the
             * face): it takes the synthetic backdrop's tint, so the two still meet unseen. */
            float mxc = fmaxf(rgb[k * 3], fmaxf(rgb[k * 3 + 1], rgb[k * 3 + 2]));
            float mnc = fminf(rgb[k * 3], fminf(rgb[k * 3 + 1], rgb[k * 3 + 2]));
            backw[k] = clamp01((mnc - 125) / 20) * clamp01((45 - (mxc - mnc)) / 10) * clamp01((oval - 1.2f) / 0.3f);
        }
    if ((rc = blur(skin, w, h, 1)) < 0 || (rc = blur(darkw, w, h, 3)) < 0 || (rc = blur(alpha, w, h, 3)) < 0 ||
        (rc = blur(backw, w, h, 2)) < 0)
        goto done;

    /* Pulse strength across the face: strongest on forehead and cheeks
     * (thin skin over dense capillaries), weaker towards jaw and nose;
     * scaled so the skin of the truth ROIs carries `amplitude` on average. */
    double wsum = 0, psum = 0;
    for (int pass = 0; pass < 2; pass++) {
        float norm = pass ? (float)(wsum / (psum > 0 ? psum : 1)) : 1.0f;
        for (uint32_t j = 0; j < h; j++)
            for (uint32_t i = 0; i < w; i++) {
                size_t k = (size_t)j * w + i;
                float x = i + GT_CROP_X + 0.5f, y = j + GT_CROP_Y + 0.5f, bump = 0;
                int in_roi = 0;
                for (int r = 0; r < GT_ROI_COUNT; r++) {
                    float dx = (x - (rois[r].x + rois[r].w / 2)) / rois[r].w;
                    float dy = (y - (rois[r].y + rois[r].h / 2)) / (rois[r].h + 6);
                    float g = expf(-(dx * dx + dy * dy));
                    if (g > bump) bump = g;
                    in_roi |= x >= rois[r].x && x < rois[r].x + rois[r].w && y >= rois[r].y && y < rois[r].y + rois[r].h;
                }
                float profile = (0.55f + 0.45f * bump) * norm;
                if (!pass) {
                    if (in_roi) wsum += skin[k], psum += skin[k] * profile;
                    continue;
                }
                float c[3], swing = amplitude * profile * skin[k];
                for (int ch = 0; ch < 3; ch++) {
                    c[ch] = rgb[k * 3 + ch];
                    c[ch] *= 1 - darkw[k] * (1 - look->skin_scale[ch]);
                    c[ch] *= 1 + backw[k] * (look->backdrop_tint[ch] - 1);
                }
                /* What covers the skin: a beard (hair does not pulse), glasses' frames, lenses. */
                float cover[3] = {0, 0, 0}, covered = 0;
                if (look->beard > 0) {
                    float b = look->beard * beard_at(x, y, pixel_hash(i, j, seed));
                    float strand = 0.6f + 0.8f * pixel_hash(j, i, seed ^ 0x9e37u);
                    for (int ch = 0; ch < 3; ch++) cover[ch] = look->beard_rgb[ch] * strand;
                    covered = b;
                }
                if (look->glasses) {
                    float frame, transmit;
                    glasses_at(x, y, &frame, &transmit);
                    for (int ch = 0; ch < 3; ch++) c[ch] *= transmit;
                    if (frame > covered) {
                        for (int ch = 0; ch < 3; ch++) cover[ch] = look->glasses_rgb[ch];
                        covered = frame;
                    }
                }
                float a = alpha[k], *o = src + k * GT_L_CHANNELS;
                for (int ch = 0; ch < 3; ch++) {
                    float pulsing = c[ch] * (1 - covered);
                    o[GT_L_R + ch] = a * (pulsing + covered * cover[ch]);
                    o[GT_L_DR + ch] = a * pulsing * swing * channel_weight[ch];
                }
                o[GT_L_A] = a;
                o[GT_L_PAD] = 0;
            }
    }

    if ((rc = fit_backdrop(layer, rgb, alpha, w, h)) < 0) {
        gt_set_msg(msg, msg_size, "fitting the photo's backdrop failed");
        goto done;
    }

    /* Resample to the frame's scale once, so the per-frame warp only moves
     * by a few percent and bilinear sampling never aliases. Shrinking
     * averages n x n bilinear taps per pixel (a box prefilter). */
    const uint32_t border = 2;
    uint32_t lw = (uint32_t)ceilf(w * scale) + 2 * border, lh = (uint32_t)ceilf(h * scale) + 2 * border;
    int taps = scale < 1 ? (int)ceilf(1 / scale) : 1;
    layer->pixels = calloc((size_t)lw * lh * GT_L_CHANNELS, sizeof *layer->pixels);
    if (!layer->pixels) {
        rc = -ENOMEM;
        goto done;
    }
    for (uint32_t j = 0; j < lh; j++)
        for (uint32_t i = 0; i < lw; i++) {
            float acc[GT_L_CHANNELS] = {0}, tap[GT_L_CHANNELS];
            for (int b = 0; b < taps; b++)
                for (int a = 0; a < taps; a++) {
                    float sx = ((float)i - border + (a + 0.5f) / taps) / scale;
                    float sy2 = ((float)j - border + (b + 0.5f) / taps) / scale;
                    sample(src, w, h, GT_L_CHANNELS, sx, sy2, tap);
                    for (int k = 0; k < GT_L_CHANNELS; k++) acc[k] += tap[k];
                }
            float *o = layer->pixels + ((size_t)j * lw + i) * GT_L_CHANNELS;
            for (int k = 0; k < GT_L_CHANNELS; k++) o[k] = acc[k] / (float)(taps * taps);
        }
    layer->width = lw, layer->height = lh, layer->scale = scale;
    layer->origin_x = border - GT_CROP_X * scale;
    layer->origin_y = border - GT_CROP_Y * scale;
done:
    free(rgb), free(skin), free(darkw), free(alpha), free(src), free(backw);
    if (rc < 0) gt_face_layer_free(layer);
    return rc;
}

void gt_face_layer_free(gt_face_layer *layer) {
    free(layer->pixels);
    layer->pixels = NULL;
}
