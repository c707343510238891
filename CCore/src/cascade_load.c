/* Loads an OpenCV cascade XML file into the compact form the detector scans
 * with. Every count and index is checked against the file's own declarations
 * and the window, so a damaged file is rejected here, never read out of
 * bounds while detecting. */
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cascade_internal.h"
#include "ccore/error.h"
#include "xml_reader.h"

enum { MAX_FILE_BYTES = 64 << 20, MAX_WINDOW = 1024, MAX_NUMBERS = 16 };

typedef struct {
    xml_document doc;
    locale_t c_locale; /* numbers are '.'-decimal whatever the process locale */
    char *message;
    uint32_t message_size;
} loader;

static int failv(loader *ld, int code, const char *fmt, va_list ap) {
    if (ld->message && ld->message_size) vsnprintf(ld->message, ld->message_size, fmt, ap);
    return code;
}

static int fail(loader *ld, int code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    failv(ld, code, fmt, ap);
    va_end(ap);
    return code;
}

static const xml_node *node_at(const loader *ld, int32_t i) { return &ld->doc.nodes[i]; }

/* Parses a whitespace-separated list of exactly `expected` numbers (or up to
 * MAX_NUMBERS when expected is 0, the count going to *found). */
static int numbers(loader *ld, int32_t node, const char *what, double *values, uint32_t expected, uint32_t *found) {
    if (node < 0) return fail(ld, CCORE_E_CORRUPT, "missing <%s>", what);
    const xml_node *n = node_at(ld, node);
    const char *p = n->text, *end = n->text + n->text_len;
    uint32_t count = 0, limit = expected ? expected : MAX_NUMBERS;
    while (p && p < end) {
        while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) p++;
        if (p >= end) break;
        if (count == limit)
            return fail(ld, expected ? CCORE_E_CORRUPT : CCORE_E_UNSUPPORTED,
                        "line %u: <%s> has more than %u numbers", n->line, what, limit);
        char *stop;
        double v = strtod_l(p, &stop, ld->c_locale);
        if (stop == p || stop > end || !isfinite(v))
            return fail(ld, CCORE_E_CORRUPT, "line %u: <%s> holds something that is not a number", n->line, what);
        values[count++] = v;
        p = stop;
    }
    if (expected && count != expected)
        return fail(ld, CCORE_E_CORRUPT, "line %u: <%s> has %u numbers, expected %u", n->line, what, count, expected);
    if (found) *found = count;
    return 0;
}

static int integer(loader *ld, int32_t node, const char *what, int32_t lo, int32_t hi, int32_t *out) {
    double v;
    int rc = numbers(ld, node, what, &v, 1, NULL);
    if (rc) return rc;
    if (v != floor(v) || v < lo || v > hi)
        return fail(ld, CCORE_E_CORRUPT, "line %u: <%s> is %g, expected an integer in %d..%d", node_at(ld, node)->line,
                    what, v, lo, hi);
    *out = (int32_t)v;
    return 0;
}

static int is_int32(double v) { return v == floor(v) && v >= -2147483648.0 && v <= 2147483647.0; }

static int text_is(const xml_node *n, const char *word) {
    const char *p = n->text, *end = n->text + n->text_len;
    size_t len = strlen(word);
    while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) p++;
    while (end > p && (end[-1] == ' ' || end[-1] == '\n' || end[-1] == '\r' || end[-1] == '\t')) end--;
    return (size_t)(end - p) == len && memcmp(p, word, len) == 0;
}

static uint32_t count_children(const loader *ld, int32_t parent) {
    uint32_t n = 0;
    for (int32_t c = node_at(ld, parent)->first_child; c >= 0; c = node_at(ld, c)->next_sibling) n++;
    return n;
}

