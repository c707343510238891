/* TurboJPEG wrapper: scaled decode to Y'CbCr planes the decoder owns.
 *
 * Decoding to planes (not RGB) skips the colour conversion and upsampling:
 * the ROI kernels read Y'CbCr directly. The DCT scaling (1/2, 1/4, 1/8)
 * happens inside the IDCT, so a reduced decode is several times cheaper. */
#include "ccore/jpeg.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <turbojpeg.h>

#include "ccore/error.h"

struct ccore_jpeg {
    tjhandle decoder;
    uint32_t max_width, max_height;
    uint8_t *planes; /* room for the planes of any supported frame up to the maximum, at scale 1 */
    size_t capacity;
    char message[160];
};

/* The subsamplings the ROI kernels read; 4:4:0 and 4:1:1 are refused. */
static const int supported_subsamplings[] = {TJSAMP_444, TJSAMP_422, TJSAMP_420, TJSAMP_GRAY};

/* Bytes of the planes TurboJPEG writes for a w x h output, laid out one after
 * the other. Each plane is padded to the subsampling's block: a 1-pixel-wide
 * 4:2:2 frame has a 2-pixel-wide luma plane, a 1x1 4:2:0 frame a 2x2 one. */
static size_t planes_bytes(int w, int h, int subsamp) {
    size_t total = 0;
    int planes = subsamp == TJSAMP_GRAY ? 1 : 3;
    for (int i = 0; i < planes; i++)
        total += (size_t)tjPlaneWidth(i, w, subsamp) * (size_t)tjPlaneHeight(i, h, subsamp);
    return total;
}

int ccore_jpeg_create(uint32_t max_width, uint32_t max_height, ccore_jpeg **out) {
    if (!out || max_width == 0 || max_height == 0) return -EINVAL;
    *out = NULL;
    if (!ccore_frame_size_allowed(max_width, max_height)) return -E2BIG;
    ccore_jpeg *jpeg = calloc(1, sizeof *jpeg);
    if (!jpeg) return -ENOMEM;
    jpeg->max_width = max_width;
    jpeg->max_height = max_height;
    for (size_t i = 0; i < sizeof supported_subsamplings / sizeof *supported_subsamplings; i++) {
        size_t bytes = planes_bytes((int)max_width, (int)max_height, supported_subsamplings[i]);
        if (bytes > jpeg->capacity) jpeg->capacity = bytes;
    }
    jpeg->planes = malloc(jpeg->capacity);
    jpeg->decoder = tjInitDecompress();
    if (!jpeg->planes || !jpeg->decoder) {
        ccore_jpeg_destroy(jpeg);
        return -ENOMEM;
    }
    *out = jpeg;
    return 0;
}

void ccore_jpeg_destroy(ccore_jpeg *jpeg) {
    if (!jpeg) return;
    if (jpeg->decoder) tjDestroy(jpeg->decoder);
    free(jpeg->planes);
    free(jpeg);
}

const char *ccore_jpeg_error_message(const ccore_jpeg *jpeg) { return jpeg ? jpeg->message : ""; }

static int fail(ccore_jpeg *jpeg, int code, const char *what) {
    snprintf(jpeg->message, sizeof jpeg->message, "%s: %s", what, tjGetErrorStr2(jpeg->decoder));
    return code;
}

/* The frame's size and subsampling. A tables-only stream (no frame header) passes
 * tjDecompressHeader3 without setting them, so they start out invalid and are checked. */
static int read_header(ccore_jpeg *jpeg, const uint8_t *data, size_t size, int *w, int *h, int *subsamp) {
    int colorspace = -1;
    *w = *h = 0;
    *subsamp = -1;
    if (tjDecompressHeader3(jpeg->decoder, data, (unsigned long)size, w, h, subsamp, &colorspace) != 0)
        return fail(jpeg, CCORE_E_CORRUPT, "JPEG header");
    if (*w <= 0 || *h <= 0) {
        snprintf(jpeg->message, sizeof jpeg->message, "JPEG has no frame header (tables only, or an empty frame)");
        return CCORE_E_CORRUPT;
    }
    return 0;
}

int ccore_jpeg_peek_size(ccore_jpeg *jpeg, const uint8_t *data, size_t size, uint32_t *width, uint32_t *height) {
    if (!jpeg || !data || size == 0 || size > (size_t)0x7fffffff) return -EINVAL;
    int w, h, subsamp;
    int rc = read_header(jpeg, data, size, &w, &h, &subsamp);
    if (rc < 0) return rc;
    *width = (uint32_t)w;
    *height = (uint32_t)h;
    return 0;
}

