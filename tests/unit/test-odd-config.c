/* The odd host out among agent-described NICs (analysis/hosts_odd.c): an
 * MTU or GID index unlike most peers' is named; too few hosts, none. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <rocecheck/analysis.h>

struct host_cfg {
	unsigned int nmtu, amtu;
	int gid;
};

static struct rck_report *run(const struct host_cfg *h, unsigned int n)
{
	struct rck_analysis *a = NULL;
	struct rck_report *r = NULL;

	assert_int_equal(rck_analysis_new(NULL, &a), 0);
	for (unsigned int i = 0; i < n; i++) {
		char name[16];
		unsigned int hi;

		snprintf(name, sizeof(name), "10.0.0.%u", i + 1);
		assert_int_equal(rck_analysis_add_host(a, name, NULL, NULL, &hi), 0);
		for (unsigned int d = 0; d < 2; d++) {
			char dev[16];
			struct rck_analysis_nic nic = {.size = sizeof(nic), .device = dev, .port = 1,
						       .line_rate_gbps = 100, .state = "ACTIVE",
						       .netdev_mtu = h[i].nmtu, .active_mtu = h[i].amtu,
						       .gid_index = h[i].gid};

			snprintf(dev, sizeof(dev), "mlx5_%u", d);
			assert_int_equal(rck_analysis_add_nic(a, hi, &nic, NULL), 0);
		}
	}
	assert_int_equal(rck_analysis_run(a, &r), 0);
	rck_analysis_free(a);
	return r;
}

static unsigned int count(const struct rck_report *r, enum rck_finding_code code, const char *host,
			  enum rck_severity sev)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < rck_report_finding_count(r); i++) {
		const struct rck_finding *f = rck_report_finding(r, i);

		if (rck_finding_code(f) == code && (!host || !strcmp(rck_finding_host(f), host)) &&
		    rck_finding_severity(f) == sev)
			n++;
	}
	return n;
}

static void test_uniform(void **state)
{
	const struct host_cfg h[4] = {{9000, 4096, 3}, {9000, 4096, 3}, {9000, 4096, 3}, {9000, 4096, 3}};
	struct rck_report *r = run(h, 4);

	(void)state;
	assert_int_equal(rck_report_code_count(r, RCK_FINDING_MTU_MISMATCH), 0);
	assert_int_equal(rck_report_code_count(r, RCK_FINDING_CONFIG_MISMATCH), 0);
	rck_report_free(r);
}

static void test_small_mtu(void **state)
{
	/* 10.0.0.3 at 1500 (RDMA MTU 1024 as 1500 allows): one finding per NIC
	 * on its netdev MTU, none for the RDMA MTU it explains */
	const struct host_cfg h[4] = {{9000, 4096, 3}, {9000, 4096, 3}, {1500, 1024, 3}, {9000, 4096, 3}};
	struct rck_report *r = run(h, 4);
	const char *d;

	(void)state;
	assert_int_equal(count(r, RCK_FINDING_MTU_MISMATCH, "10.0.0.3", RCK_SEVERITY_DEGRADED), 2);
	assert_int_equal(rck_report_code_count(r, RCK_FINDING_MTU_MISMATCH), 2);
	assert_int_equal(rck_report_drain_count(r), 1);
	assert_int_equal(rck_report_drain(r, 0, &d, NULL), 0);
	assert_string_equal(d, "10.0.0.3");
	rck_report_free(r);
}

static void test_gid_and_large(void **state)
{
	/* another GID index, and a larger MTU: warnings, nothing drained */
	const struct host_cfg h[5] = {{4200, 4096, 3}, {4200, 4096, 1}, {4200, 4096, 3},
				      {9000, 4096, 3}, {4200, 4096, 3}};
	struct rck_report *r = run(h, 5);

	(void)state;
	assert_int_equal(count(r, RCK_FINDING_CONFIG_MISMATCH, "10.0.0.2", RCK_SEVERITY_WARNING), 2);
	assert_int_equal(count(r, RCK_FINDING_MTU_MISMATCH, "10.0.0.4", RCK_SEVERITY_WARNING), 2);
	assert_int_equal(rck_report_drain_count(r), 0);
	rck_report_free(r);
}

static void test_too_few_or_split(void **state)
{
	/* two hosts: no peers to compare with; a 2:2 split: no majority */
	const struct host_cfg two[2] = {{9000, 4096, 3}, {1500, 1024, 3}};
	const struct host_cfg split[4] = {{9000, 4096, 3}, {1500, 1024, 3}, {9000, 4096, 3}, {1500, 1024, 3}};
	struct rck_report *r = run(two, 2);

	(void)state;
	assert_int_equal(rck_report_code_count(r, RCK_FINDING_MTU_MISMATCH), 0);
	rck_report_free(r);
	r = run(split, 4);
	assert_int_equal(rck_report_code_count(r, RCK_FINDING_MTU_MISMATCH), 0);
	rck_report_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_uniform),
		cmocka_unit_test(test_small_mtu),
		cmocka_unit_test(test_gid_and_large),
		cmocka_unit_test(test_too_few_or_split),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
