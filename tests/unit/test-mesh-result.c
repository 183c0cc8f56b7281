/* The sweep result: building it, accessors, counter deltas, the JSON
 * writer and the strict loader (round trip, refusals with a reason).
 * `test-mesh-result --emit` prints the sample sweep as JSON for the
 * schema test (tests/unit/mesh-schema.sh), `--text` as text. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include <cmocka.h>

#include "rocecheck/rocecheck.h"

#define CTRS ((1ULL << RCK_CTR_ECN_MARKED_PACKETS) | (1ULL << RCK_CTR_CNP_SENT) | \
	      (1ULL << RCK_CTR_CNP_HANDLED) | (1ULL << RCK_CTR_OUT_OF_SEQUENCE) | \
	      (1ULL << RCK_CTR_LOCAL_ACK_TIMEOUTS) | (1ULL << (RCK_CTR_PFC_RX_PAUSE + 3)) | \
	      (1ULL << (RCK_CTR_PFC_TX_PAUSE + 3)))

/* A small recorded-looking sweep: 3 hosts, 2 rails on two of them, one
 * host unreachable, bw and lat cells, counters, one retest. */
static struct rck_mesh *sample(void)
{
	struct rck_mesh_info info = {.size = sizeof(info), .pattern = "full", .rails = "same",
				     .start_ns = 1764750000000000000ULL, .seconds = 12.5};
	struct rck_mesh *m;
	unsigned int cell;

	assert_int_equal(rck_mesh_new(&m), 0);
	assert_int_equal(rck_mesh_set_info(m, &info), 0);
	for (unsigned int h = 0; h < 3; h++) {
		char name[16];

		snprintf(name, sizeof(name), "node%02u", h + 1);
		assert_int_equal(rck_mesh_add_host(m, name, NULL), 0);
		for (unsigned int r = 0; r < (h == 2 ? 1u : 2u); r++) {
			char dev[16], nd[16];
			struct rck_mesh_nic nic = {.size = sizeof(nic), .device = dev, .port = 1, .rail = -1,
						   .netdev = nd, .state = "ACTIVE", .fw_ver = "28.39.1002",
						   .rate_gbps = 100, .active_mtu = 4096, .netdev_mtu = 9000,
						   .gid_index = 3, .counters = h == 2 ? 0 : CTRS};

			snprintf(dev, sizeof(dev), "mlx5_%u", r);
			snprintf(nd, sizeof(nd), "eth%u", r);
			assert_int_equal(rck_mesh_add_nic(m, h, &nic, NULL), 0);
		}
	}
	assert_int_equal(rck_mesh_host_set_unreachable(m, 2, "connect: no route to host"), 0);
	{
		struct rck_mesh_meas bw = {.size = sizeof(bw), .status = RCK_MESH_OK, .gbps = 96.25,
					   .lat_p50_us = NAN, .lat_p99_us = NAN, .start_s = 0.5, .seconds = 2};
		struct rck_mesh_meas lat = {.size = sizeof(lat), .status = RCK_MESH_OK, .gbps = NAN,
					    .lat_p50_us = 2.5, .lat_p99_us = 4.75, .start_s = 3, .seconds = 1};
		struct rck_mesh_meas gone = {.size = sizeof(gone), .status = RCK_MESH_UNREACHABLE,
					     .gbps = NAN, .lat_p50_us = NAN, .lat_p99_us = NAN,
					     .start_s = NAN, .seconds = NAN, .reason = "host node03 is dead"};

		/* NIC 0, 1 on node01; 2, 3 on node02; 4 on node03. */
		assert_int_equal(rck_mesh_set_result(m, RCK_MESH_TEST_BW, 0, 2, 0, &bw, &cell), 0);
		assert_int_equal(rck_mesh_set_counter(m, cell, 0, RCK_MESH_DST, RCK_CTR_ECN_MARKED_PACKETS, 1200), 0);
		assert_int_equal(rck_mesh_set_counter(m, cell, 0, RCK_MESH_SRC, RCK_CTR_CNP_HANDLED, 1100), 0);
		assert_int_equal(rck_mesh_set_counter(m, cell, 0, RCK_MESH_DST, RCK_CTR_PFC_TX_PAUSE + 3, 7), 0);
		bw.gbps = 41.5;
		bw.start_s = 2.5;
		assert_int_equal(rck_mesh_set_result(m, RCK_MESH_TEST_BW, 2, 0, 0, &bw, &cell), 0);
		assert_int_equal(rck_mesh_set_counter(m, cell, 0, RCK_MESH_SRC, RCK_CTR_OUT_OF_SEQUENCE, 31), 0);
		bw.gbps = 42;
		bw.start_s = 10;
		assert_int_equal(rck_mesh_set_result(m, RCK_MESH_TEST_BW, 2, 0, 1, &bw, NULL), 0);
		assert_int_equal(rck_mesh_set_counter(m, cell, 1, RCK_MESH_SRC, RCK_CTR_OUT_OF_SEQUENCE, 29), 0);
		assert_int_equal(rck_mesh_set_result(m, RCK_MESH_TEST_LAT, 1, 3, 0, &lat, NULL), 0);
		assert_int_equal(rck_mesh_set_result(m, RCK_MESH_TEST_BW, 0, 4, 0, &gone, NULL), 0);
		bw.status = RCK_MESH_FAILED;
		bw.gbps = NAN;
		bw.reason = "RDMA: completion with status 12 (transport retry counter exceeded)";
		assert_int_equal(rck_mesh_set_result(m, RCK_MESH_TEST_BW, 3, 1, 0, &bw, NULL), 0);
	}
	return m;
}

