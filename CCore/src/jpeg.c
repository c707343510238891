/* JPEG decoding through libjpeg's own API (libjpeg-turbo): Y'CbCr planes at a
 * reduced scale, written straight into planes the decoder owns, and on
 * request only the rows a caller reads.
 *
 * Decoding to planes ("raw data": no colour conversion, no upsampling) lets
 * the ROI kernels read Y'CbCr directly; the DCT scaling (1/2, 1/4, 1/8)
 * happens inside the IDCT. Raw data also makes every 8x8 block decode on its
 * own, so the rows a partial decode writes are bit for bit those of a whole
 * one. Most of a decode is Huffman decoding, which no scale shortens: a
 * partial decode saves by stopping below the last row wanted (the entropy-
 * coded data has no index, so every row above it is still Huffman-decoded)
 * and by skipping the IDCT of rows and planes nobody reads.
 *
 * Restart markers are the one index the data has: each ends an interval of
 * MCUs whose decoding starts afresh (the DC predictions reset). When they
 * divide the MCU rows evenly, the intervals form a grid over the frame, and a
 * partial decode that wants a box of it hands libjpeg a smaller JPEG made of
 * that box's intervals alone (the headers with the box's size, the intervals'
 * bytes, markers renumbered) and places what it decodes at the box's place in
 * the planes. */
#include "ccore/jpeg.h"

#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* jpeglib.h needs size_t and FILE declared first. */
#include <jpeglib.h>
#include <jerror.h>
#include <jpegint.h>

#include "ccore/error.h"

/* libjpeg reports a fatal error through error_exit, which must not return: it
 * jumps back into the call that started the work. A warning goes through
 * emit_message and decoding goes on; all but one kind mean lost data. */
typedef struct {
    struct jpeg_error_mgr mgr; /* first: libjpeg hands back a pointer to it */
    jmp_buf jump;
    int damaged;
    char warning[JMSG_LENGTH_MAX];
} decoder_errors;

/* Rows of one component in one iMCU row: v_samp_factor (at most 4) x DCT_scaled_size (at most 8). */
#define MAX_GROUP_ROWS (MAX_SAMP_FACTOR * DCTSIZE)

/* libjpeg gets its working memory for each image (its JPOOL_IMAGE: the
 * component table, the Huffman lookup tables, the MCU buffer, about 11 KB in
 * raw-data decoding at any frame size) from malloc and gives it back at the
 * image's end: two heap allocations, and malloc's lock, on every frame of the
 * capture thread. Its memory manager is a table of methods, so the decoder puts
 * its own small- and large-object methods in front: image-lifetime objects come
 * from one block the decoder owns, reset at the image's end. Everything else
 * goes to libjpeg's allocator as before: the permanent pool, whatever does not
 * fit, the sample and coefficient arrays (raw-data decoding asks for none) and
 * the whole-image buffers of progressive and multi-scan JPEGs, which libjpeg's
 * manager allocates for itself. Between images the block grows to what the
 * last image asked for, so after the first frame a baseline decode allocates
 * nothing. */
typedef struct {
    struct jpeg_memory_mgr libjpeg; /* libjpeg's own methods */
    uint8_t *block;
    size_t size, used;
    size_t asked; /* this image's requests, served from the block or not */
} image_pool;

/* libjpeg-turbo aligns its objects to 32 bytes (AVX2) and rounds their sizes up to
 * that; 64 is a cache line. */
#define POOL_ALIGN 64
/* The block's largest size. The decoder's image pool does not grow with the frame
 * (12 KB at any size), so this only bounds what an unforeseen request can make
 * the block keep; beyond it libjpeg's allocator serves. */
#define POOL_MAX ((size_t)1 << 20)

