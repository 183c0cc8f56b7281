/* A port that went down during its probes (link_flaps.c): named on the NIC
 * whose end counted link_downed, failed probe or not; nothing on a quiet one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <rocecheck/analysis.h>

#include "finding.h"

/* 4 hosts n0-n3, one NIC each with every counter. */
static struct rck_analysis *hosts4(void)
{
	struct rck_analysis *a;

	assert_int_equal(rck_analysis_new(NULL, &a), 0);
	for (unsigned int h = 0; h < 4; h++) {
		struct rck_analysis_nic nic = {.size = sizeof(nic), .device = "rxe0", .port = 1,
					       .line_rate_gbps = 100, .counters = ~0ULL};
		char name[8];

		snprintf(name, sizeof(name), "n%u", h);
		assert_int_equal(rck_analysis_add_host(a, name, NULL, NULL, NULL), 0);
		assert_int_equal(rck_analysis_add_nic(a, h, &nic, NULL), 0);
	}
	return a;
}

/* 4 hosts, one NIC each, every ordered pair measured at 96 Gb/s; the probe
 * n2 -> n3 failed with n2's link_downed +1, and n0 -> n2 passed with n2's
 * +@more (0: none). */
static struct rck_report *fabric(uint64_t more)
{
	const struct rck_link_counter fell[] = {{RCK_LINK_SRC, RCK_CTR_LINK_DOWNED, 1},
						{RCK_LINK_SRC, RCK_CTR_LOCAL_ACK_TIMEOUTS, 7}};
	const struct rck_link_counter again[] = {{RCK_LINK_DST, RCK_CTR_LINK_DOWNED, more}};
	struct rck_analysis *a;
	struct rck_report *r;

	a = hosts4();
	for (unsigned int s = 0; s < 4; s++)
		for (unsigned int d = 0; d < 4; d++) {
			struct rck_link_sample x = {.size = sizeof(x), .test = RCK_LINK_TEST_BW,
						    .src_nic = s, .dst_nic = d, .meas.gbps = 96};

			if (s == d)
				continue;
			if (s == 2 && d == 3) {
				x.meas = (struct rck_link_meas){.status = RCK_LINK_FAILED};
				x.reason = "retry exceeded";
				x.counters = fell;
				x.n_counters = 2;
				x.n_retests = 1;
				x.retest[0].gbps = 96;
			} else if (s == 0 && d == 2 && more) {
				x.counters = again;
				x.n_counters = 1;
			}
			assert_int_equal(rck_analysis_add_links(a, &x, 1), 0);
		}
	assert_int_equal(rck_analysis_run(a, &r), 0);
	rck_analysis_free(a);
	return r;
}

static const struct rck_finding *flap(const struct rck_report *r, unsigned int *n)
{
	const struct rck_finding *found = NULL;

	*n = 0;
	for (unsigned int i = 0; i < rck_report_finding_count(r); i++) {
		const struct rck_finding *f = rck_report_finding(r, i);

		if (rck_finding_code(f) == RCK_FINDING_ERROR_COUNTER && strstr(rck_finding_reason(f), "went down")) {
			found = f;
			(*n)++;
		}
	}
	return found;
}

static double value(const struct rck_finding *f, const char *key)
{
	return finding_value(f, key, -1);
}

static void test_port_fell(void **state)
{
	const struct rck_finding *f;
	struct rck_report *r;
	const char *host;
	unsigned int n;

	(void)state;
	for (uint64_t more = 0; more <= 2; more += 2) {
		r = fabric(more);
		f = flap(r, &n);
		assert_int_equal(n, 1);
		assert_string_equal(rck_finding_host(f), "n2");
		assert_int_equal(rck_finding_entity(f), RCK_ENTITY_NIC);
		assert_int_equal(rck_finding_severity(f), RCK_SEVERITY_DEGRADED);
		assert_false(rck_finding_suspect(f));
		assert_true(value(f, "link_downed") == (double)(1 + more));
		assert_true(value(f, "probes") == (more ? 2 : 1));
		assert_true(value(f, "probes_all") == 6);
		assert_int_equal(rck_report_drain_count(r), 1);
		assert_int_equal(rck_report_drain(r, 0, &host, NULL), 0);
		assert_string_equal(host, "n2");
		rck_report_free(r);
	}
}

/* The same fabric without the fall: nothing. */
static void test_quiet(void **state)
{
	const struct rck_link_counter none[] = {{RCK_LINK_SRC, RCK_CTR_LINK_DOWNED, 0}};
	struct rck_analysis *a;
	struct rck_report *r;
	unsigned int n;

	(void)state;
	a = hosts4();
	for (unsigned int s = 0; s < 4; s++)
		for (unsigned int d = 0; d < 4; d++) {
			struct rck_link_sample x = {.size = sizeof(x), .test = RCK_LINK_TEST_BW, .src_nic = s,
						    .dst_nic = d, .meas.gbps = 96, .counters = none,
						    .n_counters = 1};

			if (s != d)
				assert_int_equal(rck_analysis_add_links(a, &x, 1), 0);
		}
	assert_int_equal(rck_analysis_run(a, &r), 0);
	rck_analysis_free(a);
	flap(r, &n);
	assert_int_equal(n, 0);
	assert_int_equal(rck_report_drain_count(r), 0);
	rck_report_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_port_fell),
		cmocka_unit_test(test_quiet),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