/* <cascade>'s header: kind of stages and features, window, tree depth. */
static int read_header(loader *ld, int32_t cascade, ccore_cascade *cc) {
    char type_id[64];
    if (ccore_xml_attribute(node_at(ld, cascade), "type_id", type_id, sizeof type_id) == 0 &&
        strcmp(type_id, "opencv-cascade-classifier") != 0)
        return fail(ld, CCORE_E_UNSUPPORTED, "<cascade> has type_id \"%s\", expected opencv-cascade-classifier",
                    type_id);
    int32_t stage_type = ccore_xml_child(&ld->doc, cascade, "stageType");
    if (stage_type < 0) return fail(ld, CCORE_E_CORRUPT, "<cascade> has no <stageType>");
    if (!text_is(node_at(ld, stage_type), "BOOST"))
        return fail(ld, CCORE_E_UNSUPPORTED, "stage type is not BOOST");
    int32_t feature_type = ccore_xml_child(&ld->doc, cascade, "featureType");
    if (feature_type < 0) return fail(ld, CCORE_E_CORRUPT, "<cascade> has no <featureType>");
    if (text_is(node_at(ld, feature_type), "LBP"))
        cc->type = CCORE_CASCADE_LBP;
    else if (text_is(node_at(ld, feature_type), "HAAR"))
        cc->type = CCORE_CASCADE_HAAR;
    else
        return fail(ld, CCORE_E_UNSUPPORTED, "feature type is neither LBP nor HAAR (HOG is not supported)");
    int32_t w, h;
    int rc = integer(ld, ccore_xml_child(&ld->doc, cascade, "width"), "width", 1, MAX_WINDOW, &w);
    if (!rc) rc = integer(ld, ccore_xml_child(&ld->doc, cascade, "height"), "height", 1, MAX_WINDOW, &h);
    if (rc) return rc;
    if (w < 3 || h < 3) return fail(ld, CCORE_E_CORRUPT, "window %dx%d is too small", w, h);
    cc->window_width = (uint32_t)w;
    cc->window_height = (uint32_t)h;
    int32_t depth_node = ccore_xml_child(&ld->doc, ccore_xml_child(&ld->doc, cascade, "stageParams"), "maxDepth");
    int32_t depth = 1;
    if (depth_node >= 0 && (rc = integer(ld, depth_node, "maxDepth", 0, 64, &depth))) return rc;
    if (depth != 1)
        return fail(ld, CCORE_E_UNSUPPORTED, "weak classifiers of depth %d (only stumps are supported)", depth);
    if (cc->type == CCORE_CASCADE_LBP) {
        int32_t cats;
        int32_t node = ccore_xml_child(&ld->doc, ccore_xml_child(&ld->doc, cascade, "featureParams"), "maxCatCount");
        if ((rc = integer(ld, node, "maxCatCount", 0, 1 << 20, &cats))) return rc;
        if (cats != 256) return fail(ld, CCORE_E_UNSUPPORTED, "LBP cascade with %d categories (expected 256)", cats);
    }
    return 0;
}

/* One stump: "left right feature threshold" (Haar) or "left right feature
 * subset[8]" (LBP), with leaves at indices 0 (left) and 1 (right). */
static int read_stump(loader *ld, int32_t weak, const ccore_cascade *cc, cascade_stump *st) {
    uint32_t expected = cc->type == CCORE_CASCADE_LBP ? 11 : 4;
    double v[MAX_NUMBERS];
    uint32_t found;
    int32_t nodes = ccore_xml_child(&ld->doc, weak, "internalNodes");
    int rc = numbers(ld, nodes, "internalNodes", v, 0, &found);
    if (rc) return rc;
    uint32_t line = node_at(ld, nodes)->line;
    if (found > expected && found % expected == 0)
        return fail(ld, CCORE_E_UNSUPPORTED, "line %u: a weak classifier with several splits (only stumps)", line);
    if (found != expected)
        return fail(ld, CCORE_E_CORRUPT, "line %u: <internalNodes> has %u numbers, expected %u", line, found, expected);
    if (v[0] != 0 || v[1] != -1)
        return fail(ld, CCORE_E_UNSUPPORTED, "line %u: a weak classifier that is not a single split", line);
    if (v[2] != floor(v[2]) || v[2] < 0 || v[2] >= 1e7)
        return fail(ld, CCORE_E_CORRUPT, "line %u: bad feature index %g", line, v[2]);
    st->feature = (uint32_t)v[2];
    if (cc->type == CCORE_CASCADE_LBP) {
        for (int i = 0; i < 8; i++) {
            if (!is_int32(v[3 + i]))
                return fail(ld, CCORE_E_CORRUPT, "line %u: LBP subset word %g is not a 32-bit integer", line, v[3 + i]);
            st->subset[i] = (uint32_t)(int32_t)v[3 + i];
        }
    } else {
        st->threshold = (float)v[3];
    }
    double leaves[2];
    if ((rc = numbers(ld, ccore_xml_child(&ld->doc, weak, "leafValues"), "leafValues", leaves, 2, NULL))) return rc;
    st->leaf[0] = (float)leaves[0];
    st->leaf[1] = (float)leaves[1];
    return 0;
}

