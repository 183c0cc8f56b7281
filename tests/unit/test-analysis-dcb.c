/* The DCB lint on synthetic states: one odd host out of 8 (PFC, trust, DSCP
 * map, ToS), a 4/4 tie, ports whose driver lacks DCB reported as such and
 * never as a mismatch, a host whose state was not read. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rocecheck/rocecheck.h>

#include "../../dcb/dcb_internal.h"

#define HOSTS 8

enum variant { GOOD, PFC34, PCP_TRUST, TOS96, NO_DCB, FULL_MAP };

static struct rck_dcb *port(enum variant v)
{
	struct rck_dcb *d = dcb_alloc("eth0");

	assert_non_null(d);
	d->rdma_dev = strdup("mlx5_0");
	d->rdma_port = 1;
	if (v == NO_DCB) { /* Soft-RoCE on a veth: no dcbnl at all */
		d->err[RCK_DCB_RDMA_CM] = 0;
		d->roce_tos = 106;
		dcb_derive_trust(d);
		return d;
	}
	for (int f = RCK_DCB_PFC; f <= RCK_DCB_RDMA_CM; f++)
		d->err[f] = 0;
	d->pfc.pfc_en = v == PFC34 ? 0x18 : 0x08;
	for (int i = 0; i < DCB_NPRIO; i++) {
		d->ets.prio_tc[i] = i == 3 ? 1 : 0;
		d->ets.tc_tx_bw[i] = i < 2 ? 50 : 0;
		d->ets.tc_tsa[i] = IEEE_8021QAZ_TSA_ETS;
	}
	if (v == FULL_MAP) { /* what mlnx_qos --trust dscp leaves: all 64 */
		for (uint16_t dscp = 0; dscp < 64; dscp++)
			assert_int_equal(dcb_app_push(d, RCK_DCB_SEL_DSCP, dscp, (uint8_t)(dscp >> 3)), 0);
	} else if (v != PCP_TRUST) {
		assert_int_equal(dcb_app_push(d, RCK_DCB_SEL_DSCP, 26, 3), 0);
		assert_int_equal(dcb_app_push(d, RCK_DCB_SEL_DSCP, 48, 6), 0);
	}
	d->dcbx = DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE;
	d->roce_tos = v == TOS96 ? 96 : 106;
	snprintf(d->roce_mode, sizeof(d->roce_mode), "RoCE v2");
	dcb_derive_trust(d);
	return d;
}

/* Analyse 8 hosts, host h with variant v[h]; @err_host (-1: none) unread. */
static struct rck_report *lint(const enum variant *v, int err_host)
{
	struct rck_analysis *a;
	struct rck_report *r;
	char name[16];

	assert_int_equal(rck_analysis_new(NULL, &a), 0);
	for (unsigned int h = 0; h < HOSTS; h++) {
		struct rck_dcb *d = port(v[h]);
		const struct rck_dcb *p[1] = { d };

		snprintf(name, sizeof(name), "n%u", h);
		assert_int_equal(rck_analysis_add_host(a, name, NULL, NULL, NULL), 0);
		if ((int)h == err_host)
			assert_int_equal(rck_analysis_set_host_dcb(a, h, NULL, 0, "netlink timed out"), 0);
		else
			assert_int_equal(rck_analysis_set_host_dcb(a, h, p, 1, NULL), 0);
		rck_dcb_free(d); /* copied */
	}
	assert_int_equal(rck_analysis_run(a, &r), 0);
	rck_analysis_free(a);
	if (getenv("RCK_TEST_SHOW")) /* to read the reasons as an operator would */
		rck_report_write(r, stderr, RCK_FORMAT_TEXT);
	return r;
}

static unsigned int count(const struct rck_report *r, enum rck_finding_code code)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < rck_report_finding_count(r); i++)
		n += rck_finding_code(rck_report_finding(r, i)) == code;
	return n;
}

