/* A small, strict XML reader: just enough for OpenCV's cascade files.
 *
 * It builds a read-only element tree over a NUL-terminated buffer (no copies
 * of the text): elements, attributes and text, with comments, the <?xml?>
 * prolog and a DOCTYPE-free document. Entities, CDATA and processing
 * instructions inside the document are rejected as unsupported, so a file
 * that uses them fails loudly instead of being half-read. Internal to CCore. */
#ifndef CCORE_XML_READER_H
#define CCORE_XML_READER_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    const char *name;
    uint32_t name_len;
    const char *attrs; /* raw attribute span between the name and '>' */
    uint32_t attrs_len;
    const char *text; /* character data of an element without children */
    uint32_t text_len;
    int32_t first_child; /* index into the node array, -1 if none */
    int32_t next_sibling;
    uint32_t line; /* where the start tag is, for messages */
} xml_node;

typedef struct {
    xml_node *nodes; /* nodes[0] is the document's root element */
    uint32_t count;
} xml_document;

/** Parses `text` (NUL-terminated, kept alive by the caller while the tree is
 *  used). Returns 0, -ENOMEM, or CCORE_E_CORRUPT with "line N: what" in
 *  `message`. */
int ccore_xml_parse(const char *text, xml_document *doc, char *message, uint32_t message_size);
void ccore_xml_free(xml_document *doc);

/** First child of `parent` named `name`, -1 if none. */
int32_t ccore_xml_child(const xml_document *doc, int32_t parent, const char *name);

/** Whether the node's name is `name`. */
int ccore_xml_is(const xml_node *node, const char *name);

/** Copies the value of attribute `name` into `value` (NUL-terminated);
 *  returns 0, or -1 if the element has no such attribute. */
int ccore_xml_attribute(const xml_node *node, const char *name, char *value, size_t value_size);

#endif
