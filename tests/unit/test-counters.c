/* Counters on the recorded trees: each vendor's neutral and raw values field
 * by field, the broken tree, deltas and their states, save/load, sidecars. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include <cmocka.h>

#include "counters.h"
#include "internal.h"
#include "sysfs_cache.h"

struct logs {
	int warnings, errors;
	char last[512];
};

static void count_log(void *data, int prio, const char *msg)
{
	struct logs *l = data;

	if (prio <= LOG_ERR)
		l->errors++;
	else if (prio == LOG_WARNING)
		l->warnings++;
	snprintf(l->last, sizeof(l->last), "%s", msg);
}

static struct rck_ctx *ctx_for(const char *tree, struct logs *logs)
{
	const char *fix = getenv("ROCECHECK_FIXTURES");
	char path[4096];
	struct rck_ctx *ctx;

	assert_non_null(fix);
	assert_int_equal(rck_ctx_new(&ctx), 0);
	if (tree) {
		snprintf(path, sizeof(path), "%s/sysfs/%s", fix, tree);
		assert_int_equal(rck_ctx_set_sysfs_root(ctx, path), 0);
	}
	if (logs) {
		memset(logs, 0, sizeof(*logs));
		rck_ctx_set_log_fn(ctx, count_log, logs);
		rck_ctx_set_log_priority(ctx, LOG_DEBUG);
	}
	return ctx;
}

static struct rck_snapshot *snap_of(struct rck_ctx *ctx)
{
	struct rck_snapshot *s = NULL;

	assert_int_equal(rck_snapshot_new(ctx, NULL, NULL, 0, &s), 0);
	assert_non_null(s);
	return s;
}

/* Whatever rck_*_write() printed, as a string the caller frees. */
static char *written(const struct rck_snapshot *s, const struct rck_delta *d, enum rck_format fmt,
		     bool all)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	if (s)
		assert_int_equal(rck_snapshot_write_all(s, f, fmt, all), 0);
	else
		assert_int_equal(rck_delta_write(d, f, fmt, all), 0);
	fclose(f);
	return buf;
}

static json_t *json_of(const struct rck_snapshot *s, const struct rck_delta *d)
{
	char *text = written(s, d, RCK_FORMAT_JSON, false);
	json_error_t err;
	json_t *j = json_loads(text, 0, &err);

	if (!j)
		fail_msg("JSON does not parse: %s: %s", err.text, text);
	free(text);
	return j;
}

/* Compare @act with @exp member by member; every difference is printed
 * with its path, and the count of them returned. */
static int json_diff(const json_t *exp, const json_t *act, const char *path)
{
	char sub[1024];
	const char *key;
	json_t *v;
	int n = 0;

	if (json_is_number(exp) && json_is_number(act)) {
		double a = json_number_value(act), e = json_number_value(exp);

		if (json_is_integer(exp) && json_is_integer(act)
			    ? json_integer_value(exp) != json_integer_value(act)
			    : fabs(a - e) > fabs(e) * 1e-11) {
			print_message("%s: %g, expected %g\n", path, a, e);
			return 1;
		}
		return 0;
	}
	if (json_typeof(exp) != json_typeof(act)) {
		print_message("%s: JSON type %d, expected %d\n", path, act ? (int)json_typeof(act) : -1,
			      (int)json_typeof(exp));
		return 1;
	}
	switch (json_typeof(exp)) {
	case JSON_OBJECT:
		json_object_foreach((json_t *)exp, key, v) {
			snprintf(sub, sizeof(sub), "%s.%s", path, key);
			if (!json_object_get(act, key)) {
				print_message("%s: missing\n", sub);
				n++;
			} else {
				n += json_diff(v, json_object_get(act, key), sub);
			}
		}
		json_object_foreach((json_t *)act, key, v)
			if (!json_object_get(exp, key)) {
				print_message("%s.%s: not expected\n", path, key);
				n++;
			}
		return n;
	case JSON_ARRAY:
		if (json_array_size(exp) != json_array_size(act)) {
			print_message("%s: %zu entries, expected %zu\n", path, json_array_size(act),
				      json_array_size(exp));
			return 1;
		}
		for (size_t i = 0; i < json_array_size(exp); i++) {
			snprintf(sub, sizeof(sub), "%s[%zu]", path, i);
			n += json_diff(json_array_get(exp, i), json_array_get(act, i), sub);
		}
		return n;
	case JSON_STRING:
		if (strcmp(json_string_value(exp), json_string_value(act))) {
			print_message("%s: \"%s\", expected \"%s\"\n", path, json_string_value(act),
				      json_string_value(exp));
			return 1;
		}
		return 0;
	default:
		return json_equal(exp, act) ? 0 : 1;
	}
}

/* The -j form of @tree's snapshot equals tests/fixtures/expected/counters-TREE.json. */
static void compare_expected(const char *tree)
{
	struct rck_ctx *ctx = ctx_for(tree, NULL);
	struct rck_snapshot *s = snap_of(ctx);
	char path[4096];
	json_error_t err;
	json_t *exp, *act;

	snprintf(path, sizeof(path), "%s/expected/counters-%s.json", getenv("ROCECHECK_FIXTURES"), tree);
	exp = json_load_file(path, 0, &err);
	if (!exp)
		fail_msg("%s: %s", path, err.text);
	act = json_of(s, NULL);
	/* The moment and the host of the snapshot are not the fixture's. */
	assert_true(json_is_integer(json_object_get(act, "time_ns")));
	json_object_del(act, "time_ns");
	json_object_del(act, "host");
	assert_int_equal(json_diff(exp, act, tree), 0);
	json_decref(exp);
	json_decref(act);
	rck_snapshot_free(s);
	rck_ctx_free(ctx);
}