static char *write_str(const struct rck_mesh *m, enum rck_format fmt)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(rck_mesh_write(m, f, fmt), 0);
	fclose(f);
	return buf;
}

static void test_accessors(void **state)
{
	struct rck_mesh *m = sample();
	struct rck_mesh_meas x = {.size = sizeof(x)};
	struct rck_mesh_nic nic = {.size = sizeof(nic)};
	struct rck_mesh_info info = {.size = sizeof(info)};
	enum rck_mesh_test t;
	unsigned int cell, src, dst, h;
	uint64_t v;

	(void)state;
	assert_int_equal(rck_mesh_host_count(m), 3);
	assert_int_equal(rck_mesh_nic_count(m), 5);
	assert_int_equal(rck_mesh_find_host(m, "node02", &h), 0);
	assert_int_equal(h, 1);
	assert_int_equal(rck_mesh_find_host(m, "node09", &h), -ENOENT);
	assert_string_equal(rck_mesh_host_unreachable(m, 2), "connect: no route to host");
	assert_null(rck_mesh_host_unreachable(m, 0));
	assert_int_equal(rck_mesh_host_nic_count(m, 1), 2);
	assert_int_equal(rck_mesh_host_nic(m, 1, 1, &src), 0);
	assert_int_equal(src, 3);
	assert_int_equal(rck_mesh_get_nic(m, 3, &nic, &h), 0);
	assert_string_equal(nic.device, "mlx5_1");
	assert_int_equal(nic.rail, 1);
	assert_int_equal(h, 1);
	assert_int_equal(rck_mesh_get_info(m, &info), 0);
	assert_string_equal(info.pattern, "full");
	assert_true(info.seconds == 12.5);

	assert_int_equal(rck_mesh_cell_count(m), 5);
	assert_int_equal(rck_mesh_find_cell(m, RCK_MESH_TEST_BW, 2, 0, &cell), 0);
	assert_int_equal(rck_mesh_cell(m, cell, &t, &src, &dst), 0);
	assert_int_equal(t, RCK_MESH_TEST_BW);
	assert_int_equal(src, 2);
	assert_int_equal(dst, 0);
	assert_int_equal(rck_mesh_cell_attempts(m, cell), 2);
	assert_int_equal(rck_mesh_cell_meas(m, cell, 1, &x), 0);
	assert_true(x.gbps == 42);
	assert_int_equal(rck_mesh_cell_counter(m, cell, 0, RCK_MESH_SRC, RCK_CTR_OUT_OF_SEQUENCE, &v), 0);
	assert_int_equal(v, 31);
	assert_int_equal(rck_mesh_cell_counter(m, cell, 1, RCK_MESH_SRC, RCK_CTR_OUT_OF_SEQUENCE, &v), 0);
	assert_int_equal(v, 29);
	/* A counter the NIC has and nothing recorded: 0; one it lacks: absent. */
	assert_int_equal(rck_mesh_cell_counter(m, cell, 0, RCK_MESH_DST, RCK_CTR_CNP_SENT, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(rck_mesh_cell_counter(m, cell, 0, RCK_MESH_DST, RCK_CTR_RX_BYTES, &v), -ENOENT);
	assert_int_equal(rck_mesh_set_counter(m, cell, 0, RCK_MESH_DST, RCK_CTR_RX_BYTES, 1), -ENOENT);
	assert_int_equal(rck_mesh_find_cell(m, RCK_MESH_TEST_LAT, 2, 0, &cell), -ENOENT);

	/* Refusals. */
	x.status = RCK_MESH_OK;
	assert_int_equal(rck_mesh_set_result(m, RCK_MESH_TEST_BW, 1, 1, 0, &x, NULL), -EINVAL);
	assert_int_equal(rck_mesh_set_result(m, RCK_MESH_TEST_BW, 1, 9, 0, &x, NULL), -EINVAL);
	assert_int_equal(rck_mesh_set_result(m, RCK_MESH_TEST_COUNT, 1, 2, 0, &x, NULL), -EINVAL);
	assert_int_equal(rck_mesh_set_result(m, RCK_MESH_TEST_BW, 1, 2, RCK_MESH_RETEST_MAX + 1, &x, NULL), -EINVAL);
	/* Attempts come in order: the next one, never one past it. */
	assert_int_equal(rck_mesh_find_cell(m, RCK_MESH_TEST_BW, 2, 0, &cell), 0);
	assert_int_equal(rck_mesh_set_result(m, RCK_MESH_TEST_BW, 2, 0, 3, &x, NULL), -ENOENT);
	assert_int_equal(rck_mesh_add_host(m, "node01", NULL), -EEXIST);
	nic.device = "mlx5_0";
	nic.port = 1;
	assert_int_equal(rck_mesh_add_nic(m, 0, &nic, NULL), -EEXIST);
	nic.port = 0;
	assert_int_equal(rck_mesh_add_nic(m, 0, &nic, NULL), -EINVAL);
	assert_string_equal(rck_mesh_status_name(RCK_MESH_UNREACHABLE), "unreachable");
	assert_null(rck_mesh_status_name(RCK_MESH_STATUS_COUNT));
	assert_string_equal(rck_mesh_test_name(RCK_MESH_TEST_LAT), "lat");
	rck_mesh_free(m);
}

static char logged[512];

static void log_fn(void *data, int prio, const char *msg)
{
	(void)data;
	(void)prio;
	snprintf(logged, sizeof(logged), "%s", msg);
}

static void test_round_trip(void **state)
{
	struct rck_mesh *m = sample(), *back;
	struct rck_ctx *ctx;
	char *a, *b, *text;

	struct rck_mesh_meas x = {.size = sizeof(x), .status = RCK_MESH_OK, .gbps = 43,
				  .lat_p50_us = NAN, .lat_p99_us = NAN};
	unsigned int cell;

	(void)state;
	assert_int_equal(rck_ctx_new(&ctx), 0);
	/* Rounds of retests: attempts 2 and 3 round-trip in "later_retests". */
	assert_int_equal(rck_mesh_find_cell(m, RCK_MESH_TEST_BW, 2, 0, &cell), 0);
	assert_int_equal(rck_mesh_set_result(m, RCK_MESH_TEST_BW, 2, 0, 2, &x, NULL), 0);
	x.gbps = 44;
	assert_int_equal(rck_mesh_set_result(m, RCK_MESH_TEST_BW, 2, 0, 3, &x, NULL), 0);
	assert_int_equal(rck_mesh_set_counter(m, cell, 3, RCK_MESH_DST, RCK_CTR_CNP_SENT, 5), 0);
	assert_int_equal(rck_mesh_cell_attempts(m, cell), 4);
	a = write_str(m, RCK_FORMAT_JSON_PRETTY);
	assert_non_null(strstr(a, "\"later_retests\""));
	assert_int_equal(rck_mesh_load_buf(ctx, a, strlen(a), "sample", &back), 0);
	b = write_str(back, RCK_FORMAT_JSON_PRETTY);
	assert_string_equal(a, b);
	assert_non_null(strstr(a, "\"pfc_tx_pause[3]\": 7"));
	assert_non_null(strstr(a, "\"missing_rails\": [\n        1\n      ]"));
	text = write_str(m, RCK_FORMAT_TEXT);
	assert_non_null(strstr(text, "bw  node01/mlx5_0/1 -> node02/mlx5_0/1 ok 96.2 Gb/s src.cnp_handled=1100 dst.ecn_marked_packets=1200"));
	assert_non_null(strstr(text, "; retest ok 42.0 Gb/s src.out_of_sequence=29"));
	assert_non_null(strstr(text, "host node03 unreachable: connect: no route to host\n  missing rail 1\n"));
	free(text);
	free(a);
	free(b);
	rck_mesh_free(back);
	rck_mesh_free(m);
	rck_ctx_free(ctx);
}

static void test_load_refusals(void **state)
{
	static const char hosts[] = "\"hosts\":[{\"name\":\"a\",\"unreachable\":null,\"nics\":[{\"id\":0,"
				    "\"device\":\"d\",\"port\":1,\"rail\":0,\"rate_gbps\":0,\"active_mtu\":0,"
				    "\"netdev_mtu\":0,\"gid_index\":-1,\"counters\":[\"cnp_sent\"]}]},"
				    "{\"name\":\"b\",\"nics\":[{\"id\":1,\"device\":\"d\",\"port\":1,\"rail\":0,"
				    "\"rate_gbps\":0,\"active_mtu\":0,\"netdev_mtu\":0,\"gid_index\":-1,"
				    "\"counters\":[]}]}]";
	static const char ok[] = "{\"status\":\"ok\",\"gbps\":1,\"counters\":{\"src\":{},\"dst\":{}}}";
	static const struct {
		const char *probes, *msg;
	} cases[] = {
		{"[]", NULL},
		{"[{\"test\":\"bw\",\"src\":0,\"dst\":1,\"attempts\":1,\"result\":%s,\"retest\":null}]", NULL},
		{"[{\"test\":\"bw\",\"src\":0,\"dst\":1,\"attempts\":3,\"result\":%s,\"retest\":%s}]", "attempts does not match"},
		{"[{\"test\":\"xx\",\"src\":0,\"dst\":1,\"attempts\":1,\"result\":%s}]", "probes[0]: unknown test"},
		{"[{\"test\":\"bw\",\"src\":0,\"dst\":2,\"attempts\":1,\"result\":%s}]", "probes[0]: dst"},
		{"[{\"test\":\"bw\",\"src\":1,\"dst\":1,\"attempts\":1,\"result\":%s}]", "src equals dst"},
		{"[{\"test\":\"bw\",\"src\":0,\"dst\":1,\"attempts\":2,\"result\":%s}]", "attempts does not match"},
		{"[{\"test\":\"bw\",\"src\":0,\"dst\":1,\"attempts\":1,\"result\":%s},"
		 "{\"test\":\"bw\",\"src\":0,\"dst\":1,\"attempts\":1,\"result\":%s}]", "probes[1]: the same test"},
		{"[{\"test\":\"bw\",\"src\":0,\"dst\":1,\"attempts\":1,\"result\":{\"status\":\"meh\"}}]",
		 "unknown status"},
		{"[{\"test\":\"bw\",\"src\":0,\"dst\":1,\"attempts\":1,\"result\":{\"status\":\"ok\",\"gbps\":-1}}]",
		 "probes[0]: gbps"},
		{"[{\"test\":\"bw\",\"src\":0,\"dst\":1,\"attempts\":1,\"result\":{\"status\":\"ok\","
		 "\"counters\":{\"src\":{\"cnp_sent\":3},\"dst\":{\"cnp_sent\":1}}}}]",
		 "a counter delta the NIC does not have"},
		{"[{\"test\":\"bw\",\"src\":0,\"dst\":1,\"attempts\":1,\"result\":{\"status\":\"ok\","
		 "\"counters\":{\"src\":{\"bogus\":3},\"dst\":{}}}}]", "not a neutral counter"},
	};
	struct rck_ctx *ctx;

	(void)state;
	assert_int_equal(rck_ctx_new(&ctx), 0);
	rck_ctx_set_log_fn(ctx, log_fn, NULL);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char probes[2048], doc[4096];
		struct rck_mesh *m = NULL;
		int rc;

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
		snprintf(probes, sizeof(probes), cases[i].probes, ok, ok);
#pragma GCC diagnostic pop
		snprintf(doc, sizeof(doc), "{\"version\":1,\"start_ns\":0,\"seconds\":1,%s,\"probes\":%s}", hosts,
			 probes);
		logged[0] = '\0';
		rc = rck_mesh_load_buf(ctx, doc, strlen(doc), "t", &m);
		if (!cases[i].msg) {
			if (rc)
				fail_msg("case %zu refused: %s", i, logged);
			rck_mesh_free(m);
		} else if (rc != -EINVAL || !strstr(logged, cases[i].msg)) {
			fail_msg("case %zu: rc %d '%s', want '%s'", i, rc, logged, cases[i].msg);
		}
	}
	{
		static const struct {
			const char *doc, *msg;
		} docs[] = {
			{"", "t: line 1:"},
			{"[]", "not a JSON object"},
			{"{\"version\":2}", "unknown version"},
			{"{\"version\":1,\"start_ns\":0,\"seconds\":1,\"hosts\":{}}", "no \"hosts\" array"},
			{"{\"version\":1,\"start_ns\":0,\"seconds\":1,\"hosts\":[{\"name\":\"a\",\"nics\":[]},"
			 "{\"name\":\"a\",\"nics\":[]}],\"probes\":[]}", "hosts[1]: a host name given twice"},
			{"{\"version\":1,\"start_ns\":0,\"seconds\":1,\"hosts\":[{\"name\":\"a\",\"nics\":[{\"id\":5,"
			 "\"device\":\"d\",\"port\":1,\"rail\":0,\"rate_gbps\":0,\"active_mtu\":0,\"netdev_mtu\":0,"
			 "\"gid_index\":-1,\"counters\":[]}]}],\"probes\":[]}", "NIC ids are not 0, 1, 2"},
			{"{\"version\":1,\"version\":1}", "duplicate"},
		};

		for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
			struct rck_mesh *m = NULL;
			int rc;

			logged[0] = '\0';
			rc = rck_mesh_load_buf(ctx, docs[i].doc, strlen(docs[i].doc), "t", &m);
			if (rc != -EINVAL || !strstr(logged, docs[i].msg))
				fail_msg("doc %zu: rc %d '%s', want '%s'", i, rc, logged, docs[i].msg);
		}
	}
	rck_ctx_free(ctx);
}

