/* A pull reader of one large JSON document (json_stream.h): finds where
 * each value ends, then hands its bytes to jansson to parse strictly. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "json_stream.h"

#define READ_CHUNK 65536
/* Deeper than any sweep element; jansson's own limit is 2048. */
#define NEST_MAX 256

void jstream_init_buf(struct jstream *s, const char *buf, size_t len)
{
	memset(s, 0, sizeof(*s));
	s->buf = buf ? buf : "";
	s->len = len;
	s->line = 1;
}

int jstream_init_file(struct jstream *s, FILE *f)
{
	memset(s, 0, sizeof(*s));
	s->rbuf = malloc(READ_CHUNK);
	if (!s->rbuf)
		return -ENOMEM;
	s->f = f;
	s->buf = s->rbuf;
	s->line = 1;
	return 0;
}

void jstream_clear(struct jstream *s)
{
	free(s->rbuf);
	free(s->span);
	s->rbuf = s->span = NULL;
}

/* The next byte without taking it, -1 at the end or on a read error. */
static int look(struct jstream *s)
{
	if (s->pos == s->len) {
		size_t n;

		if (!s->f || s->err)
			return -1;
		n = fread(s->rbuf, 1, READ_CHUNK, s->f);
		if (!n) {
			if (ferror(s->f))
				s->err = -EIO;
			return -1;
		}
		s->len = n;
		s->pos = 0;
	}
	return (unsigned char)s->buf[s->pos];
}

static void take(struct jstream *s)
{
	if (s->buf[s->pos++] == '\n')
		s->line++;
}

int jstream_peek(struct jstream *s)
{
	int c;

	while ((c = look(s)) == ' ' || c == '\t' || c == '\n' || c == '\r')
		take(s);
	return c;
}

bool jstream_eat(struct jstream *s, char c)
{
	if (jstream_peek(s) != (unsigned char)c)
		return false;
	take(s);
	return true;
}

static int keep(struct jstream *s, int c, size_t max)
{
	if (s->span_len == s->span_cap) {
		size_t cap = s->span_cap ? s->span_cap * 2 : 4096;
		char *n;

		if (s->span_len >= max)
			return -E2BIG;
		n = realloc(s->span, cap);
		if (!n)
			return -ENOMEM;
		s->span = n;
		s->span_cap = cap;
	}
	if (s->span_len >= max)
		return -E2BIG;
	s->span[s->span_len++] = (char)c;
	take(s);
	return 0;
}

static int end_error(struct jstream *s, json_error_t *err)
{
	if (s->err)
		return s->err;
	snprintf(err->text, sizeof(err->text), "'[' or '{' or a value expected near end of file");
	err->line = s->line;
	return -EINVAL;
}

/* The bytes of the next value: a string to its closing quote, an object
 * or array to its matching bracket (jansson checks which), anything else
 * to the next delimiter. */
static int scan(struct jstream *s, size_t max, json_error_t *err)
{
	int c = jstream_peek(s), depth = 0, rc;
	bool in_str = false, esc = false;

	s->span_len = 0;
	if (c < 0)
		return end_error(s, err);
	if (c != '"' && c != '{' && c != '[') {
		while ((c = look(s)) >= 0 && !strchr(" \t\r\n,:]}", c)) {
			rc = keep(s, c, max < 512 ? max : 512);
			if (rc == -E2BIG) {
				snprintf(err->text, sizeof(err->text), "a number or literal over 512 bytes");
				err->line = s->line;
				return -EINVAL;
			}
			if (rc)
				return rc;
		}
		return s->err;
	}
	do {
		c = look(s);
		if (c < 0)
			return end_error(s, err);
		if ((rc = keep(s, c, max)))
			return rc;
		if (in_str) {
			if (esc)
				esc = false;
			else if (c == '\\')
				esc = true;
			else if (c == '"')
				in_str = false;
		} else if (c == '"') {
			in_str = true;
		} else if (c == '{' || c == '[') {
			if (++depth > NEST_MAX) {
				snprintf(err->text, sizeof(err->text), "nested too deep");
				err->line = s->line;
				return -EINVAL;
			}
		} else if (c == '}' || c == ']') {
			depth--;
		}
		/* A string alone ends at its closing quote. */
	} while (depth > 0 || in_str);
	return 0;
}

int jstream_value(struct jstream *s, size_t max, json_t **out, json_error_t *err)
{
	int line, rc;

	*out = NULL;
	jstream_peek(s);
	line = s->line;
	rc = scan(s, max, err);
	if (rc)
		return rc;
	*out = json_loadb(s->span ? s->span : "", s->span_len, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, err);
	if (!*out) {
		err->line += line - 1;
		return -EINVAL;
	}
	return 0;
}