/* @text holds the line printf(@fmt, ...) makes (after a newline). */
static void assert_in_text(const char *text, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void assert_in_text(const char *text, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	line[0] = '\n';
	va_start(ap, fmt);
	vsnprintf(line + 1, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (!strstr(text, line))
		fail_msg("no line '%s' in:\n%s", line + 1, text);
}

static uint64_t get(const struct rck_snapshot *s, enum rck_counter id)
{
	uint64_t v = 0;
	int rc = rck_snapshot_get(s, 0, id, &v);

	if (rc)
		fail_msg("%s (id %d): %s", rck_counter_name(id, NULL), (int)id, strerror(-rc));
	return v;
}

static void assert_absent(const struct rck_snapshot *s, enum rck_counter id)
{
	uint64_t v = 12345;

	if (rck_snapshot_get(s, 0, id, &v) != -ENOENT)
		fail_msg("%s should be absent, is %llu", rck_counter_name(id, NULL),
			 (unsigned long long)v);
	assert_int_equal(v, 12345);
}

static uint64_t raw(const struct rck_snapshot *s, const char *key)
{
	uint64_t v = 0;

	if (rck_snapshot_get_raw(s, 0, key, &v))
		fail_msg("raw %s missing", key);
	return v;
}

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

/* Expected neutral values; ABSENT for a counter the device must not have. */
#define ABSENT (-1LL)
struct want {
	enum rck_counter id;
	long long v;
};

static void check_table(const struct rck_snapshot *s, const struct want *w, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (w[i].v == ABSENT) {
			assert_absent(s, w[i].id);
		} else if (get(s, w[i].id) != (uint64_t)w[i].v) {
			int prio;
			const char *name = rck_counter_name(w[i].id, &prio);

			fail_msg("%s[%d]: %llu, expected %lld", name, prio,
				 (unsigned long long)get(s, w[i].id), w[i].v);
		}
	}
}

static void test_names(void **state)
{
	int prio;

	(void)state;
	assert_string_equal(rck_counter_name(RCK_CTR_RX_BYTES, &prio), "rx_bytes");
	assert_int_equal(prio, -1);
	assert_string_equal(rck_counter_name(RCK_CTR_PAUSE_STORM_EVENTS, NULL), "pause_storm_events");
	assert_string_equal(rck_counter_name(RCK_CTR_PFC_RX_PAUSE + 3, &prio), "pfc_rx_pause");
	assert_int_equal(prio, 3);
	assert_string_equal(rck_counter_name(RCK_CTR_PFC_TX_PAUSE_DURATION + 7, &prio),
			    "pfc_tx_pause_duration");
	assert_int_equal(prio, 7);
	assert_null(rck_counter_name(RCK_CTR_COUNT, &prio));
	assert_null(rck_counter_name((enum rck_counter)-1, NULL));
	/* Every id has a name, and the 26 scalar names are distinct. */
	for (int i = 0; i < RCK_CTR_COUNT; i++)
		assert_non_null(rck_counter_name((enum rck_counter)i, NULL));
	for (int i = 0; i < RCK_CTR_PFC_RX_PAUSE; i++)
		for (int j = i + 1; j < RCK_CTR_PFC_RX_PAUSE; j++)
			assert_string_not_equal(rck_counter_name((enum rck_counter)i, NULL),
						rck_counter_name((enum rck_counter)j, NULL));
}

static const struct want want_mlx5[] = {
	/* port_rcv_data/port_xmit_data are in 4-octet words. */
	{ RCK_CTR_RX_BYTES, 2441406250ULL * 4 },
	{ RCK_CTR_TX_BYTES, 2500000000ULL * 4 },
	{ RCK_CTR_RX_PACKETS, 2383940 },
	{ RCK_CTR_LINK_DOWNED, 1 },
	{ RCK_CTR_TX_DISCARDS, 3 },
	{ RCK_CTR_TX_WAIT, 18234 },
	{ RCK_CTR_ECN_MARKED_PACKETS, 57 },
	{ RCK_CTR_CNP_SENT, 12 },
	{ RCK_CTR_CNP_HANDLED, 9 },
	{ RCK_CTR_CNP_IGNORED, 0 },
	{ RCK_CTR_OUT_OF_SEQUENCE, 5 },
	{ RCK_CTR_SEQ_ERR_NAKS, 4 },
	{ RCK_CTR_LOCAL_ACK_TIMEOUTS, 1 },
	{ RCK_CTR_DUPLICATE_REQUESTS, 2 },
	{ RCK_CTR_PAUSE_STORM_EVENTS, 0 },
	{ RCK_CTR_PFC_RX_PAUSE + 3, 4 },
	{ RCK_CTR_PFC_TX_PAUSE + 3, 9 },
	{ RCK_CTR_PFC_RX_PAUSE_DURATION + 3, 186 },
	{ RCK_CTR_PFC_TX_PAUSE_DURATION + 3, 402 },
	/* mlx5 has pause counters only for PFC-enabled priorities. */
	{ RCK_CTR_PFC_RX_PAUSE + 0, ABSENT },
	{ RCK_CTR_PFC_TX_PAUSE_DURATION + 7, ABSENT },
};

static void test_mlx5(void **state)
{
	struct rck_ctx *ctx = ctx_for("mlx5", NULL);
	struct rck_snapshot *s = snap_of(ctx);
	const char *dev;
	unsigned int port;

	(void)state;
	assert_int_equal(rck_snapshot_port_count(s), 1);
	assert_true(rck_snapshot_port(s, 0, &dev, &port));
	assert_string_equal(dev, "mlx5_0");
	assert_int_equal(port, 1);
	assert_false(rck_snapshot_port(s, 1, &dev, &port));
	check_table(s, want_mlx5, COUNT_OF(want_mlx5));
	assert_int_equal(raw(s, "hw_counters/np_cnp_sent"), 12);
	assert_int_equal(raw(s, "ethtool/rx_prio3_pause"), 4);
	assert_int_equal(raw(s, "pause/tx_pause_frames"), 9);
	assert_int_equal(raw(s, "netdev/rx_dropped"), 17);
	assert_int_equal(raw(s, "counters/port_rcv_data"), 2441406250ULL);
	/* lifespan is a setting of hw_counters, not a counter. */
	assert_int_equal(rck_snapshot_get_raw(s, 0, "hw_counters/lifespan", NULL), -ENOENT);
	assert_int_equal(rck_snapshot_get_raw(s, 0, "nope/nothing", NULL), -ENOENT);
	assert_int_equal(rck_snapshot_get(s, 1, RCK_CTR_RX_BYTES, NULL), -EINVAL);
	assert_int_equal(rck_snapshot_get(s, 0, RCK_CTR_COUNT, NULL), -EINVAL);
	assert_true(rck_snapshot_time_ns(s) > 1600000000ULL * 1000000000ULL);
	rck_snapshot_free(s);
	rck_ctx_free(ctx);
	compare_expected("mlx5");
}

static const struct want want_bnxt[] = {
	/* No PMA on bnxt_re: RoCE bytes from its hw_counters. */
	{ RCK_CTR_RX_BYTES, 20971520000ULL },
	{ RCK_CTR_TX_PACKETS, 5300001 },
	{ RCK_CTR_TX_WAIT, ABSENT },
	{ RCK_CTR_LINK_ERROR_RECOVERY, ABSENT },
	{ RCK_CTR_CNP_IGNORED, ABSENT },
	{ RCK_CTR_LINK_DOWNED, 2 },
	{ RCK_CTR_ECN_MARKED_PACKETS, 88 },
	{ RCK_CTR_CNP_SENT, 21 },
	{ RCK_CTR_CNP_HANDLED, 34 },
	{ RCK_CTR_OUT_OF_SEQUENCE, 13 },
	{ RCK_CTR_SEQ_ERR_NAKS, 7 },
	{ RCK_CTR_LOCAL_ACK_TIMEOUTS, 3 },
	{ RCK_CTR_RNR_NAKS, 11 },
	{ RCK_CTR_DUPLICATE_REQUESTS, 5 },
	{ RCK_CTR_CRC_ERRORS, 2 },
	{ RCK_CTR_PAUSE_STORM_EVENTS, 1 },
	{ RCK_CTR_PFC_RX_PAUSE + 3, 27 },
	{ RCK_CTR_PFC_RX_PAUSE + 0, 0 },
	{ RCK_CTR_PFC_TX_PAUSE + 3, 15 },
	{ RCK_CTR_PFC_RX_PAUSE_DURATION + 3, 2310 },
	{ RCK_CTR_PFC_TX_PAUSE_DURATION + 3, 1250 },
};

static void test_bnxt(void **state)
{
	struct rck_ctx *ctx = ctx_for("bnxt", NULL);
	struct rck_snapshot *s = snap_of(ctx);

	(void)state;
	assert_int_equal(rck_snapshot_port_count(s), 1);
	check_table(s, want_bnxt, COUNT_OF(want_bnxt));
	/* bnxt ring statistics carry ": " in their names. */
	assert_int_equal(raw(s, "ethtool/[0]: rx_ucast_packets"), 220600);
	rck_snapshot_free(s);
	rck_ctx_free(ctx);
	compare_expected("bnxt");
}

static const struct want want_irdma[] = {
	/* IPv4 + IPv6 octets of the RDMA engine. */
	{ RCK_CTR_RX_BYTES, 7823000000ULL + 1200 },
	{ RCK_CTR_TX_PACKETS, 2012080 + 12 },
	{ RCK_CTR_CNP_SENT, 31 },
	{ RCK_CTR_CNP_HANDLED, 40 },
	{ RCK_CTR_CNP_IGNORED, 2 },
	{ RCK_CTR_ECN_MARKED_PACKETS, 77 },
	{ RCK_CTR_RX_DISCARDS, 3 },
	{ RCK_CTR_CRC_ERRORS, 1 },
	/* ice: XON + XOFF frames of the priority. */
	{ RCK_CTR_PFC_RX_PAUSE + 3, 3 + 8 },
	{ RCK_CTR_PFC_TX_PAUSE + 3, 6 + 14 },
	{ RCK_CTR_PFC_RX_PAUSE_DURATION + 3, ABSENT },
	{ RCK_CTR_OUT_OF_SEQUENCE, ABSENT },
	{ RCK_CTR_SYMBOL_ERRORS, ABSENT },
};

static void test_irdma(void **state)
{
	struct rck_ctx *ctx = ctx_for("irdma", NULL);
	struct rck_snapshot *s = snap_of(ctx);

	(void)state;
	check_table(s, want_irdma, COUNT_OF(want_irdma));
	assert_int_equal(raw(s, "pause/rx_pause_frames"), 11);
	rck_snapshot_free(s);
	rck_ctx_free(ctx);
	compare_expected("irdma");
}

static const struct want want_rxe[] = {
	/* rxe counts no bytes of its own: the netdev's stand in. */
	{ RCK_CTR_RX_BYTES, 512000321 },
	{ RCK_CTR_RX_PACKETS, 118800 },
	{ RCK_CTR_TX_PACKETS, 120034 },
	{ RCK_CTR_OUT_OF_SEQUENCE, 9 },
	{ RCK_CTR_SEQ_ERR_NAKS, 2 },
	{ RCK_CTR_RETRY_EXCEEDED, 1 },
	{ RCK_CTR_DUPLICATE_REQUESTS, 3 },
	{ RCK_CTR_LINK_DOWNED, 0 },
	/* No CNP, no ECN, no PFC, no ack timeout counter in rxe. */
	{ RCK_CTR_ECN_MARKED_PACKETS, ABSENT },
	{ RCK_CTR_CNP_SENT, ABSENT },
	{ RCK_CTR_CNP_HANDLED, ABSENT },
	{ RCK_CTR_LOCAL_ACK_TIMEOUTS, ABSENT },
	{ RCK_CTR_PFC_RX_PAUSE + 3, ABSENT },
	{ RCK_CTR_PAUSE_STORM_EVENTS, ABSENT },
};

static void test_rxe(void **state)
{
	struct rck_ctx *ctx = ctx_for("rxe", NULL);
	struct rck_snapshot *s = snap_of(ctx);

	(void)state;
	check_table(s, want_rxe, COUNT_OF(want_rxe));
	assert_int_equal(rck_snapshot_get_raw(s, 0, "pause/tx_pause_frames", NULL), -ENOENT);
	rck_snapshot_free(s);
	rck_ctx_free(ctx);
	compare_expected("rxe");
}

static const struct want want_broken[] = {
	{ RCK_CTR_SYMBOL_ERRORS, 65535 },
	{ RCK_CTR_TX_WAIT, 4294967295ULL },
	{ RCK_CTR_EXCESSIVE_BUFFER_OVERRUN_ERRORS, 7 },
	/* "0x10": the kernel writes decimal, so this is text, not 16. */
	{ RCK_CTR_RX_PACKETS, ABSENT },
	/* Garbage is absent, never 0. */
	{ RCK_CTR_LINK_ERROR_RECOVERY, ABSENT },
	{ RCK_CTR_LINK_DOWNED, ABSENT },
	{ RCK_CTR_RX_ERRORS, ABSENT },
	{ RCK_CTR_TX_DISCARDS, ABSENT },
	{ RCK_CTR_CNP_SENT, ABSENT },
	{ RCK_CTR_OUT_OF_BUFFER, ABSENT },
	{ RCK_CTR_PFC_RX_PAUSE + 3, ABSENT },
	{ RCK_CTR_TX_PACKETS, ABSENT },
	/* port_rcv_data does not fit 64 bits and netdev rx_bytes is garbage. */
	{ RCK_CTR_RX_BYTES, ABSENT },
	/* port_xmit_data x 4 overflows: said, and the netdev's bytes (other
	 * traffic) do not stand in. */
	{ RCK_CTR_TX_BYTES, ABSENT },
	{ RCK_CTR_PFC_TX_PAUSE + 3, 5 },
};

static void test_broken(void **state)
{
	struct logs logs;
	struct rck_ctx *ctx = ctx_for("broken", &logs);
	struct rck_snapshot *s = snap_of(ctx);
	json_t *j, *p, *r;

	(void)state;
	/* mlx5_gone dangles and is skipped; mlx5_9 has two ports. */
	assert_int_equal(rck_snapshot_port_count(s), 2);
	assert_int_equal(logs.errors, 0);
	assert_true(logs.warnings >= 10);
	check_table(s, want_broken, COUNT_OF(want_broken));
	assert_int_equal(raw(s, "counters/port_xmit_data"), UINT64_MAX);
	assert_int_equal(rck_snapshot_get_raw(s, 0, "counters/link_error_recovery", NULL), -ENOENT);

	/* The raw text is kept: as a string in JSON, null when unreadable. */
	j = json_of(s, NULL);
	p = json_array_get(json_object_get(json_array_get(json_object_get(j, "devices"), 0), "ports"), 0);
	r = json_object_get(p, "raw");
	assert_string_equal(json_string_value(json_object_get(r, "counters/link_error_recovery")),
			    "N/A (no PMA)");
	assert_string_equal(json_string_value(json_object_get(r, "counters/link_downed")), "");
	assert_string_equal(json_string_value(json_object_get(r, "counters/port_xmit_discards")), "12abc");
	assert_string_equal(json_string_value(json_object_get(r, "counters/port_rcv_packets")), "0x10");
	/* 2^64-1 exact, as the decimal string from 2^63 up. */
	assert_string_equal(json_string_value(json_object_get(r, "counters/port_xmit_data")),
			    "18446744073709551615");
	assert_string_equal(json_string_value(json_object_get(r, "ethtool/rx_prio3_pause")), "lots");
	assert_string_equal(json_string_value(json_object_get(r, "pause/tx_pause_frames")), "x");
	assert_true(json_is_null(json_object_get(r, "counters/port_xmit_packets")));          /* dangling */
	assert_true(json_is_null(json_object_get(r, "counters/port_rcv_remote_physical_errors"))); /* a dir */
	assert_true(json_is_null(json_object_get(json_object_get(p, "counters"), "rx_bytes")));
	assert_string_equal(json_string_value(json_object_get(json_object_get(p, "overflows"), "tx_bytes")),
			    "counters/port_xmit_data*4");
	json_decref(j);
	rck_snapshot_free(s);
	rck_ctx_free(ctx);
	compare_expected("broken");
}

/* Drivers without a vendor map: efa says "raw counters only" instead of
 * a column of empty neutral names; mlx4's overflowing x4 bytes are said. */
static void test_nomap(void **state)
{
	struct rck_ctx *ctx = ctx_for("nomap", NULL);
	struct rck_snapshot *s = snap_of(ctx), *back = NULL;
	char *text = written(s, NULL, RCK_FORMAT_TEXT, false), path[4096];
	json_t *j, *devs, *efa, *mlx4;

	(void)state;
	assert_int_equal(rck_snapshot_port_count(s), 2);
	assert_non_null(strstr(text, "efa_0\n  port 1 netdev n/a\n    raw counters only: no counter map for this driver\n"));
	assert_non_null(strstr(text, "\n      hw_counters/rx_bytes                        2000\n"));
	/* Only neutral names with a value: none of efa's, mlx4's PMA ones. */
	assert_null(strstr(text, "cnp_sent"));
	assert_null(strstr(text, "pfc_rx_pause"));
	assert_non_null(strstr(text, "\n    symbol_errors                     0\n"));
	assert_non_null(strstr(text, "\n    tx_bytes                          n/a (counters/port_xmit_data*4 overflows 64 bits)\n"));
	assert_non_null(strstr(text, "\n    rx_bytes                          4000\n"));
	free(text);

	j = json_of(s, NULL);
	devs = json_object_get(j, "devices");
	efa = json_array_get(json_object_get(json_array_get(devs, 0), "ports"), 0);
	mlx4 = json_array_get(json_object_get(json_array_get(devs, 1), "ports"), 0);
	assert_true(json_is_false(json_object_get(efa, "counter_map")));
	assert_true(json_is_false(json_object_get(mlx4, "counter_map")));
	assert_true(json_is_null(json_object_get(json_object_get(mlx4, "counters"), "tx_bytes")));
	assert_string_equal(json_string_value(json_object_get(json_object_get(mlx4, "overflows"), "tx_bytes")),
			    "counters/port_xmit_data*4");
	assert_null(json_object_get(efa, "overflows"));
	json_decref(j);

	/* Both notes survive a save and a load. */
	snprintf(path, sizeof(path), "%s/nomap-%d.json", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
		 (int)getpid());
	assert_int_equal(rck_snapshot_save(s, path), 0);
	assert_int_equal(rck_snapshot_load(ctx, path, &back), 0);
	unlink(path);
	text = written(back, NULL, RCK_FORMAT_TEXT, false);
	assert_non_null(strstr(text, "raw counters only"));
	assert_non_null(strstr(text, "overflows 64 bits"));
	free(text);
	rck_snapshot_free(back);
	rck_snapshot_free(s);
	rck_ctx_free(ctx);
}

static void test_empty(void **state)
{
	struct rck_ctx *ctx = ctx_for("empty", NULL);
	struct rck_snapshot *s = snap_of(ctx);
	char *text;

	(void)state;
	assert_int_equal(rck_snapshot_port_count(s), 0);
	text = written(s, NULL, RCK_FORMAT_JSON, false);
	assert_non_null(strstr(text, "\"devices\":[]}\n"));
	assert_non_null(strstr(text, "{\"schema\":\"rocecheck.counters/2\",\"version\":2,\"time_ns\":"));
	free(text);
	rck_snapshot_free(s);
	rck_ctx_free(ctx);
	compare_expected("empty");
}

static void test_select(void **state)
{
	struct rck_ctx *ctx = ctx_for("broken", NULL);
	struct rck_snapshot *s = NULL;
	const char *dev;
	unsigned int port;

	(void)state;
	assert_int_equal(rck_snapshot_new(ctx, NULL, "mlx5_9", 2, &s), 0);
	assert_int_equal(rck_snapshot_port_count(s), 1);
	assert_true(rck_snapshot_port(s, 0, &dev, &port));
	assert_int_equal(port, 2);
	assert_absent(s, RCK_CTR_RX_BYTES);
	rck_snapshot_free(s);
	s = NULL;
	assert_int_equal(rck_snapshot_new(ctx, NULL, "mlx5_9", 0, &s), 0);
	assert_int_equal(rck_snapshot_port_count(s), 2);
	rck_snapshot_free(s);
	s = NULL;
	assert_int_equal(rck_snapshot_new(ctx, NULL, "mlx5_7", 0, &s), -ENODEV);
	assert_int_equal(rck_snapshot_new(ctx, NULL, "mlx5_9", 3, &s), -ENODEV);
	assert_int_equal(rck_snapshot_new(ctx, NULL, NULL, 1, &s), -EINVAL);
	assert_null(s);
	rck_ctx_free(ctx);
}

static void test_text(void **state)
{
	struct rck_ctx *ctx = ctx_for("mlx5", NULL);
	struct rck_snapshot *s = snap_of(ctx);
	char *text = written(s, NULL, RCK_FORMAT_TEXT, false);

	(void)state;
	assert_non_null(strstr(text, "mlx5_0\n  port 1 netdev ens1f0np0\n"));
	assert_non_null(strstr(text, "\n    rx_bytes                          9765625000\n"));
	assert_non_null(strstr(text, "\n    pfc_rx_pause[3]                   4\n"));
	assert_null(strstr(text, "pfc_rx_pause[0]"));
	assert_null(strstr(text, "raw:"));
	free(text);
	text = written(s, NULL, RCK_FORMAT_TEXT, true);
	assert_non_null(strstr(text, "    raw:\n"));
	assert_non_null(strstr(text, "\n      hw_counters/np_cnp_sent                     12\n"));
	free(text);
	rck_snapshot_free(s);
	rck_ctx_free(ctx);

	ctx = ctx_for("broken", NULL);
	s = snap_of(ctx);
	text = written(s, NULL, RCK_FORMAT_TEXT, true);
	assert_non_null(strstr(text, "\n    rx_bytes                          n/a\n"));
	assert_non_null(strstr(text, "counters/link_error_recovery                \"N/A (no PMA)\"\n"));
	assert_non_null(strstr(text, "counters/port_xmit_packets                  n/a\n"));
	free(text);
	rck_snapshot_free(s);
	rck_ctx_free(ctx);
}

/* ---- deltas: a snapshot and a copy of it, changed in place ---- */

struct pair {
	struct rck_ctx *ctx;
	struct rck_snapshot *old, *new_;
};

static int pair_setup(void **state)
{
	struct pair *p = calloc(1, sizeof(*p));

	p->ctx = ctx_for("mlx5", NULL);
	p->old = snap_of(p->ctx);
	p->new_ = snap_of(p->ctx);
	/* Exactly 2 s apart. */
	p->old->mono_ns = 1000000000;
	p->new_->mono_ns = 3000000000;
	p->new_->time_ns = p->old->time_ns + 2000000000;
	*state = p;
	return 0;
}

static int pair_teardown(void **state)
{
	struct pair *p = *state;

	rck_snapshot_free(p->old);
	rck_snapshot_free(p->new_);
	rck_ctx_free(p->ctx);
	free(p);
	return 0;
}

static void set_raw(struct rck_snapshot *s, const char *key, uint64_t v)
{
	struct ctr_raw *r = (struct ctr_raw *)ctr_raw_find(&s->ports[0], key);

	assert_non_null(r);
	r->val = v;
}

static enum rck_delta_state dget(const struct rck_delta *d, enum rck_counter id, uint64_t *delta,
				 double *rate)
{
	return rck_delta_get(d, 0, id, delta, rate);
}

static void test_delta_states(void **state)
{
	struct pair *p = *state;
	struct ctr_port *o = &p->old->ports[0], *n = &p->new_->ports[0];
	struct rck_delta *d = NULL;
	uint64_t delta = 99;
	double rate = -1;
	const char *dev;
	unsigned int port;

	o->val[RCK_CTR_RX_BYTES] = 1000;
	n->val[RCK_CTR_RX_BYTES] = 5000;
	n->val[RCK_CTR_SYMBOL_ERRORS] = 65535;  /* at the 16-bit maximum */
	o->val[RCK_CTR_SYMBOL_ERRORS] = 65535;
	n->val[RCK_CTR_LINK_DOWNED] = 254;      /* below the 8-bit maximum */
	o->val[RCK_CTR_LINK_DOWNED] = 250;
	n->val[RCK_CTR_TX_WAIT] = 4294967295ULL;
	o->val[RCK_CTR_TX_WAIT] = 10;
	n->val[RCK_CTR_CNP_SENT] = 3;           /* went backwards */
	o->val[RCK_CTR_CNP_SENT] = 12;
	n->has[RCK_CTR_CNP_HANDLED] = false;    /* gone in the newer one */
	/* A 64-bit hw counter at 65535 is just a number. */
	o->val[RCK_CTR_ECN_MARKED_PACKETS] = 65000;
	n->val[RCK_CTR_ECN_MARKED_PACKETS] = 65535;
	/* The same neutral counter from another source cannot be compared. */
	free(n->src[RCK_CTR_OUT_OF_SEQUENCE]);
	n->src[RCK_CTR_OUT_OF_SEQUENCE] = strdup("hw_counters/vport_out_of_sequence");
	set_raw(p->new_, "counters/local_link_integrity_errors", 15);
	set_raw(p->new_, "hw_counters/np_cnp_sent", 40);
	set_raw(p->old, "counters/port_xmit_discards", 9);

	assert_int_equal(rck_delta_new(p->old, p->new_, &d), 0);
	assert_true(fabs(rck_delta_seconds(d) - 2.0) < 1e-9);
	assert_int_equal(rck_delta_port_count(d), 1);
	assert_true(rck_delta_port(d, 0, &dev, &port));
	assert_string_equal(dev, "mlx5_0");
	assert_int_equal(port, 1);
	assert_false(rck_delta_port(d, 1, &dev, &port));

	assert_int_equal(dget(d, RCK_CTR_RX_BYTES, &delta, &rate), RCK_DELTA_OK);
	assert_int_equal(delta, 4000);
	assert_true(fabs(rate - 2000.0) < 1e-9);
	delta = 99;
	assert_int_equal(dget(d, RCK_CTR_SYMBOL_ERRORS, &delta, NULL), RCK_DELTA_SATURATED);
	assert_int_equal(delta, 99); /* untouched unless OK */
	assert_int_equal(dget(d, RCK_CTR_LINK_DOWNED, &delta, NULL), RCK_DELTA_OK);
	assert_int_equal(delta, 4);
	assert_int_equal(dget(d, RCK_CTR_TX_WAIT, NULL, NULL), RCK_DELTA_SATURATED);
	assert_int_equal(dget(d, RCK_CTR_CNP_SENT, NULL, NULL), RCK_DELTA_RESET);
	assert_int_equal(dget(d, RCK_CTR_CNP_HANDLED, NULL, NULL), RCK_DELTA_ABSENT);
	assert_int_equal(dget(d, RCK_CTR_ECN_MARKED_PACKETS, &delta, NULL), RCK_DELTA_OK);
	assert_int_equal(delta, 535);
	assert_int_equal(dget(d, RCK_CTR_OUT_OF_SEQUENCE, NULL, NULL), RCK_DELTA_ABSENT);
	assert_int_equal(dget(d, RCK_CTR_PFC_RX_PAUSE + 3, &delta, NULL), RCK_DELTA_OK);
	assert_int_equal(delta, 0);
	assert_int_equal(dget(d, RCK_CTR_PFC_RX_PAUSE + 2, NULL, NULL), RCK_DELTA_ABSENT);
	assert_int_equal(dget(d, RCK_CTR_COUNT, NULL, NULL), RCK_DELTA_ABSENT);
	assert_int_equal(rck_delta_get(d, 1, RCK_CTR_RX_BYTES, NULL, NULL), RCK_DELTA_ABSENT);

	/* Raw values: the 4-bit PMA counter at 15 is saturated. */
	assert_int_equal(rck_delta_get_raw(d, 0, "counters/local_link_integrity_errors", NULL, NULL),
			 RCK_DELTA_SATURATED);
	assert_int_equal(rck_delta_get_raw(d, 0, "hw_counters/np_cnp_sent", &delta, &rate),
			 RCK_DELTA_OK);
	assert_int_equal(delta, 28);
	assert_true(fabs(rate - 14.0) < 1e-9);
	assert_int_equal(rck_delta_get_raw(d, 0, "counters/port_xmit_discards", NULL, NULL),
			 RCK_DELTA_RESET);
	assert_int_equal(rck_delta_get_raw(d, 0, "no/such", NULL, NULL), RCK_DELTA_ABSENT);
	rck_delta_free(d);

	/* Newer first is refused. */
	d = NULL;
	assert_int_equal(rck_delta_new(p->new_, p->old, &d), -EINVAL);
	assert_null(d);
}

static void test_delta_write(void **state)
{
	struct pair *p = *state;
	struct ctr_port *o = &p->old->ports[0], *n = &p->new_->ports[0];
	struct rck_delta *d = NULL;
	json_t *j, *port, *c, *r;
	char *text;

	o->val[RCK_CTR_RX_BYTES] = 1000;
	n->val[RCK_CTR_RX_BYTES] = 5000;
	n->val[RCK_CTR_SYMBOL_ERRORS] = 65535;
	n->val[RCK_CTR_CNP_SENT] = 3;
	set_raw(p->new_, "hw_counters/np_cnp_sent", 3);
	set_raw(p->new_, "ethtool/rx_prio3_pause", 10);
	assert_int_equal(rck_delta_new(p->old, p->new_, &d), 0);

	j = json_of(NULL, d);
	assert_true(fabs(json_real_value(json_object_get(j, "seconds")) - 2.0) < 1e-9);
	port = json_array_get(json_object_get(json_array_get(json_object_get(j, "devices"), 0), "ports"), 0);
	assert_int_equal(json_integer_value(json_object_get(port, "port")), 1);
	assert_string_equal(json_string_value(json_object_get(port, "netdev")), "ens1f0np0");
	c = json_object_get(port, "counters");
	assert_string_equal(json_string_value(json_object_get(json_object_get(c, "rx_bytes"), "state")), "ok");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(c, "rx_bytes"), "delta")), 4000);
	assert_true(fabs(json_real_value(json_object_get(json_object_get(c, "rx_bytes"), "rate")) - 2000) < 1e-6);
	assert_string_equal(json_string_value(json_object_get(json_object_get(c, "symbol_errors"), "state")),
			    "saturated");
	assert_true(json_is_null(json_object_get(json_object_get(c, "symbol_errors"), "delta")));
	assert_string_equal(json_string_value(json_object_get(json_object_get(c, "cnp_sent"), "state")), "reset");
	assert_true(json_is_null(json_array_get(json_object_get(c, "pfc_rx_pause"), 0)));
	/* Every neutral name is there; unchanged raw values are not (all false). */
	assert_int_equal(json_object_size(c), RCK_CTR_PFC_RX_PAUSE + 4);
	r = json_object_get(port, "raw");
	assert_int_equal(json_object_size(r), 2);
	assert_string_equal(json_string_value(json_object_get(json_object_get(r, "hw_counters/np_cnp_sent"), "state")),
			    "reset");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(r, "ethtool/rx_prio3_pause"), "delta")), 6);
	json_decref(j);

	text = written(NULL, d, RCK_FORMAT_TEXT, false);
	assert_non_null(strstr(text, "interval 2.000 s\n"));
	assert_in_text(text, "    %-34s%14s%16s\n", "rx_bytes", "4000", "2.00 kB/s");
	assert_in_text(text, "    %-34s%14s\n", "symbol_errors", "saturated");
	assert_in_text(text, "    %-34s%14s\n", "cnp_sent", "reset");
	assert_in_text(text, "      %-44s%14s\n", "hw_counters/np_cnp_sent", "reset");
	assert_in_text(text, "      %-44s%14s%16s\n", "ethtool/rx_prio3_pause", "6", "3.0/s");
	assert_null(strstr(text, "tx_bytes")); /* unchanged: shown only with all */
	free(text);
	text = written(NULL, d, RCK_FORMAT_TEXT, true);
	assert_in_text(text, "    %-34s%14s%16s\n", "tx_bytes", "0", "0 B/s");
	assert_in_text(text, "    %-34s%14s%16s\n", "pfc_rx_pause[3]", "0", "0.0/s");
	assert_in_text(text, "    %-34s%14s%16s\n", "cnp_ignored", "0", "0.0/s");
	assert_in_text(text, "      %-44s%14s%16s\n", "hw_counters/out_of_buffer", "0", "0.0/s");
	free(text);
	rck_delta_free(d);
}

