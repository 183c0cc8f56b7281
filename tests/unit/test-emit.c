/* The print layer's streamed JSON against jansson: random trees emitted
 * field by field give the bytes json_dumpf() writes for the same tree. */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "emit.h"

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Strings with escapes, control bytes, valid UTF-8 and broken sequences. */
static void rnd_string(char *buf, size_t len)
{
	static const char *const parts[] = {"a", "Z", "\"", "\\", "/", "\n", "\t", "\b", "\f", "\r",
					    "\x01", "\x1f", "\x7f", "\xc3\xa9", "\xe2\x82\xac",
					    "\xf0\x9f\x98\x80", "\xc0\x80", "\xed\xa0\x80", "\xff", "\x80",
					    "\xe2\x82", "\xf4\x90\x80\x80", " ", "0"};
	size_t n = rnd() % 12, o = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		const char *p = parts[rnd() % (sizeof(parts) / sizeof(parts[0]))];

		if (o + strlen(p) + 1 >= len)
			break;
		memcpy(buf + o, p, strlen(p) + 1);
		o += strlen(p);
	}
}

/* jansson's own replacement of what is not UTF-8: '?' past ASCII. */
static json_t *jstr(const char *s)
{
	json_t *j = json_string(s);
	char *c;

	if (j)
		return j;
	c = strdup(s);
	for (char *p = c; *p; p++)
		if ((unsigned char)*p >= 0x80)
			*p = '?';
	j = json_string(c);
	free(c);
	return j;
}

static double rnd_real(void)
{
	static const double fixed[] = {0.0, -0.0, 1.0, 0.1, 1e21, 1e-7, 123456789012345.0, 2.5e-300,
				       1.7e308, -3.25, 100.0, 1e15, 1e16, 0.000123};
	uint64_t r = rnd();

	if (r % 3 == 0)
		return fixed[rnd() % (sizeof(fixed) / sizeof(fixed[0]))];
	return ((double)(int64_t)rnd() / 1e9) * pow(10, (double)((int)(rnd() % 40) - 20));
}

/* Emit a random value into @e and build it in jansson too. */
static json_t *gen(struct emit *e, const char *key, int depth)
{
	unsigned int kind = (unsigned int)(rnd() % (depth >= 5 ? 6 : 9));
	char s[64];
	json_t *j;

	switch (kind) {
	case 0:
		rnd_string(s, sizeof(s));
		emit_str(e, key, NULL, s);
		return jstr(s);
	case 1: {
		uint64_t v = rnd() >> (rnd() % 64);

		emit_u64(e, key, NULL, v);
		if (v > INT64_MAX) {
			snprintf(s, sizeof(s), "%" PRIu64, v);
			return json_string(s);
		}
		return json_integer((json_int_t)v);
	}
	case 2: {
		int64_t v = (int64_t)rnd() >> (rnd() % 64);

		emit_i64(e, key, NULL, v);
		return json_integer(v);
	}
	case 3: {
		double v = rnd_real();

		emit_double(e, key, NULL, 2, v);
		return json_real(v);
	}
	case 4: {
		bool b = rnd() & 1;

		emit_bool(e, key, NULL, b);
		return json_boolean(b);
	}
	case 5:
		emit_null(e, key, NULL);
		return json_null();
	case 6: {
		/* A ready value adopted whole. */
		json_t *a = json_pack("{s:i,s:[s,f,{}],s:{s:[]}}", "n", 1, "l", "x\ny", 0.5, "o", "e");

		emit_json(e, key, json_incref(a));
		return a;
	}
	default: {
		bool arr = kind == 7;
		unsigned int n = (unsigned int)(rnd() % 5);

		j = arr ? json_array() : json_object();
		if (arr)
			emit_arr_open(e, key);
		else
			emit_obj_open(e, key);
		for (unsigned int i = 0; i < n; i++) {
			char k[80], ks[64];
			json_t *v;

			rnd_string(ks, sizeof(ks));
			snprintf(k, sizeof(k), "k%u%s", i, ks);
			if (!arr) { /* keys are always UTF-8 */
				json_t *t = json_string(k);

				if (!t)
					snprintf(k, sizeof(k), "k%u", i);
				json_decref(t);
			}
			v = gen(e, arr ? NULL : k, depth + 1);
			if (arr)
				json_array_append_new(j, v);
			else
				json_object_set_new(j, k, v);
		}
		if (arr)
			emit_arr_close(e);
		else
			emit_obj_close(e);
		return j;
	}
	}
}