/* A warning that leaves the image intact (e.g. stray bytes between markers,
 * which some webcams emit) is accepted; any other warning means lost data. */
static int harmless_warning(tjhandle h) {
    return tjGetErrorCode(h) == TJERR_WARNING && strstr(tjGetErrorStr2(h), "extraneous bytes") != NULL;
}

int ccore_jpeg_decode(ccore_jpeg *jpeg, const uint8_t *data, size_t size, uint32_t scale_denom, ccore_image *out) {
    if (!jpeg || !data || !out || size == 0 || size > (size_t)0x7fffffff) return -EINVAL;
    if (scale_denom != 1 && scale_denom != 2 && scale_denom != 4 && scale_denom != 8) return -EINVAL;
    int w, h, subsamp;
    int rc = read_header(jpeg, data, size, &w, &h, &subsamp);
    if (rc < 0) return rc;
    ccore_pixel_format format;
    switch (subsamp) {
    case TJSAMP_420: format = CCORE_PIXEL_YUV420; break;
    case TJSAMP_422: format = CCORE_PIXEL_YUV422P; break;
    case TJSAMP_444: format = CCORE_PIXEL_YUV444P; break;
    case TJSAMP_GRAY: format = CCORE_PIXEL_GRAY; break;
    default:
        snprintf(jpeg->message, sizeof jpeg->message, "JPEG chroma subsampling %d (4:4:0 or 4:1:1) not supported",
                 subsamp);
        return CCORE_E_UNSUPPORTED;
    }
    int sw = (w + (int)scale_denom - 1) / (int)scale_denom;
    int sh = (h + (int)scale_denom - 1) / (int)scale_denom;
    if ((uint32_t)w > jpeg->max_width || (uint32_t)h > jpeg->max_height) {
        snprintf(jpeg->message, sizeof jpeg->message, "JPEG frame %dx%d exceeds the decoder's %ux%u", w, h,
                 jpeg->max_width, jpeg->max_height);
        return -E2BIG;
    }
    /* Never write past the planes, whatever the header says (the limit above already implies this). */
    if (planes_bytes(sw, sh, subsamp) > jpeg->capacity) {
        snprintf(jpeg->message, sizeof jpeg->message, "JPEG frame %dx%d needs more than the decoder's %zu bytes", w,
                 h, jpeg->capacity);
        return -E2BIG;
    }
    unsigned char *planes[3] = {jpeg->planes, NULL, NULL};
    int strides[3] = {tjPlaneWidth(0, sw, subsamp), 0, 0};
    size_t luma_size = (size_t)strides[0] * (size_t)tjPlaneHeight(0, sh, subsamp);
    if (subsamp != TJSAMP_GRAY) {
        strides[1] = strides[2] = tjPlaneWidth(1, sw, subsamp);
        size_t chroma_size = (size_t)strides[1] * (size_t)tjPlaneHeight(1, sh, subsamp);
        planes[1] = jpeg->planes + luma_size;
        planes[2] = planes[1] + chroma_size;
    }
    if (tjDecompressToYUVPlanes(jpeg->decoder, data, (unsigned long)size, planes, sw, strides, sh, 0) != 0 &&
        !harmless_warning(jpeg->decoder))
        return fail(jpeg, CCORE_E_CORRUPT, "JPEG data");
    memset(out, 0, sizeof *out);
    out->format = format;
    out->range = CCORE_RANGE_FULL;
    out->width = (uint32_t)sw;
    out->height = (uint32_t)sh;
    out->plane0 = planes[0];
    out->plane1 = planes[1];
    out->plane2 = planes[2];
    out->stride0 = (uint32_t)strides[0];
    out->stride1 = (uint32_t)strides[1];
    out->stride2 = (uint32_t)strides[2];
    return 0;
}

uint32_t ccore_jpeg_choose_scale(uint32_t frame_pixels, float roi_fraction, uint32_t min_roi_pixels) {
    if (roi_fraction <= 0) return 1;
    float across = (float)frame_pixels * roi_fraction;
    for (uint32_t d = 8; d > 1; d /= 2)
        if (across / (float)d >= (float)min_roi_pixels) return d;
    return 1;
}

