/* Y4M and raw MJPEG readers. Both read through stdio (a file, a pipe or a
 * memory buffer) into one buffer allocated at open, and report where a file
 * breaks: the frame index and byte offset. */
#include "ccore/videofile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ccore/error.h"

#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
#define MAX_JPEG_FRAME (128u << 10) /* fuzz inputs are <= 64 KiB; a 16 MiB buffer per open made a run 16x slower */
#else
#define MAX_JPEG_FRAME (16u << 20)
#endif
#define MAX_Y4M_FRAME (128u << 20)
#define MAX_FPS 1000u
/* Reads go through one block: large for files and memory, small for pipes and
 * devices, where fread waits until the whole block has arrived. */
#define FILE_BLOCK (64u << 10)
#define PIPE_BLOCK (4u << 10)

struct ccore_videofile {
    FILE *fp;
    ccore_videofile_info info;
    uint64_t next_index;
    uint64_t offset;       /* bytes consumed so far */
    uint64_t data_start;   /* offset of the first frame */
    uint8_t *buffer;
    size_t capacity;
    size_t frame_bytes;    /* Y4M: bytes per frame */
    int first_pending;     /* MJPEG: frame 0 already sits in the buffer */
    size_t pending_size;
    uint8_t *block;        /* read-ahead: block[block_pos..block_len) is not consumed yet */
    size_t block_size, block_len, block_pos;
    char message[256];
};

/* Messages quote the file's own header bytes: control characters among them (an escape
 * sequence, a carriage return) are shown as '?', so that a hostile file cannot drive the
 * terminal or the log the message is printed to. */
