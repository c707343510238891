/* ccore-bench: per-frame cost and heap allocations of the C core's capture
 * path (ccore_processor_process), on one core.
 *
 *   ccore-bench --yuyv FILE --size WxH [--mjpeg FILE]... [--json] [--cpu N]
 *               [--seconds S] [--warmup N] [--thumbnail-width N] [--restart N]
 *
 * Frames are loaded into memory first. Raw YUYV frames are handed over as a
 * ccore_image pointing straight at the frame bytes (what the capture thread
 * does with an mmap'ed V4L2 buffer); MJPEG frames as their compressed bytes.
 * Each line warms up, counts heap allocations over a pass of frames (malloc &
 * co. are interposed in this binary: alloc_count.c), then times one call per
 * frame with CLOCK_MONOTONIC, cycling through the clip. */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <math.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "alloc_count.h"
#include "ccore/error.h"
#include "ccore/image.h"
#include "ccore/jpeg.h"
#include "ccore/processor.h"
#include "ccore/roi.h"
#include "ccore/sample.h"
#include "ccore/source.h"
#include "ccore/videofile.h"

#define MAX_FRAMES 600
#define MAX_LINES 64
#define FRAME_INTERVAL_NS 33333333LL

/* ---------- clips ---------- */

typedef struct {
    const char *path;
    int is_mjpeg;
    uint32_t width, height, count;
    uint8_t *raw; /* YUYV: count frames, each frame_bytes long, page-aligned */
    size_t frame_bytes;
    uint8_t *jpeg[MAX_FRAMES]; /* MJPEG: one buffer per frame */
    size_t jpeg_size[MAX_FRAMES];
    size_t jpeg_total;
    uint32_t restart; /* MJPEG: a restart marker every this many MCUs, written in at load (0: as the file has it) */
    char tag[16];     /* "-rN" in the ids of a clip rewritten with restart markers, else "" */
} clip;

static void die(const char *fmt, const char *a, int code) {
    fprintf(stderr, "ccore-bench: ");
    fprintf(stderr, fmt, a);
    if (code) fprintf(stderr, " (%s)", code < -4000 ? ccore_error_name(code) : strerror(code < 0 ? -code : code));
    fputc('\n', stderr);
    exit(1);
}

static void load_yuyv(clip *c, const char *path, uint32_t w, uint32_t h) {
    FILE *f = fopen(path, "rb");
    if (!f) die("cannot open %s", path, errno);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    c->path = path;
    c->width = w;
    c->height = h;
    c->frame_bytes = (size_t)w * h * 2;
    c->count = (uint32_t)((size_t)size / c->frame_bytes);
    if (c->count > MAX_FRAMES) c->count = MAX_FRAMES;
    if (c->count == 0) die("%s holds no complete YUYV frame of the given size", path, 0);
    size_t stride = (c->frame_bytes + 4095) & ~(size_t)4095;
    if (posix_memalign((void **)&c->raw, 4096, stride * c->count)) die("out of memory for %s", path, 0);
    c->frame_bytes = stride; /* distance between frames; a frame itself is w*h*2 */
    for (uint32_t i = 0; i < c->count; i++)
        if (fread(c->raw + (size_t)i * stride, 1, (size_t)w * h * 2, f) != (size_t)w * h * 2)
            die("short read from %s", path, errno);
    fclose(f);
}

static void load_mjpeg(clip *c, const char *path, uint32_t restart) {
    char msg[256];
    ccore_videofile *vf;
    int rc = ccore_videofile_open(path, 30, &vf, msg, sizeof msg);
    if (rc < 0) die("%s", msg, rc);
    ccore_videofile_info info;
    ccore_videofile_get_info(vf, &info);
    c->path = path;
    c->is_mjpeg = 1;
    c->width = info.width;
    c->height = info.height;
    c->restart = restart;
    if (restart) snprintf(c->tag, sizeof c->tag, "-r%u", restart);
    ccore_videofile_frame fr;
    while (c->count < MAX_FRAMES && (rc = ccore_videofile_next(vf, &fr)) == 0) {
        if (restart) {
            /* As a webcam that sends restart markers writes the frame (the pixels are the file's). */
            int tr = ccore_jpeg_set_restart_interval(fr.jpeg, fr.jpeg_size, restart, &c->jpeg[c->count],
                                                     &c->jpeg_size[c->count]);
            if (tr < 0) die("cannot add restart markers to a frame of %s", path, tr);
        } else {
            c->jpeg[c->count] = malloc(fr.jpeg_size);
            if (!c->jpeg[c->count]) die("out of memory for %s", path, 0);
            memcpy(c->jpeg[c->count], fr.jpeg, fr.jpeg_size);
            c->jpeg_size[c->count] = fr.jpeg_size;
        }
        c->jpeg_total += c->jpeg_size[c->count];
        c->count++;
    }
    if (rc < 0 && rc != CCORE_E_END) die("%s", ccore_videofile_error_message(vf), rc);
    ccore_videofile_close(vf);
    if (c->count == 0) die("%s holds no JPEG frame", path, 0);
}

