/* A JPEG encoder that reuses one output buffer (see ccore/jpeg.h).
 *
 * TurboJPEG writes into the caller's buffer when told TJFLAG_NOREALLOC; the
 * buffer is sized at create by tjBufSize for the largest picture at 4:2:0,
 * the worst case TurboJPEG itself guarantees, so no frame can overflow it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <turbojpeg.h>

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
