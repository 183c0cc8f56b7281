/* Failed probes (link_failures.c): a failure is a suspect until a retest
 * fails too; a NIC most of whose probes failed is drained only then. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <rocecheck/analysis.h>

#include "finding.h"

#define HOSTS 8

/* What link s -> d gives: first status and up to 2 retests. */
struct plan {
	enum rck_link_status first;
	unsigned int n_retests;
	enum rck_link_status retest[2];
};

typedef struct plan (*plan_fn)(unsigned int s, unsigned int d);

/* HOSTS hosts n0.., one NIC each, every ordered pair at 96 Gb/s unless
 * @fn says otherwise. */
static struct rck_report *run(unsigned int hosts, plan_fn fn)
{
	struct rck_analysis *a;
	struct rck_report *r;

	assert_int_equal(rck_analysis_new(NULL, &a), 0);
	for (unsigned int h = 0; h < hosts; h++) {
		struct rck_analysis_nic nic = {.size = sizeof(nic), .device = "mlx5_0", .port = 1,
					       .line_rate_gbps = 100};
		char name[8];

		snprintf(name, sizeof(name), "n%u", h);
		assert_int_equal(rck_analysis_add_host(a, name, NULL, NULL, NULL), 0);
		assert_int_equal(rck_analysis_add_nic(a, h, &nic, NULL), 0);
	}
	for (unsigned int s = 0; s < hosts; s++)
		for (unsigned int d = 0; d < hosts; d++) {
			struct rck_link_sample x = {.size = sizeof(x), .test = RCK_LINK_TEST_BW,
						    .src_nic = s, .dst_nic = d};
			struct plan p;

			if (s == d)
				continue;
			p = fn(s, d);
			x.meas.status = p.first;
			x.meas.gbps = p.first == RCK_LINK_OK ? 96 + 0.1 * ((s * 7 + d * 3) % 10) : 0;
			x.reason = p.first == RCK_LINK_OK ? NULL : "rdma_cm: timed out";
			x.n_retests = p.n_retests;
			for (unsigned int i = 0; i < p.n_retests; i++)
				x.retest[i] = (struct rck_link_meas){.status = p.retest[i],
								     .gbps = p.retest[i] == RCK_LINK_OK ? 96 : 0};
			assert_int_equal(rck_analysis_add_links(a, &x, 1), 0);
		}
	assert_int_equal(rck_analysis_run(a, &r), 0);
	rck_analysis_free(a);
	return r;
}

static const struct rck_finding *failed_finding(const struct rck_report *r, enum rck_entity ent, unsigned int *n)
{
	const struct rck_finding *found = NULL;

	*n = 0;
	for (unsigned int i = 0; i < rck_report_finding_count(r); i++) {
		const struct rck_finding *f = rck_report_finding(r, i);

		if (rck_finding_code(f) == RCK_FINDING_PROBE_FAILED && rck_finding_entity(f) == ent) {
			found = f;
			(*n)++;
		}
	}
	return found;
}

static bool asked(const struct rck_report *r, unsigned int src, unsigned int dst)
{
	for (unsigned int i = 0; i < rck_report_retest_count(r); i++) {
		enum rck_link_test t;
		unsigned int s, d;

		if (!rck_report_retest(r, i, &t, &s, &d) && s == src && d == dst)
			return true;
	}
	return false;
}

/* ---- one probe, n1 -> n2 ---- */
static struct plan one_once(unsigned int s, unsigned int d)
{
	return (struct plan){s == 1 && d == 2 ? RCK_LINK_FAILED : RCK_LINK_OK, 0, {0}};
}

static struct plan one_twice(unsigned int s, unsigned int d)
{
	if (s == 1 && d == 2)
		return (struct plan){RCK_LINK_FAILED, 1, {RCK_LINK_FAILED}};
	return (struct plan){RCK_LINK_OK, 0, {0}};
}

static struct plan one_passed(unsigned int s, unsigned int d)
{
	if (s == 1 && d == 2)
		return (struct plan){RCK_LINK_FAILED, 1, {RCK_LINK_OK}};
	return (struct plan){RCK_LINK_OK, 0, {0}};
}

static void test_one_probe(void **state)
{
	const struct rck_finding *f;
	struct rck_report *r;
	unsigned int n;

	(void)state;
	/* Failed once: a suspect, its retest asked, the run undecided. */
	r = run(HOSTS, one_once);
	f = failed_finding(r, RCK_ENTITY_LINK, &n);
	assert_int_equal(n, 1);
	assert_int_equal(rck_finding_severity(f), RCK_SEVERITY_WARNING);
	assert_true(rck_finding_suspect(f));
	assert_non_null(strstr(rck_finding_reason(f), "not retested"));
	assert_true(asked(r, 1, 2));
	assert_int_equal(rck_report_retest_count(r), 1);
	assert_int_equal(rck_report_verdict(r), RCK_VERDICT_INCONCLUSIVE);
	assert_non_null(strstr(rck_report_error(r), "1 probe failed once and was not retested"));
	assert_int_equal(rck_report_drain_count(r), 0);
	rck_report_free(r);
	/* Its retest failed too: confirmed, degraded, a link (nothing drained). */
	r = run(HOSTS, one_twice);
	f = failed_finding(r, RCK_ENTITY_LINK, &n);
	assert_int_equal(n, 1);
	assert_int_equal(rck_finding_severity(f), RCK_SEVERITY_DEGRADED);
	assert_false(rck_finding_suspect(f));
	assert_true(finding_value(f, "retests_failed", -1) == 1);
	assert_int_equal(rck_report_retest_count(r), 0);
	assert_int_equal(rck_report_verdict(r), RCK_VERDICT_DEGRADED);
	assert_int_equal(rck_report_drain_count(r), 0);
	rck_report_free(r);
	/* Its retest passed: a warning, healthy. */
	r = run(HOSTS, one_passed);
	f = failed_finding(r, RCK_ENTITY_LINK, &n);
	assert_int_equal(n, 1);
	assert_int_equal(rck_finding_severity(f), RCK_SEVERITY_WARNING);
	assert_int_equal(rck_report_retest_count(r), 0);
	assert_int_equal(rck_report_verdict(r), RCK_VERDICT_HEALTHY);
	rck_report_free(r);
}

