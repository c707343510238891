/* Strict element-tree reader for OpenCV cascade XML (see xml_reader.h).
 *
 * Iterative with an explicit stack (no recursion on attacker-shaped depth),
 * and every error names a line, so a damaged cascade file says where. */
#include "xml_reader.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ccore/error.h"

enum { MAX_DEPTH = 64 };

typedef struct {
    const char *start, *p;
    const char *line_p; /* position up to which newlines have been counted */
    uint32_t line;
    xml_document *doc;
    uint32_t capacity;
    char *message;
    uint32_t message_size;
} parser;

/* Line number of `at`, counted incrementally (positions only move forward). */
static uint32_t line_of(parser *ps, const char *at) {
    for (; ps->line_p < at; ps->line_p++)
        if (*ps->line_p == '\n') ps->line++;
    return ps->line;
}

static int fail(parser *ps, const char *at, const char *fmt, ...) {
    if (ps->message && ps->message_size) {
        int n = snprintf(ps->message, ps->message_size, "line %u: ", line_of(ps, at));
        if (n >= 0 && (uint32_t)n < ps->message_size) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(ps->message + n, ps->message_size - (uint32_t)n, fmt, ap);
            va_end(ap);
        }
    }
    return CCORE_E_CORRUPT;
}

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
static int is_name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':'; }
static int is_name_char(char c) { return is_name_start(c) || (c >= '0' && c <= '9') || c == '-' || c == '.'; }

static void skip_space(parser *ps) {
    while (is_space(*ps->p)) ps->p++;
}

/* The first `text` at or after p, or NULL. Stops at the match: strstr may measure the
 * whole rest of the document first (ASan's does), which made many comments quadratic. */
static const char *find_text(const char *p, const char *text) {
    size_t n = strlen(text);
    for (; *p; p++)
        if (*p == text[0] && strncmp(p, text, n) == 0) return p;
    return NULL;
}

/* Skips "<!-- ... -->" at ps->p. */
static int skip_comment(parser *ps) {
    const char *at = ps->p;
    const char *end = find_text(ps->p + 4, "-->");
    if (!end) return fail(ps, at, "comment never closed (file truncated?)");
    ps->p = end + 3;
    return 0;
}

/* Whitespace, comments and (before the root only) the <?xml ...?> prolog. */
static int skip_misc(parser *ps, int allow_prolog) {
    for (;;) {
        skip_space(ps);
        if (strncmp(ps->p, "<!--", 4) == 0) {
            int rc = skip_comment(ps);
            if (rc) return rc;
        } else if (allow_prolog && strncmp(ps->p, "<?xml", 5) == 0) {
            const char *end = find_text(ps->p, "?>");
            if (!end) return fail(ps, ps->p, "XML declaration never closed");
            ps->p = end + 2;
        } else {
            return 0;
        }
    }
}

static int add_node(parser *ps, int32_t *index) {
    xml_document *doc = ps->doc;
    if (doc->count == ps->capacity) {
        uint32_t cap = ps->capacity ? ps->capacity * 2 : 1024;
        xml_node *grown = realloc(doc->nodes, cap * sizeof *grown);
        if (!grown) return -ENOMEM;
        doc->nodes = grown;
        ps->capacity = cap;
    }
    *index = (int32_t)doc->count++;
    xml_node *n = &doc->nodes[*index];
    memset(n, 0, sizeof *n);
    n->first_child = n->next_sibling = -1;
    return 0;
}

/* Attributes: (space name space? '=' space? quoted-value)*. Checked, kept raw. */
static int scan_attributes(parser *ps) {
    for (;;) {
        const char *before = ps->p;
        skip_space(ps);
        if (*ps->p == '>' || (ps->p[0] == '/' && ps->p[1] == '>')) return 0;
        if (*ps->p == '\0') return fail(ps, ps->p, "file ends inside a tag (truncated?)");
        if (ps->p == before || !is_name_start(*ps->p)) return fail(ps, ps->p, "malformed attribute in tag");
        while (is_name_char(*ps->p)) ps->p++;
        skip_space(ps);
        if (*ps->p != '=') return fail(ps, ps->p, "attribute without '=' in tag");
        ps->p++;
        skip_space(ps);
        char quote = *ps->p;
        if (quote != '"' && quote != '\'') return fail(ps, ps->p, "attribute value not quoted");
        const char *end = strchr(ps->p + 1, quote);
        if (!end) return fail(ps, ps->p, "attribute value never closed (file truncated?)");
        if (memchr(ps->p + 1, '<', (size_t)(end - ps->p - 1))) return fail(ps, ps->p, "'<' inside attribute value");
        ps->p = end + 1;
    }
}

/* Parses "<name attrs>" or "<name attrs/>" at ps->p into a new node. */
static int start_tag(parser *ps, int32_t *index, int *self_closing) {
    const char *at = ps->p;
    ps->p++; /* '<' */
    if (!is_name_start(*ps->p)) return fail(ps, at, "expected an element name after '<'");
    const char *name = ps->p;
    while (is_name_char(*ps->p)) ps->p++;
    const char *attrs = ps->p;
    int rc = scan_attributes(ps);
    if (rc) return rc;
    rc = add_node(ps, index);
    if (rc) return rc;
    xml_node *n = &ps->doc->nodes[*index];
    n->name = name;
    n->name_len = (uint32_t)(attrs - name);
    n->attrs = attrs;
    n->attrs_len = (uint32_t)(ps->p - attrs);
    n->line = line_of(ps, at);
    *self_closing = *ps->p == '/';
    ps->p += *self_closing ? 2 : 1;
    return 0;
}

typedef struct {
    int32_t node;
    int32_t last_child;
    const char *content; /* where the element's content starts */
} open_element;