static void test_load_file(void **state)
{
	char path[] = "/tmp/rck-mesh-XXXXXX";
	struct rck_mesh *m = sample(), *back;
	struct rck_ctx *ctx;
	int fd = mkstemp(path);
	FILE *f;

	(void)state;
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	assert_int_equal(rck_mesh_write(m, f, RCK_FORMAT_JSON), 0);
	fclose(f);
	assert_int_equal(rck_ctx_new(&ctx), 0);
	assert_int_equal(rck_mesh_load(ctx, path, &back), 0);
	assert_int_equal(rck_mesh_cell_count(back), 5);
	rck_mesh_free(back);
	unlink(path);
	assert_int_equal(rck_mesh_load(ctx, path, &back), -ENOENT);
	rck_ctx_free(ctx);
	rck_mesh_free(m);
}

/* The recorded sweep in tests/fixtures/mesh/ loads and writes back the same. */
static void test_recorded(void **state)
{
	const char *dir = getenv("ROCECHECK_FIXTURES");
	char path[4096], *want = NULL, *got;
	struct rck_mesh *m;
	struct rck_ctx *ctx;
	size_t len = 0;
	FILE *f;

	(void)state;
	if (!dir)
		skip();
	snprintf(path, sizeof(path), "%s/mesh/sample.json", dir);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_int_not_equal(getdelim(&want, &len, '\0', f), -1);
	fclose(f);
	assert_int_equal(rck_ctx_new(&ctx), 0);
	assert_int_equal(rck_mesh_load(ctx, path, &m), 0);
	got = write_str(m, RCK_FORMAT_JSON_PRETTY);
	assert_string_equal(got, want);
	free(got);
	free(want);
	rck_mesh_free(m);
	rck_ctx_free(ctx);
}