/* Ports are matched by name; a port in one snapshot only is left out. */
static void test_delta_ports(void **state)
{
	struct rck_ctx *ctx = ctx_for("broken", NULL);
	struct rck_snapshot *a = NULL, *b = NULL;
	struct rck_delta *d = NULL;
	unsigned int port;

	(void)state;
	assert_int_equal(rck_snapshot_new(ctx, NULL, "mlx5_9", 2, &a), 0);
	assert_int_equal(rck_snapshot_new(ctx, NULL, NULL, 0, &b), 0);
	assert_int_equal(rck_delta_new(a, b, &d), 0);
	assert_int_equal(rck_delta_port_count(d), 1);
	assert_true(rck_delta_port(d, 0, NULL, &port));
	assert_int_equal(port, 2);
	assert_int_equal(rck_delta_get(d, 0, RCK_CTR_RX_BYTES, NULL, NULL), RCK_DELTA_ABSENT);
	rck_delta_free(d);
	rck_snapshot_free(a);
	rck_snapshot_free(b);
	rck_ctx_free(ctx);
}

/* ---- save and load ---- */

static char *tmp_path(const char *name)
{
	char *p = NULL;

	assert_true(asprintf(&p, "/tmp/rck-test-counters.%ld.%s", (long)getpid(), name) > 0);
	return p;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* @exact false: values past 2^63 go through JSON reals and come back
 * rounded to 12 digits; compare within that. */
static void round_trip(const char *tree, bool exact)
{
	struct rck_ctx *ctx = ctx_for(tree, NULL);
	struct rck_snapshot *s = snap_of(ctx), *l = NULL;
	char *path = tmp_path("save.json"), *a, *b;
	struct rck_delta *d = NULL;

	assert_int_equal(rck_snapshot_save(s, path), 0);
	assert_int_equal(rck_snapshot_load(ctx, path, &l), 0);
	assert_int_equal(rck_snapshot_time_ns(l), rck_snapshot_time_ns(s));
	assert_int_equal(rck_snapshot_port_count(l), rck_snapshot_port_count(s));
	if (exact) {
		a = written(s, NULL, RCK_FORMAT_JSON, false);
		b = written(l, NULL, RCK_FORMAT_JSON, false);
		assert_string_equal(a, b);
		free(a);
		free(b);
		a = written(s, NULL, RCK_FORMAT_TEXT, true);
		b = written(l, NULL, RCK_FORMAT_TEXT, true);
		assert_string_equal(a, b);
		free(a);
		free(b);
	} else {
		json_t *x = json_of(s, NULL), *y = json_of(l, NULL);

		assert_int_equal(json_diff(x, y, tree), 0);
		json_decref(x);
		json_decref(y);
	}
	/* A loaded snapshot against itself: all deltas 0 or a state. */
	assert_int_equal(rck_delta_new(l, l, &d), 0);
	assert_true(rck_delta_seconds(d) == 0);
	/* (efa, first in "nomap", has no byte count to compare.) */
	if (rck_snapshot_port_count(l) && !rck_snapshot_get(l, 0, RCK_CTR_TX_BYTES, &(uint64_t){ 0 })) {
		uint64_t delta = 1;
		double rate = 1;

		assert_int_equal(rck_delta_get(d, 0, RCK_CTR_TX_BYTES, &delta, &rate), RCK_DELTA_OK);
		assert_int_equal(delta, 0);
		assert_true(rate == 0);
	}
	rck_delta_free(d);
	unlink(path);
	free(path);
	rck_snapshot_free(s);
	rck_snapshot_free(l);
	rck_ctx_free(ctx);
}

static void test_save_load(void **state)
{
	(void)state;
	round_trip("mlx5", true);
	round_trip("bnxt", true);
	round_trip("irdma", true);
	round_trip("rxe", true);
	round_trip("broken", true);
	round_trip("empty", true);
}

static void test_saved_saturation(void **state)
{
	struct rck_ctx *ctx = ctx_for("broken", NULL);
	struct rck_snapshot *s = snap_of(ctx), *l = NULL;
	char *path = tmp_path("sat.json");
	struct rck_delta *d = NULL;

	(void)state;
	/* The source survives the save, and with it the saturation width. */
	assert_int_equal(rck_snapshot_save(s, path), 0);
	assert_int_equal(rck_snapshot_load(ctx, path, &l), 0);
	assert_int_equal(rck_delta_new(s, l, &d), 0);
	assert_int_equal(rck_delta_get(d, 0, RCK_CTR_SYMBOL_ERRORS, NULL, NULL), RCK_DELTA_SATURATED);
	assert_int_equal(rck_delta_get(d, 0, RCK_CTR_TX_WAIT, NULL, NULL), RCK_DELTA_SATURATED);
	assert_int_equal(rck_delta_get(d, 0, RCK_CTR_LOCAL_LINK_INTEGRITY_ERRORS, NULL, NULL),
			 RCK_DELTA_SATURATED);
	assert_int_equal(rck_delta_get(d, 0, RCK_CTR_EXCESSIVE_BUFFER_OVERRUN_ERRORS, NULL, NULL),
			 RCK_DELTA_OK);
	assert_int_equal(rck_delta_get_raw(d, 0, "counters/symbol_error", NULL, NULL), RCK_DELTA_SATURATED);
	assert_int_equal(rck_delta_get_raw(d, 0, "counters/link_downed", NULL, NULL), RCK_DELTA_ABSENT);
	rck_delta_free(d);
	unlink(path);
	free(path);
	rck_snapshot_free(s);
	rck_snapshot_free(l);
	rck_ctx_free(ctx);
}

static void test_load_rejects(void **state)
{
	static const struct {
		const char *text, *why;
	} bad[] = {
		{ "not json at all", "line" },
		{ "[1,2]", "not a saved snapshot" },
		{ "{\"devices\":[]}", "no \"version\"" },
		/* Another tool's document is not a snapshot. */
		{ "{\"schema\":\"rocecheck.counters-delta/1\",\"version\":1,\"time_ns\":1,\"devices\":[]}",
		  "\"schema\" is not rocecheck.counters/2" },
		{ "{\"schema\":\"rocecheck.counters/2\",\"version\":2,\"time_ns\":1,\"devices\":[{\"name\":\"x\","
		  "\"ports\":[{\"port\":1,\"counters\":{},\"raw\":{},\"counter_map\":1}]}]}", "counter_map" },
		{ "{\"version\":3,\"time_ns\":1,\"devices\":[]}", "unsupported" },
		{ "{\"version\":0,\"time_ns\":1,\"devices\":[]}", "unsupported" },
		/* Version 2 is exact: no reals, big values as canonical strings. */
		{ "{\"version\":2,\"time_ns\":1,\"devices\":[{\"name\":\"x\",\"ports\":[{\"port\":1,"
		  "\"counters\":{\"rx_bytes\":1e19},\"raw\":{}}]}]}", "rx_bytes" },
		{ "{\"version\":2,\"time_ns\":1,\"devices\":[{\"name\":\"x\",\"ports\":[{\"port\":1,"
		  "\"counters\":{\"rx_bytes\":\"18446744073709551616\"},\"raw\":{}}]}]}", "rx_bytes" },
		{ "{\"version\":2,\"time_ns\":1,\"devices\":[{\"name\":\"x\",\"ports\":[{\"port\":1,"
		  "\"counters\":{\"rx_bytes\":\"5\"},\"raw\":{}}]}]}", "rx_bytes" },
		{ "{\"version\":2,\"time_ns\":1,\"host\":7,\"devices\":[]}", "host" },
		{ "{\"version\":1,\"devices\":[]}", "time_ns" },
		{ "{\"version\":1,\"time_ns\":-5,\"devices\":[]}", "time_ns" },
		{ "{\"version\":1,\"time_ns\":1}", "devices" },
		{ "{\"version\":1,\"time_ns\":1,\"devices\":[{\"name\":\"x\"}]}", "ports" },
		{ "{\"version\":1,\"time_ns\":1,\"devices\":[{\"name\":\"x\",\"ports\":[{\"port\":0}]}]}", "port" },
		{ "{\"version\":1,\"time_ns\":1,\"devices\":[{\"name\":\"x\",\"ports\":[{\"port\":1,"
		  "\"counters\":{\"rx_bytes\":\"many\"},\"raw\":{}}]}]}", "rx_bytes" },
		{ "{\"version\":1,\"time_ns\":1,\"devices\":[{\"name\":\"x\",\"ports\":[{\"port\":1,"
		  "\"counters\":{\"pfc_rx_pause\":[1,2]},\"raw\":{}}]}]}", "pfc_rx_pause" },
		{ "{\"version\":1,\"time_ns\":1,\"devices\":[{\"name\":\"x\",\"ports\":[{\"port\":1,"
		  "\"counters\":{\"rx_bytes\":1.5},\"raw\":{}}]}]}", "rx_bytes" },
		{ "{\"version\":1,\"time_ns\":1,\"devices\":[{\"name\":\"x\",\"ports\":[{\"port\":1,"
		  "\"counters\":{},\"raw\":{\"a/b\":[1]}}]}]}", "a/b" },
		{ "{\"version\":1,\"time_ns\":1,\"devices\":[{\"name\":\"x\",\"ports\":[{\"port\":1,"
		  "\"counters\":{}}]}]}", "raw" },
		{ "{\"version\":1,\"version\":1,\"time_ns\":1,\"devices\":[]}", "line" },
	};
	struct logs logs;
	struct rck_ctx *ctx = ctx_for(NULL, &logs);
	char *path = tmp_path("bad.json");
	struct rck_snapshot *s = NULL;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		write_file(path, bad[i].text);
		logs.errors = 0;
		if (rck_snapshot_load(ctx, path, &s) != -EINVAL)
			fail_msg("accepted: %s", bad[i].text);
		assert_null(s);
		assert_int_equal(logs.errors, 1);
		if (!strstr(logs.last, path) || !strstr(logs.last, bad[i].why))
			fail_msg("%s: message '%s' does not say '%s'", bad[i].text, logs.last, bad[i].why);
	}
	/* The smallest valid file. */
	write_file(path, "{\"version\":1,\"time_ns\":1,\"devices\":[{\"name\":\"x\",\"ports\":[{\"port\":1,"
			 "\"counters\":{\"rx_bytes\":1e19},\"raw\":{\"a/b\":null}}]}]}");
	assert_int_equal(rck_snapshot_load(ctx, path, &s), 0);
	assert_int_equal(rck_snapshot_get(s, 0, RCK_CTR_RX_BYTES, NULL), 0);
	assert_int_equal(rck_snapshot_get(s, 0, RCK_CTR_TX_BYTES, NULL), -ENOENT);
	rck_snapshot_free(s);
	s = NULL;
	unlink(path);
	assert_int_equal(rck_snapshot_load(ctx, path, &s), -ENOENT);
	free(path);
	rck_ctx_free(ctx);
	ctx = ctx_for("mlx5", NULL);
	s = snap_of(ctx);
	assert_int_equal(rck_snapshot_save(s, "/nonexistent/dir/x.json"), -ENOENT);
	rck_snapshot_free(s);
	rck_ctx_free(ctx);
}

