/* rck_analysis_add_mesh(): a sweep result (built here, or the recorded
 * fixture loaded with rck_mesh_load()) as analysis input. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rocecheck/rocecheck.h"
#include "finding.h"

#define N 6
#define LOSS_CTRS ((1ULL << RCK_CTR_OUT_OF_SEQUENCE) | (1ULL << RCK_CTR_LOCAL_ACK_TIMEOUTS))

static void set(struct rck_mesh *m, unsigned int src, unsigned int dst, unsigned int attempt,
		enum rck_mesh_status st, double gbps, unsigned int *cell)
{
	struct rck_mesh_meas x = {.size = sizeof(x), .status = st, .gbps = gbps, .lat_p50_us = NAN,
				  .lat_p99_us = NAN, .reason = st == RCK_MESH_OK ? NULL : "why"};

	assert_int_equal(rck_mesh_set_result(m, RCK_MESH_TEST_BW, src, dst, attempt, &x, cell), 0);
}

/* N hosts, one 100 Gb/s NIC each, every directed pair near 95 Gb/s but
 * n1 -> n2 at 40; n0 -> n3 saw retransmissions at its receiver. */
static struct rck_mesh *fabric(void)
{
	struct rck_mesh_info info = {.size = sizeof(info), .pattern = "full", .rails = "same"};
	struct rck_mesh *m;
	unsigned int cell, k = 0;

	assert_int_equal(rck_mesh_new(&m), 0);
	assert_int_equal(rck_mesh_set_info(m, &info), 0);
	for (unsigned int h = 0; h < N; h++) {
		struct rck_mesh_nic nic = {.size = sizeof(nic), .device = "mlx5_0", .port = 1,
					   .rail = -1, .rate_gbps = 100, .gid_index = 3,
					   .counters = LOSS_CTRS, .state = "ACTIVE", .active_mtu = 4096,
					   .netdev_mtu = 9000, .fw_ver = "28.39.1002"};
		char name[8];

		snprintf(name, sizeof(name), "n%u", h);
		assert_int_equal(rck_mesh_add_host(m, name, NULL), 0);
		assert_int_equal(rck_mesh_add_nic(m, h, &nic, NULL), 0);
	}
	for (unsigned int s = 0; s < N; s++)
		for (unsigned int d = 0; d < N; d++) {
			if (s == d)
				continue;
			set(m, s, d, 0, RCK_MESH_OK, s == 1 && d == 2 ? 40 : 95 + (k++ % 5) * 0.4, &cell);
			if (s == 0 && d == 3)
				assert_int_equal(rck_mesh_set_counter(m, cell, 0, RCK_MESH_DST,
								      RCK_CTR_OUT_OF_SEQUENCE, 5000), 0);
		}
	return m;
}

static struct rck_report *analyse(const struct rck_mesh *m)
{
	struct rck_analysis *a;
	struct rck_report *r;

	assert_int_equal(rck_analysis_new(NULL, &a), 0);
	assert_int_equal(rck_analysis_add_mesh(a, m), 0);
	assert_int_equal(rck_analysis_run(a, &r), 0);
	rck_analysis_free(a);
	return r;
}

static const struct rck_finding *find(const struct rck_report *r, enum rck_finding_code code)
{
	for (unsigned int i = 0; i < rck_report_finding_count(r); i++)
		if (rck_finding_code(rck_report_finding(r, i)) == code)
			return rck_report_finding(r, i);
	return NULL;
}

/* The slow link is a suspect asking for retests; retests recorded as
 * attempts 1..3 confirm it; the loss shows on its own link. */
