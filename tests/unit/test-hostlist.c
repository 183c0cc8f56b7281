/* Host lists: nodelist expansion compared case by case with the rules of
 * Slurm's hostlist (scontrol show hostnames), refusals with their column,
 * the expansion cap, hostfiles with comments and slots= fields. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "rocecheck/mesh.h"

/* Expected expansion as one space-separated string. */
static const struct {
	const char *expr, *hosts;
} good[] = {
	{"a", "a"},
	{"a,b,c", "a b c"},
	{"a b\tc", "a b c"},
	{" a , b ,", "a b"},
	{"node[1-3]", "node1 node2 node3"},
	{"node[01-03,20]", "node01 node02 node03 node20"},
	{"node[8-10]", "node8 node9 node10"},
	{"node[08-10]", "node08 node09 node10"},
	{"n[098-101]", "n098 n099 n100 n101"},
	{"n[007]", "n007"},
	{"n[0]", "n0"},
	{"n[0-2]", "n0 n1 n2"},
	{"rack[1-2]-n[01-02]", "rack1-n01 rack1-n02 rack2-n01 rack2-n02"},
	{"a[1-3],b5", "a1 a2 a3 b5"},
	{"[1-2]x", "1x 2x"},
	{"x[1,1]", "x1"},
	{"a,a,b", "a b"},
	{"gpu[1-2]-ib[0-1].example.com", "gpu1-ib0.example.com gpu1-ib1.example.com "
					  "gpu2-ib0.example.com gpu2-ib1.example.com"},
	{"10.0.0.[1-3]", "10.0.0.1 10.0.0.2 10.0.0.3"},
	{"fe80::1%eth0,h_1", "fe80::1%eth0 h_1"},
	{"n[1-2][3-4]", "n13 n14 n23 n24"},
	/* Three groups and more: the last fastest, then the first, the second... */
	{"a[1-2]b[3-4]c[5-6]", "a1b3c5 a1b3c6 a2b3c5 a2b3c6 a1b4c5 a1b4c6 a2b4c5 a2b4c6"},
	{"a[1-3]b[4-5]c[6-7]", "a1b4c6 a1b4c7 a2b4c6 a2b4c7 a3b4c6 a3b4c7 a1b5c6 a1b5c7 a2b5c6 a2b5c7 "
			       "a3b5c6 a3b5c7"},
	{"a[1-2]b[3-4]c[5-6]d[7-8]", "a1b3c5d7 a1b3c5d8 a2b3c5d7 a2b3c5d8 a1b4c5d7 a1b4c5d8 a2b4c5d7 "
				     "a2b4c5d8 a1b3c6d7 a1b3c6d8 a2b3c6d7 a2b3c6d8 a1b4c6d7 a1b4c6d8 "
				     "a2b4c6d7 a2b4c6d8"},
	{"r[1-2]-s[1,3]-n[01-02]", "r1-s1-n01 r1-s1-n02 r2-s1-n01 r2-s1-n02 r1-s3-n01 r1-s3-n02 "
				   "r2-s3-n01 r2-s3-n02"},
	{"n[999999998-999999999]", "n999999998 n999999999"},
	{"a:1,b:65535,n[1-2]:18531", "a:1 b:65535 n1:18531 n2:18531"},
	{"fe80::1,::1,fe80::2%eth0", "fe80::1 ::1 fe80::2%eth0"},
};