/* Nothing but @name in directory @dir. */
static void assert_only(const char *dir, const char *name)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "test \"$(ls -A '%s')\" = '%s'", dir, name);
	if (system(cmd))
		fail_msg("%s holds more than %s", dir, name);
}

static void test_save_policy(void **state)
{
	struct rck_ctx *ctx = ctx_for("mlx5", NULL);
	struct rck_snapshot *s = snap_of(ctx), *l = NULL;
	volatile sig_atomic_t cancel = 1;
	char *dir = tmp_path("savedir"), *path, *link, cmd[512];
	struct stat st;

	(void)state;
	assert_int_equal(mkdir(dir, 0700), 0);
	assert_true(asprintf(&path, "%s/snap.json", dir) > 0);
	assert_true(asprintf(&link, "%s/link.json", dir) > 0);
	/* Cancelled before it starts: nothing written at all. */
	assert_int_equal(rck_snapshot_save_cancellable(s, path, &cancel), -ECANCELED);
	assert_int_equal(access(path, F_OK), -1);
	snprintf(cmd, sizeof(cmd), "test -z \"$(ls -A '%s')\"", dir);
	assert_int_equal(system(cmd), 0);
	/* Saved: the mode of an existing file is kept, no temporary is left. */
	assert_int_equal(rck_snapshot_set_host(s, "node-17"), 0);
	assert_int_equal(rck_snapshot_save(s, path), 0);
	assert_int_equal(chmod(path, 0640), 0);
	assert_int_equal(rck_snapshot_save(s, path), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0640);
	assert_only(dir, "snap.json");
	cancel = 1;
	assert_int_equal(rck_snapshot_save_cancellable(s, path, &cancel), -ECANCELED);
	assert_only(dir, "snap.json");
	assert_int_equal(rck_snapshot_load(ctx, path, &l), 0);
	assert_string_equal(rck_snapshot_host(l), "node-17");
	rck_snapshot_free(l);
	/* A symlink is refused, neither followed nor replaced. */
	assert_int_equal(symlink("snap.json", link), 0);
	assert_int_equal(rck_snapshot_save(s, link), -ELOOP);
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(rck_snapshot_save(s, dir), -EISDIR);
	assert_int_equal(rck_snapshot_set_host(s, NULL), 0);
	assert_null(rck_snapshot_host(s));
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	free(path);
	free(link);
	free(dir);
	rck_snapshot_free(s);
	rck_ctx_free(ctx);
}