/* Splits packed YUYV into 4:2:2 planes for the encoder. */
static void yuyv_to_planes(const ccore_image *im, uint8_t *y, uint8_t *u, uint8_t *v) {
    uint32_t half = (im->width + 1) / 2;
    for (uint32_t row = 0; row < im->height; row++) {
        const uint8_t *src = im->plane0 + (size_t)row * im->stride0;
        for (uint32_t x = 0; x < im->width; x++) y[(size_t)row * im->width + x] = src[2 * x];
        for (uint32_t i = 0; i < half; i++) {
            u[(size_t)row * half + i] = src[4 * i + 1];
            v[(size_t)row * half + i] = src[4 * i + 3];
        }
    }
}

/* Hands TurboJPEG's buffer back as plain malloc'ed memory, so callers free() it without TurboJPEG. */
static int hand_back(unsigned char *jpeg_buf, unsigned long jpeg_size, uint8_t **out, size_t *out_size) {
    *out = malloc(jpeg_size);
    if (*out) memcpy(*out, jpeg_buf, jpeg_size);
    *out_size = jpeg_size;
    tjFree(jpeg_buf);
    return *out ? 0 : -ENOMEM;
}

int ccore_jpeg_encode_rgb(const ccore_image *image, int quality, ccore_jpeg_subsampling subsampling, uint8_t **out,
                          size_t *out_size) {
    if (!image || !out || !out_size || image->format != CCORE_PIXEL_RGB24 || quality < 1 || quality > 100 ||
        (unsigned)subsampling >= TJ_NUMSAMP)
        return -EINVAL;
    tjhandle enc = tjInitCompress();
    if (!enc) return -ENOMEM;
    unsigned char *jpeg_buf = NULL;
    unsigned long jpeg_size = 0;
    int rc = tjCompress2(enc, image->plane0, (int)image->width, (int)image->stride0, (int)image->height, TJPF_RGB,
                         &jpeg_buf, &jpeg_size, (int)subsampling, quality, 0);
    tjDestroy(enc);
    if (rc != 0) {
        tjFree(jpeg_buf);
        return CCORE_E_CORRUPT;
    }
    return hand_back(jpeg_buf, jpeg_size, out, out_size);
}

int ccore_jpeg_encode(const ccore_image *image, int quality, uint8_t **out, size_t *out_size) {
    if (!image || !out || !out_size || quality < 1 || quality > 100) return -EINVAL;
    tjhandle enc = tjInitCompress();
    if (!enc) return -ENOMEM;
    unsigned char *jpeg_buf = NULL;
    unsigned long jpeg_size = 0;
    int rc = 0, w = (int)image->width, h = (int)image->height;
    uint8_t *scratch = NULL;
    switch (image->format) {
    case CCORE_PIXEL_RGB24:
        rc = tjCompress2(enc, image->plane0, w, (int)image->stride0, h, TJPF_RGB, &jpeg_buf, &jpeg_size, TJSAMP_420,
                         quality, 0);
        break;
    case CCORE_PIXEL_YUYV: {
        size_t half = (size_t)(w + 1) / 2;
        scratch = malloc((size_t)w * h + 2 * half * h);
        if (!scratch) {
            rc = -1;
            break;
        }
        uint8_t *u = scratch + (size_t)w * h, *v = u + half * h;
        yuyv_to_planes(image, scratch, u, v);
        const unsigned char *planes[3] = {scratch, u, v};
        int strides[3] = {w, (int)half, (int)half};
        rc = tjCompressFromYUVPlanes(enc, planes, w, strides, h, TJSAMP_422, &jpeg_buf, &jpeg_size, quality, 0);
        break;
    }
    case CCORE_PIXEL_YUV420: {
        const unsigned char *planes[3] = {image->plane0, image->plane1, image->plane2};
        int strides[3] = {(int)image->stride0, (int)image->stride1, (int)image->stride2};
        rc = tjCompressFromYUVPlanes(enc, planes, w, strides, h, TJSAMP_420, &jpeg_buf, &jpeg_size, quality, 0);
        break;
    }
    default:
        tjDestroy(enc);
        return -EINVAL;
    }
    free(scratch);
    if (rc != 0) {
        tjFree(jpeg_buf);
        tjDestroy(enc);
        return CCORE_E_CORRUPT;
    }
    tjDestroy(enc);
    return hand_back(jpeg_buf, jpeg_size, out, out_size);
}