struct ccore_jpeg {
    struct jpeg_decompress_struct d; /* first: libjpeg's callbacks get a pointer to it */
    image_pool pool;
    decoder_errors errors;
    const char *stage; /* what was being read when an error jumped back */
    uint32_t max_width, max_height;
    uint8_t *planes; /* room for the planes of any supported frame up to the maximum, at scale 1 */
    size_t capacity;
    uint8_t *box; /* a box of a frame's restart intervals as a JPEG of its own (see make_box) */
    size_t box_capacity;
    uint64_t box_decodes;
    int restart_grid; /* the last frame's markers make a grid (restart_grid) */
    JSAMPROW rows[3][MAX_GROUP_ROWS];
    char message[JMSG_LENGTH_MAX + 64];
};

static void on_error(j_common_ptr cinfo) {
    decoder_errors *e = (decoder_errors *)cinfo->err;
    longjmp(e->jump, 1);
}

/* Stray bytes between markers (some webcams emit them) leave the image
 * intact; any other warning (premature end, corrupt data, bad progression)
 * means lost data. The first such is kept. Trace messages are ignored. */
static void on_message(j_common_ptr cinfo, int level) {
    decoder_errors *e = (decoder_errors *)cinfo->err;
    if (level >= 0 || cinfo->err->msg_code == JWRN_EXTRANEOUS_DATA || e->damaged) return;
    e->damaged = 1;
    (*cinfo->err->format_message)(cinfo, e->warning);
}

static image_pool *pool_of(j_common_ptr cinfo) { return &((ccore_jpeg *)(void *)cinfo)->pool; }

static size_t pool_round(size_t n) { return (n + POOL_ALIGN - 1) / POOL_ALIGN * POOL_ALIGN; }

/* `bytes` of the block, or NULL when it has no room; either way the request
 * counts toward the block's next size. */
static uint8_t *pool_take(image_pool *p, size_t bytes) {
    if (bytes > SIZE_MAX / 4) return NULL; /* libjpeg's own allocator refuses it */
    bytes = pool_round(bytes);
    p->asked += bytes;
    if (bytes > p->size - p->used) return NULL;
    uint8_t *at = p->block + p->used;
    p->used += bytes;
    return at;
}

static void *pool_alloc_small(j_common_ptr cinfo, int pool_id, size_t bytes) {
    image_pool *p = pool_of(cinfo);
    void *at = pool_id == JPOOL_IMAGE ? pool_take(p, bytes) : NULL;
    return at ? at : p->libjpeg.alloc_small(cinfo, pool_id, bytes);
}

static void *pool_alloc_large(j_common_ptr cinfo, int pool_id, size_t bytes) {
    image_pool *p = pool_of(cinfo);
    void *at = pool_id == JPOOL_IMAGE ? pool_take(p, bytes) : NULL;
    return at ? at : p->libjpeg.alloc_large(cinfo, pool_id, bytes);
}

/* At an image's end (finished or abandoned): the block is free again, and grows
 * if the image asked for more than it held, up to POOL_MAX. A failed growth keeps
 * the old one. */
static void pool_free(j_common_ptr cinfo, int pool_id) {
    image_pool *p = pool_of(cinfo);
    p->libjpeg.free_pool(cinfo, pool_id);
    if (pool_id != JPOOL_IMAGE) return;
    size_t wanted = p->asked < POOL_MAX ? p->asked : POOL_MAX;
    if (wanted > p->size) {
        size_t size = (wanted + 4095) / 4096 * 4096;
        void *block = NULL;
        if (posix_memalign(&block, POOL_ALIGN, size) == 0) {
            free(p->block);
            p->block = block;
            p->size = size;
        }
    }
    p->used = p->asked = 0;
}

/* Puts the pool's methods in front of libjpeg's, after jpeg_create_decompress. */
static void pool_install(ccore_jpeg *jpeg) {
    struct jpeg_memory_mgr *mem = jpeg->d.mem;
    jpeg->pool.libjpeg = *mem;
    mem->alloc_small = pool_alloc_small;
    mem->alloc_large = pool_alloc_large;
    mem->free_pool = pool_free;
}

/* Bytes the planes of a frame of up to w x h take at scale 1, in any supported
 * subsampling: each of three planes padded to whole 16x16 MCUs at most. */