static int read_stages(loader *ld, int32_t cascade, ccore_cascade *cc) {
    int32_t stages = ccore_xml_child(&ld->doc, cascade, "stages");
    if (stages < 0) return fail(ld, CCORE_E_CORRUPT, "<cascade> has no <stages>");
    int32_t declared;
    int rc = integer(ld, ccore_xml_child(&ld->doc, cascade, "stageNum"), "stageNum", 1, 10000, &declared);
    if (rc) return rc;
    if (count_children(ld, stages) != (uint32_t)declared)
        return fail(ld, CCORE_E_CORRUPT, "<stageNum> says %d stages but <stages> holds %u", declared,
                    count_children(ld, stages));
    uint32_t total = 0;
    for (int32_t s = node_at(ld, stages)->first_child; s >= 0; s = node_at(ld, s)->next_sibling) {
        int32_t weak = ccore_xml_child(&ld->doc, s, "weakClassifiers");
        if (weak < 0)
            return fail(ld, CCORE_E_CORRUPT, "line %u: stage without <weakClassifiers>", node_at(ld, s)->line);
        total += count_children(ld, weak);
    }
    cc->stages = calloc((size_t)declared, sizeof *cc->stages);
    cc->stumps = calloc(total ? total : 1, sizeof *cc->stumps);
    if (!cc->stages || !cc->stumps) return fail(ld, -ENOMEM, "out of memory");
    cc->stage_count = (uint32_t)declared;
    uint32_t si = 0;
    for (int32_t s = node_at(ld, stages)->first_child; s >= 0; s = node_at(ld, s)->next_sibling, si++) {
        cascade_stage *stage = &cc->stages[si];
        int32_t weak = ccore_xml_child(&ld->doc, s, "weakClassifiers");
        int32_t max_weak;
        if ((rc = integer(ld, ccore_xml_child(&ld->doc, s, "maxWeakCount"), "maxWeakCount", 1, 100000, &max_weak))) return rc;
        if (count_children(ld, weak) != (uint32_t)max_weak)
            return fail(ld, CCORE_E_CORRUPT, "line %u: <maxWeakCount> says %d but the stage holds %u",
                        node_at(ld, s)->line, max_weak, count_children(ld, weak));
        double threshold;
        if ((rc = numbers(ld, ccore_xml_child(&ld->doc, s, "stageThreshold"), "stageThreshold", &threshold, 1, NULL)))
            return rc;
        stage->threshold = (float)threshold;
        stage->first_stump = cc->stump_count;
        stage->stump_count = (uint32_t)max_weak;
        for (int32_t w = node_at(ld, weak)->first_child; w >= 0; w = node_at(ld, w)->next_sibling)
            if ((rc = read_stump(ld, w, cc, &cc->stumps[cc->stump_count++]))) return rc;
    }
    return 0;
}

/* Checks that x, y, w, h (at `line`) lie inside the window. */
static int inside_window(loader *ld, const ccore_cascade *cc, uint32_t line, double x, double y, double w, double h) {
    if (!is_int32(x) || !is_int32(y) || !is_int32(w) || !is_int32(h) || x < 0 || y < 0 || w < 1 || h < 1 ||
        x + w > cc->window_width || y + h > cc->window_height)
        return fail(ld, CCORE_E_CORRUPT, "line %u: feature rectangle %g %g %g %g outside the %ux%u window", line, x, y,
                    w, h, cc->window_width, cc->window_height);
    return 0;
}