/* Refused, with the column the message must name. */
static const struct {
	const char *expr;
	int rc;
	const char *msg;
} bad[] = {
	{"", -EINVAL, "no host names"},
	{" , ,", -EINVAL, "no host names"},
	{"node[10-8]", -EINVAL, "column 6: descending range 10-8"},
	{"node[1-3", -EINVAL, "column 5: '[' without ']'"},
	{"node1-3]", -EINVAL, "column 8: ']' without '['"},
	{"node[]", -EINVAL, "column 6: expected a number"},
	{"node[a]", -EINVAL, "column 6: expected a number"},
	{"node[1-]", -EINVAL, "column 8: expected a number"},
	{"node[1;2]", -EINVAL, "column 7: unexpected ';'"},
	{"node[1-2 ]", -EINVAL, "column 5: '[' without ']'"},
	{"bgl[123x456]", -EINVAL, "column 8: unexpected 'x'"},
	{"a,b$c", -EINVAL, "column 4: '$' is not allowed"},
	{"a;rm -rf", -EINVAL, "column 2: ';' is not allowed"},
	{"a/b", -EINVAL, "column 2: '/' is not allowed"},
	{"-oProxyCommand=x", -EINVAL, "column 15: '=' is not allowed"},
	{"-n1", -EINVAL, "column 1: host name starts with '-'"},
	{"n[1-2],-x", -EINVAL, "column 8: host name starts with '-'"},
	{"n[1234567890]", -EINVAL, "column 3: number longer than 9 digits"},
	{"n[0-65536]", -E2BIG, "column 2: bracket group expands to more than 65536"},
	{"n[1-300][1-300]", -E2BIG, "expands to more than 65536"},
	{"n[1-65536],x", -E2BIG, "more than 65536 hosts"},
	{"n[0-999999999]", -E2BIG, "more than 65536"},
	{"a\x01", -EINVAL, "byte 0x01"},
	/* NAME:PORT: a port of 1 to 65535, refused before any name lookup. */
	{"a:0", -EINVAL, "column 1: 'a:0': the port after ':' must be 1 to 65535"},
	{"a:65536", -EINVAL, "'a:65536': the port after ':' must be 1 to 65535"},
	{"b,a:-1", -EINVAL, "column 3: 'a:-1': the port after ':' must be 1 to 65535"},
	{"a:1:2", -EINVAL, "'a:1:2': more than one ':' and not an IPv6 address"},
	{"a:", -EINVAL, "'a:': the port after ':' must be"},
	{"a:x", -EINVAL, "'a:x': the port after ':' must be"},
	{"a:0018530000", -EINVAL, "the port after ':' must be"},
	{":18530", -EINVAL, "no host name before ':'"},
	{"n[1-2]:0", -EINVAL, "'n1:0': the port after ':' must be"},
};

static void join(const struct rck_hostlist *hl, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; i < rck_hostlist_count(hl); i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? " " : "", rck_hostlist_get(hl, i));
}

static void test_good(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		struct rck_hostlist *hl;
		char err[256], got[1024];

		assert_int_equal(rck_hostlist_new(&hl), 0);
		if (rck_hostlist_add(hl, good[i].expr, err, sizeof(err)))
			fail_msg("'%s' refused: %s", good[i].expr, err);
		join(hl, got, sizeof(got));
		if (strcmp(got, good[i].hosts))
			fail_msg("'%s': got '%s', want '%s'", good[i].expr, got, good[i].hosts);
		rck_hostlist_free(hl);
	}
}

static void test_bad(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct rck_hostlist *hl;
		char err[256];
		int rc;

		assert_int_equal(rck_hostlist_new(&hl), 0);
		assert_int_equal(rck_hostlist_add(hl, "keep", NULL, 0), 0);
		rc = rck_hostlist_add(hl, bad[i].expr, err, sizeof(err));
		if (rc != bad[i].rc || !strstr(err, bad[i].msg))
			fail_msg("'%s': rc %d '%s', want %d '%s'", bad[i].expr, rc, err, bad[i].rc, bad[i].msg);
		/* Nothing of a refused expression is added. */
		assert_int_equal(rck_hostlist_count(hl), 1);
		rck_hostlist_free(hl);
	}
}