static size_t planes_bound(uint32_t w, uint32_t h) {
    size_t pw = ((size_t)w + 15) / 16 * 16, ph = ((size_t)h + 15) / 16 * 16;
    return 3 * pw * ph;
}

int ccore_jpeg_create(uint32_t max_width, uint32_t max_height, ccore_jpeg **out) {
    if (!out || max_width == 0 || max_height == 0) return -EINVAL;
    *out = NULL;
    if (!ccore_frame_size_allowed(max_width, max_height)) return -E2BIG;
    ccore_jpeg *jpeg = calloc(1, sizeof *jpeg);
    if (!jpeg) return -ENOMEM;
    jpeg->max_width = max_width;
    jpeg->max_height = max_height;
    jpeg->capacity = planes_bound(max_width, max_height);
    jpeg->planes = malloc(jpeg->capacity);
    /* As large as the planes: a frame's box is never larger than the frame, and a JPEG
     * larger than its pixels is decoded from the top instead. Pages never written stay
     * unallocated. */
    jpeg->box_capacity = jpeg->capacity;
    jpeg->box = malloc(jpeg->box_capacity);
    if (!jpeg->planes || !jpeg->box) {
        free(jpeg->planes);
        free(jpeg->box);
        free(jpeg);
        return -ENOMEM;
    }
    jpeg->d.err = jpeg_std_error(&jpeg->errors.mgr);
    jpeg->errors.mgr.error_exit = on_error;
    jpeg->errors.mgr.emit_message = on_message;
    /* jpeg_create_decompress reports running out of memory through error_exit. */
    if (setjmp(jpeg->errors.jump)) {
        free(jpeg->planes);
        free(jpeg->box);
        free(jpeg);
        return -ENOMEM;
    }
    jpeg_create_decompress(&jpeg->d);
    pool_install(jpeg);
    *out = jpeg;
    return 0;
}

void ccore_jpeg_destroy(ccore_jpeg *jpeg) {
    if (!jpeg) return;
    jpeg_destroy_decompress(&jpeg->d);
    free(jpeg->pool.block);
    free(jpeg->planes);
    free(jpeg->box);
    free(jpeg);
}

const char *ccore_jpeg_error_message(const ccore_jpeg *jpeg) { return jpeg ? jpeg->message : ""; }

uint64_t ccore_jpeg_box_decodes(const ccore_jpeg *jpeg) { return jpeg ? jpeg->box_decodes : 0; }

int ccore_jpeg_restart_grid(const ccore_jpeg *jpeg) { return jpeg ? jpeg->restart_grid : 0; }

/* The error libjpeg jumped back with; the decompressor is reset for the next frame. */
static int failed(ccore_jpeg *jpeg) {
    char text[JMSG_LENGTH_MAX];
    (*jpeg->d.err->format_message)((j_common_ptr)&jpeg->d, text);
    snprintf(jpeg->message, sizeof jpeg->message, "%s: %s", jpeg->stage, text);
    jpeg_abort_decompress(&jpeg->d);
    return CCORE_E_CORRUPT;
}

/* A warning that meant lost data; the decompressor is reset. */
static int damaged(ccore_jpeg *jpeg) {
    snprintf(jpeg->message, sizeof jpeg->message, "JPEG data: %s", jpeg->errors.warning);
    jpeg_abort_decompress(&jpeg->d);
    return CCORE_E_CORRUPT;
}

/* Reads the headers up to the first scan. Runs under the caller's setjmp. */
static int read_header(ccore_jpeg *jpeg, const uint8_t *data, size_t size) {
    jpeg->stage = "JPEG header";
    jpeg->errors.damaged = 0;
    jpeg_mem_src(&jpeg->d, data, (unsigned long)size);
    if (jpeg_read_header(&jpeg->d, FALSE) != JPEG_HEADER_OK) {
        jpeg_abort_decompress(&jpeg->d);
        snprintf(jpeg->message, sizeof jpeg->message, "JPEG has no frame header (tables only, or an empty frame)");
        return CCORE_E_CORRUPT;
    }
    return 0;
}