static int only_space(const char *from, const char *to) {
    for (; from < to; from++)
        if (!is_space(*from)) return 0;
    return 1;
}

/* Reads the content of every open element until the root closes. */
static int parse_elements(parser *ps, open_element *stack) {
    int depth = 1;
    while (depth > 0) {
        open_element *top = &stack[depth - 1];
        const char *text = ps->p;
        ps->p += strcspn(ps->p, "<&");
        if (*ps->p == '&') return fail(ps, ps->p, "character entities are not supported here");
        if (*ps->p == '\0') {
            xml_node *n = &ps->doc->nodes[top->node];
            return fail(ps, ps->p, "file ends inside <%.*s> opened at line %u (truncated?)", (int)n->name_len, n->name,
                        n->line);
        }
        if (top->last_child >= 0 && !only_space(text, ps->p))
            return fail(ps, text, "text mixed with child elements");
        if (strncmp(ps->p, "<!--", 4) == 0) {
            int rc = skip_comment(ps);
            if (rc) return rc;
            continue;
        }
        if (ps->p[1] == '!' || ps->p[1] == '?')
            return fail(ps, ps->p, "CDATA, DOCTYPE and processing instructions are not supported here");
        if (ps->p[1] == '/') {
            xml_node *n = &ps->doc->nodes[top->node];
            const char *name = ps->p + 2;
            if (strncmp(name, n->name, n->name_len) != 0 || is_name_char(name[n->name_len]))
                return fail(ps, ps->p, "closing tag does not match <%.*s> opened at line %u", (int)n->name_len,
                            n->name, n->line);
            if (top->last_child < 0) {
                n->text = top->content;
                n->text_len = (uint32_t)(ps->p - top->content);
            }
            ps->p = name + n->name_len;
            skip_space(ps);
            if (*ps->p != '>') return fail(ps, ps->p, "expected '>' to end the closing tag");
            ps->p++;
            depth--;
            continue;
        }
        int32_t child;
        int self_closing;
        int rc = start_tag(ps, &child, &self_closing);
        if (rc) return rc;
        /* Re-read the parent: add_node may have moved the array. */
        xml_node *nodes = ps->doc->nodes;
        if (top->last_child < 0)
            nodes[top->node].first_child = child;
        else
            nodes[top->last_child].next_sibling = child;
        top->last_child = child;
        if (self_closing) continue;
        if (depth == MAX_DEPTH) return fail(ps, ps->p, "elements nested deeper than %d", MAX_DEPTH);
        stack[depth++] = (open_element){child, -1, ps->p};
    }
    return 0;
}

int ccore_xml_parse(const char *text, xml_document *doc, char *message, uint32_t message_size) {
    if (!text || !doc) return -EINVAL;
    memset(doc, 0, sizeof *doc);
    parser ps = {.start = text, .p = text, .line_p = text, .line = 1, .doc = doc, .message = message,
                 .message_size = message_size};
    int rc = skip_misc(&ps, 1);
    if (rc == 0 && *ps.p != '<') rc = fail(&ps, ps.p, *ps.p ? "expected the root element" : "file is empty");
    if (rc == 0 && (ps.p[1] == '!' || ps.p[1] == '?'))
        rc = fail(&ps, ps.p, "DOCTYPE and processing instructions are not supported");
    int32_t root = -1;
    int self_closing = 0;
    if (rc == 0) rc = start_tag(&ps, &root, &self_closing);
    if (rc == 0 && !self_closing) {
        open_element stack[MAX_DEPTH];
        stack[0] = (open_element){root, -1, ps.p};
        rc = parse_elements(&ps, stack);
    }
    if (rc == 0) rc = skip_misc(&ps, 0);
    if (rc == 0 && *ps.p != '\0') rc = fail(&ps, ps.p, "content after the root element");
    if (rc != 0) {
        if (rc == -ENOMEM && message && message_size) snprintf(message, message_size, "out of memory reading XML");
        ccore_xml_free(doc);
    }
    return rc;
}

void ccore_xml_free(xml_document *doc) {
    if (!doc) return;
    free(doc->nodes);
    doc->nodes = NULL;
    doc->count = 0;
}

int ccore_xml_is(const xml_node *node, const char *name) {
    size_t len = strlen(name);
    return node->name_len == len && memcmp(node->name, name, len) == 0;
}

int32_t ccore_xml_child(const xml_document *doc, int32_t parent, const char *name) {
    if (parent < 0) return -1;
    for (int32_t c = doc->nodes[parent].first_child; c >= 0; c = doc->nodes[c].next_sibling)
        if (ccore_xml_is(&doc->nodes[c], name)) return c;
    return -1;
}

int ccore_xml_attribute(const xml_node *node, const char *name, char *value, size_t value_size) {
    /* The span was validated by scan_attributes: name = "value" pairs only. */
    const char *p = node->attrs, *end = node->attrs + node->attrs_len;
    size_t len = strlen(name);
    while (p < end) {
        while (p < end && is_space(*p)) p++;
        const char *an = p;
        while (p < end && is_name_char(*p)) p++;
        size_t an_len = (size_t)(p - an);
        while (p < end && (is_space(*p) || *p == '=')) p++;
        if (p >= end) break;
        char quote = *p++;
        const char *v = p;
        while (p < end && *p != quote) p++;
        if (an_len == len && memcmp(an, name, len) == 0) {
            size_t vlen = (size_t)(p - v);
            if (value_size == 0) return 0;
            if (vlen >= value_size) vlen = value_size - 1;
            memcpy(value, v, vlen);
            value[vlen] = '\0';
            return 0;
        }
        p++;
    }
    return -1;
}