static void clip_image(const clip *c, uint32_t i, ccore_image *im) {
    ccore_image_wrap_packed(im, CCORE_PIXEL_YUYV, CCORE_RANGE_LIMITED, c->width, c->height,
                            c->raw + (size_t)(i % c->count) * c->frame_bytes);
}

/* ---------- the ROI set ---------- */

/* Forehead and both cheeks of the synthetic face (ellipse centred at
 * (0.5, 0.45), radii 0.2 x 0.32 of the frame): the same rectangles the Swift
 * layer publishes for a centred face (RegionSet.centeredFace), all inside
 * the ellipse. python_peer.py uses the same numbers. */
static const ccore_rect ROIS[3] = {
    {0.42f, 0.22f, 0.16f, 0.08f}, /* forehead */
    {0.36f, 0.46f, 0.08f, 0.10f}, /* left cheek (image left) */
    {0.56f, 0.46f, 0.08f, 0.10f}, /* right cheek */
};

static ccore_roi_set roi_set(void) {
    ccore_roi_set s;
    memset(&s, 0, sizeof s);
    s.count = 3;
    s.generation = 1;
    memcpy(s.rects, ROIS, sizeof ROIS);
    s.skin = ccore_skin_bounds_default();
    return s;
}

/* Smallest ROI side in frame pixels, as the processor's scale choice sees it. */
static float smallest_roi_side(uint32_t w, uint32_t h) {
    float m = INFINITY;
    for (int i = 0; i < 3; i++) {
        float a = (float)w * ROIS[i].width, b = (float)h * ROIS[i].height;
        if (a < m) m = a;
        if (b < m) m = b;
    }
    return m;
}

/* ---------- timing ---------- */

static inline uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

typedef struct {
    double mean_us, median_us, p99_us, min_us, max_us;
    uint64_t iterations;
} stats;

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void compute_stats(uint64_t *ns, size_t n, stats *st) {
    double sum = 0;
    for (size_t i = 0; i < n; i++) sum += (double)ns[i];
    qsort(ns, n, sizeof *ns, cmp_u64);
    st->iterations = n;
    st->mean_us = sum / (double)n / 1000.0;
    st->median_us = (n % 2 ? (double)ns[n / 2] : 0.5 * ((double)ns[n / 2 - 1] + (double)ns[n / 2])) / 1000.0;
    size_t k = (size_t)ceil(0.99 * (double)n);
    st->p99_us = (double)ns[k ? k - 1 : 0] / 1000.0;
    st->min_us = (double)ns[0] / 1000.0;
    st->max_us = (double)ns[n - 1] / 1000.0;
}

/* One measured operation: prepare() (untimed) then run() (timed), per frame. */
typedef struct op op;
struct op {
    void (*prepare)(op *o, uint32_t i);
    int (*run)(op *o);
    const clip *c;
    /* processor lines */
    ccore_processor *proc;
    ccore_frame frame;
    ccore_frame_sample sample;
    uint64_t sequence;
    /* component lines */
    ccore_jpeg *jpeg;
    ccore_image image;
    ccore_roi_set rois;
    ccore_roi_stats roi_stats[CCORE_MAX_ROIS];
    uint32_t scale;
    uint32_t thumb_w, thumb_h;
    uint8_t thumb[640 * 480];
    float luma;
};

typedef struct {
    char id[64];
    char what[160];
    const clip *c;
    int group; /* 0: processor line, 1: component breakdown line */
    uint32_t scale;
    int forced;
    uint32_t buffers; /* 0: every frame of the clip in turn; else only the first `buffers` frames */
    uint32_t min_roi_pixels, thumb_w, thumb_h;
    stats st;
    alloc_report alloc;
    uint32_t alloc_frames;
    ccore_roi_stats rois[3]; /* frame 0, processor lines */
    float luma;
} line;

static line lines[MAX_LINES];
static int line_count;
static uint64_t *samples;
static size_t max_samples = 2000000;
static double seconds_per_line = 1.5;
static uint32_t warmup_frames = 120;
static uint32_t thumbnail_width = 320;