/* ---- every probe of n3 ---- */
static unsigned int retested_of_n3;  /* how many of its links were retested */
static enum rck_link_status n3_retest; /* and how those retests went */

static struct plan nic(unsigned int s, unsigned int d)
{
	static unsigned int seen;

	if (s != 3 && d != 3)
		return (struct plan){RCK_LINK_OK, 0, {0}};
	if (s == 0 && d == 3)
		seen = 0; /* first link of n3 in run()'s order */
	if (seen++ < retested_of_n3)
		return (struct plan){RCK_LINK_FAILED, 1, {n3_retest}};
	return (struct plan){RCK_LINK_FAILED, 0, {0}};
}

static void test_dead_nic(void **state)
{
	const struct rck_finding *f;
	const char *host;
	struct rck_report *r;
	unsigned int n, asked_n3 = 0;

	(void)state;
	/* First pass only: a suspect, nic_retest_links (2) retests asked,
	 * undecided, nothing drained; its links are its finding's. */
	retested_of_n3 = 0;
	r = run(HOSTS, nic);
	f = failed_finding(r, RCK_ENTITY_NIC, &n);
	assert_int_equal(n, 1);
	assert_string_equal(rck_finding_host(f), "n3");
	assert_int_equal(rck_finding_severity(f), RCK_SEVERITY_WARNING);
	assert_true(rck_finding_suspect(f));
	failed_finding(r, RCK_ENTITY_LINK, &n);
	assert_int_equal(n, 0);
	for (unsigned int i = 0; i < HOSTS; i++)
		asked_n3 += asked(r, i, 3) + asked(r, 3, i);
	assert_int_equal(asked_n3, 2);
	assert_int_equal(rck_report_retest_count(r), 2);
	assert_int_equal(rck_report_verdict(r), RCK_VERDICT_INCONCLUSIVE);
	assert_int_equal(rck_report_drain_count(r), 0);
	rck_report_free(r);
	/* One retest failed: still a suspect, one more asked. */
	retested_of_n3 = 1;
	n3_retest = RCK_LINK_FAILED;
	r = run(HOSTS, nic);
	f = failed_finding(r, RCK_ENTITY_NIC, &n);
	assert_true(rck_finding_suspect(f));
	assert_int_equal(rck_report_retest_count(r), 1);
	assert_int_equal(rck_report_drain_count(r), 0);
	rck_report_free(r);
	/* Two failed: confirmed, critical, drained. */
	retested_of_n3 = 2;
	r = run(HOSTS, nic);
	f = failed_finding(r, RCK_ENTITY_NIC, &n);
	assert_int_equal(n, 1);
	assert_int_equal(rck_finding_severity(f), RCK_SEVERITY_CRITICAL);
	assert_false(rck_finding_suspect(f));
	assert_true(finding_value(f, "failed_retested", -1) == 2);
	assert_int_equal(rck_report_retest_count(r), 0);
	assert_int_equal(rck_report_verdict(r), RCK_VERDICT_DEGRADED);
	assert_int_equal(rck_report_drain_count(r), 1);
	assert_int_equal(rck_report_drain(r, 0, &host, NULL), 0);
	assert_string_equal(host, "n3");
	rck_report_free(r);
	/* Retests that pass clear the NIC: each link left is its own suspect. */
	retested_of_n3 = 12;
	n3_retest = RCK_LINK_OK;
	r = run(HOSTS, nic);
	failed_finding(r, RCK_ENTITY_NIC, &n);
	assert_int_equal(n, 0);
	assert_true(asked(r, 6, 3) && asked(r, 7, 3));
	assert_int_equal(rck_report_retest_count(r), 2);
	assert_int_equal(rck_report_drain_count(r), 0);
	assert_int_equal(rck_report_verdict(r), RCK_VERDICT_INCONCLUSIVE);
	rck_report_free(r);
}

/* Every probe failed: an error, nothing retested or drained. */
static struct plan all_failed(unsigned int s, unsigned int d)
{
	(void)s;
	(void)d;
	return (struct plan){RCK_LINK_FAILED, 0, {0}};
}

static void test_all_failed(void **state)
{
	struct rck_report *r;

	(void)state;
	r = run(4, all_failed);
	assert_int_equal(rck_report_verdict(r), RCK_VERDICT_ERROR);
	assert_int_equal(rck_report_retest_count(r), 0);
	assert_int_equal(rck_report_drain_count(r), 0);
	rck_report_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_probe),
		cmocka_unit_test(test_dead_nic),
		cmocka_unit_test(test_all_failed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
