/* The JPEG encoders (TurboJPEG, see ccore/jpeg.h): one-shot ones for tools
 * and tests, and one for live pictures that reuses one output buffer.
 *
 * The live one: TurboJPEG writes into the caller's buffer when told
 * TJFLAG_NOREALLOC; the buffer is sized at create by tjBufSize for the largest
 * picture at 4:2:0, the worst case TurboJPEG itself guarantees, so no frame
 * can overflow it. */
#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <turbojpeg.h>

/* jpeglib.h needs size_t and FILE declared first. */
#include <jpeglib.h>

#include "ccore/error.h"
#include "ccore/jpeg.h"

struct ccore_jpeg_encoder {
    tjhandle compressor;
    uint32_t max_width, max_height;
    unsigned char *buffer;
    unsigned long capacity;
    char message[160];
};

int ccore_jpeg_encoder_create(uint32_t max_width, uint32_t max_height, ccore_jpeg_encoder **out) {
    if (!out || max_width == 0 || max_height == 0) return -EINVAL;
    *out = NULL;
    if (!ccore_frame_size_allowed(max_width, max_height)) return -E2BIG;
    ccore_jpeg_encoder *enc = calloc(1, sizeof *enc);
    if (!enc) return -ENOMEM;
    enc->max_width = max_width;
    enc->max_height = max_height;
    enc->capacity = tjBufSize((int)max_width, (int)max_height, TJSAMP_420);
    enc->compressor = tjInitCompress();
    enc->buffer = enc->capacity ? tjAlloc((int)enc->capacity) : NULL;
    if (!enc->compressor || !enc->buffer) {
        ccore_jpeg_encoder_destroy(enc);
        return -ENOMEM;
    }
    *out = enc;
    return 0;
}

void ccore_jpeg_encoder_destroy(ccore_jpeg_encoder *enc) {
    if (!enc) return;
    if (enc->compressor) tjDestroy(enc->compressor);
    tjFree(enc->buffer);
    free(enc);
}

int ccore_jpeg_encoder_encode(ccore_jpeg_encoder *enc, const uint8_t *pixels, uint32_t width, uint32_t height,
                              uint32_t stride, uint32_t channels, int quality, const uint8_t **out, size_t *out_size) {
    if (!enc || !pixels || !out || !out_size || width == 0 || height == 0 || quality < 1 || quality > 100 ||
        (channels != 3 && channels != 4) || stride < (uint64_t)width * channels)
        return -EINVAL;
    if (width > enc->max_width || height > enc->max_height) return -E2BIG;
    unsigned char *buffer = enc->buffer;
    unsigned long size = enc->capacity;
    int format = channels == 4 ? TJPF_RGBA : TJPF_RGB;
    if (tjCompress2(enc->compressor, pixels, (int)width, (int)stride, (int)height, format, &buffer, &size, TJSAMP_420,
                    quality, TJFLAG_NOREALLOC) != 0) {
        snprintf(enc->message, sizeof enc->message, "%s", tjGetErrorStr2(enc->compressor));
        return CCORE_E_CORRUPT;
    }
    *out = buffer;
    *out_size = size;
    return 0;
}

const char *ccore_jpeg_encoder_error_message(const ccore_jpeg_encoder *enc) { return enc ? enc->message : ""; }

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
        if (w % 2) { /* pixels in pairs: an odd width has no V for its last one */
            tjDestroy(enc);
            return -EINVAL;
        }
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

/* libjpeg's fatal errors jump back here (error_exit must not return); warnings are ignored. */
typedef struct {
    struct jpeg_error_mgr mgr;
    jmp_buf jump;
} transcode_errors;

static void transcode_error(j_common_ptr cinfo) { longjmp(((transcode_errors *)(void *)cinfo->err)->jump, 1); }

static void transcode_quiet(j_common_ptr cinfo, int level) {
    (void)cinfo;
    (void)level;
}

/* What jpegtran -restart does: the coefficients read and written again with the
 * new interval, so the pixels are those of the input. The output buffer is ours
 * and roomy (a marker and a padding byte per interval added at most), so libjpeg
 * never has to grow it. */
int ccore_jpeg_set_restart_interval(const uint8_t *jpeg, size_t size, uint32_t interval, uint8_t **out,
                                    size_t *out_size) {
    if (!jpeg || size == 0 || size > (size_t)0x3fffffff || !out || !out_size || interval > 65535) return -EINVAL;
    size_t room = 2 * size + 65536;
    unsigned char *buffer = malloc(room);
    if (!buffer) return -ENOMEM;
    struct jpeg_decompress_struct src;
    struct jpeg_compress_struct dst;
    transcode_errors errors;
    memset(&src, 0, sizeof src);
    memset(&dst, 0, sizeof dst);
    src.err = dst.err = jpeg_std_error(&errors.mgr);
    errors.mgr.error_exit = transcode_error;
    errors.mgr.emit_message = transcode_quiet;
    unsigned char *mem = buffer;
    unsigned long mem_size = (unsigned long)room;
    /* Destroying a zeroed struct that was never created does nothing. */
    if (setjmp(errors.jump)) {
        jpeg_destroy_compress(&dst);
        jpeg_destroy_decompress(&src);
        free(buffer);
        return CCORE_E_CORRUPT;
    }
    jpeg_create_decompress(&src);
    jpeg_create_compress(&dst);
    jpeg_mem_src(&src, jpeg, (unsigned long)size);
    jpeg_read_header(&src, TRUE);
    jvirt_barray_ptr *coefficients = jpeg_read_coefficients(&src);
    jpeg_mem_dest(&dst, &mem, &mem_size);
    jpeg_copy_critical_parameters(&src, &dst);
    dst.restart_interval = interval;
    dst.restart_in_rows = 0;
    jpeg_write_coefficients(&dst, coefficients);
    jpeg_finish_compress(&dst);
    jpeg_finish_decompress(&src);
    jpeg_destroy_compress(&dst);
    jpeg_destroy_decompress(&src);
    if (mem != buffer) free(buffer); /* libjpeg grew it after all: its copy is malloc'ed too */
    *out = mem;
    *out_size = mem_size;
    return 0;
}