/* ---- the recorded `ethtool -S` form ---- */

static void test_sidecar(void **state)
{
	struct logs logs;
	struct rck_ctx *ctx = ctx_for(NULL, &logs);
	char *path = tmp_path("ethtool.txt");
	struct ctr_port p;
	const struct ctr_raw *r;

	(void)state;
	memset(&p, 0, sizeof(p));
	write_file(path, "NIC statistics:\n"
			 "     rx_packets: 12\n"
			 "     [3]: tx_bytes: 0x20\n"
			 "no separator here\n"
			 "     weird: abc\n"
			 "     empty: \n"
			 "     rx_packets: 99\n"
			 ": 5\n"
			 "\tbad\x01name: 7\n"
			 "     huge: 18446744073709551616");
	assert_int_equal(ctr_sidecar_read(ctx, path, "ethtool", &p), 0);
	ctr_raw_finish(&p);
	assert_int_equal(p.n_raw, 6);
	r = ctr_raw_find(&p, "ethtool/rx_packets");
	assert_non_null(r);
	assert_int_equal(r->state, RAW_OK);
	assert_int_equal(r->val, 12); /* the first of a repeated name */
	r = ctr_raw_find(&p, "ethtool/[3]: tx_bytes");
	assert_non_null(r);
	/* Decimal only, as everywhere the kernel writes numbers. */
	assert_int_equal(r->state, RAW_TEXT);
	assert_string_equal(r->text, "0x20");
	r = ctr_raw_find(&p, "ethtool/weird");
	assert_int_equal(r->state, RAW_TEXT);
	assert_string_equal(r->text, "abc");
	assert_string_equal(ctr_raw_find(&p, "ethtool/empty")->text, "");
	assert_int_equal(ctr_raw_find(&p, "ethtool/huge")->state, RAW_TEXT);
	/* Control characters never reach the JSON. */
	assert_non_null(ctr_raw_find(&p, "ethtool/bad?name"));
	assert_true(logs.warnings >= 2);
	ctr_port_clear(&p);
	unlink(path);
	assert_int_equal(ctr_sidecar_read(ctx, path, "ethtool", &p), -ENOENT);
	free(path);
	rck_ctx_free(ctx);
}