static int read_lbp_feature(loader *ld, int32_t f, const ccore_cascade *cc, cascade_lbp_feature *out) {
    double v[4];
    int32_t rect = ccore_xml_child(&ld->doc, f, "rect");
    int rc = numbers(ld, rect, "rect", v, 4, NULL);
    if (rc) return rc;
    /* The rectangle is one cell of the 3x3 grid: the grid must fit. */
    if ((rc = inside_window(ld, cc, node_at(ld, rect)->line, v[0], v[1], 3 * v[2], 3 * v[3]))) return rc;
    *out = (cascade_lbp_feature){(int32_t)v[0], (int32_t)v[1], (int32_t)v[2], (int32_t)v[3]};
    return 0;
}

static int read_haar_feature(loader *ld, int32_t f, const ccore_cascade *cc, cascade_haar_feature *out) {
    int32_t tilted = ccore_xml_child(&ld->doc, f, "tilted");
    if (tilted >= 0 && !text_is(node_at(ld, tilted), "0"))
        return fail(ld, CCORE_E_UNSUPPORTED, "line %u: tilted Haar features are not supported",
                    node_at(ld, tilted)->line);
    int32_t rects = ccore_xml_child(&ld->doc, f, "rects");
    if (rects < 0) return fail(ld, CCORE_E_CORRUPT, "line %u: Haar feature without <rects>", node_at(ld, f)->line);
    uint32_t n = count_children(ld, rects);
    if (n < 1 || n > 3)
        return fail(ld, CCORE_E_CORRUPT, "line %u: Haar feature with %u rectangles (1 to 3)",
                    node_at(ld, rects)->line, n);
    out->rect_count = 0;
    for (int32_t r = node_at(ld, rects)->first_child; r >= 0; r = node_at(ld, r)->next_sibling) {
        double v[5];
        int rc = numbers(ld, r, "rects", v, 5, NULL);
        if (!rc) rc = inside_window(ld, cc, node_at(ld, r)->line, v[0], v[1], v[2], v[3]);
        if (rc) return rc;
        out->rects[out->rect_count++] =
            (cascade_haar_rect){(int32_t)v[0], (int32_t)v[1], (int32_t)v[2], (int32_t)v[3], (float)v[4]};
    }
    return 0;
}

static int read_features(loader *ld, int32_t cascade, ccore_cascade *cc) {
    int32_t features = ccore_xml_child(&ld->doc, cascade, "features");
    if (features < 0) return fail(ld, CCORE_E_CORRUPT, "<cascade> has no <features>");
    uint32_t n = count_children(ld, features);
    if (n == 0) return fail(ld, CCORE_E_CORRUPT, "<features> is empty");
    if (cc->type == CCORE_CASCADE_LBP)
        cc->lbp = calloc(n, sizeof *cc->lbp);
    else
        cc->haar = calloc(n, sizeof *cc->haar);
    if (!cc->lbp && !cc->haar) return fail(ld, -ENOMEM, "out of memory");
    uint32_t i = 0;
    for (int32_t f = node_at(ld, features)->first_child; f >= 0; f = node_at(ld, f)->next_sibling, i++) {
        int rc = cc->type == CCORE_CASCADE_LBP ? read_lbp_feature(ld, f, cc, &cc->lbp[i])
                                               : read_haar_feature(ld, f, cc, &cc->haar[i]);
        if (rc) return rc;
    }
    cc->feature_count = n;
    for (uint32_t s = 0; s < cc->stump_count; s++)
        if (cc->stumps[s].feature >= n)
            return fail(ld, CCORE_E_CORRUPT, "a weak classifier uses feature %u of %u", cc->stumps[s].feature, n);
    return 0;
}

static int read_cascade(loader *ld, ccore_cascade *cc) {
    const xml_node *root = node_at(ld, 0);
    if (!ccore_xml_is(root, "opencv_storage"))
        return fail(ld, CCORE_E_CORRUPT, "root element is <%.*s>, expected <opencv_storage>", (int)root->name_len,
                    root->name);
    int32_t cascade = ccore_xml_child(&ld->doc, 0, "cascade");
    if (cascade < 0) {
        char type_id[64];
        int32_t first = root->first_child;
        if (first >= 0 && ccore_xml_attribute(node_at(ld, first), "type_id", type_id, sizeof type_id) == 0 &&
            strcmp(type_id, "opencv-haar-classifier") == 0)
            return fail(ld, CCORE_E_UNSUPPORTED, "pre-2.4 Haar cascade format (convert it or use the <cascade> files)");
        return fail(ld, CCORE_E_CORRUPT, "no <cascade> element under <opencv_storage>");
    }
    int rc = read_header(ld, cascade, cc);
    if (!rc) rc = read_stages(ld, cascade, cc);
    if (!rc) rc = read_features(ld, cascade, cc);
    return rc;
}

