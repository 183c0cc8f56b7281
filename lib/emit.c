/* Print layer implementation: text goes straight to the stream, JSON is
 * built as a jansson tree and written whole by emit_finish(). */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdlib.h>

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

static void text(struct emit *e, const char *tfmt, const char *val)
{
	if (!tfmt || emit_is_json(e))
		return;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	fprintf(e->out, tfmt, val ? val : "n/a");
#pragma GCC diagnostic pop
}

void emit_str(struct emit *e, const char *key, const char *tfmt, const char *val)
{
	if (emit_is_json(e))
		attach(e, key, val ? json_string(val) : json_null());
	else
		text(e, tfmt, val);
}

void emit_u64(struct emit *e, const char *key, const char *tfmt, uint64_t val)
{
	char buf[32];

	if (emit_is_json(e)) {
		/* jansson integers are signed 64-bit; the top half of the range
		 * would wrap, so it goes out as a real (exact up to 2^53). */
		attach(e, key, val > INT64_MAX ? json_real((double)val) : json_integer((json_int_t)val));
		return;
	}
	snprintf(buf, sizeof(buf), "%" PRIu64, val);
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