int ccore_jpeg_peek_size(ccore_jpeg *jpeg, const uint8_t *data, size_t size, uint32_t *width, uint32_t *height) {
    if (!jpeg || !data || !width || !height || size == 0 || size > (size_t)0x7fffffff) return -EINVAL;
    if (setjmp(jpeg->errors.jump)) return failed(jpeg);
    int rc = read_header(jpeg, data, size);
    if (rc < 0) return rc;
    *width = jpeg->d.image_width;
    *height = jpeg->d.image_height;
    jpeg_abort_decompress(&jpeg->d);
    return 0;
}

/* The planes' format for the frame's colour space and sampling factors, or
 * CCORE_PIXEL_NONE for those the ROI kernels do not read (4:4:0, 4:1:1, CMYK,
 * RGB-coded JPEGs, ...). */
static ccore_pixel_format planes_format(const struct jpeg_decompress_struct *d) {
    const jpeg_component_info *c = d->comp_info;
    if (d->num_components == 1 && d->jpeg_color_space == JCS_GRAYSCALE) return CCORE_PIXEL_GRAY;
    if (d->num_components != 3 || d->jpeg_color_space != JCS_YCbCr) return CCORE_PIXEL_NONE;
    for (int i = 1; i < 3; i++)
        if (c[i].h_samp_factor != 1 || c[i].v_samp_factor != 1) return CCORE_PIXEL_NONE;
    if (c[0].h_samp_factor == 1 && c[0].v_samp_factor == 1) return CCORE_PIXEL_YUV444P;
    if (c[0].h_samp_factor == 2 && c[0].v_samp_factor == 1) return CCORE_PIXEL_YUV422P;
    if (c[0].h_samp_factor == 2 && c[0].v_samp_factor == 2) return CCORE_PIXEL_YUV420;
    return CCORE_PIXEL_NONE;
}

/* libjpeg scales subsampled chroma up inside the IDCT when it can (a 4:2:0
 * frame at 1/2 gets an 8x8 chroma IDCT, i.e. chroma at luma resolution). The
 * planes here stay subsampled: every component gets the luma's scaled IDCT,
 * the override TurboJPEG's decode-to-planes makes (libjpeg-turbo's
 * turbojpeg.c). The method tables were built for the ISLOW-type multipliers
 * every scaled IDCT shares. Runs after jpeg_start_decompress. */
static void keep_chroma_subsampled(struct jpeg_decompress_struct *d) {
    for (int i = 1; i < d->num_components; i++) {
        jpeg_component_info *c = &d->comp_info[i];
        if (c->DCT_scaled_size == d->min_DCT_scaled_size) continue;
        c->DCT_scaled_size = d->min_DCT_scaled_size;
        /* Read only by the single-scan (interleaved) path, where MCU_width is h_samp_factor;
         * a multi-scan image may leave MCU_width unset for a component. */
        c->MCU_sample_width = c->h_samp_factor * c->DCT_scaled_size;
        d->idct->inverse_DCT[i] = d->idct->inverse_DCT[0];
    }
}

/* Output rows (or columns) [from, to) of a frame `extent` rows tall for the
 * fraction [top, bottom) of it, one row wider on each side than rounding
 * could make a reader's box. Empty when the fractions are. */
static void fraction_span(float top, float bottom, uint32_t extent, uint32_t *from, uint32_t *to) {
    *from = *to = 0;
    if (!(bottom > top) || !(bottom > 0) || !(top < 1)) return;
    double t = top > 0 ? floor((double)top * extent) - 1 : 0;
    double b = bottom < 1 ? ceil((double)bottom * extent) + 1 : extent;
    *from = t <= 0 ? 0 : (uint32_t)t;
    *to = b >= extent ? extent : (uint32_t)b;
}

/* The next marker from p on: its 0xFF (fill bytes before it stay with the data
 * before), its code in *code; NULL when none comes before `end`. A stuffed
 * 0xFF00 is data. */