static void test_retests_confirm(void **state)
{
	struct rck_mesh *m = fabric();
	struct rck_report *r = analyse(m);
	struct rck_report_links st = {.size = sizeof(st)};
	const struct rck_finding *f;
	enum rck_link_test test;
	unsigned int src, dst, cell;

	(void)state;
	assert_int_equal(rck_report_links(r, &st), 0);
	assert_int_equal(st.samples, N * (N - 1));
	assert_int_equal(rck_report_retest_count(r), 1);
	assert_int_equal(rck_report_retest(r, 0, &test, &src, &dst), 0);
	assert_int_equal(test, RCK_LINK_TEST_BW);
	assert_int_equal(src, 1);
	assert_int_equal(dst, 2);
	f = find(r, RCK_FINDING_LOSS_ON_LOSSLESS);
	assert_non_null(f);
	assert_string_equal(rck_finding_host(f), "n0");
	assert_string_equal(rck_finding_peer_host(f), "n3");
	rck_report_free(r);

	assert_int_equal(rck_mesh_find_cell(m, RCK_MESH_TEST_BW, 1, 2, &cell), 0);
	for (unsigned int i = 1; i <= 3; i++)
		set(m, 1, 2, i, RCK_MESH_OK, 41, NULL);
	assert_int_equal(rck_mesh_cell_attempts(m, cell), 4);
	r = analyse(m);
	assert_int_equal(rck_report_retest_count(r), 0);
	f = find(r, RCK_FINDING_LINK_SLOW);
	assert_non_null(f);
	assert_string_equal(rck_finding_host(f), "n1");
	assert_string_equal(rck_finding_peer_host(f), "n2");
	assert_int_equal(rck_report_verdict(r), RCK_VERDICT_DEGRADED);
	rck_report_free(r);
	rck_mesh_free(m);
}

static double value_of(const struct rck_finding *f, const char *key)
{
	return finding_value(f, key, NAN);
}

/* A cell keeps retests past the analysis sample's own four (a link the
 * sequential test leaves undecided goes on): all of them are measurements;
 * a skipped one is not. */
static void test_retests_past_four(void **state)
{
	struct rck_mesh *m = fabric();
	struct rck_report *r;
	const struct rck_finding *f;
	unsigned int cell;

	(void)state;
	assert_int_equal(rck_mesh_find_cell(m, RCK_MESH_TEST_BW, 1, 2, &cell), 0);
	for (unsigned int i = 1; i <= 9; i++)
		set(m, 1, 2, i, i == 6 ? RCK_MESH_SKIPPED : RCK_MESH_OK, i == 6 ? NAN : 41, NULL);
	assert_int_equal(rck_mesh_cell_attempts(m, cell), 10);
	r = analyse(m);
	f = find(r, RCK_FINDING_LINK_SLOW);
	assert_non_null(f);
	assert_true(value_of(f, "measurements") == 9);
	assert_non_null(strstr(rck_finding_reason(f), "mean of 9 measurements, 8 of them retests"));
	rck_report_free(r);
	/* The mesh's own bound is the analysis's. */
	for (unsigned int i = 10; i <= RCK_MESH_RETEST_MAX; i++)
		set(m, 1, 2, i, RCK_MESH_OK, 41, NULL);
	{
		struct rck_mesh_meas x = {.size = sizeof(x), .status = RCK_MESH_OK, .gbps = 41,
					  .lat_p50_us = NAN, .lat_p99_us = NAN};

		assert_int_equal(rck_mesh_set_result(m, RCK_MESH_TEST_BW, 1, 2, RCK_MESH_RETEST_MAX + 1, &x, NULL),
				 -EINVAL);
	}
	r = analyse(m);
	f = find(r, RCK_FINDING_LINK_SLOW);
	assert_non_null(f);
	assert_true(value_of(f, "measurements") == RCK_LINK_RETESTS_MOST);
	rck_report_free(r);
	rck_mesh_free(m);
}