/* The capture configuration of the camera path: ccore_source_config_init's
 * defaults with the face detector's thumbnail as ScanSession asks for it
 * (ScanPipeline.thumbnailSide): `thumbnail_width` pixels wide, or the frame's
 * width if smaller, at the frame's aspect, even height (320x240 for 640x480,
 * 320x180 for 1280x720). */
static ccore_source_config camera_config(uint32_t width, uint32_t height) {
    ccore_source_config sc;
    ccore_source_config_init(&sc);
    uint32_t tw = width < thumbnail_width ? width : thumbnail_width;
    sc.thumbnail_width = tw;
    sc.thumbnail_height = width ? (uint32_t)((uint64_t)height * tw / width) & ~1u : 0;
    if ((uint64_t)sc.thumbnail_width * sc.thumbnail_height > sizeof ((op *)0)->thumb)
        die("%s", "the thumbnail is larger than 640x480 pixels; pass a smaller --thumbnail-width", 0);
    return sc;
}

static void measure(op *o, line *l, double seconds) {
    const clip *c = o->c;
    uint32_t i = 0;
    for (uint32_t w = 0; w < warmup_frames || w < c->count; w++, i++) {
        o->prepare(o, i);
        if (o->run(o) < 0) die("operation failed on %s", c->path, 0);
    }
    /* Allocation pass after warm-up: at least one full cycle through the
     * clip; only the measured call is counted, not the untimed preparation. */
    uint32_t k = c->count < 60 ? 60 : c->count;
    alloc_count_reset();
    for (uint32_t j = 0; j < k; j++, i++) {
        o->prepare(o, i);
        alloc_count_on();
        o->run(o);
        alloc_count_off();
    }
    alloc_count_read(&l->alloc);
    l->alloc_frames = k;
    /* Timed pass. */
    size_t n = 0;
    uint64_t start = now_ns(), budget = (uint64_t)(seconds * 1e9);
    while (n < max_samples && (n < 200 || now_ns() - start < budget)) {
        o->prepare(o, i++);
        uint64_t t0 = now_ns();
        o->run(o);
        uint64_t t1 = now_ns();
        samples[n++] = t1 - t0;
    }
    compute_stats(samples, n, &l->st);
}

/* Processor lines. */
static void prep_processor(op *o, uint32_t i) {
    const clip *c = o->c;
    uint32_t f = i % c->count;
    o->frame.sequence = o->sequence;
    o->frame.timestamp_ns = (int64_t)o->sequence * FRAME_INTERVAL_NS;
    o->sequence++;
    if (c->is_mjpeg) {
        o->frame.jpeg = c->jpeg[f];
        o->frame.jpeg_size = c->jpeg_size[f];
    } else {
        clip_image(c, f, &o->frame.image);
    }
}

static int run_processor(op *o) { return ccore_processor_process(o->proc, &o->frame, &o->sample) == 1 ? 0 : -1; }

/* Component lines (what the processor does, one call at a time). */
static void prep_nothing(op *o, uint32_t i) {
    o->frame.jpeg = o->c->jpeg[i % o->c->count];
    o->frame.jpeg_size = o->c->jpeg_size[i % o->c->count];
}
static void prep_decoded(op *o, uint32_t i) {
    const clip *c = o->c;
    if (c->is_mjpeg) {
        if (ccore_jpeg_decode(o->jpeg, c->jpeg[i % c->count], c->jpeg_size[i % c->count], o->scale, &o->image) < 0)
            die("decode failed on %s", c->path, 0);
    } else {
        clip_image(c, i, &o->image);
    }
}
static int run_decode(op *o) {
    return ccore_jpeg_decode(o->jpeg, o->frame.jpeg, o->frame.jpeg_size, o->scale, &o->image);
}
/* The Huffman decoding of the whole frame and nothing else: only the first
 * and the last rows are asked for, so the decode runs from the top to the
 * bottom of the frame (restart markers or not) and skips the inverse DCT in
 * between. No decode that reads a whole frame (a thumbnail frame) can cost
 * less with this decoder. */
static int run_entropy(op *o) {
    static const ccore_jpeg_rows last_rows = {.luma_top = 0, .luma_bottom = 0.001f, .colour_top = 0.999f,
                                              .colour_bottom = 1};
    return ccore_jpeg_decode_part(o->jpeg, o->frame.jpeg, o->frame.jpeg_size, o->scale, &last_rows, &o->image);
}
/* What a frame that makes no thumbnail needs for the regions alone: their box
 * of rows and columns, no luma. From the top down to the box's bottom, or, when
 * the frame has restart markers, the box's intervals alone. */
