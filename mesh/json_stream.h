/* A pull reader of one large JSON document: the loader walks the outer
 * object and its arrays itself, and jansson parses each element alone. */
#ifndef RCK_MESH_JSON_STREAM_H
#define RCK_MESH_JSON_STREAM_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Not thread-safe; one per document. Memory: a read buffer and the
 * largest element read, never the document. */
struct jstream {
	FILE *f;           /* NULL: reading @buf */
	const char *buf;   /* the document, or the read buffer */
	size_t len, pos;   /* bytes in @buf, next one */
	char *rbuf;        /* the read buffer (files) */
	char *span;        /* the element being read */
	size_t span_len, span_cap;
	int line;          /* line of the next byte, from 1 */
	int err;           /* a read error (-errno), sticky */
};

void jstream_init_buf(struct jstream *s, const char *buf, size_t len);
int jstream_init_file(struct jstream *s, FILE *f);
void jstream_clear(struct jstream *s);

/* Skip whitespace; the next byte, or -1 at the end (or on a read error:
 * see s->err). */
int jstream_peek(struct jstream *s);
/* Skip whitespace and take @c when it comes next. */
bool jstream_eat(struct jstream *s, char c);
/*
 * The next JSON value (after whitespace), at most @max bytes, parsed by
 * jansson with JSON_REJECT_DUPLICATES. 0 and *@out (caller's reference);
 * -EINVAL with @err's text and line (counted in the whole document) for
 * bad JSON; -E2BIG over @max; -ENOMEM; s->err after a read error.
 */
int jstream_value(struct jstream *s, size_t max, json_t **out, json_error_t *err);

#endif
