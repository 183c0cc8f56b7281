/* Print layer implementation: text goes straight to the stream, JSON is
 * built as a jansson tree and written whole by emit_finish(). */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"

#define EMIT_DEPTH 16

struct emit {
	enum rck_format fmt;
	FILE *out;
	json_t *root;
	json_t *stack[EMIT_DEPTH];
	int depth;
	int err;
};

int emit_new(enum rck_format fmt, FILE *out, struct emit **emitp)
{
	struct emit *e;

	if (fmt != RCK_FORMAT_TEXT && fmt != RCK_FORMAT_JSON && fmt != RCK_FORMAT_JSON_PRETTY)
		return -EINVAL;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->fmt = fmt;
	e->out = out;
	e->depth = -1;
	*emitp = e;
	return 0;
}

bool emit_is_json(const struct emit *e)
{
	return e->fmt != RCK_FORMAT_TEXT;
}

void emit_free(struct emit *e)
{
	if (!e)
		return;
	json_decref(e->root);
	free(e);
}

/* Attach @v to the current container (or make it the root); steals @v. */
static void attach(struct emit *e, const char *key, json_t *v)
{
	json_t *top;
	int rc;

	if (!v) {
		e->err = -ENOMEM;
		return;
	}
	if (e->depth < 0) {
		if (e->root) {
			json_decref(v);
			e->err = -EINVAL;
			return;
		}
		e->root = v;
		return;
	}
	top = e->stack[e->depth];
	if (json_is_array(top))
		rc = json_array_append_new(top, v);
	else
		rc = json_object_set_new(top, key ? key : "", v);
	if (rc)
		e->err = -ENOMEM;
}

static void push(struct emit *e, const char *key, json_t *c)
{
	if (!emit_is_json(e))
		return;
	if (e->depth + 1 >= EMIT_DEPTH) {
		json_decref(c);
		e->err = -E2BIG;
		return;
	}
	if (!c) {
		e->err = -ENOMEM;
		return;
	}
	json_incref(c);
	attach(e, key, c);
	e->stack[++e->depth] = c;
	json_decref(c);
}

static void pop(struct emit *e)
{
	if (emit_is_json(e) && e->depth >= 0)
		e->depth--;
}

void emit_obj_open(struct emit *e, const char *key)
{
	if (emit_is_json(e))
		push(e, key, json_object());
}

void emit_arr_open(struct emit *e, const char *key)
{
	if (emit_is_json(e))
		push(e, key, json_array());
}

void emit_obj_close(struct emit *e)
{
	pop(e);
}

void emit_arr_close(struct emit *e)
{
	pop(e);
}

/* Names and values come from sysfs trees and snapshots of other hosts: in
 * text, every byte outside printable ASCII is written as \xNN so no escape
 * sequence reaches a terminal. A new string the caller frees, or NULL. */
static char *escape(const char *s)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = 0;
	char *out, *o;

	for (const char *p = s; *p; p++)
		n += (unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f ? 4 : 1;
	out = malloc(n + 1);
	if (!out)
		return NULL;
	o = out;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p < 0x20 || *p >= 0x7f) {
			*o++ = '\\';
			*o++ = 'x';
			*o++ = hex[*p >> 4];
			*o++ = hex[*p & 15];
		} else {
			*o++ = (char)*p;
		}
	}
	*o = '\0';
	return out;
}

/* Printable ASCII: what needs no escaping (the common case, checked with
 * one strspn() before anything is copied). */
static const char printable[] =
	" !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`"
	"abcdefghijklmnopqrstuvwxyz{|}~";

static bool is_clean(const char *s)
{
	return !s[strspn(s, printable)];
}

static void text(struct emit *e, const char *tfmt, const char *val)
{
	char *safe;

	if (!tfmt || emit_is_json(e))
		return;
	if (!val)
		val = "n/a";
	safe = is_clean(val) ? (char *)val : escape(val);
	if (!safe) {
		e->err = -ENOMEM;
		return;
	}
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	fprintf(e->out, tfmt, safe);
#pragma GCC diagnostic pop
	if (safe != val)
		free(safe);
}

