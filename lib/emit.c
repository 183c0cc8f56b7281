/* Print layer implementation: text and JSON both go straight to the
 * stream as they are emitted; nothing holds the document. */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"

#define EMIT_DEPTH 16

/* One open JSON container: an array or an object, and whether it holds a
 * member yet (the separator and the indent of the next one depend on it). */
struct frame {
	bool arr, any;
};

struct emit {
	enum rck_format fmt;
	FILE *out;
	struct frame stack[EMIT_DEPTH];
	int depth;   /* -1: no container open */
	int base;    /* indent level of the root (a document inside another) */
	bool nested; /* no newline after the root */
	bool started, done;
	int err;
};

int emit_new_nested(enum rck_format fmt, FILE *out, int base, struct emit **emitp)
{
	struct emit *e;

	if (fmt != RCK_FORMAT_TEXT && fmt != RCK_FORMAT_JSON && fmt != RCK_FORMAT_JSON_PRETTY)
		return -EINVAL;
	if (base < 0 || base > 64)
		return -EINVAL;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->fmt = fmt;
	e->out = out;
	e->depth = -1;
	e->base = base;
	e->nested = base > 0;
	*emitp = e;
	return 0;
}

int emit_new(enum rck_format fmt, FILE *out, struct emit **emitp)
{
	return emit_new_nested(fmt, out, 0, emitp);
}

bool emit_is_json(const struct emit *e)
{
	return e->fmt != RCK_FORMAT_TEXT;
}

void emit_free(struct emit *e)
{
	free(e);
}

/* JSON is written as it is emitted, byte for byte what jansson's
 * json_dumpf() writes for the same tree with JSON_PRESERVE_ORDER,
 * JSON_REAL_PRECISION(12) and JSON_COMPACT or JSON_INDENT(2), so memory
 * stays that of the deepest open container, whatever the document's size. */
static void put(struct emit *e, const char *s, size_t n)
{
	if (n && fwrite_unlocked(s, 1, n, e->out) != n && !e->err)
		e->err = -EIO;
}

static void indent(struct emit *e, int level)
{
	static const char spaces[] = "                                ";

	if (e->fmt != RCK_FORMAT_JSON_PRETTY)
		return;
	put(e, "\n", 1);
	for (size_t n = (size_t)level * 2; n;) {
		size_t k = n < sizeof(spaces) - 1 ? n : sizeof(spaces) - 1;

		put(e, spaces, k);
		n -= k;
	}
}

/* Length of the UTF-8 sequence at @s (as jansson accepts it: no overlong
 * forms, no surrogates, nothing past U+10FFFF), 0 when it is not one. */
static size_t utf8_len(const unsigned char *s)
{
	size_t n;
	uint32_t v;

	if (s[0] < 0x80)
		return 1;
	if (s[0] < 0xc2 || s[0] > 0xf4)
		return 0;
	n = s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : 4;
	v = s[0] & (0x7f >> n);
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		v = v << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && v < 0x800) || (n == 4 && v < 0x10000) || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return 0;
	return n;
}

static bool is_utf8(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		size_t n = utf8_len(p);

		if (!n)
			return false;
		p += n;
	}
	return true;
}

/* A JSON string: a value that is not UTF-8 has '?' for its bytes past
 * ASCII (a device name in a recorded tree can be any bytes). */
static void put_string(struct emit *e, const char *s)
{
	bool ok = is_utf8(s);
	const char *run = s;

	put(e, "\"", 1);
	for (const char *p = s;; p++) {
		unsigned char c = (unsigned char)*p;
		char seq[8];
		const char *esc = NULL;

		if (c && c >= 0x20 && c != '"' && c != '\\' && (ok || c < 0x80))
			continue;
		put(e, run, (size_t)(p - run));
		run = p + 1;
		if (!c)
			break;
		switch (c) {
		case '"': esc = "\\\""; break;
		case '\\': esc = "\\\\"; break;
		case '\b': esc = "\\b"; break;
		case '\f': esc = "\\f"; break;
		case '\n': esc = "\\n"; break;
		case '\r': esc = "\\r"; break;
		case '\t': esc = "\\t"; break;
		default:
			if (c >= 0x80) {
				esc = "?";
			} else {
				snprintf(seq, sizeof(seq), "\\u%04X", c);
				esc = seq;
			}
		}
		put(e, esc, strlen(esc));
	}
	put(e, "\"", 1);
}

/* Where a new value goes: a separator and an indent after the previous
 * member, then the key inside an object. */
static bool member(struct emit *e, const char *key)
{
	struct frame *f;

	if (e->err)
		return false;
	if (e->depth < 0) {
		if (e->started)
			e->err = -EINVAL; /* a second root */
		e->started = true;
		return !e->err;
	}
	f = &e->stack[e->depth];
	if (f->any)
		put(e, ",", 1);
	f->any = true;
	indent(e, e->base + e->depth + 1);
	if (!f->arr) {
		put_string(e, key ? key : "");
		put(e, e->fmt == RCK_FORMAT_JSON_PRETTY ? ": " : ":", e->fmt == RCK_FORMAT_JSON_PRETTY ? 2 : 1);
	}
	return true;
}

/* A scalar as the whole document is no JSON text jansson would write. */
static void scalar(struct emit *e, const char *key, const char *s, size_t n)
{
	if (e->depth < 0 && !e->err)
		e->err = -EINVAL;
	if (member(e, key))
		put(e, s, n);
}