static int run_box(op *o) {
    ccore_jpeg_rows box = {.colour_top = 1, .colour_left = 1};
    for (uint32_t i = 0; i < o->rois.count; i++) {
        const ccore_rect *r = &o->rois.rects[i];
        if (r->y < box.colour_top) box.colour_top = r->y;
        if (r->y + r->height > box.colour_bottom) box.colour_bottom = r->y + r->height;
        if (r->x < box.colour_left) box.colour_left = r->x;
        if (r->x + r->width > box.colour_right) box.colour_right = r->x + r->width;
    }
    return ccore_jpeg_decode_part(o->jpeg, o->frame.jpeg, o->frame.jpeg_size, o->scale, &box, &o->image);
}
static int run_rois(op *o) { return ccore_roi_measure(&o->image, &o->rois, o->roi_stats); }
static int run_luma(op *o) {
    o->luma = ccore_image_mean_luma(&o->image);
    return 0;
}
static int run_thumbnail(op *o) { return ccore_image_luma_thumbnail(&o->image, o->thumb, o->thumb_w, o->thumb_h); }

static line *new_line(void) {
    if (line_count == MAX_LINES) die("%s", "too many lines", 0);
    line *l = &lines[line_count++];
    memset(l, 0, sizeof *l);
    return l;
}

static const char *kind_name(const clip *c) { return c->is_mjpeg ? "mjpeg" : "yuyv"; }

/* ccore_processor_process with the camera path's configuration (camera_config),
 * or with min_roi_pixels (and, if needed, the thumbnail) set so that the
 * processor's own scale choice lands on `force_scale`. */
static void processor_line(const clip *c, uint32_t force_scale, uint32_t buffers) {
    static clip few[4];
    static int nfew;
    if (buffers) { /* cycle through only the first `buffers` frames: they stay in cache */
        clip *f = &few[nfew++ % 4];
        *f = *c;
        if (f->count > buffers) f->count = buffers;
        c = f;
    }
    ccore_source_config sc = camera_config(c->width, c->height);
    ccore_processor_config pc = {
        .pixel_format = c->is_mjpeg ? CCORE_PIXEL_NONE : CCORE_PIXEL_YUYV,
        .is_mjpeg = (uint32_t)c->is_mjpeg,
        .width = c->width,
        .height = c->height,
        .frame_interval_ns = FRAME_INTERVAL_NS,
        .thumbnail_width = sc.thumbnail_width,
        .thumbnail_height = sc.thumbnail_height,
        .thumbnail_every = sc.thumbnail_every,
        .min_roi_pixels = sc.min_roi_pixels,
    };
    if (force_scale) {
        float side = smallest_roi_side(c->width, c->height);
        uint32_t m = (uint32_t)floorf(side / (float)force_scale);
        pc.min_roi_pixels = m ? m : 1;
        if (c->width / force_scale < pc.thumbnail_width) pc.thumbnail_width = c->width / force_scale;
        if (c->height / force_scale < pc.thumbnail_height) pc.thumbnail_height = c->height / force_scale;
    }
    line *l = new_line();
    l->c = c;
    l->forced = force_scale != 0;
    l->buffers = buffers;
    l->min_roi_pixels = pc.min_roi_pixels;
    l->thumb_w = pc.thumbnail_width;
    l->thumb_h = pc.thumbnail_height;
    static op o;
    memset(&o, 0, sizeof o);
    o.c = c;
    o.prepare = prep_processor;
    o.run = run_processor;
    int rc = ccore_processor_create(&pc, &o.proc);
    if (rc < 0) die("ccore_processor_create failed for %s", c->path, rc);
    ccore_roi_set rois = roi_set();
    ccore_processor_set_rois(o.proc, &rois);
    /* Frame 0 once, for the sanity numbers (the ROI means python_peer.py should match). */
    prep_processor(&o, 0);
    if (run_processor(&o) < 0) die("ccore_processor_process failed on %s", c->path, 0);
    memcpy(l->rois, o.sample.rois, sizeof l->rois);
    l->luma = o.sample.mean_luma;
    measure(&o, l, seconds_per_line);
    l->scale = o.sample.decode_scale;
    if (force_scale && l->scale != force_scale) {
        fprintf(stderr, "ccore-bench: processor chose scale %u, not the forced %u\n", l->scale, force_scale);
        exit(1);
    }
    ccore_processor_counters k;
    ccore_processor_get_counters(o.proc, &k);
    if (k.dropped || k.error_frames) {
        fprintf(stderr, "ccore-bench: unexpected dropped=%llu errors=%llu\n", (unsigned long long)k.dropped,
                (unsigned long long)k.error_frames);
        exit(1);
    }
    ccore_processor_destroy(o.proc);
    snprintf(l->id, sizeof l->id, "%s-%ux%u%s-%s%u%s", kind_name(c), c->width, c->height, c->tag,
             !c->is_mjpeg ? "s" : force_scale ? "s" : "auto-s", l->scale,
             buffers == 1 ? "-hot" : buffers ? "-4buf" : "");
    if (!c->is_mjpeg)
        snprintf(l->what, sizeof l->what, "ccore_processor_process, raw YUYV in place (thumb %ux%u every %u), %s",
                 l->thumb_w, l->thumb_h, pc.thumbnail_every,
                 buffers == 1   ? "ONE frame over and over (L1/L2-hot), for comparison"
                 : buffers      ? "4 frames in turn like 4 V4L2 buffers (fit in L3), for comparison"
                                : "all clip frames in turn (each frame comes from DRAM: the conservative case)");
    else
        snprintf(l->what, sizeof l->what,
                 "ccore_processor_process, %s scale 1/%u (min_roi_pixels %u, thumb %ux%u every %u)",
                 force_scale ? "forced" : "processor's own", l->scale, l->min_roi_pixels, l->thumb_w, l->thumb_h,
                 pc.thumbnail_every);
}