/* Retests that clear the suspect; a skipped retest is no evidence. */
static void test_retests_clear(void **state)
{
	struct rck_mesh *m = fabric();
	struct rck_report *r;

	(void)state;
	set(m, 1, 2, 1, RCK_MESH_SKIPPED, NAN, NULL);
	set(m, 1, 2, 2, RCK_MESH_OK, 95.5, NULL);
	set(m, 1, 2, 3, RCK_MESH_OK, 95.1, NULL);
	r = analyse(m);
	assert_null(find(r, RCK_FINDING_LINK_SLOW));
	assert_null(find(r, RCK_FINDING_NIC_DEGRADED));
	rck_report_free(r);
	rck_mesh_free(m);
}

/* An unreachable host keeps its reason; failed probes are failed links. */
static void test_unreachable(void **state)
{
	struct rck_mesh *m = fabric();
	struct rck_report *r;
	const struct rck_finding *f;

	(void)state;
	assert_int_equal(rck_mesh_host_set_unreachable(m, 5, "its agent did not answer in time"), 0);
	for (unsigned int h = 0; h < 5; h++) {
		set(m, h, 5, 0, RCK_MESH_UNREACHABLE, NAN, NULL);
		set(m, 5, h, 0, RCK_MESH_UNREACHABLE, NAN, NULL);
	}
	r = analyse(m);
	f = find(r, RCK_FINDING_HOST_UNREACHABLE);
	assert_non_null(f);
	assert_string_equal(rck_finding_host(f), "n5");
	assert_non_null(strstr(rck_finding_reason(f), "did not answer"));
	rck_report_free(r);
	rck_mesh_free(m);
}

/* A failed probe to a NIC found slow is part of that NIC's finding, as
 * its slow links are: no link finding of its own. */
static void test_failed_into_slow_nic(void **state)
{
	struct rck_mesh *m = fabric();
	struct rck_report *r;

	(void)state;
	for (unsigned int h = 0; h < N; h++)
		if (h != 4) {
			set(m, h, 4, 0, RCK_MESH_OK, 30, NULL);
			set(m, 4, h, 0, RCK_MESH_OK, 30, NULL);
		}
	set(m, 0, 4, 0, RCK_MESH_FAILED, NAN, NULL);
	r = analyse(m);
	assert_non_null(find(r, RCK_FINDING_NIC_DEGRADED));
	assert_string_equal(rck_finding_host(find(r, RCK_FINDING_NIC_DEGRADED)), "n4");
	assert_null(find(r, RCK_FINDING_PROBE_FAILED));
	for (unsigned int i = 0; i < rck_report_finding_count(r); i++) {
		const struct rck_finding *f = rck_report_finding(r, i);

		assert_false(rck_finding_entity(f) == RCK_ENTITY_LINK &&
			     (!strcmp(rck_finding_host(f), "n4") || !strcmp(rck_finding_peer_host(f), "n4")));
	}
	rck_report_free(r);
	rck_mesh_free(m);
}

/* NICs as the agents described them are judged like inventory ports: a
 * port not ACTIVE, no RoCE v2 GID, an active MTU below what the netdev
 * MTU allows, a rate below the expected one. */