static const uint8_t *next_marker(const uint8_t *p, const uint8_t *end, uint8_t *code) {
    while (p < end) {
        const uint8_t *ff = memchr(p, 0xFF, (size_t)(end - p));
        if (!ff || ff + 1 >= end) return NULL;
        if (ff[1] == 0x00) {
            p = ff + 2;
        } else if (ff[1] == 0xFF) {
            p = ff + 1;
        } else {
            *code = ff[1];
            return ff;
        }
    }
    return NULL;
}

/* Where the baseline frame header (SOF0 or SOF1) starts in the markers before
 * the scan, or 0 when they are not a clean run of segments. */
static size_t frame_header_at(const uint8_t *data, size_t header) {
    size_t at = 2; /* after SOI */
    while (at + 4 <= header) {
        if (data[at] != 0xFF) return 0;
        uint8_t code = data[at + 1];
        if (code == 0xFF) {
            at++;
            continue;
        }
        if (code == 0xC0 || code == 0xC1) return at + 9 <= header ? at : 0;
        if (code == 0xDA) return 0;
        at += 2 + (((size_t)data[at + 2] << 8) | data[at + 3]);
    }
    return 0;
}

/* Where a box of restart intervals lands in the frame: its first MCU column and row. */
typedef struct {
    uint32_t mcu_col, mcu_row;
} box_place;

/* Whether the frame whose headers `d` has read declares restart markers that
 * make a grid of its MCUs: `*across` intervals in each MCU row, or each
 * interval `*tall` whole MCU rows (a single interleaved baseline scan). */
static int restart_grid(const struct jpeg_decompress_struct *d, uint32_t *across, uint32_t *tall) {
    uint32_t ri = d->restart_interval;
    if (ri == 0 || d->progressive_mode || d->arith_code || d->comps_in_scan != d->num_components) return 0;
    /* A lone component's MCU is one block whatever its sampling factors: only 1x1 keeps the sums below. */
    if (d->num_components == 1 && (d->comp_info[0].h_samp_factor != 1 || d->comp_info[0].v_samp_factor != 1))
        return 0;
    uint32_t mcu_w = (uint32_t)d->max_h_samp_factor * DCTSIZE;
    uint32_t per_row = (d->image_width + mcu_w - 1) / mcu_w;
    if (per_row % ri == 0)
        *across = per_row / ri, *tall = 1;
    else if (ri % per_row == 0)
        *across = 1, *tall = ri / per_row;
    else
        return 0;
    return 1;
}

/* Writes into jpeg->box a JPEG of the restart intervals that cover output
 * rows [top, bottom) and columns [left, right) of the frame whose headers `d`
 * has just read from `data`, and returns its size; 0 when the frame's markers
 * make no grid, when the box would save nothing over a decode from the top, or
 * when anything in the data is unexpected (a marker out of turn, no end): the
 * frame is then decoded from the top, which reports damage as usual. Reads the
 * data only up to the box's last interval. */