static void component_line(const clip *c, const char *part, uint32_t scale) {
    static op o;
    memset(&o, 0, sizeof o);
    o.c = c;
    o.scale = scale;
    o.rois = roi_set();
    ccore_source_config sc = camera_config(c->width, c->height);
    uint32_t dw = (c->width + scale - 1) / scale, dh = (c->height + scale - 1) / scale;
    o.thumb_w = sc.thumbnail_width < dw ? sc.thumbnail_width : dw;
    o.thumb_h = sc.thumbnail_height < dh ? sc.thumbnail_height : dh;
    if (c->is_mjpeg) {
        int rc = ccore_jpeg_create(c->width, c->height, &o.jpeg);
        if (rc < 0) die("ccore_jpeg_create failed for %s", c->path, rc);
    }
    line *l = new_line();
    l->c = c;
    l->group = 1;
    l->scale = scale;
    l->thumb_w = o.thumb_w;
    l->thumb_h = o.thumb_h;
    if (!strcmp(part, "decode")) {
        o.prepare = prep_nothing;
        o.run = run_decode;
        snprintf(l->what, sizeof l->what, "ccore_jpeg_decode at 1/%u only", scale);
    } else if (!strcmp(part, "entropy")) {
        o.prepare = prep_nothing;
        o.run = run_entropy;
        snprintf(l->what, sizeof l->what,
                 "Huffman decoding of the whole frame alone, no inverse DCT (the floor of a whole decode at 1/%u)",
                 scale);
    } else if (!strcmp(part, "box")) {
        o.prepare = prep_nothing;
        o.run = run_box;
        snprintf(l->what, sizeof l->what, "ccore_jpeg_decode_part at 1/%u, the ROIs' box only, no luma (%s)", scale,
                 c->restart ? "the box's restart intervals alone" : "from the top down to the box");
    } else if (!strcmp(part, "rois")) {
        o.prepare = prep_decoded;
        o.run = run_rois;
        snprintf(l->what, sizeof l->what, "ccore_roi_measure, 3 ROIs, skin mask, %s", c->is_mjpeg ?
                 "on the just-decoded planes" : "on the raw frame");
    } else if (!strcmp(part, "luma")) {
        o.prepare = prep_decoded;
        o.run = run_luma;
        snprintf(l->what, sizeof l->what, "ccore_image_mean_luma (64x48 grid), %s", c->is_mjpeg ?
                 "on the just-decoded planes" : "on the raw frame");
    } else {
        o.prepare = prep_decoded;
        o.run = run_thumbnail;
        snprintf(l->what, sizeof l->what, "ccore_image_luma_thumbnail %ux%u (processor: every %u-th frame)", o.thumb_w,
                 o.thumb_h, sc.thumbnail_every);
    }
    snprintf(l->id, sizeof l->id, "%s-%ux%u%s-s%u-%s", kind_name(c), c->width, c->height, c->tag, scale,
             part);
    measure(&o, l, seconds_per_line / 3 > 0.3 ? seconds_per_line / 3 : 0.3);
    ccore_jpeg_destroy(o.jpeg);
}

/* ---------- reporting ---------- */

typedef struct {
    char dso[64];
    char where[96];
    uintptr_t offset;
} site_name;