static void test_cap_and_duplicates(void **state)
{
	struct rck_hostlist *hl;
	char err[256];

	(void)state;
	assert_int_equal(rck_hostlist_new(&hl), 0);
	assert_int_equal(rck_hostlist_add(hl, "n[00001-65536]", err, sizeof(err)), 0);
	assert_int_equal(rck_hostlist_count(hl), 65536);
	assert_string_equal(rck_hostlist_get(hl, 65535), "n65536");
	assert_null(rck_hostlist_get(hl, 65536));
	/* Names already there are dropped before the cap is judged... */
	assert_int_equal(rck_hostlist_add(hl, "n00001", err, sizeof(err)), 0);
	assert_int_equal(rck_hostlist_duplicates(hl), 1);
	/* ...but a new name is one too many. */
	assert_int_equal(rck_hostlist_add(hl, "x", err, sizeof(err)), -E2BIG);
	assert_int_equal(rck_hostlist_count(hl), 65536);
	rck_hostlist_free(hl);

	/* Long names: 253 characters pass, 254 do not. */
	{
		char name[300];

		memset(name, 'a', 253);
		name[253] = '\0';
		assert_int_equal(rck_hostlist_new(&hl), 0);
		assert_int_equal(rck_hostlist_add(hl, name, err, sizeof(err)), 0);
		strcpy(name + 251, "[100-101]");
		assert_int_equal(rck_hostlist_add(hl, name, err, sizeof(err)), -EINVAL);
		assert_non_null(strstr(err, "longer than 253"));
		rck_hostlist_free(hl);
	}
}

static void test_hostfile(void **state)
{
	static const char text[] =
		"# cluster A\n"
		"\n"
		"node1 slots=8 max_slots=8\n"
		"  node2\t# a comment\n"
		"node1 slots=8\n"
		"gpu[01-02]\r\n"
		"last";
	struct rck_hostlist *hl;
	char err[256], got[256];

	(void)state;
	assert_int_equal(rck_hostlist_new(&hl), 0);
	assert_int_equal(rck_hostlist_add_text(hl, text, strlen(text), "hf", err, sizeof(err)), 0);
	join(hl, got, sizeof(got));
	assert_string_equal(got, "node1 node2 gpu01 gpu02 last");
	assert_int_equal(rck_hostlist_duplicates(hl), 1);
	rck_hostlist_free(hl);

	{
		static const struct {
			const char *text, *msg;
		} cases[] = {
			{"a\nb c\n", "hf:2:column 3: expected key=value after the host, got 'c'"},
			{"a\n\n  n[3-1]\n", "hf:3:column 5: descending range 3-1"},
			{"# only comments\n\n", "hf: no host names"},
			{"a =x\n", "hf:1:column 3: expected key=value"},
			{"a\nb\0c\n", "hf:2: a NUL byte"},
		};

		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			size_t len = strlen(cases[i].text);

			if (strstr(cases[i].msg, "NUL"))
				len = 6;
			assert_int_equal(rck_hostlist_new(&hl), 0);
			assert_int_equal(rck_hostlist_add_text(hl, cases[i].text, len, "hf", err, sizeof(err)),
					 -EINVAL);
			if (strncmp(err, cases[i].msg, strlen(cases[i].msg)))
				fail_msg("case %zu: '%s', want '%s'", i, err, cases[i].msg);
			assert_int_equal(rck_hostlist_count(hl), 0);
			rck_hostlist_free(hl);
		}
	}
}

static void test_file(void **state)
{
	char path[] = "/tmp/rck-hostfile-XXXXXX", err[256];
	struct rck_hostlist *hl;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "h[1-4] slots=2\n", 15), 15);
	close(fd);
	assert_int_equal(rck_hostlist_new(&hl), 0);
	assert_int_equal(rck_hostlist_add_file(hl, path, err, sizeof(err)), 0);
	assert_int_equal(rck_hostlist_count(hl), 4);
	unlink(path);
	assert_int_equal(rck_hostlist_add_file(hl, path, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, path));
	rck_hostlist_free(hl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_cap_and_duplicates),
		cmocka_unit_test(test_hostfile),
		cmocka_unit_test(test_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