/* The one finding of @code whose reason holds @needle. */
static const struct rck_finding *find(const struct rck_report *r, enum rck_finding_code code,
				      const char *needle)
{
	const struct rck_finding *got = NULL;

	for (unsigned int i = 0; i < rck_report_finding_count(r); i++) {
		const struct rck_finding *f = rck_report_finding(r, i);

		if (rck_finding_code(f) == code && strstr(rck_finding_reason(f), needle)) {
			assert_null(got);
			got = f;
		}
	}
	if (!got) {
		for (unsigned int i = 0; i < rck_report_finding_count(r); i++)
			print_message("finding: %s\n", rck_finding_reason(rck_report_finding(r, i)));
		fail_msg("no %s finding with \"%s\"", rck_finding_code_name(code), needle);
	}
	return got;
}

static void test_all_alike(void **state)
{
	enum variant v[HOSTS] = { GOOD, GOOD, GOOD, GOOD, GOOD, GOOD, GOOD, GOOD };
	struct rck_report *r = lint(v, -1);

	(void)state;
	assert_int_equal(rck_report_finding_count(r), 0);
	assert_int_equal(rck_report_verdict(r), RCK_VERDICT_HEALTHY);
	rck_report_free(r);
}

static void test_odd_host_out(void **state)
{
	enum variant v[HOSTS] = { GOOD, GOOD, GOOD, GOOD, GOOD, PFC34, GOOD, GOOD };
	struct rck_report *r = lint(v, -1);
	const struct rck_finding *f;

	(void)state;
	assert_int_equal(rck_report_finding_count(r), 1);
	f = find(r, RCK_FINDING_CONFIG_MISMATCH, "PFC-enabled priorities 3,4");
	assert_string_equal(rck_finding_host(f), "n5");
	assert_string_equal(rck_finding_nic(f), "mlx5_0/1 (eth0)");
	assert_int_equal(rck_finding_severity(f), RCK_SEVERITY_DEGRADED);
	assert_non_null(strstr(rck_finding_reason(f), "the majority (7 of 8) has 3"));
	assert_int_equal(rck_report_verdict(r), RCK_VERDICT_DEGRADED);
	rck_report_free(r);
}

/* PCP trust (no DSCP entries) shows as trust and as map; ToS on its own. */
static void test_trust_map_tos(void **state)
{
	enum variant v[HOSTS] = { GOOD, PCP_TRUST, GOOD, GOOD, TOS96, GOOD, GOOD, FULL_MAP };
	struct rck_report *r = lint(v, -1);
	const struct rck_finding *f;

	(void)state;
	f = find(r, RCK_FINDING_CONFIG_MISMATCH, "trust mode pcp");
	assert_string_equal(rck_finding_host(f), "n1");
	assert_non_null(strstr(rck_finding_reason(f), "has dscp"));
	f = find(r, RCK_FINDING_CONFIG_MISMATCH, "DSCP-to-priority map empty");
	assert_string_equal(rck_finding_host(f), "n1");
	assert_non_null(strstr(rck_finding_reason(f), "(6 of 8) has 26:3 48:6"));
	f = find(r, RCK_FINDING_CONFIG_MISMATCH, "DSCP-to-priority map 0-7:0 8-15:1");
	assert_string_equal(rck_finding_host(f), "n7");
	f = find(r, RCK_FINDING_CONFIG_MISMATCH, "rdma_cm default ToS 96");
	assert_string_equal(rck_finding_host(f), "n4");
	assert_int_equal(count(r, RCK_FINDING_CONFIG_MISMATCH), 4);
	rck_report_free(r);
}

/* 4 against 4: no host is named, one fabric warning gives the split. */
static void test_tie(void **state)
{
	enum variant v[HOSTS] = { GOOD, PFC34, GOOD, PFC34, GOOD, PFC34, GOOD, PFC34 };
	struct rck_report *r = lint(v, -1);
	const struct rck_finding *f;

	(void)state;
	assert_int_equal(rck_report_finding_count(r), 1);
	f = find(r, RCK_FINDING_CONFIG_MISMATCH, "no majority");
	assert_int_equal(rck_finding_entity(f), RCK_ENTITY_FABRIC);
	assert_null(rck_finding_host(f));
	assert_int_equal(rck_finding_severity(f), RCK_SEVERITY_WARNING);
	rck_report_free(r);
}

/* Two hosts on a driver without dcbnl: named as such, not as mismatches
 * (their rdma_cm ToS still compared). */
