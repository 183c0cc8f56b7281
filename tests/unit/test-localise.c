/* Localisation on synthetic two-tier fabrics: a half-speed uplink, a dead
 * leaf, a lossy cable and crossed rails each named once, no host drained
 * for a switch's fault, and a healthy fabric silent. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rocecheck/rocecheck.h>

#include "topo-faults.h"

static const struct tsyn fab = {.hosts = 48, .rails = 4, .per_leaf = 8, .spines = 1, .gbps = 400,
				.slow_uplink = -1};

static void dump(const struct rck_report *r)
{
	for (unsigned int i = 0; i < rck_report_finding_count(r); i++) {
		const struct rck_finding *f = rck_report_finding(r, i);

		print_message("%s %s %s: %s\n", rck_finding_code_name(rck_finding_code(f)),
			      rck_severity_name(rck_finding_severity(f)), rck_finding_host(f) ? rck_finding_host(f) : "-",
			      rck_finding_reason(f));
	}
	for (unsigned int i = 0; i < rck_report_drain_count(r); i++) {
		const char *h, *why;

		rck_report_drain(r, i, &h, &why);
		print_message("drain %s: %s\n", h, why);
	}
}

static struct rck_report *run(struct tf_trial *t, bool with_topology)
{
	struct rck_topology *topo = NULL;
	struct rck_analysis *a = NULL;
	struct rck_report *r = NULL;

	tf_draw(t);
	assert_int_equal(tf_analysis(t, NULL, 0, &a), 0);
	if (with_topology) {
		assert_int_equal(tf_topology(t->f, &topo), 0);
		assert_int_equal(rck_analysis_set_topology(a, topo), 0);
	}
	assert_int_equal(rck_analysis_run(a, &r), 0);
	if (getenv("LOCALISE_DUMP"))
		dump(r);
	rck_analysis_free(a);
	rck_topology_free(topo);
	return r;
}

static unsigned int local_findings(const struct rck_report *r)
{
	return rck_report_code_count(r, RCK_FINDING_UPLINK_DEGRADED) +
	       rck_report_code_count(r, RCK_FINDING_SWITCH_DOWN) +
	       rck_report_code_count(r, RCK_FINDING_SWITCH_DEGRADED) +
	       rck_report_code_count(r, RCK_FINDING_CABLE_BAD) + rck_report_code_count(r, RCK_FINDING_RAIL_CROSSED);
}

static const struct rck_finding *first(const struct rck_report *r, enum rck_finding_code code)
{
	for (unsigned int i = 0; i < rck_report_finding_count(r); i++)
		if (rck_finding_code(rck_report_finding(r, i)) == code)
			return rck_report_finding(r, i);
	return NULL;
}

static void leaf_name(const struct tf_trial *t, char *buf, size_t n)
{
	unsigned int g = tsyn_groups(t->f);

	snprintf(buf, n, "leaf-r%u-g%u", t->victim_leaf / g, t->victim_leaf % g);
}

static void no_degraded_host(const struct rck_report *r)
{
	for (unsigned int i = 0; i < rck_report_finding_count(r); i++) {
		const struct rck_finding *f = rck_report_finding(r, i);
		enum rck_entity e = rck_finding_entity(f);

		if ((e == RCK_ENTITY_HOST || e == RCK_ENTITY_NIC) && rck_finding_severity(f) >= RCK_SEVERITY_DEGRADED) {
			dump(r);
			fail_msg("a host finding stayed degraded");
		}
	}
	assert_int_equal(rck_report_drain_count(r), 0);
	assert_int_equal(rck_report_held_count(r), 0);
}

static void test_healthy(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 3; seed++) {
		struct tf_trial t = {.f = &fab, .fault = TF_HEALTHY, .seed = seed, .cv = 0.02, .retests = 2};
		struct rck_report *r = run(&t, true);

		if (local_findings(r))
			dump(r);
		assert_int_equal(local_findings(r), 0);
		assert_int_equal(rck_report_drain_count(r), 0);
		rck_report_free(r);
	}
}

static void test_uplink(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 3; seed++) {
		struct tf_trial t = {.f = &fab, .fault = TF_UPLINK_05, .seed = seed, .cv = 0.02, .retests = 2};
		struct rck_report *r = run(&t, true);
		const struct rck_finding *f = first(r, RCK_FINDING_UPLINK_DEGRADED);
		char leaf[32], port[16];

		leaf_name(&t, leaf, sizeof(leaf));
		snprintf(port, sizeof(port), "swp%u", fab.per_leaf + 1);
		if (local_findings(r) != 1 || !f)
			dump(r);
		assert_int_equal(local_findings(r), 1);
		assert_non_null(f);
		assert_int_equal(rck_finding_entity(f), RCK_ENTITY_SWITCH);
		assert_string_equal(rck_finding_host(f), leaf);
		assert_string_equal(rck_finding_nic(f), port);
		assert_string_equal(rck_finding_peer_host(f), "spine0");
		no_degraded_host(r);
		rck_report_free(r);
	}
}

static void test_tor_dead(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 3; seed++) {
		struct tf_trial t = {.f = &fab, .fault = TF_TOR_DEAD, .seed = seed, .cv = 0.02, .retests = 2};
		struct rck_report *r = run(&t, true);
		const struct rck_finding *f = first(r, RCK_FINDING_SWITCH_DOWN);
		char leaf[32];

		leaf_name(&t, leaf, sizeof(leaf));
		if (local_findings(r) != 1 || !f)
			dump(r);
		assert_int_equal(local_findings(r), 1);
		assert_non_null(f);
		assert_string_equal(rck_finding_host(f), leaf);
		assert_non_null(strstr(rck_finding_reason(f), "8 hosts behind it"));
		no_degraded_host(r);
		rck_report_free(r);
	}
}

/* A NIC slow in the sweep's first pass only (a loaded host's contention):
 * its retests normal, a suspect warning at most, the verdict healthy. The
 * same NIC slow in its retests too: a cable_bad the retests confirmed. */