static size_t make_box(ccore_jpeg *jpeg, const uint8_t *data, size_t size, uint32_t top, uint32_t bottom,
                       uint32_t left, uint32_t right, box_place *place) {
    const struct jpeg_decompress_struct *d = &jpeg->d;
    uint32_t across, tall, ri = d->restart_interval;
    if (!restart_grid(d, &across, &tall)) return 0;
    uint32_t mcu_w = (uint32_t)d->max_h_samp_factor * DCTSIZE, mcu_h = (uint32_t)d->max_v_samp_factor * DCTSIZE;
    uint32_t per_row = (d->image_width + mcu_w - 1) / mcu_w, mcu_rows = (d->image_height + mcu_h - 1) / mcu_h;
    uint32_t grid_rows = (mcu_rows + tall - 1) / tall;
    uint64_t intervals = ((uint64_t)per_row * mcu_rows + ri - 1) / ri;
    /* The box in grid cells, from output pixels (an MCU is max_samp * min_DCT_scaled_size of them). */
    uint32_t out_w = (uint32_t)d->max_h_samp_factor * (uint32_t)d->min_DCT_scaled_size;
    uint32_t out_h = (uint32_t)d->max_v_samp_factor * (uint32_t)d->min_DCT_scaled_size;
    uint32_t r0 = top / out_h / tall, r1 = ((bottom + out_h - 1) / out_h + tall - 1) / tall;
    uint32_t c0 = 0, c1 = across;
    if (across > 1) {
        c0 = left / out_w / ri;
        c1 = ((right + out_w - 1) / out_w + ri - 1) / ri;
    }
    if (r1 > grid_rows) r1 = grid_rows;
    if (c1 > across) c1 = across;
    if (r0 >= r1 || c0 >= c1 || (r0 == 0 && c0 == 0 && c1 == across)) return 0;
    uint64_t last = (uint64_t)(r1 - 1) * across + (c1 - 1);
    if (last >= intervals) return 0;

    /* The headers, with the frame header's size made the box's. */
    size_t header = size - d->src->bytes_in_buffer;
    size_t sof = frame_header_at(data, header);
    if (sof == 0 || header + 2 > jpeg->box_capacity) return 0;
    uint32_t x0 = c0 * ri, x1 = across > 1 ? c1 * ri : per_row; /* MCU columns */
    uint32_t y0 = r0 * tall, y1 = r1 * tall < mcu_rows ? r1 * tall : mcu_rows;
    uint32_t width = x1 == per_row ? d->image_width - x0 * mcu_w : (x1 - x0) * mcu_w;
    uint32_t height = y1 == mcu_rows ? d->image_height - y0 * mcu_h : (y1 - y0) * mcu_h;
    uint8_t *w = jpeg->box;
    memcpy(w, data, header);
    w[sof + 5] = (uint8_t)(height >> 8);
    w[sof + 6] = (uint8_t)height;
    w[sof + 7] = (uint8_t)(width >> 8);
    w[sof + 8] = (uint8_t)width;
    size_t used = header;

    /* The intervals in order, each ended by its restart marker (RST0-7 in turn), the
     * last by the end of the image; the box's copied and renumbered. */
    const uint8_t *p = data + header, *end = data + size;
    uint32_t copied = 0;
    for (uint64_t k = 0; k <= last; k++) {
        uint8_t code = 0;
        const uint8_t *marker = next_marker(p, end, &code);
        if (!marker) return 0;
        int expected = k + 1 < intervals ? code == 0xD0 + (k & 7) : code == 0xD9;
        if (!expected) return 0;
        uint64_t col = k % across;
        if (k / across >= r0 && col >= c0 && col < c1) {
            size_t n = (size_t)(marker - p);
            if (n + 2 > jpeg->box_capacity - used) return 0;
            memcpy(w + used, p, n);
            used += n;
            w[used++] = 0xFF;
            w[used++] = k == last ? 0xD9 : (uint8_t)(0xD0 + (copied & 7));
            copied++;
        }
        p = marker + 2;
    }
    place->mcu_col = x0;
    place->mcu_row = y0;
    return used;
}

/* The decode settings every frame gets, after its headers are read. */
static void set_output(struct jpeg_decompress_struct *d, uint32_t scale_denom) {
    d->raw_data_out = TRUE;
    d->do_fancy_upsampling = FALSE;
    d->dct_method = JDCT_ISLOW;
    d->scale_num = 1;
    d->scale_denom = scale_denom;
}