static void describe_site(uintptr_t addr, site_name *out) {
    Dl_info info;
    const ElfW(Sym) *sym = NULL;
    memset(out, 0, sizeof *out);
    if (!dladdr1((void *)addr, &info, (void **)&sym, RTLD_DL_SYMENT) || !info.dli_fname) {
        snprintf(out->dso, sizeof out->dso, "?");
        snprintf(out->where, sizeof out->where, "0x%lx", (unsigned long)addr);
        return;
    }
    const char *base = strrchr(info.dli_fname, '/');
    snprintf(out->dso, sizeof out->dso, "%s", base ? base + 1 : info.dli_fname);
    if (!out->dso[0]) snprintf(out->dso, sizeof out->dso, "ccore-bench");
    out->offset = addr - (uintptr_t)info.dli_fbase;
    uintptr_t s = (uintptr_t)info.dli_saddr;
    if (info.dli_sname && sym && addr >= s && addr < s + sym->st_size)
        snprintf(out->where, sizeof out->where, "in %s", info.dli_sname);
    else if (info.dli_sname)
        snprintf(out->where, sizeof out->where, "internal function (after exported %s)", info.dli_sname);
    else
        snprintf(out->where, sizeof out->where, "internal function");
}

static double per_frame(uint64_t v, uint32_t frames) { return frames ? (double)v / frames : 0; }

static void print_table(int cpu, uint64_t timer_ns, const clip *clips, int nclips) {
    printf("ccore-bench: C core per-frame cost, %s, CLOCK_MONOTONIC, timer overhead ~%llu ns (not subtracted)\n",
           cpu >= 0 ? "pinned to one core" : "NOT pinned", (unsigned long long)timer_ns);
    if (cpu >= 0) printf("  core: CPU %d\n", cpu);
    for (int i = 0; i < nclips; i++)
        printf("  clip: %s  %s %ux%u, %u frames%s\n", clips[i].path, kind_name(&clips[i]), clips[i].width,
               clips[i].height, clips[i].count,
               !clips[i].is_mjpeg  ? " (zero-copy: the image points at the frame bytes)"
               : clips[i].restart ? ", rewritten with restart markers (--restart)"
                                  : "");
    printf("\n%-34s %9s %9s %9s %8s %10s %12s\n", "line", "mean us", "median us", "p99 us", "iters", "allocs/fr",
           "alloc B/fr");
    for (int g = 0; g < 2; g++) {
        if (g == 1) printf("\ncomponents (one call each, same frames; what the processor line is made of):\n");
        for (int i = 0; i < line_count; i++) {
            const line *l = &lines[i];
            if (l->group != g) continue;
            printf("%-34s %9.2f %9.2f %9.2f %8llu %10.2f %12.0f\n", l->id, l->st.mean_us, l->st.median_us,
                   l->st.p99_us, (unsigned long long)l->st.iterations,
                   per_frame(l->alloc.allocations, l->alloc_frames), per_frame(l->alloc.bytes, l->alloc_frames));
            printf("  %s\n", l->what);
        }
    }
    printf("\nheap allocations on the path after warm-up (counted over >= 60 frames per line):\n");
    for (int i = 0; i < line_count; i++) {
        const line *l = &lines[i];
        if (l->group != 0) continue;
        printf("  %-32s %.2f allocations, %.2f frees per frame\n", l->id,
               per_frame(l->alloc.allocations, l->alloc_frames), per_frame(l->alloc.frees, l->alloc_frames));
        for (uint32_t s = 0; s < l->alloc.site_count; s++) {
            const alloc_site *a = &l->alloc.sites[s];
            site_name n;
            describe_site(a->address, &n);
            printf("    %6.2f/frame  %-8s %8zu..%-8zu B  from %s+0x%lx, %s\n", per_frame(a->calls, l->alloc_frames),
                   a->kind == 'm' ? "malloc" : a->kind == 'c' ? "calloc" : a->kind == 'r' ? "realloc" : "memalign",
                   a->min_size, a->max_size, n.dso, (unsigned long)n.offset, n.where);
        }
        if (l->alloc.sites_overflowed) printf("    (+%u calls from further call sites)\n", l->alloc.sites_overflowed);
    }
}

static void json_string(FILE *f, const char *s) {
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20) fprintf(f, "\\u%04x", *s);
        else fputc(*s, f);
    }
    fputc('"', f);
}