static void test_cable_first_pass_only(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 3; seed++) {
		struct tf_trial t = {.f = &fab, .fault = TF_HEALTHY, .seed = seed, .cv = 0.02, .retests = 2,
				     .nic_first = 0.6, .nic_retest = 1};
		struct rck_report *r = run(&t, true);

		if (rck_report_verdict(r) != RCK_VERDICT_HEALTHY || rck_report_drain_count(r))
			dump(r);
		assert_int_equal(rck_report_verdict(r), RCK_VERDICT_HEALTHY);
		assert_int_equal(rck_report_drain_count(r), 0);
		for (unsigned int i = 0; i < rck_report_finding_count(r); i++) {
			const struct rck_finding *f = rck_report_finding(r, i);

			assert_true(rck_finding_severity(f) < RCK_SEVERITY_DEGRADED);
			if (rck_finding_code(f) == RCK_FINDING_CABLE_BAD)
				assert_non_null(strstr(rck_finding_reason(f), "not confirmed by its retests"));
		}
		rck_report_free(r);

		t = (struct tf_trial){.f = &fab, .fault = TF_HEALTHY, .seed = seed, .cv = 0.02, .retests = 2,
				      .nic_first = 0.6, .nic_retest = 0.6};
		r = run(&t, true);
		const struct rck_finding *f = first(r, RCK_FINDING_CABLE_BAD);
		char host[16];

		snprintf(host, sizeof(host), "h%05u", t.victim_host);
		if (!f || rck_finding_severity(f) != RCK_SEVERITY_DEGRADED)
			dump(r);
		assert_non_null(f);
		assert_int_equal(rck_finding_severity(f), RCK_SEVERITY_DEGRADED);
		assert_string_equal(rck_finding_host(f), host);
		rck_report_free(r);
	}
}