static int set_error(ccore_videofile *vf, int code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(vf->message, sizeof vf->message, fmt, ap);
    va_end(ap);
    for (char *c = vf->message; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = '?';
    return code;
}

/* Fills the read-ahead block; returns the bytes now available (0 at the end). */
static size_t refill(ccore_videofile *vf) {
    if (vf->block_pos < vf->block_len) return vf->block_len - vf->block_pos;
    vf->block_pos = 0;
    vf->block_len = vf->block ? fread(vf->block, 1, vf->block_size, vf->fp) : 0;
    return vf->block_len;
}

static void consume(ccore_videofile *vf, size_t n) {
    vf->block_pos += n;
    vf->offset += n;
}

static int read_byte(ccore_videofile *vf) {
    if (vf->block_pos == vf->block_len && refill(vf) == 0) return EOF;
    int c = vf->block[vf->block_pos];
    consume(vf, 1);
    return c;
}

/* Copies up to n bytes into dst; returns how many there were before the end.
 * Whole blocks go straight from the file into dst (a Y4M frame is read once,
 * not into the block and then copied). */
static size_t read_bytes(ccore_videofile *vf, uint8_t *dst, size_t n) {
    size_t got = 0;
    while (got < n) {
        if (vf->block_pos == vf->block_len && n - got >= vf->block_size) {
            size_t direct = (n - got) / vf->block_size * vf->block_size;
            size_t read = fread(dst + got, 1, direct, vf->fp);
            vf->offset += read;
            got += read;
            if (read < direct) break;
            continue;
        }
        size_t avail = refill(vf);
        if (avail == 0) break;
        size_t take = n - got < avail ? n - got : avail;
        memcpy(dst + got, vf->block + vf->block_pos, take);
        consume(vf, take);
        got += take;
    }
    return got;
}

/* ---- Y4M ---------------------------------------------------------------- */

/* A header number: decimal digits only (no sign, no space), at most UINT32_MAX. */
static int parse_u32(const char *text, char **end, uint32_t *value) {
    *end = (char *)text;
    if (*text < '0' || *text > '9') return -1;
    errno = 0;
    unsigned long long v = strtoull(text, end, 10);
    if (errno == ERANGE || v > UINT32_MAX) return -1;
    *value = (uint32_t)v;
    return 0;
}

static int parse_y4m_header(ccore_videofile *vf) {
    char line[1024];
    size_t n = 0;
    int c;
    while ((c = read_byte(vf)) != EOF && c != '\n') {
        if (n + 1 >= sizeof line) return set_error(vf, CCORE_E_CORRUPT, "Y4M header longer than %zu bytes", sizeof line);
        line[n++] = (char)c;
    }
    if (c == EOF) return set_error(vf, CCORE_E_TRUNCATED, "Y4M header is truncated (no end of line)");
    line[n] = '\0';
    if (strncmp(line, "YUV4MPEG2", 9) != 0 || (line[9] != ' ' && line[9] != '\0'))
        return set_error(vf, CCORE_E_CORRUPT, "not a Y4M file (missing YUV4MPEG2 signature)");
    uint32_t w = 0, h = 0, fn = 0, fd = 0;
    int have_rate = 0;
    ccore_pixel_format format = CCORE_PIXEL_YUV420;
    vf->info.range = CCORE_RANGE_LIMITED;
    char *save = NULL;
    static const char once_fields[] = "WHFC"; /* a second one is a broken writer, not a choice to guess at */
    unsigned seen = 0;
    for (char *tok = strtok_r(line + 9, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        char *end = NULL;
        int bad = 0;
        const char *once = tok[0] != '\0' ? strchr(once_fields, tok[0]) : NULL;
        if (once) {
            unsigned bit = 1u << (once - once_fields);
            if (seen & bit) return set_error(vf, CCORE_E_CORRUPT, "Y4M header gives %c twice", tok[0]);
            seen |= bit;
        }
        switch (tok[0]) {
        case 'W': bad = parse_u32(tok + 1, &end, &w); break;
        case 'H': bad = parse_u32(tok + 1, &end, &h); break;
        case 'F':
            have_rate = 1;
            bad = parse_u32(tok + 1, &end, &fn) || *end != ':' || parse_u32(end + 1, &end, &fd);
            break;
        case 'C':
            if (strncmp(tok + 1, "420", 3) == 0 && (tok[4] == '\0' || strcmp(tok + 4, "jpeg") == 0 ||
                                                     strcmp(tok + 4, "paldv") == 0 || strcmp(tok + 4, "mpeg2") == 0))
                format = CCORE_PIXEL_YUV420;
            else if (strcmp(tok + 1, "422") == 0)
                format = CCORE_PIXEL_YUV422P;
            else if (strcmp(tok + 1, "444") == 0)
                format = CCORE_PIXEL_YUV444P;
            else if (strcmp(tok + 1, "mono") == 0)
                format = CCORE_PIXEL_GRAY;
            else
                return set_error(vf, CCORE_E_UNSUPPORTED,
                                 "Y4M colour space C%s is not supported (8-bit 4:2:0, 4:2:2, 4:4:4 and mono only)",
                                 tok + 1);
            break;
        case 'X':
            if (strcmp(tok, "XCOLORRANGE=FULL") == 0) vf->info.range = CCORE_RANGE_FULL;
            break;
        default: break; /* interlacing, aspect ratio: irrelevant to the means */
        }
        if (bad || (end && *end != '\0' && tok[0] != 'C' && tok[0] != 'X'))
            return set_error(vf, CCORE_E_CORRUPT, "Y4M header field '%.40s' is malformed (%s)", tok,
                             tok[0] == 'F' ? "a frame rate is two whole numbers, e.g. F30:1"
                                           : "a size is a whole number of pixels");
    }
    if (w == 0 || h == 0)
        return set_error(vf, CCORE_E_CORRUPT, "Y4M header has no valid size (W%u H%u)", w, h);
    if (!ccore_frame_size_allowed(w, h))
        return set_error(vf, CCORE_E_UNSUPPORTED,
                         "Y4M frames of %ux%u are larger than the limit of %u pixels a side and %u megapixels", w, h,
                         CCORE_MAX_FRAME_SIDE, CCORE_MAX_FRAME_PIXELS / 1000000);
    if (!have_rate) fn = 30, fd = 1; /* F is mandatory; tolerate its absence as 30 fps */
    if (fn == 0 || fd == 0 || fn / fd >= MAX_FPS || (uint64_t)fn < fd)
        return set_error(vf, CCORE_E_UNSUPPORTED, "Y4M frame rate F%u:%u is outside 1-%u frames per second", fn, fd,
                         MAX_FPS - 1);
    vf->info.kind = CCORE_VIDEOFILE_Y4M;
    vf->info.pixel_format = format;
    vf->info.width = (uint32_t)w;
    vf->info.height = (uint32_t)h;
    vf->info.fps_numerator = (uint32_t)fn;
    vf->info.fps_denominator = (uint32_t)fd;
    vf->frame_bytes = (size_t)ccore_pixel_format_frame_size(format, (uint32_t)w, (uint32_t)h);
    if (vf->frame_bytes > MAX_Y4M_FRAME)
        return set_error(vf, CCORE_E_UNSUPPORTED, "Y4M frames of %ux%u exceed the %u MiB frame limit", w, h,
                         MAX_Y4M_FRAME >> 20);
    vf->capacity = vf->frame_bytes;
    vf->buffer = malloc(vf->capacity);
    if (!vf->buffer) return set_error(vf, -ENOMEM, "out of memory for a %zu-byte frame", vf->capacity);
    return 0;
}

static int next_y4m(ccore_videofile *vf, ccore_videofile_frame *frame) {
    uint64_t index = vf->next_index, at = vf->offset;
    char tag[6];
    size_t n = 0;
    int c;
    while (n < 5 && (c = read_byte(vf)) != EOF) tag[n++] = (char)c;
    if (n == 0) return CCORE_E_END;
    if (n < 5) return set_error(vf, CCORE_E_TRUNCATED, "frame %llu: file ends inside its FRAME header (byte %llu)",
                                (unsigned long long)index, (unsigned long long)at);
    if (memcmp(tag, "FRAME", 5) != 0)
        return set_error(vf, CCORE_E_CORRUPT, "frame %llu: expected 'FRAME' at byte %llu", (unsigned long long)index,
                         (unsigned long long)at);
    size_t params = 0;
    while ((c = read_byte(vf)) != EOF && c != '\n')
        if (++params > 1024)
            return set_error(vf, CCORE_E_CORRUPT, "frame %llu: FRAME header too long", (unsigned long long)index);
    if (c == EOF) return set_error(vf, CCORE_E_TRUNCATED, "frame %llu: file ends inside its FRAME header",
                                   (unsigned long long)index);
    size_t got = read_bytes(vf, vf->buffer, vf->frame_bytes);
    if (got < vf->frame_bytes)
        return set_error(vf, CCORE_E_TRUNCATED, "frame %llu is truncated: %zu of %zu bytes", (unsigned long long)index,
                         got, vf->frame_bytes);
    memset(frame, 0, sizeof *frame);
    frame->index = index;
    ccore_image_wrap_packed(&frame->image, vf->info.pixel_format, vf->info.range, vf->info.width, vf->info.height,
                            vf->buffer);
    vf->next_index++;
    return 0;
}

/* ---- MJPEG -------------------------------------------------------------- */

static int store(ccore_videofile *vf, size_t *len, int byte) {
    if (*len >= vf->capacity) return -1;
    vf->buffer[(*len)++] = (uint8_t)byte;
    return 0;
}

/* Reads one JPEG image (SOI ... EOI) by walking its markers; returns its
 * size in *size. Width and height from the frame header go to *w, *h. */
static int read_jpeg(ccore_videofile *vf, size_t *size, uint32_t *w, uint32_t *h) {
    uint64_t index = vf->next_index, at = vf->offset;
    size_t len = 0;
    int c = read_byte(vf);
    if (c == EOF) return CCORE_E_END;
    int c2 = read_byte(vf);
    if (c != 0xFF || c2 != 0xD8)
        return set_error(vf, c2 == EOF ? CCORE_E_TRUNCATED : CCORE_E_CORRUPT,
                         "frame %llu: no JPEG start-of-image marker at byte %llu", (unsigned long long)index,
                         (unsigned long long)at);
    store(vf, &len, 0xFF);
    store(vf, &len, 0xD8);
#define TRUNCATED()                                                                                                  \
    set_error(vf, CCORE_E_TRUNCATED, "frame %llu is truncated: file ends before its end-of-image marker",           \
              (unsigned long long)index)
#define TOO_BIG() set_error(vf, -E2BIG, "frame %llu is larger than %u MiB", (unsigned long long)index, MAX_JPEG_FRAME >> 20)
    int marker = -1; /* a marker already read while scanning entropy-coded data */
    for (;;) {
        if (marker < 0) {
            c = read_byte(vf);
            if (c == EOF) return TRUNCATED();
            if (c != 0xFF)
                return set_error(vf, CCORE_E_CORRUPT, "frame %llu: expected a JPEG marker at byte %llu",
                                 (unsigned long long)index, (unsigned long long)(vf->offset - 1));
            do c = read_byte(vf); /* fill bytes */
            while (c == 0xFF);
            if (c == EOF) return TRUNCATED();
            marker = c;
        }
        int m = marker;
        marker = -1;
        if (store(vf, &len, 0xFF) || store(vf, &len, m)) return TOO_BIG();
        if (m == 0xD9) break; /* end of image */
        if (m == 0x01 || (m >= 0xD0 && m <= 0xD7)) continue; /* standalone markers */
        if (m == 0x00 || m == 0xD8)
            return set_error(vf, CCORE_E_CORRUPT, "frame %llu: unexpected marker 0x%02X at byte %llu",
                             (unsigned long long)index, m, (unsigned long long)(vf->offset - 1));
        int hi = read_byte(vf), lo = read_byte(vf);
        if (lo == EOF) return TRUNCATED();
        size_t seg = ((size_t)hi << 8) | (size_t)lo;
        if (seg < 2)
            return set_error(vf, CCORE_E_CORRUPT, "frame %llu: JPEG segment length %zu is invalid",
                             (unsigned long long)index, seg);
        if (store(vf, &len, hi) || store(vf, &len, lo)) return TOO_BIG();
        size_t body = seg - 2;
        if (len + body > vf->capacity) return TOO_BIG();
        if (read_bytes(vf, vf->buffer + len, body) < body) return TRUNCATED();
        /* Baseline, extended or progressive frame header: precision, height, width. */
        if ((m == 0xC0 || m == 0xC1 || m == 0xC2) && body >= 5) {
            *h = ((uint32_t)vf->buffer[len + 1] << 8) | vf->buffer[len + 2];
            *w = ((uint32_t)vf->buffer[len + 3] << 8) | vf->buffer[len + 4];
        }
        len += body;
        if (m != 0xDA) continue;
        /* Entropy-coded data runs until a marker other than a stuffed 0xFF00 or a restart marker.
         * Runs without 0xFF are copied a block at a time. */
        for (;;) {
            size_t avail = refill(vf);
            if (avail == 0) return TRUNCATED();
            const uint8_t *run = vf->block + vf->block_pos;
            const uint8_t *ff = memchr(run, 0xFF, avail);
            size_t n = ff ? (size_t)(ff - run) : avail;
            if (n > vf->capacity - len) return TOO_BIG();
            memcpy(vf->buffer + len, run, n);
            len += n;
            consume(vf, n);
            if (!ff) continue;
            consume(vf, 1); /* the 0xFF */
            do c = read_byte(vf);
            while (c == 0xFF);
            if (c == EOF) return TRUNCATED();
            if (c == 0x00 || (c >= 0xD0 && c <= 0xD7)) {
                if (store(vf, &len, 0xFF) || store(vf, &len, c)) return TOO_BIG();
                continue;
            }
            marker = c;
            break;
        }
    }
#undef TRUNCATED
#undef TOO_BIG
    *size = len;
    return 0;
}

static int next_mjpeg(ccore_videofile *vf, ccore_videofile_frame *frame) {
    size_t size = vf->pending_size;
    if (!vf->first_pending) {
        uint32_t w = 0, h = 0;
        int rc = read_jpeg(vf, &size, &w, &h);
        if (rc < 0) return rc;
    }
    vf->first_pending = 0;
    memset(frame, 0, sizeof *frame);
    frame->index = vf->next_index++;
    frame->jpeg = vf->buffer;
    frame->jpeg_size = size;
    return 0;
}

static int open_mjpeg(ccore_videofile *vf, uint32_t fps) {
    vf->info.kind = CCORE_VIDEOFILE_MJPEG;
    vf->info.pixel_format = CCORE_PIXEL_NONE;
    vf->info.range = CCORE_RANGE_FULL;
    vf->info.fps_numerator = fps ? fps : 30;
    vf->info.fps_denominator = 1;
    vf->capacity = MAX_JPEG_FRAME;
    vf->buffer = malloc(vf->capacity);
    if (!vf->buffer) return set_error(vf, -ENOMEM, "out of memory for the MJPEG frame buffer");
    /* The size lives in the first frame: read it now and hand it out first. */
    uint32_t w = 0, h = 0;
    int rc = read_jpeg(vf, &vf->pending_size, &w, &h);
    if (rc == CCORE_E_END) return set_error(vf, CCORE_E_TRUNCATED, "MJPEG stream has no frame");
    if (rc < 0) return rc;
    if (w == 0 || h == 0)
        return set_error(vf, CCORE_E_CORRUPT, "frame 0: JPEG has no valid frame header (size %ux%u)", w, h);
    if (!ccore_frame_size_allowed(w, h))
        return set_error(vf, CCORE_E_UNSUPPORTED,
                         "frame 0 is %ux%u, larger than the limit of %u pixels a side and %u megapixels", w, h,
                         CCORE_MAX_FRAME_SIDE, CCORE_MAX_FRAME_PIXELS / 1000000);
    vf->info.width = w;
    vf->info.height = h;
    vf->first_pending = 1;
    return 0;
}

/* ---- common ------------------------------------------------------------- */

/* `name` (a path, or NULL for memory) prefixes the message of a failed open. */
static int open_stream(FILE *fp, const char *name, uint32_t mjpeg_fps, ccore_videofile **out, char *message,
                       uint32_t message_size) {
    ccore_videofile *vf = calloc(1, sizeof *vf);
    if (!vf) {
        fclose(fp);
        return -ENOMEM;
    }
    vf->fp = fp;
    struct stat st;
    int fd = fileno(fp);
    vf->block_size = fd < 0 || (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) ? FILE_BLOCK : PIPE_BLOCK;
    vf->block = malloc(vf->block_size);
    if (!vf->block) {
        fclose(fp);
        free(vf);
        return -ENOMEM;
    }
    int rc;
    int c = getc(fp);
    if (c == EOF) {
        rc = set_error(vf, CCORE_E_TRUNCATED, "the file is empty");
    } else {
        ungetc(c, fp);
        if (c == 'Y')
            rc = parse_y4m_header(vf);
        else if (c == 0xFF)
            rc = open_mjpeg(vf, mjpeg_fps);
        else
            rc = set_error(vf, CCORE_E_UNSUPPORTED, "not a Y4M or MJPEG file (first byte 0x%02X)", (unsigned)c);
    }
    vf->data_start = vf->info.kind == CCORE_VIDEOFILE_Y4M ? vf->offset : 0;
    if (rc < 0) {
        if (message && message_size)
            snprintf(message, message_size, "%s%s%s", name ? name : "", name ? ": " : "", vf->message);
        ccore_videofile_close(vf);
        *out = NULL;
        return rc;
    }
    *out = vf;
    return 0;
}

int ccore_videofile_open(const char *path, uint32_t mjpeg_fps, ccore_videofile **out, char *message,
                         uint32_t message_size) {
    if (!path || !out) return -EINVAL;
    *out = NULL;
    /* O_NONBLOCK: opening a FIFO with no writer (or a device) must not hang. Only regular
     * files are read: a FIFO or device can block any read forever (no timeout, no way out
     * for a scan) and cannot be rewound; a live source is a camera, not --input. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        int err = errno;
        if (fd >= 0) close(fd);
        if (message && message_size) snprintf(message, message_size, "cannot open %s: %s", path, strerror(err));
        return -err;
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        const char *what = S_ISDIR(st.st_mode)    ? "a directory"
                           : S_ISFIFO(st.st_mode) ? "a FIFO (named pipe)"
                           : S_ISCHR(st.st_mode)  ? "a character device"
                           : S_ISBLK(st.st_mode)  ? "a block device"
                           : S_ISSOCK(st.st_mode) ? "a socket"
                                                  : "not a regular file";
        if (message && message_size)
            snprintf(message, message_size, "%s is %s, not a video file (give a regular Y4M or MJPEG file)", path,
                     what);
        return S_ISDIR(st.st_mode) ? -EISDIR : CCORE_E_UNSUPPORTED;
    }
    FILE *fp = NULL;
    if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0 || !(fp = fdopen(fd, "rb"))) {
        int err = errno;
        close(fd);
        if (message && message_size) snprintf(message, message_size, "cannot open %s: %s", path, strerror(err));
        return -err;
    }
    return open_stream(fp, path, mjpeg_fps, out, message, message_size);
}

int ccore_videofile_open_memory(const uint8_t *data, size_t size, uint32_t mjpeg_fps, ccore_videofile **out,
                                char *message, uint32_t message_size) {
    if (!data || !out) return -EINVAL;
    *out = NULL;
    if (size == 0) {
        if (message && message_size) snprintf(message, message_size, "the file is empty");
        return CCORE_E_TRUNCATED;
    }
    FILE *fp = fmemopen((void *)data, size, "rb");
    if (!fp) return -errno;
    return open_stream(fp, NULL, mjpeg_fps, out, message, message_size);
}

void ccore_videofile_close(ccore_videofile *vf) {
    if (!vf) return;
    if (vf->fp) fclose(vf->fp);
    free(vf->block);
    free(vf->buffer);
    free(vf);
}

void ccore_videofile_get_info(const ccore_videofile *vf, ccore_videofile_info *out) {
    if (!out) return;
    if (vf)
        *out = vf->info;
    else
        memset(out, 0, sizeof *out);
}

int ccore_videofile_next(ccore_videofile *vf, ccore_videofile_frame *frame) {
    if (!vf || !frame) return -EINVAL;
    return vf->info.kind == CCORE_VIDEOFILE_Y4M ? next_y4m(vf, frame) : next_mjpeg(vf, frame);
}

int ccore_videofile_rewind(ccore_videofile *vf) {
    if (!vf) return -EINVAL;
    if (fseeko(vf->fp, (off_t)vf->data_start, SEEK_SET) != 0) return -errno;
    vf->block_pos = vf->block_len = 0;
    vf->offset = vf->data_start;
    vf->next_index = 0;
    vf->first_pending = 0;
    return 0;
}

const char *ccore_videofile_error_message(const ccore_videofile *vf) { return vf ? vf->message : ""; }