static void test_described(void **state)
{
	struct rck_mesh_info info = {.size = sizeof(info), .pattern = "full"};
	struct rck_thresholds *th;
	struct rck_analysis *a;
	struct rck_report *r;
	struct rck_mesh *m;
	static const struct {
		const char *state;
		int gid;
		unsigned int amtu;
		double rate;
	} nics[] = {{"ACTIVE", 3, 4096, 100}, {"DOWN", 3, 4096, 100}, {"ACTIVE", -1, 4096, 100},
		    {"ACTIVE", 3, 1024, 100}, {"ACTIVE", 3, 4096, 50}, {NULL, -1, 0, 0}};

	(void)state;
	assert_int_equal(rck_mesh_new(&m), 0);
	assert_int_equal(rck_mesh_set_info(m, &info), 0);
	for (unsigned int h = 0; h < 6; h++) {
		struct rck_mesh_nic nic = {.size = sizeof(nic), .device = nics[h].state ? "mlx5_0" : "tcp",
					   .port = 1, .rail = -1, .rate_gbps = nics[h].rate,
					   .gid_index = nics[h].gid, .state = nics[h].state,
					   .active_mtu = nics[h].amtu, .netdev_mtu = nics[h].state ? 9000 : 0};
		char name[8];

		snprintf(name, sizeof(name), "n%u", h);
		assert_int_equal(rck_mesh_add_host(m, name, NULL), 0);
		assert_int_equal(rck_mesh_add_nic(m, h, &nic, NULL), 0);
	}
	assert_int_equal(rck_thresholds_new(&th), 0);
	assert_int_equal(rck_thresholds_set(th, "expect_rate_gbps", 100), 0);
	assert_int_equal(rck_analysis_new(th, &a), 0);
	assert_int_equal(rck_analysis_add_mesh(a, m), 0);
	assert_int_equal(rck_analysis_run(a, &r), 0);
	assert_int_equal(rck_report_code_count(r, RCK_FINDING_PORT_DOWN), 1);
	assert_string_equal(rck_finding_host(find(r, RCK_FINDING_PORT_DOWN)), "n1");
	assert_int_equal(rck_report_code_count(r, RCK_FINDING_NO_ROCE_V2_GID), 1);
	assert_string_equal(rck_finding_host(find(r, RCK_FINDING_NO_ROCE_V2_GID)), "n2");
	assert_int_equal(rck_report_code_count(r, RCK_FINDING_MTU_MISMATCH), 1);
	assert_string_equal(rck_finding_host(find(r, RCK_FINDING_MTU_MISMATCH)), "n3");
	assert_int_equal(rck_report_code_count(r, RCK_FINDING_PORT_RATE), 1);
	assert_string_equal(rck_finding_host(find(r, RCK_FINDING_PORT_RATE)), "n4");
	rck_report_free(r);
	rck_analysis_free(a);
	rck_thresholds_free(th);
	rck_mesh_free(m);
}

/* The recorded fixture: 3 hosts (one unreachable), 5 NICs, 5 cells. */
static void test_fixture(void **state)
{
	const char *dir = getenv("ROCECHECK_FIXTURES");
	char path[4096];
	struct rck_ctx *ctx;
	struct rck_mesh *m;
	struct rck_analysis *a;
	struct rck_report *r;
	struct rck_report_links st = {.size = sizeof(st)};

	(void)state;
	if (!dir)
		skip();
	snprintf(path, sizeof(path), "%s/mesh/sample.json", dir);
	assert_int_equal(rck_ctx_new(&ctx), 0);
	assert_int_equal(rck_mesh_load(ctx, path, &m), 0);
	assert_int_equal(rck_analysis_new(NULL, &a), 0);
	assert_int_equal(rck_analysis_add_mesh(a, m), 0);
	/* The same hosts twice: refused. */
	assert_int_equal(rck_analysis_add_mesh(a, m), -EEXIST);
	rck_analysis_free(a);
	assert_int_equal(rck_analysis_new(NULL, &a), 0);
	assert_int_equal(rck_analysis_add_mesh(a, m), 0);
	assert_int_equal(rck_analysis_run(a, &r), 0);
	assert_int_equal(rck_report_links(r, &st), 0);
	assert_int_equal(st.samples, 5);
	assert_true(rck_report_code_count(r, RCK_FINDING_HOST_UNREACHABLE) >= 1);
	assert_int_equal(rck_analysis_add_mesh(NULL, m), -EINVAL);
	assert_int_equal(rck_analysis_add_mesh(a, NULL), -EINVAL);
	rck_report_free(r);
	rck_analysis_free(a);
	rck_mesh_free(m);
	rck_ctx_free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_retests_confirm),
		cmocka_unit_test(test_retests_clear),
		cmocka_unit_test(test_retests_past_four),
		cmocka_unit_test(test_unreachable),
		cmocka_unit_test(test_described),
		cmocka_unit_test(test_failed_into_slow_nic),
		cmocka_unit_test(test_fixture),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