void emit_label(struct emit *e, const char *indent, const char *label, int width)
{
	char *safe;
	int n;

	if (emit_is_json(e))
		return;
	safe = is_clean(label) ? (char *)label : escape(label);
	if (!safe) {
		e->err = -ENOMEM;
		return;
	}
	n = (int)strlen(safe);
	/* Padded to @width, and at least one space before the value. */
	fprintf(e->out, "%s%s%*s", indent, safe, n < width ? width - n : 1, "");
	if (safe != label)
		free(safe);
}

/* jansson refuses strings that are not UTF-8 (a device name in a recorded
 * tree can be any bytes): such a string goes out with '?' for every byte
 * past ASCII rather than failing the whole document. */
static json_t *json_str(const char *val)
{
	json_t *j;
	char *copy;

	if (!val)
		return json_null();
	j = json_string(val);
	if (j || !(copy = strdup(val)))
		return j;
	for (char *p = copy; *p; p++)
		if ((unsigned char)*p >= 0x80)
			*p = '?';
	j = json_string(copy);
	free(copy);
	return j;
}

void emit_str(struct emit *e, const char *key, const char *tfmt, const char *val)
{
	if (emit_is_json(e))
		attach(e, key, json_str(val));
	else
		text(e, tfmt, val);
}

void emit_u64(struct emit *e, const char *key, const char *tfmt, uint64_t val)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRIu64, val);
	if (emit_is_json(e)) {
		/* jansson integers are signed 64-bit: from 2^63 up the value
		 * goes out exact as a decimal string (the protobuf JSON
		 * convention), never as a rounded real. */
		attach(e, key, val > INT64_MAX ? json_string(buf) : json_integer((json_int_t)val));
		return;
	}
	text(e, tfmt, buf);
}

void emit_i64(struct emit *e, const char *key, const char *tfmt, int64_t val)
{
	char buf[32];

	if (emit_is_json(e)) {
		attach(e, key, json_integer(val));
		return;
	}
	snprintf(buf, sizeof(buf), "%" PRId64, val);
	text(e, tfmt, buf);
}

void emit_double(struct emit *e, const char *key, const char *tfmt, int prec, double val)
{
	char buf[64];

	/* JSON has no inf or nan (json_real() refuses them): null, "n/a". */
	if (!isfinite(val)) {
		emit_null(e, key, tfmt);
		return;
	}
	if (emit_is_json(e)) {
		attach(e, key, json_real(val));
		return;
	}
	snprintf(buf, sizeof(buf), "%.*f", prec, val);
	text(e, tfmt, buf);
}

void emit_bool(struct emit *e, const char *key, const char *tfmt, bool val)
{
	if (emit_is_json(e))
		attach(e, key, json_boolean(val));
	else
		text(e, tfmt, val ? "yes" : "no");
}

void emit_null(struct emit *e, const char *key, const char *tfmt)
{
	emit_str(e, key, tfmt, NULL);
}

void emit_json(struct emit *e, const char *key, json_t *val)
{
	if (emit_is_json(e))
		attach(e, key, val);
	else
		json_decref(val);
}

void emit_text(struct emit *e, const char *fmt, ...)
{
	va_list ap;

	if (emit_is_json(e))
		return;
	va_start(ap, fmt);
	vfprintf(e->out, fmt, ap);
	va_end(ap);
}

int emit_finish(struct emit *e)
{
	size_t flags = JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12);

	if (e->err)
		return e->err;
	if (emit_is_json(e)) {
		flags |= e->fmt == RCK_FORMAT_JSON_PRETTY ? JSON_INDENT(2) : JSON_COMPACT;
		if (!e->root)
			return -EINVAL;
		if (json_dumpf(e->root, e->out, flags) || fputc('\n', e->out) == EOF)
			return -EIO;
	}
	return fflush(e->out) ? -errno : 0;
}