/* Whole file into a NUL-terminated buffer. */
static int read_file(loader *ld, const char *path, char **text) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        int err = errno;
        if (err == ENOENT)
            return fail(ld, -ENOENT,
                        "cascade file %s not found: install the opencv-data package (Tools/setup.sh) or pass the "
                        "path of an OpenCV cascade XML file",
                        path);
        return fail(ld, -err, "cannot open cascade file %s: %s", path, strerror(err));
    }
    char *buf = NULL;
    size_t size = 0;
    int rc = 0;
    if (fseek(f, 0, SEEK_END) != 0) {
        rc = fail(ld, -errno, "cannot read %s: %s", path, strerror(errno));
    } else {
        long len = ftell(f);
        if (len < 0 || len > MAX_FILE_BYTES)
            rc = fail(ld, len < 0 ? -EIO : -E2BIG, "cascade file %s is not a readable file under 64 MiB", path);
        else
            size = (size_t)len;
    }
    if (!rc && !(buf = malloc(size + 1))) rc = fail(ld, -ENOMEM, "out of memory");
    if (!rc) {
        rewind(f);
        if (fread(buf, 1, size, f) != size) rc = fail(ld, -EIO, "cannot read %s", path);
        else if (memchr(buf, '\0', size))
            rc = fail(ld, CCORE_E_CORRUPT, "%s holds NUL bytes: not an XML text file", path);
    }
    fclose(f);
    if (rc) {
        free(buf);
        return rc;
    }
    buf[size] = '\0';
    *text = buf;
    return 0;
}

int ccore_cascade_load(const char *path, ccore_cascade **out, char *message, uint32_t message_size) {
    if (message && message_size) message[0] = '\0';
    if (!path || !out) return -EINVAL;
    *out = NULL;
    loader ld = {.message = message, .message_size = message_size};
    char *text = NULL;
    int rc = read_file(&ld, path, &text);
    if (rc) return rc;
    ld.c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
    ccore_cascade *cc = calloc(1, sizeof *cc);
    if (!ld.c_locale || !cc) rc = fail(&ld, -ENOMEM, "out of memory");
    if (!rc) {
        char xml_message[200] = "";
        rc = ccore_xml_parse(text, &ld.doc, xml_message, sizeof xml_message);
        if (rc) fail(&ld, rc, "%s: %s", path, xml_message);
    }
    if (!rc) {
        rc = read_cascade(&ld, cc);
        if (rc && message && message_size) {
            /* Prefix the path so the message stands on its own. */
            char detail[256];
            snprintf(detail, sizeof detail, "%s", message);
            snprintf(message, message_size, "%s: %s", path, detail);
        }
    }
    ccore_xml_free(&ld.doc);
    if (ld.c_locale) freelocale(ld.c_locale);
    free(text);
    if (rc) {
        ccore_cascade_destroy(cc);
        return rc;
    }
    *out = cc;
    return 0;
}

void ccore_cascade_destroy(ccore_cascade *cascade) {
    if (!cascade) return;
    free(cascade->stages);
    free(cascade->stumps);
    free(cascade->lbp);
    free(cascade->haar);
    free(cascade);
}

ccore_cascade_features ccore_cascade_feature_type(const ccore_cascade *c) { return c ? c->type : 0; }
uint32_t ccore_cascade_window_width(const ccore_cascade *c) { return c ? c->window_width : 0; }
uint32_t ccore_cascade_window_height(const ccore_cascade *c) { return c ? c->window_height : 0; }
uint32_t ccore_cascade_stage_count(const ccore_cascade *c) { return c ? c->stage_count : 0; }
