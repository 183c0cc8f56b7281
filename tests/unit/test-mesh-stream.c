/* The sweep result streamed out and back: write -> load -> write gives the
 * same bytes (files past the reader's buffer, the recorded fixture), and
 * the streaming loader's own refusals name the line. */
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

static char logged[512];

static void log_fn(void *data, int priority, const char *msg)
{
	(void)data;
	(void)priority;
	snprintf(logged, sizeof(logged), "%s", msg);
}

/* @hosts hosts of two NICs each, added interleaved (NIC ids are not in
 * host order), a full mesh per rail, retests, counters, one host down. */
static struct rck_mesh *big(unsigned int hosts)
{
	struct rck_mesh_info info = {.size = sizeof(info), .pattern = "full", .rails = "same",
				     .start_ns = 1764750000123456789ULL, .seconds = 321.125};
	struct rck_mesh *m;

	assert_int_equal(rck_mesh_new(&m), 0);
	assert_int_equal(rck_mesh_set_info(m, &info), 0);
	for (unsigned int h = 0; h < hosts; h++) {
		char name[32];

		snprintf(name, sizeof(name), "gpu-%04u.rack%u", h, h / 16);
		assert_int_equal(rck_mesh_add_host(m, name, NULL), 0);
	}
	for (unsigned int r = 0; r < 2; r++)
		for (unsigned int k = 0; k < hosts; k++) {
			unsigned int h = (k * 7 + r) % hosts;
			char dev[16];
			struct rck_mesh_nic nic = {.size = sizeof(nic), .device = dev, .port = 1, .rail = (int)r,
						   .netdev = r ? "ens2f1np1" : "ens2f0np0", .state = "ACTIVE",
						   .fw_ver = "28.39.1002", .rate_gbps = 400, .active_mtu = 4096,
						   .netdev_mtu = 9000, .gid_index = 3,
						   .counters = (1ULL << RCK_CTR_CNP_SENT) | (1ULL << RCK_CTR_ECN_MARKED_PACKETS)};

			snprintf(dev, sizeof(dev), "mlx5_%u", r);
			assert_int_equal(rck_mesh_add_nic(m, h, &nic, NULL), 0);
		}
	/* Quotes and backslashes escaped both ways; control bytes from a file
	 * load as '?' (mesh/result_load.c), so none here. */
	assert_int_equal(rck_mesh_host_set_unreachable(m, hosts - 1, "launcher: exit 255 \"ssh\" \\ tab"), 0);
	for (unsigned int r = 0; r < 2; r++)
		for (unsigned int a = 0; a < hosts; a++)
			for (unsigned int b = 0; b < hosts; b++) {
				unsigned int src, dst, cell;
				struct rck_mesh_meas x = {.size = sizeof(x), .status = RCK_MESH_OK,
							  .gbps = 390.0 + (a * 31 + b) % 97 / 7.0, .lat_p50_us = NAN,
							  .lat_p99_us = NAN, .start_s = (a + b) * 0.1, .seconds = 0.1};

				if (a == b)
					continue;
				assert_int_equal(rck_mesh_host_nic(m, a, r, &src), 0);
				assert_int_equal(rck_mesh_host_nic(m, b, r, &dst), 0);
				if (b == hosts - 1) {
					x.status = RCK_MESH_UNREACHABLE;
					x.gbps = NAN;
					x.reason = "host gpu down";
				}
				assert_int_equal(rck_mesh_set_result(m, RCK_MESH_TEST_BW, src, dst, 0, &x, &cell), 0);
				if ((a + b) % 5 == 0)
					assert_int_equal(rck_mesh_set_counter(m, cell, 0, RCK_MESH_DST,
									      RCK_CTR_ECN_MARKED_PACKETS, a * 1000 + b), 0);
				if ((a * b) % 11 == 3) {
					x.gbps = 12.5;
					assert_int_equal(rck_mesh_set_result(m, RCK_MESH_TEST_BW, src, dst, 1, &x, NULL), 0);
					assert_int_equal(rck_mesh_set_result(m, RCK_MESH_TEST_BW, src, dst, 2, &x, NULL), 0);
					assert_int_equal(rck_mesh_set_counter(m, cell, 2, RCK_MESH_SRC, RCK_CTR_CNP_SENT, 9), 0);
				}
			}
	return m;
}

static char *write_file(const struct rck_mesh *m, enum rck_format fmt, char *path, size_t *len)
{
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w+");
	char *buf = NULL;

	assert_non_null(f);
	assert_int_equal(rck_mesh_write(m, f, fmt), 0);
	*len = (size_t)ftell(f);
	rewind(f);
	buf = malloc(*len + 1);
	assert_int_equal(fread(buf, 1, *len, f), *len);
	buf[*len] = '\0';
	fclose(f);
	return buf;
}

static void round_trip(const struct rck_mesh *m, enum rck_format fmt)
{
	char p1[] = "/tmp/rck-stream-XXXXXX", p2[] = "/tmp/rck-stream-XXXXXX";
	struct rck_mesh *back, *again;
	struct rck_ctx *ctx;
	size_t l1, l2;
	char *a = write_file(m, fmt, p1, &l1), *b;

	assert_int_equal(rck_ctx_new(&ctx), 0);
	rck_ctx_set_log_fn(ctx, log_fn, NULL);
	/* From the file, read in chunks, and from one buffer. */
	if (rck_mesh_load(ctx, p1, &back))
		fail_msg("load: %s", logged);
	b = write_file(back, fmt, p2, &l2);
	assert_int_equal(l1, l2);
	assert_memory_equal(a, b, l1);
	assert_int_equal(rck_mesh_load_buf(ctx, b, l2, "again", &again), 0);
	assert_int_equal(rck_mesh_cell_count(again), rck_mesh_cell_count(m));
	assert_int_equal(rck_mesh_nic_count(again), rck_mesh_nic_count(m));
	unlink(p1);
	unlink(p2);
	free(a);
	free(b);
	rck_mesh_free(back);
	rck_mesh_free(again);
	rck_ctx_free(ctx);
}