static void test_saturation_widths(void **state)
{
	(void)state;
	assert_int_equal(ctr_saturation_bits("counters/symbol_error"), 16);
	assert_int_equal(ctr_saturation_bits("counters/link_error_recovery"), 8);
	assert_int_equal(ctr_saturation_bits("counters/link_downed"), 8);
	assert_int_equal(ctr_saturation_bits("counters/port_rcv_errors"), 16);
	assert_int_equal(ctr_saturation_bits("counters/port_xmit_discards"), 16);
	assert_int_equal(ctr_saturation_bits("counters/local_link_integrity_errors"), 4);
	assert_int_equal(ctr_saturation_bits("counters/excessive_buffer_overrun_errors"), 4);
	assert_int_equal(ctr_saturation_bits("counters/port_rcv_remote_physical_errors"), 16);
	assert_int_equal(ctr_saturation_bits("counters/port_rcv_switch_relay_errors"), 16);
	assert_int_equal(ctr_saturation_bits("counters/port_xmit_constraint_errors"), 8);
	assert_int_equal(ctr_saturation_bits("counters/port_rcv_constraint_errors"), 8);
	assert_int_equal(ctr_saturation_bits("counters/VL15_dropped"), 16);
	assert_int_equal(ctr_saturation_bits("counters/port_xmit_wait"), 32);
	assert_int_equal(ctr_saturation_bits("counters/port_xmit_data"), 0);
	assert_int_equal(ctr_saturation_bits("hw_counters/link_downed"), 0);
	assert_int_equal(ctr_source_bits("counters/symbol_error"), 16);
	assert_int_equal(ctr_source_bits("counters/port_xmit_wait*4"), 0);
	assert_int_equal(ctr_source_bits(NULL), 0);
}