static void test_unsupported_named(void **state)
{
	enum variant v[HOSTS] = { GOOD, GOOD, GOOD, NO_DCB, GOOD, GOOD, NO_DCB, GOOD };
	struct rck_report *r = lint(v, -1);
	const struct rck_finding *f;

	(void)state;
	assert_int_equal(count(r, RCK_FINDING_CONFIG_MISMATCH), 0);
	assert_int_equal(count(r, RCK_FINDING_DCB_UNSUPPORTED), 2);
	for (unsigned int i = 0; i < rck_report_finding_count(r); i++) {
		f = rck_report_finding(r, i);
		assert_true(!strcmp(rck_finding_host(f), "n3") || !strcmp(rck_finding_host(f), "n6"));
		assert_non_null(strstr(rck_finding_reason(f), "not supported by this driver: PFC, APP table (DSCP map), ETS, DCBX"));
		assert_non_null(strstr(rck_finding_reason(f), "(6 of 8 ports have them)"));
		assert_int_equal(rck_finding_severity(f), RCK_SEVERITY_WARNING);
	}
	assert_int_equal(rck_report_verdict(r), RCK_VERDICT_HEALTHY);
	rck_report_free(r);
}

/* A fabric with no DCB anywhere (a Soft-RoCE lab): one note, healthy. */
static void test_none_supported(void **state)
{
	enum variant v[HOSTS] = { NO_DCB, NO_DCB, NO_DCB, NO_DCB, NO_DCB, NO_DCB, NO_DCB, NO_DCB };
	struct rck_report *r = lint(v, -1);
	const struct rck_finding *f;

	(void)state;
	assert_int_equal(rck_report_finding_count(r), 1);
	f = find(r, RCK_FINDING_DCB_UNSUPPORTED, "no port's driver supports PFC, APP table (DSCP map), ETS, DCBX:");
	assert_int_equal(rck_finding_entity(f), RCK_ENTITY_FABRIC);
	assert_int_equal(rck_finding_severity(f), RCK_SEVERITY_INFO);
	assert_int_equal(rck_report_verdict(r), RCK_VERDICT_HEALTHY);
	rck_report_free(r);
}

/* A host whose agent could not read its state: named, and the odd host
 * among the other seven still found. */
static void test_unread_host(void **state)
{
	enum variant v[HOSTS] = { GOOD, GOOD, PFC34, GOOD, GOOD, GOOD, GOOD, GOOD };
	struct rck_report *r = lint(v, 4);
	const struct rck_finding *f;

	(void)state;
	f = find(r, RCK_FINDING_DCB_UNSUPPORTED, "DCB state not read: netlink timed out");
	assert_string_equal(rck_finding_host(f), "n4");
	f = find(r, RCK_FINDING_CONFIG_MISMATCH, "PFC-enabled priorities 3,4");
	assert_string_equal(rck_finding_host(f), "n2");
	assert_non_null(strstr(rck_finding_reason(f), "(6 of 7)"));
	assert_int_equal(rck_report_finding_count(r), 2);
	rck_report_free(r);
}

static void test_args(void **state)
{
	struct rck_dcb *d = port(GOOD);
	const struct rck_dcb *p[2] = { d, NULL };
	struct rck_analysis *a;

	(void)state;
	assert_int_equal(rck_analysis_new(NULL, &a), 0);
	assert_int_equal(rck_analysis_add_host(a, "x", NULL, NULL, NULL), 0);
	assert_int_equal(rck_analysis_set_host_dcb(a, 1, p, 1, NULL), -EINVAL);
	assert_int_equal(rck_analysis_set_host_dcb(a, 0, p, 2, NULL), -EINVAL);
	assert_int_equal(rck_analysis_set_host_dcb(a, 0, p, 1, "and an error"), -EINVAL);
	assert_int_equal(rck_analysis_set_host_dcb(a, 0, p, 1, NULL), 0);
	assert_int_equal(rck_analysis_set_host_dcb(a, 0, p, 1, NULL), 0); /* replaces */
	rck_analysis_free(a);
	rck_dcb_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_all_alike),
		cmocka_unit_test(test_odd_host_out),
		cmocka_unit_test(test_trust_map_tos),
		cmocka_unit_test(test_tie),
		cmocka_unit_test(test_unsupported_named),
		cmocka_unit_test(test_none_supported),
		cmocka_unit_test(test_unread_host),
		cmocka_unit_test(test_args),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