static int decode(ccore_jpeg *jpeg, const uint8_t *data, size_t size, uint32_t scale_denom,
                  const ccore_jpeg_rows *part, ccore_image *out) {
    if (!jpeg || !data || !out || size == 0 || size > (size_t)0x7fffffff) return -EINVAL;
    if (scale_denom != 1 && scale_denom != 2 && scale_denom != 4 && scale_denom != 8) return -EINVAL;
    struct jpeg_decompress_struct *d = &jpeg->d;
    if (setjmp(jpeg->errors.jump)) return failed(jpeg);
    int rc = read_header(jpeg, data, size);
    if (rc < 0) return rc;
    uint32_t grid_across, grid_tall;
    jpeg->restart_grid = restart_grid(d, &grid_across, &grid_tall);
    ccore_pixel_format format = planes_format(d);
    if (format == CCORE_PIXEL_NONE) {
        const jpeg_component_info *c = d->comp_info;
        int ycbcr = d->num_components == 3 && d->jpeg_color_space == JCS_YCbCr;
        const char *kind = NULL;
        if (ycbcr && c[0].h_samp_factor == 1 && c[0].v_samp_factor == 2) kind = "4:4:0";
        if (ycbcr && c[0].h_samp_factor == 4 && c[0].v_samp_factor == 1) kind = "4:1:1";
        if (kind)
            snprintf(jpeg->message, sizeof jpeg->message, "JPEG chroma subsampling %s (4:4:0 or 4:1:1) not supported",
                     kind);
        else
            snprintf(jpeg->message, sizeof jpeg->message,
                     "JPEG with %d components, colour space %d, luma sampling %dx%d not supported (4:4:4, 4:2:2, "
                     "4:2:0 Y'CbCr or greyscale only)",
                     d->num_components, (int)d->jpeg_color_space, c[0].h_samp_factor, c[0].v_samp_factor);
        jpeg_abort_decompress(d);
        return CCORE_E_UNSUPPORTED;
    }
    if (d->image_width > jpeg->max_width || d->image_height > jpeg->max_height) {
        snprintf(jpeg->message, sizeof jpeg->message, "JPEG frame %ux%u exceeds the decoder's %ux%u",
                 d->image_width, d->image_height, jpeg->max_width, jpeg->max_height);
        jpeg_abort_decompress(d);
        return -E2BIG;
    }
    set_output(d, scale_denom);
    jpeg_calc_output_dimensions(d);

    /* The planes one after the other, each as wide and tall as the decoder
     * writes the whole frame: whole blocks across, whole iMCU rows down. Every
     * component gets the luma's scaled block size (keep_chroma_subsampled). */
    int planes = d->num_components;
    size_t scaled = (size_t)d->min_DCT_scaled_size;
    uint8_t *plane[3] = {NULL, NULL, NULL};
    size_t stride[3] = {0, 0, 0}, plane_rows[3] = {0, 0, 0}, used = 0;
    int h_samp[3] = {0, 0, 0}, v_samp[3] = {0, 0, 0};
    for (int i = 0; i < planes; i++) {
        const jpeg_component_info *c = &d->comp_info[i];
        h_samp[i] = c->h_samp_factor;
        v_samp[i] = c->v_samp_factor;
        stride[i] = (size_t)c->width_in_blocks * scaled;
        plane_rows[i] = (size_t)d->total_iMCU_rows * (size_t)c->v_samp_factor * scaled;
        plane[i] = jpeg->planes + used;
        used += stride[i] * plane_rows[i];
    }
    /* Never write past the planes, whatever the header says (the limit above already implies this). */
    if (used > jpeg->capacity) {
        snprintf(jpeg->message, sizeof jpeg->message, "JPEG frame %ux%u needs more than the decoder's %zu bytes",
                 d->image_width, d->image_height, jpeg->capacity);
        jpeg_abort_decompress(d);
        return -E2BIG;
    }

    /* Rows wanted: luma [luma_from, luma_to) across the frame and luma + chroma
     * [colour_from, colour_to) in columns [colour_left, colour_right). */
    uint32_t width = d->output_width, height = d->output_height;
    uint32_t luma_from = 0, luma_to = height, colour_from = 0, colour_to = height, colour_left = 0,
             colour_right = width;
    if (part) {
        fraction_span(part->luma_top, part->luma_bottom, height, &luma_from, &luma_to);
        fraction_span(part->colour_top, part->colour_bottom, height, &colour_from, &colour_to);
        if (part->colour_left != 0 || part->colour_right != 0)
            fraction_span(part->colour_left, part->colour_right, width, &colour_left, &colour_right);
    }
    int luma = luma_to > luma_from, colour = colour_to > colour_from && colour_right > colour_left;
    uint32_t end = !colour || (luma && luma_to > colour_to) ? (luma ? luma_to : 0) : colour_to;
    uint32_t group = (uint32_t)(d->max_v_samp_factor * d->min_DCT_scaled_size); /* output rows per iMCU row */

    /* A frame with restart markers may be decoded from the box of them that holds what is asked for. */
    box_place place = {0, 0};
    if (part && (luma || colour)) {
        uint32_t top = !colour || (luma && luma_from < colour_from) ? luma_from : colour_from;
        uint32_t left = luma ? 0 : colour_left, right = luma ? width : colour_right;
        size_t box_size = make_box(jpeg, data, size, top, end, left, right, &place);
        if (box_size > 0) {
            jpeg_abort_decompress(d);
            rc = read_header(jpeg, jpeg->box, box_size);
            if (rc < 0) return rc;
            set_output(d, scale_denom);
            jpeg->box_decodes++;
        }
    }
    uint32_t origin = place.mcu_row * group; /* the frame's output row where the decode's row 0 lands */

    jpeg->stage = "JPEG data";
    jpeg_start_decompress(d);
    keep_chroma_subsampled(d);
    JSAMPARRAY arrays[3] = {jpeg->rows[0], jpeg->rows[1], jpeg->rows[2]};
    while (d->output_scanline < d->output_height && origin + d->output_scanline < end) {
        uint32_t first = origin + d->output_scanline, imcu = d->output_scanline / group, last = first + group;
        int in_colour = colour && first < colour_to && last > colour_from;
        int in_luma = luma && first < luma_to && last > luma_from;
        for (int i = 0; i < planes; i++) {
            size_t n = (size_t)v_samp[i] * scaled;
            size_t down = (size_t)place.mcu_row * n, across = (size_t)place.mcu_col * (size_t)h_samp[i] * scaled;
            for (size_t r = 0; r < n; r++)
                jpeg->rows[i][r] = plane[i] + (down + (size_t)imcu * n + r) * stride[i] + across;
            /* The IDCT of a block nobody reads is skipped; its Huffman decoding is not. */
            d->comp_info[i].component_needed = in_colour || (i == 0 && in_luma);
        }
        if (jpeg_read_raw_data(d, arrays, group) == 0) {
            snprintf(jpeg->message, sizeof jpeg->message, "JPEG data: decoder stalled at row %u", first);
            jpeg_abort_decompress(d);
            return CCORE_E_CORRUPT;
        }
        if (jpeg->errors.damaged) return damaged(jpeg);
    }
    if (d->output_scanline >= d->output_height)
        jpeg_finish_decompress(d); /* reads on to the end of the image, where damage can still show */
    else
        jpeg_abort_decompress(d);
    if (jpeg->errors.damaged) return damaged(jpeg);

    memset(out, 0, sizeof *out);
    out->format = format;
    out->range = CCORE_RANGE_FULL;
    out->width = width;
    out->height = height;
    out->plane0 = plane[0];
    out->plane1 = plane[1];
    out->plane2 = plane[2];
    out->stride0 = (uint32_t)stride[0];
    out->stride1 = (uint32_t)stride[1];
    out->stride2 = (uint32_t)stride[2];
    return 0;
}

int ccore_jpeg_decode(ccore_jpeg *jpeg, const uint8_t *data, size_t size, uint32_t scale_denom, ccore_image *out) {
    return decode(jpeg, data, size, scale_denom, NULL, out);
}

int ccore_jpeg_decode_part(ccore_jpeg *jpeg, const uint8_t *data, size_t size, uint32_t scale_denom,
                           const ccore_jpeg_rows *part, ccore_image *out) {
    if (!part) return -EINVAL;
    return decode(jpeg, data, size, scale_denom, part, out);
}

uint32_t ccore_jpeg_choose_scale(uint32_t frame_pixels, float roi_fraction, uint32_t min_roi_pixels) {
    if (roi_fraction <= 0) return 1;
    float across = (float)frame_pixels * roi_fraction;
    for (uint32_t d = 8; d > 1; d /= 2)
        if (across / (float)d >= (float)min_roi_pixels) return d;
    return 1;
}