static void test_round_trip_big(void **state)
{
	struct rck_mesh *m = big(40);

	(void)state;
	round_trip(m, RCK_FORMAT_JSON);
	round_trip(m, RCK_FORMAT_JSON_PRETTY);
	rck_mesh_free(m);
}

/* The recorded sweep: loaded, written compact, loaded, the same bytes. */
static void test_round_trip_fixture(void **state)
{
	const char *dir = getenv("ROCECHECK_FIXTURES");
	struct rck_mesh *m;
	struct rck_ctx *ctx;
	char path[4096];

	(void)state;
	assert_non_null(dir);
	snprintf(path, sizeof(path), "%s/mesh/sample.json", dir);
	assert_int_equal(rck_ctx_new(&ctx), 0);
	assert_int_equal(rck_mesh_load(ctx, path, &m), 0);
	round_trip(m, RCK_FORMAT_JSON);
	round_trip(m, RCK_FORMAT_JSON_PRETTY);
	rck_mesh_free(m);
	rck_ctx_free(ctx);
}

#define NIC "{\"id\":%d,\"device\":\"d\",\"port\":1,\"rail\":0,\"rate_gbps\":0,\"active_mtu\":0," \
	    "\"netdev_mtu\":0,\"gid_index\":-1,\"counters\":[]}"
#define HOSTS "\"hosts\":[{\"name\":\"a\",\"nics\":[" NIC "]},{\"name\":\"b\",\"nics\":[" NIC "]}]"
#define PROBES "\"probes\":[{\"test\":\"bw\",\"src\":0,\"dst\":1,\"attempts\":1,\"result\":{\"status\":\"ok\"," \
	       "\"gbps\":1,\"counters\":{\"src\":{},\"dst\":{}}},\"retest\":null}]"
#define HEAD "\"version\":1,\"start_ns\":0,\"seconds\":1"

static void test_stream_refusals(void **state)
{
	static const struct {
		const char *doc, *msg; /* NULL: loads */
	} docs[] = {
		{"{" HEAD "," HOSTS "," PROBES "}", NULL},
		/* Sorted keys (python's sort_keys) still come hosts first. */
		{"{" HOSTS ",\"pattern\":\"full\"," PROBES ",\"seconds\":1,\"start_ns\":0,\"version\":1}", NULL},
		{"{" HEAD ",\"extra\":{\"x\":[1,2]}," HOSTS "," PROBES "}", NULL},
		{"{" HEAD "," PROBES "," HOSTS "}", "no \"hosts\" array before \"probes\""},
		{"{" HEAD "," HOSTS "," PROBES "} x", "end of file expected"},
		{"{" HEAD "," HOSTS "," PROBES "}{}", "end of file expected"},
		{"{" HEAD "," HOSTS "," PROBES ",}", "string or '}' expected"},
		{"{" HEAD "," HOSTS "," PROBES ",\"seconds\":2}", "duplicate object key"},
		{"{" HEAD "," HOSTS "\n,\n\"probes\":[{\"test\":\"bw\",]}", "t: line 3:"},
		{"{" HEAD ",\"hosts\":[{\"name\":\"a\",\"nics\":[]} {\"name\":\"b\",\"nics\":[]}]}",
		 "',' or ']' expected"},
		{"{" HEAD "," HOSTS ",\"probes\":[", "t: line 1:"},
		{"{" HEAD "," HOSTS, "t: line 1:"},
		{"{\"version\":2," HOSTS "," PROBES "}", "unknown version"},
		{"{\"schema\":\"rocecheck.sweep/1\"," HEAD "," HOSTS "," PROBES "}", "\"schema\" is not rocecheck.mesh/1"},
		{"{" HOSTS "," PROBES ",\"version\":2,\"start_ns\":0,\"seconds\":1}", "unknown version"},
		{"{" HEAD "," HOSTS "}", "no \"probes\" array"},
		{"{" HEAD ",\"hosts\":7," PROBES "}", "no \"hosts\" array"},
		{"{\"version\":1,\"start_ns\":0,\"seconds\":-1," HOSTS "," PROBES "}", "seconds"},
		{"\"text\"", "not a JSON object"},
		{"{" HEAD ",\"x\":" "1e999999999999999999999999999999999999999999999999999999999999999999999999" "}",
		 "t: line 1:"},
	};
	struct rck_ctx *ctx;

	(void)state;
	assert_int_equal(rck_ctx_new(&ctx), 0);
	rck_ctx_set_log_fn(ctx, log_fn, NULL);
	for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		char doc[4096];
		struct rck_mesh *m = NULL;
		int rc;

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
		snprintf(doc, sizeof(doc), docs[i].doc, 0, 1);
#pragma GCC diagnostic pop
		logged[0] = '\0';
		rc = rck_mesh_load_buf(ctx, doc, strlen(doc), "t", &m);
		if (!docs[i].msg) {
			if (rc)
				fail_msg("doc %zu refused: %s", i, logged);
			assert_int_equal(rck_mesh_cell_count(m), 1);
			rck_mesh_free(m);
		} else if (rc != -EINVAL || !strstr(logged, docs[i].msg)) {
			fail_msg("doc %zu: rc %d '%s', want '%s'", i, rc, logged, docs[i].msg);
		}
	}
	rck_ctx_free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip_big),
		cmocka_unit_test(test_round_trip_fixture),
		cmocka_unit_test(test_stream_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