/* Names and reasons from a file never bring escape or bell bytes along. */
static void test_load_escapes(void **state)
{
	const char *dir = getenv("ROCECHECK_FIXTURES");
	char path[4096], *doc = NULL, *at, *evil;
	struct rck_mesh *m;
	struct rck_ctx *ctx;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_non_null(dir);
	snprintf(path, sizeof(path), "%s/mesh/sample.json", dir);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_int_not_equal(getdelim(&doc, &len, '\0', f), -1);
	fclose(f);
	at = strstr(doc, "\"node01\"");
	assert_non_null(at);
	evil = malloc(strlen(doc) + 64);
	assert_non_null(evil);
	snprintf(evil, strlen(doc) + 64, "%.*s\"node\\u001b[31mX\\u0007\"%s", (int)(at - doc), doc, at + 8);
	assert_int_equal(rck_ctx_new(&ctx), 0);
	assert_int_equal(rck_mesh_load_buf(ctx, evil, strlen(evil), "evil", &m), 0);
	assert_string_equal(rck_mesh_host_name(m, 0), "node?[31mX?");
	rck_mesh_free(m);
	rck_ctx_free(ctx);
	free(evil);
	free(doc);
}

/* NICs from recorded inventories: the mlx5 and rxe trees. */
static void test_inventory(void **state)
{
	static const char *const trees[] = {"mlx5", "rxe"};
	const char *fix = getenv("ROCECHECK_FIXTURES");
	struct rck_mesh *m;

	(void)state;
	if (!fix)
		skip();
	assert_int_equal(rck_mesh_new(&m), 0);
	for (unsigned int t = 0; t < 2; t++) {
		struct rck_mesh_nic nic = {.size = sizeof(nic)};
		struct rck_inventory *inv;
		struct rck_snapshot *snap;
		struct rck_ctx *ctx;
		char path[4096];
		unsigned int h, n;

		snprintf(path, sizeof(path), "%s/sysfs/%s", fix, trees[t]);
		assert_int_equal(rck_ctx_new(&ctx), 0);
		assert_int_equal(rck_ctx_set_sysfs_root(ctx, path), 0);
		assert_int_equal(rck_inventory_new(ctx, &inv), 0);
		assert_int_equal(rck_snapshot_new(ctx, inv, NULL, 0, &snap), 0);
		assert_int_equal(rck_mesh_add_host(m, trees[t], &h), 0);
		assert_int_equal(rck_mesh_add_inventory(m, h, inv, snap), 0);
		assert_true(rck_mesh_host_nic_count(m, h) >= 1);
		assert_int_equal(rck_mesh_host_nic(m, h, 0, &n), 0);
		assert_int_equal(rck_mesh_get_nic(m, n, &nic, NULL), 0);
		assert_non_null(nic.device);
		assert_int_equal(nic.port, 1);
		assert_int_equal(nic.rail, 0);
		assert_true(nic.gid_index >= 0);
		assert_true(nic.counters != 0);
		/* A second time: the ports are there already. */
		assert_int_equal(rck_mesh_add_inventory(m, h, inv, NULL), -EEXIST);
		rck_snapshot_free(snap);
		rck_inventory_free(inv);
		rck_ctx_free(ctx);
	}
	rck_mesh_free(m);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_recorded),
		cmocka_unit_test(test_load_escapes),
		cmocka_unit_test(test_inventory),
		cmocka_unit_test(test_accessors),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_load_refusals),
		cmocka_unit_test(test_load_file),
	};

	if (argc == 2 && (!strcmp(argv[1], "--emit") || !strcmp(argv[1], "--text"))) {
		struct rck_mesh *m = sample();
		struct rck_mesh_meas x = {.size = sizeof(x), .status = RCK_MESH_OK, .gbps = 43,
					  .lat_p50_us = NAN, .lat_p99_us = NAN};
		int rc;

		/* A later retest too, for the schema test. */
		if (rck_mesh_set_result(m, RCK_MESH_TEST_BW, 2, 0, 2, &x, NULL))
			return 1;
		rc = rck_mesh_write(m, stdout, argv[1][2] == 'e' ? RCK_FORMAT_JSON_PRETTY : RCK_FORMAT_TEXT);

		rck_mesh_free(m);
		return rc ? 1 : 0;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
