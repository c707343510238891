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
 * and by skipping the IDCT of rows and planes nobody reads. */
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
    if (!jpeg->planes) {
        free(jpeg);
        return -ENOMEM;
    }
    jpeg->d.err = jpeg_std_error(&jpeg->errors.mgr);
    jpeg->errors.mgr.error_exit = on_error;
    jpeg->errors.mgr.emit_message = on_message;
    /* jpeg_create_decompress reports running out of memory through error_exit. */
    if (setjmp(jpeg->errors.jump)) {
        free(jpeg->planes);
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
    free(jpeg);
}

const char *ccore_jpeg_error_message(const ccore_jpeg *jpeg) { return jpeg ? jpeg->message : ""; }

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
    if (!jpeg || !data || size == 0 || size > (size_t)0x7fffffff) return -EINVAL;
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

/* Output rows [from, to) of a frame `height` rows tall for the fraction
 * [top, bottom) of its height, one row wider on each side than rounding
 * could make a reader's box. Empty when the fractions are. */
static void fraction_rows(float top, float bottom, uint32_t height, uint32_t *from, uint32_t *to) {
    *from = *to = 0;
    if (!(bottom > top) || !(bottom > 0) || !(top < 1)) return;
    double t = top > 0 ? floor((double)top * height) - 1 : 0;
    double b = bottom < 1 ? ceil((double)bottom * height) + 1 : height;
    *from = t <= 0 ? 0 : (uint32_t)t;
    *to = b >= height ? height : (uint32_t)b;
}

static int decode(ccore_jpeg *jpeg, const uint8_t *data, size_t size, uint32_t scale_denom,
                  const ccore_jpeg_rows *part, ccore_image *out) {
    if (!jpeg || !data || !out || size == 0 || size > (size_t)0x7fffffff) return -EINVAL;
    if (scale_denom != 1 && scale_denom != 2 && scale_denom != 4 && scale_denom != 8) return -EINVAL;
    struct jpeg_decompress_struct *d = &jpeg->d;
    if (setjmp(jpeg->errors.jump)) return failed(jpeg);
    int rc = read_header(jpeg, data, size);
    if (rc < 0) return rc;
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
    d->raw_data_out = TRUE;
    d->do_fancy_upsampling = FALSE;
    d->dct_method = JDCT_ISLOW;
    d->scale_num = 1;
    d->scale_denom = scale_denom;
    jpeg->stage = "JPEG data";
    jpeg_start_decompress(d);
    keep_chroma_subsampled(d);

    /* The planes one after the other, each as wide and tall as the decoder
     * writes it: whole blocks across, whole iMCU rows down. */
    int planes = d->num_components;
    uint8_t *plane[3] = {NULL, NULL, NULL};
    size_t stride[3] = {0, 0, 0}, plane_rows[3] = {0, 0, 0}, used = 0;
    for (int i = 0; i < planes; i++) {
        const jpeg_component_info *c = &d->comp_info[i];
        stride[i] = (size_t)c->width_in_blocks * (size_t)c->DCT_scaled_size;
        plane_rows[i] = (size_t)d->total_iMCU_rows * (size_t)c->v_samp_factor * (size_t)c->DCT_scaled_size;
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

    /* Rows wanted: luma [0, luma_end) and luma + chroma [colour_from, colour_to). */
    uint32_t height = d->output_height, luma_end = height, colour_from = 0, colour_to = height;
    if (part) {
        uint32_t unused;
        fraction_rows(0, part->luma_bottom, height, &unused, &luma_end);
        fraction_rows(part->colour_top, part->colour_bottom, height, &colour_from, &colour_to);
    }
    uint32_t end = luma_end > colour_to ? luma_end : colour_to;
    uint32_t group = (uint32_t)(d->max_v_samp_factor * d->min_DCT_scaled_size); /* output rows per iMCU row */
    JSAMPARRAY arrays[3] = {jpeg->rows[0], jpeg->rows[1], jpeg->rows[2]};
    while (d->output_scanline < end) {
        uint32_t first = d->output_scanline, imcu = first / group, last = first + group;
        int colour = first < colour_to && last > colour_from;
        for (int i = 0; i < planes; i++) {
            const jpeg_component_info *c = &d->comp_info[i];
            size_t n = (size_t)c->v_samp_factor * (size_t)c->DCT_scaled_size;
            for (size_t r = 0; r < n; r++) jpeg->rows[i][r] = plane[i] + ((size_t)imcu * n + r) * stride[i];
            /* The IDCT of a block nobody reads is skipped; its Huffman decoding is not. */
            d->comp_info[i].component_needed = colour || (i == 0 && first < luma_end);
        }
        if (jpeg_read_raw_data(d, arrays, group) == 0) {
            snprintf(jpeg->message, sizeof jpeg->message, "JPEG data: decoder stalled at row %u", first);
            jpeg_abort_decompress(d);
            return CCORE_E_CORRUPT;
        }
        if (jpeg->errors.damaged) return damaged(jpeg);
    }
    if (d->output_scanline >= height)
        jpeg_finish_decompress(d); /* reads on to the end of the image, where damage can still show */
    else
        jpeg_abort_decompress(d);
    if (jpeg->errors.damaged) return damaged(jpeg);

    memset(out, 0, sizeof *out);
    out->format = format;
    out->range = CCORE_RANGE_FULL;
    out->width = d->output_width;
    out->height = d->output_height;
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