static void print_json(FILE *f, int cpu, uint64_t timer_ns, const clip *clips, int nclips) {
    fprintf(f, "{\n  \"tool\": \"ccore-bench\",\n  \"cpu\": %d,\n  \"timer_overhead_ns\": %llu,\n  \"clips\": [", cpu,
            (unsigned long long)timer_ns);
    for (int i = 0; i < nclips; i++) {
        fprintf(f, "%s\n    {\"path\": ", i ? "," : "");
        json_string(f, clips[i].path);
        fprintf(f, ", \"kind\": \"%s\", \"width\": %u, \"height\": %u, \"frames\": %u, \"restart_mcus\": %u,"
                   " \"bytes_per_frame\": %.0f}",
                kind_name(&clips[i]), clips[i].width, clips[i].height, clips[i].count, clips[i].restart,
                clips[i].is_mjpeg ? (double)clips[i].jpeg_total / clips[i].count
                                  : 2.0 * clips[i].width * clips[i].height);
    }
    fprintf(f, "\n  ],\n  \"lines\": [");
    for (int i = 0; i < line_count; i++) {
        const line *l = &lines[i];
        fprintf(f, "%s\n    {\"id\": \"%s\", \"group\": \"%s\", \"kind\": \"%s\", \"width\": %u, \"height\": %u,",
                i ? "," : "", l->id, l->group ? "component" : "processor", kind_name(l->c), l->c->width, l->c->height);
        fprintf(f, " \"scale\": %u, \"forced\": %s, \"buffers\": %u, \"what\": ", l->scale,
                l->forced ? "true" : "false", l->buffers);
        json_string(f, l->what);
        fprintf(f,
                ",\n     \"iterations\": %llu, \"mean_us\": %.3f, \"median_us\": %.3f, \"p99_us\": %.3f,"
                " \"min_us\": %.3f, \"max_us\": %.3f,",
                (unsigned long long)l->st.iterations, l->st.mean_us, l->st.median_us, l->st.p99_us, l->st.min_us,
                l->st.max_us);
        fprintf(f,
                "\n     \"alloc_frames\": %u, \"allocs_per_frame\": %.3f, \"frees_per_frame\": %.3f,"
                " \"alloc_bytes_per_frame\": %.1f, \"alloc_sites\": [",
                l->alloc_frames, per_frame(l->alloc.allocations, l->alloc_frames),
                per_frame(l->alloc.frees, l->alloc_frames), per_frame(l->alloc.bytes, l->alloc_frames));
        for (uint32_t s = 0; s < l->alloc.site_count; s++) {
            const alloc_site *a = &l->alloc.sites[s];
            site_name n;
            describe_site(a->address, &n);
            fprintf(f, "%s{\"dso\": ", s ? ", " : "");
            json_string(f, n.dso);
            fprintf(f, ", \"offset\": \"0x%lx\", \"where\": ", (unsigned long)n.offset);
            json_string(f, n.where);
            fprintf(f, ", \"calls_per_frame\": %.3f, \"bytes_per_frame\": %.1f, \"min_size\": %zu, \"max_size\": %zu}",
                    per_frame(a->calls, l->alloc_frames), per_frame(a->bytes, l->alloc_frames), a->min_size,
                    a->max_size);
        }
        fprintf(f, "]");
        if (l->group == 0) {
            fprintf(f, ",\n     \"frame0\": {\"mean_luma\": %.3f, \"rois\": [", l->luma);
            for (int r = 0; r < 3; r++)
                fprintf(f, "%s{\"r\": %.3f, \"g\": %.3f, \"b\": %.3f, \"skin\": %.4f, \"pixels\": %u}", r ? ", " : "",
                        l->rois[r].r, l->rois[r].g, l->rois[r].b, l->rois[r].skin_fraction, l->rois[r].pixel_count);
            fprintf(f, "]}");
        }
        fprintf(f, "}");
    }
    fprintf(f, "\n  ]\n}\n");
}

/* ---------- main ---------- */

static int pin_to_one_core(int wanted) {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0) return -1;
    int cpu = wanted;
    if (cpu < 0) /* the highest-numbered allowed CPU: CPU 0 usually takes more interrupts */
        for (int i = CPU_SETSIZE - 1; i >= 0; i--)
            if (CPU_ISSET(i, &set)) {
                cpu = i;
                break;
            }
    if (cpu < 0) return -1;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof set, &set) == 0 ? cpu : -1;
}

static uint64_t timer_overhead(void) {
    uint64_t best = UINT64_MAX;
    for (int r = 0; r < 5; r++) {
        uint64_t t0 = now_ns();
        for (int i = 0; i < 10000; i++) now_ns();
        uint64_t per = (now_ns() - t0) / 10000;
        if (per < best) best = per;
    }
    return best;
}

