/* The one print layer: every field is emitted once and comes out either as
 * text (through a printf format with one %s) or as a JSON member. */
#ifndef RCK_EMIT_H
#define RCK_EMIT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "rocecheck/context.h"

struct emit;
struct json_t;

/*
 * Text forms: @tfmt is a printf format holding exactly one %s (widths are
 * fine, "%-8s"), or NULL to leave the field out of the text form. Values are
 * turned into strings first; an absent value prints "n/a". In JSON an
 * absent value is null. Keys are snake_case; @key is ignored inside arrays.
 * JSON is written as it is emitted (memory stays that of the open
 * containers), in the bytes jansson's json_dumpf() would write for the same
 * tree; on an error the stream may hold part of the document, so files go
 * through rck_write_atomic(). Errors are kept and returned by emit_finish().
 * Text values are escaped: bytes outside printable ASCII come out as \xNN.
 * JSON: a u64 from 2^63 up is a decimal string, a non-finite double null,
 * a string that is not UTF-8 has '?' for its bytes past ASCII.
 */
int emit_new(enum rck_format fmt, FILE *out, struct emit **emitp);
/* A JSON document written as a member @base levels deep inside another
 * (its indent), with no newline after it. */
int emit_new_nested(enum rck_format fmt, FILE *out, int base, struct emit **emitp);
/* Write the JSON document (nothing more for text). Returns 0 or -errno. */
int emit_finish(struct emit *e);
void emit_free(struct emit *e);
bool emit_is_json(const struct emit *e);

void emit_obj_open(struct emit *e, const char *key);
void emit_obj_close(struct emit *e);
void emit_arr_open(struct emit *e, const char *key);
void emit_arr_close(struct emit *e);

void emit_str(struct emit *e, const char *key, const char *tfmt, const char *val);
void emit_u64(struct emit *e, const char *key, const char *tfmt, uint64_t val);
void emit_i64(struct emit *e, const char *key, const char *tfmt, int64_t val);
/* @prec digits after the point in the text form; JSON keeps full precision. */
void emit_double(struct emit *e, const char *key, const char *tfmt, int prec, double val);
void emit_bool(struct emit *e, const char *key, const char *tfmt, bool val);
void emit_null(struct emit *e, const char *key, const char *tfmt);
/* Adopt a ready JSON value (reference stolen); text form prints nothing. */
void emit_json(struct emit *e, const char *key, struct json_t *val);
/* Text only: @indent, then @label (escaped) padded to @width with at least
 * one space after it; for labels that come from outside (raw keys). */
void emit_label(struct emit *e, const char *indent, const char *label, int width);
/* Text only: literal text, e.g. newlines and table headings. */
void emit_text(struct emit *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