/* An object of random members: the document. */
static json_t *gen_root(struct emit *e)
{
	json_t *j = json_object();
	unsigned int n = 1 + (unsigned int)(rnd() % 6);

	emit_obj_open(e, NULL);
	for (unsigned int i = 0; i < n; i++) {
		char k[16];

		snprintf(k, sizeof(k), "m%u", i);
		json_object_set_new(j, k, gen(e, k, 1));
	}
	emit_obj_close(e);
	return j;
}

static char *emitted(enum rck_format fmt, int base, uint64_t seed, json_t **tree)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct emit *e;

	assert_non_null(f);
	assert_int_equal(emit_new_nested(fmt, f, base, &e), 0);
	rng = seed;
	*tree = gen_root(e);
	assert_int_equal(emit_finish(e), 0);
	emit_free(e);
	fclose(f);
	return buf;
}

static void check(enum rck_format fmt, uint64_t seed)
{
	size_t flags = JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12) |
		       (fmt == RCK_FORMAT_JSON_PRETTY ? JSON_INDENT(2) : JSON_COMPACT);
	json_t *tree, *outer;
	char *got = emitted(fmt, 0, seed, &tree), *want, *nested, *w2;
	size_t n;

	want = json_dumps(tree, flags);
	assert_non_null(want);
	n = strlen(want);
	/* emit_finish() adds a newline, as the tools always did. */
	if (strncmp(got, want, n) || strcmp(got + n, "\n")) {
		fprintf(stderr, "seed %" PRIu64 ":\nwant %s\ngot  %s\n", seed, want, got);
		fail();
	}
	/* The same document one level inside another. */
	json_decref(tree);
	nested = emitted(fmt, 1, seed, &tree);
	outer = json_pack("{s:O}", "x", tree);
	w2 = json_dumps(outer, flags);
	assert_non_null(strstr(w2, nested));
	assert_int_equal(strlen(w2) - strlen(nested), strlen(fmt == RCK_FORMAT_JSON_PRETTY ? "{\n  \"x\": \n}" : "{\"x\":}"));
	free(got);
	free(want);
	free(nested);
	free(w2);
	json_decref(outer);
	json_decref(tree);
}

static void test_random_trees(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 3000; seed++) {
		check(RCK_FORMAT_JSON, seed * 0x2545f4914f6cdd1dULL);
		check(RCK_FORMAT_JSON_PRETTY, seed * 0x2545f4914f6cdd1dULL);
	}
}

/* Misuse is an error, not a broken document: no root, two roots, a bare
 * scalar as the document. */
static void test_misuse(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct emit *e;

	(void)state;
	assert_int_equal(emit_new(RCK_FORMAT_JSON, f, &e), 0);
	assert_int_equal(emit_finish(e), -EINVAL);
	emit_free(e);
	assert_int_equal(emit_new(RCK_FORMAT_JSON, f, &e), 0);
	emit_u64(e, NULL, NULL, 1);
	assert_int_equal(emit_finish(e), -EINVAL);
	emit_free(e);
	assert_int_equal(emit_new(RCK_FORMAT_JSON, f, &e), 0);
	emit_obj_open(e, NULL);
	emit_obj_close(e);
	emit_arr_open(e, NULL);
	assert_int_equal(emit_finish(e), -EINVAL);
	emit_free(e);
	/* Containers left open are closed by emit_finish(). */
	assert_int_equal(emit_new(RCK_FORMAT_JSON, f, &e), 0);
	emit_obj_open(e, NULL);
	emit_arr_open(e, "a");
	emit_u64(e, NULL, NULL, 7);
	assert_int_equal(emit_finish(e), 0);
	emit_free(e);
	fclose(f);
	assert_non_null(strstr(buf, "{\"a\":[7]}\n"));
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_trees),
		cmocka_unit_test(test_misuse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