/* The monitor's file cache: a kept file read again sees what was written in
 * place (pread at 0), a listing is kept, a missing file is not. */
static void test_sysfs_cache(void **state)
{
	char dir[] = "/tmp/rck-sc-XXXXXX", path[256], buf[64];
	struct sysfs_cache *c = NULL;
	char **names = NULL;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/a", dir);
	assert_non_null(f = fopen(path, "w"));
	fputs("5\n", f);
	fclose(f);
	assert_int_equal(sysfs_cache_new(&c), 0);
	assert_int_equal(sysfs_cache_read_str(c, path, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "5");
	assert_non_null(f = fopen(path, "w"));
	fputs("1234\n", f);
	fclose(f);
	assert_int_equal(sysfs_cache_read_str(c, path, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "1234");
	assert_int_equal(sysfs_cache_list(c, dir, &names), 1);
	assert_string_equal(names[0], "a");
	sysfs_cache_names_free(c, dir, names);
	assert_int_equal(sysfs_cache_list(c, dir, &names), 1);
	sysfs_cache_names_free(c, dir, names);
	assert_int_equal(unlink(path), 0);
	snprintf(path, sizeof(path), "%s/none", dir);
	assert_int_equal(sysfs_cache_read_str(c, path, buf, sizeof(buf)), -ENOENT);
	sysfs_cache_free(c);
	assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_saturation_widths),
		cmocka_unit_test(test_mlx5),
		cmocka_unit_test(test_bnxt),
		cmocka_unit_test(test_irdma),
		cmocka_unit_test(test_rxe),
		cmocka_unit_test(test_broken),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_select),
		cmocka_unit_test(test_text),
		cmocka_unit_test_setup_teardown(test_delta_states, pair_setup, pair_teardown),
		cmocka_unit_test_setup_teardown(test_delta_write, pair_setup, pair_teardown),
		cmocka_unit_test(test_delta_ports),
		cmocka_unit_test(test_nomap),
		cmocka_unit_test(test_save_load),
		cmocka_unit_test(test_saved_saturation),
		cmocka_unit_test(test_load_rejects),
		cmocka_unit_test(test_save_policy),
		cmocka_unit_test(test_sidecar),
		cmocka_unit_test(test_sysfs_cache),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