static void push(struct emit *e, const char *key, bool arr)
{
	if (!emit_is_json(e))
		return;
	if (e->depth + 1 >= EMIT_DEPTH) {
		if (!e->err)
			e->err = -E2BIG;
		return;
	}
	if (!member(e, key))
		return;
	put(e, arr ? "[" : "{", 1);
	e->stack[++e->depth] = (struct frame){.arr = arr};
}

static void pop(struct emit *e)
{
	struct frame *f;

	if (!emit_is_json(e) || e->depth < 0 || e->err)
		return;
	f = &e->stack[e->depth];
	if (f->any)
		indent(e, e->base + e->depth);
	put(e, f->arr ? "]" : "}", 1);
	if (--e->depth < 0)
		e->done = true;
}

void emit_obj_open(struct emit *e, const char *key)
{
	push(e, key, false);
}

void emit_arr_open(struct emit *e, const char *key)
{
	push(e, key, true);
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

void emit_str(struct emit *e, const char *key, const char *tfmt, const char *val)
{
	if (!emit_is_json(e)) {
		text(e, tfmt, val);
		return;
	}
	if (!val) {
		scalar(e, key, "null", 4);
		return;
	}
	if (e->depth < 0 && !e->err)
		e->err = -EINVAL;
	if (member(e, key))
		put_string(e, val);
}

void emit_u64(struct emit *e, const char *key, const char *tfmt, uint64_t val)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRIu64, val);
	if (emit_is_json(e)) {
		/* JSON readers (jansson among them) hold signed 64-bit
		 * integers: from 2^63 up the value goes out exact as a
		 * decimal string (the protobuf JSON convention), never as a
		 * rounded real. */
		if (val > INT64_MAX)
			emit_str(e, key, NULL, buf);
		else
			scalar(e, key, buf, strlen(buf));
		return;
	}
	text(e, tfmt, buf);
}

void emit_i64(struct emit *e, const char *key, const char *tfmt, int64_t val)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRId64, val);
	if (emit_is_json(e))
		scalar(e, key, buf, strlen(buf));
	else
		text(e, tfmt, buf);
}

/* A real as jansson writes one: "%.12g", with ".0" when that reads as an
 * integer, the exponent without '+' and leading zeros. */
static size_t real_text(char *buf, size_t len, double v)
{
	char *p, *from;
	size_t n;

	snprintf(buf, len, "%.12g", v);
	for (p = buf; *p; p++)
		if (*p == ',')
			*p = '.'; /* a locale's decimal comma */
	n = strlen(buf);
	if (!strchr(buf, '.') && !strchr(buf, 'e') && n + 3 <= len) {
		memcpy(buf + n, ".0", 3);
		n += 2;
	}
	p = strchr(buf, 'e');
	if (p) {
		p++;
		if (*p == '-')
			p++;
		from = *p == '+' ? p + 1 : p;
		while (*from == '0' && from[1])
			from++;
		memmove(p, from, strlen(from) + 1);
		n = strlen(buf);
	}
	return n;
}

void emit_double(struct emit *e, const char *key, const char *tfmt, int prec, double val)
{
	char buf[64];

	/* JSON has no inf or nan: null, "n/a". */
	if (!isfinite(val)) {
		emit_null(e, key, tfmt);
		return;
	}
	if (emit_is_json(e)) {
		scalar(e, key, buf, real_text(buf, sizeof(buf), val));
		return;
	}
	snprintf(buf, sizeof(buf), "%.*f", prec, val);
	text(e, tfmt, buf);
}

void emit_bool(struct emit *e, const char *key, const char *tfmt, bool val)
{
	if (emit_is_json(e))
		scalar(e, key, val ? "true" : "false", val ? 4 : 5);
	else
		text(e, tfmt, val ? "yes" : "no");
}

void emit_null(struct emit *e, const char *key, const char *tfmt)
{
	emit_str(e, key, tfmt, NULL);
}

/* A ready value, dumped by jansson and indented to where it stands. */
void emit_json(struct emit *e, const char *key, json_t *val)
{
	size_t flags = JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12) | JSON_ENCODE_ANY;
	char *s, *p, *nl;

	if (!emit_is_json(e) || !val) {
		if (!val && emit_is_json(e) && !e->err)
			e->err = -ENOMEM;
		json_decref(val);
		return;
	}
	flags |= e->fmt == RCK_FORMAT_JSON_PRETTY ? JSON_INDENT(2) : JSON_COMPACT;
	if (e->depth < 0 && !json_is_object(val) && !json_is_array(val) && !e->err)
		e->err = -EINVAL;
	s = json_dumps(val, flags);
	json_decref(val);
	if (!s) {
		if (!e->err)
			e->err = -ENOMEM;
		return;
	}
	if (member(e, key)) {
		/* Strings in JSON text hold no raw newline: each one starts
		 * an indented line. */
		for (p = s; (nl = strchr(p, '\n')); p = nl + 1) {
			put(e, p, (size_t)(nl - p));
			indent(e, e->base + e->depth + 1);
		}
		put(e, p, strlen(p));
	}
	free(s);
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
	if (e->err)
		return e->err;
	if (emit_is_json(e)) {
		if (!e->started)
			return -EINVAL;
		while (e->depth >= 0 && !e->err)
			pop(e);
		if (!e->nested)
			put(e, "\n", 1);
		if (e->err)
			return e->err;
	}
	if (fflush(e->out))
		return -errno;
	return ferror(e->out) ? -EIO : 0;
}