static void usage(void) {
    fprintf(stderr,
            "usage: ccore-bench [--yuyv FILE --size WxH] [--mjpeg FILE]... [--json | --json-out FILE] [--cpu N]\n"
            "                   [--seconds S] [--warmup N] [--thumbnail-width N]\n"
            "  Times ccore_processor_process per frame (one core) and counts heap allocations on it.\n"
            "  --seconds: timing budget per processor line (components get a third); default 1.5\n"
            "  --thumbnail-width: the detector thumbnail's width at the frame's aspect, as the camera\n"
            "                     path asks for it; default 320 (320x240 for 640x480)\n"
            "  --restart N: rewrite each MJPEG frame with a restart marker every N MCUs (lossless), as\n"
            "               webcams that send them do (a Logitech C270: 10); ids then carry -rN\n");
}

int main(int argc, char **argv) {
    static clip clips[8];
    int nclips = 0, json = 0, want_cpu = -1;
    const char *yuyv = NULL, *json_out = NULL;
    uint32_t w = 0, h = 0, restart = 0;
    const char *mjpeg[6];
    int nmjpeg = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--json")) json = 1;
        else if (!strcmp(a, "-h") || !strcmp(a, "--help")) return usage(), 0;
        else if (!v) return usage(), 2;
        else if (!strcmp(a, "--yuyv")) yuyv = v, i++;
        else if (!strcmp(a, "--size")) {
            if (sscanf(v, "%ux%u", &w, &h) != 2) return usage(), 2;
            i++;
        } else if (!strcmp(a, "--mjpeg")) {
            if (nmjpeg == 6) return usage(), 2;
            mjpeg[nmjpeg++] = v, i++;
        } else if (!strcmp(a, "--json-out")) json_out = v, i++;
        else if (!strcmp(a, "--cpu")) want_cpu = atoi(v), i++;
        else if (!strcmp(a, "--seconds")) seconds_per_line = atof(v), i++;
        else if (!strcmp(a, "--warmup")) warmup_frames = (uint32_t)strtoul(v, NULL, 10), i++;
        else if (!strcmp(a, "--thumbnail-width")) thumbnail_width = (uint32_t)strtoul(v, NULL, 10), i++;
        else if (!strcmp(a, "--restart")) restart = (uint32_t)strtoul(v, NULL, 10), i++;
        else return usage(), 2;
    }
    if ((!yuyv && !nmjpeg) || (yuyv && (w < 2 || h < 1 || (w & 1))) || seconds_per_line <= 0 ||
        thumbnail_width < 2 || thumbnail_width > 640)
        return usage(), 2;
    if (!alloc_count_available()) {
        fprintf(stderr, "ccore-bench: this build cannot count heap allocations (a sanitizer, or a C library other "
                        "than glibc); build it without\n");
        return 1;
    }

    int cpu = pin_to_one_core(want_cpu);
    if (cpu < 0) fprintf(stderr, "ccore-bench: warning: could not pin to one core; numbers will be noisier\n");
    if (yuyv) load_yuyv(&clips[nclips++], yuyv, w, h);
    for (int i = 0; i < nmjpeg; i++) load_mjpeg(&clips[nclips++], mjpeg[i], restart);
    samples = malloc(max_samples * sizeof *samples);
    if (!samples) die("%s", "out of memory", 0);
    uint64_t timer_ns = timer_overhead();

    for (int i = 0; i < nclips; i++) {
        const clip *c = &clips[i];
        if (!c->is_mjpeg) {
            processor_line(c, 0, 0);
            processor_line(c, 0, 4);
            processor_line(c, 0, 1);
            component_line(c, "rois", 1);
            component_line(c, "luma", 1);
            component_line(c, "thumbnail", 1);
            continue;
        }
        processor_line(c, 0, 0);
        for (uint32_t s = 1; s <= 8; s *= 2) processor_line(c, s, 0);
        for (uint32_t s = 1; s <= 8; s *= 2) {
            component_line(c, "decode", s);
            component_line(c, "entropy", s);
            component_line(c, "box", s);
            component_line(c, "rois", s);
            component_line(c, "luma", s);
            component_line(c, "thumbnail", s);
        }
    }
    if (json) print_json(stdout, cpu, timer_ns, clips, nclips);
    else print_table(cpu, timer_ns, clips, nclips);
    if (json_out) {
        FILE *f = fopen(json_out, "w");
        if (!f) die("cannot write %s", json_out, errno);
        print_json(f, cpu, timer_ns, clips, nclips);
        if (fclose(f) != 0) die("cannot write %s", json_out, errno);
    }
    return 0;
}