static void test_cable(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 3; seed++) {
		struct tf_trial t = {.f = &fab, .fault = TF_CABLE_LOSSY, .seed = seed, .cv = 0.02, .retests = 2};
		struct rck_report *r = run(&t, true);
		const struct rck_finding *f = first(r, RCK_FINDING_CABLE_BAD);
		char host[16], nic[16], leaf[32], port[16];
		const char *d;

		snprintf(host, sizeof(host), "h%05u", t.victim_host);
		snprintf(nic, sizeof(nic), "mlx5_%u/1", t.victim_rail);
		snprintf(leaf, sizeof(leaf), "leaf-r%u-g%u", t.victim_rail, t.victim_host / fab.per_leaf);
		snprintf(port, sizeof(port), "swp%u", t.victim_host % fab.per_leaf + 1);
		if (local_findings(r) != 1 || !f)
			dump(r);
		assert_int_equal(local_findings(r), 1);
		assert_non_null(f);
		assert_string_equal(rck_finding_host(f), host);
		assert_string_equal(rck_finding_nic(f), nic);
		assert_string_equal(rck_finding_peer_host(f), leaf);
		assert_string_equal(rck_finding_peer_nic(f), port);
		/* The host is the only one drained, if any is. */
		for (unsigned int i = 0; i < rck_report_drain_count(r); i++) {
			assert_int_equal(rck_report_drain(r, i, &d, NULL), 0);
			assert_string_equal(d, host);
		}
		rck_report_free(r);
	}
}

static void test_crossed(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 3; seed++) {
		struct tf_trial t = {.f = &fab, .fault = TF_RAILS_CROSSED, .seed = seed, .cv = 0.02, .retests = 2};
		struct rck_report *r = run(&t, true);
		const struct rck_finding *f = first(r, RCK_FINDING_RAIL_CROSSED);
		char host[16];

		snprintf(host, sizeof(host), "h%05u", t.victim_host);
		if (local_findings(r) != 1 || !f)
			dump(r);
		assert_int_equal(local_findings(r), 1);
		assert_non_null(f);
		assert_string_equal(rck_finding_host(f), host);
		assert_non_null(strstr(rck_finding_reason(f), "mlx5_0/1"));
		assert_non_null(strstr(rck_finding_reason(f), "mlx5_1/1"));
		rck_report_free(r);
	}
}

/* A dead host is its own finding (host_unreachable): no cable or crossed
 * rails are made of its NICs' failed probes, and no switch is blamed. */
static void test_host_dead(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 3; seed++) {
		struct tf_trial t = {.f = &fab, .fault = TF_HOST_DEAD, .seed = seed, .cv = 0.02, .retests = 2};
		struct rck_report *r = run(&t, true);
		const struct rck_finding *f = first(r, RCK_FINDING_HOST_UNREACHABLE);
		char host[16];

		snprintf(host, sizeof(host), "h%05u", t.victim_host);
		if (local_findings(r) != 0 || !f)
			dump(r);
		assert_int_equal(local_findings(r), 0);
		assert_non_null(f);
		assert_string_equal(rck_finding_host(f), host);
		rck_report_free(r);
	}
}

/* Without a topology the analysis is as before: nothing localised. */
static void test_no_topology(void **state)
{
	struct tf_trial t = {.f = &fab, .fault = TF_UPLINK_05, .seed = 1, .cv = 0.02, .retests = 2};
	struct rck_report *r = run(&t, false);

	(void)state;
	assert_int_equal(local_findings(r), 0);
	assert_int_equal(rck_analysis_set_topology(NULL, NULL), -22);
	rck_report_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_healthy),  cmocka_unit_test(test_uplink),  cmocka_unit_test(test_tor_dead),
		cmocka_unit_test(test_cable),
		cmocka_unit_test(test_cable_first_pass_only),    cmocka_unit_test(test_crossed), cmocka_unit_test(test_no_topology),
		cmocka_unit_test(test_host_dead),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
