/* Analysis on synthetic fabrics (seeded noise, CV 2%, 256 hosts), on the
 * recorded sysfs fixtures, and on hand-made counter deltas per link. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include <rocecheck/rocecheck.h>

#include "fixture.h"

#include "synth.h"

#define HOSTS 256
/* 100 seeds make the statistical claim; under valgrind (which checks
 * memory, not statistics, 30 times slower) 10 seeds of the same code do. */
static unsigned int SEEDS = 100;
#define ROUNDS (RCK_LINK_RETESTS_MOST + 2)

static void dump(const struct rck_report *r)
{
	rck_report_write(r, stderr, RCK_FORMAT_TEXT);
}

static struct synth fabric(uint64_t seed)
{
	struct synth s = {.hosts = HOSTS, .mean_gbps = 97.0, .cv = 0.02, .line_rate = 100, .seed = seed};

	assert_int_equal(synth_init(&s), 0);
	return s;
}

/* One link at 0.90 of its peers: found, alone, in every seed. */
static void test_one_slow_link(void **state)
{
	unsigned int found = 0, retests = 0, suspects = 0;

	for (uint64_t seed = 1; seed <= SEEDS; seed++) {
		struct synth s = fabric(seed);
		struct rck_report_links st = {.size = sizeof(st)};
		const struct rck_finding *f;
		struct rck_report *r;
		unsigned int n;
		char want[32];

		s.bad_src = (unsigned int)((seed * 7919) % HOSTS);
		s.bad_dst = (unsigned int)((seed * 104729 + 1) % HOSTS);
		if (s.bad_dst == s.bad_src)
			s.bad_dst = (s.bad_dst + 1) % HOSTS;
		s.bad_factor = 0.90;
		assert_int_equal(synth_run(&s, NULL, ROUNDS, &r, &n, NULL), 0);
		retests += n;
		rck_report_links(r, &st);
		suspects += st.suspects;
		f = rck_report_finding(r, 0);
		snprintf(want, sizeof(want), "n%04u", s.bad_dst);
		if (rck_report_finding_count(r) == 1 && rck_finding_code(f) == RCK_FINDING_LINK_SLOW &&
		    rck_finding_severity(f) == RCK_SEVERITY_DEGRADED && !strcmp(rck_finding_peer_host(f), want) &&
		    rck_report_verdict(r) == RCK_VERDICT_DEGRADED)
			found++;
		else
			dump(r);
		rck_report_free(r);
		synth_fini(&s);
	}
	print_message("one link at 0.90: found in %u of %u seeds; %u suspects, %u retests in all\n",
		      found, SEEDS, suspects, retests);
	assert_int_equal(found, SEEDS);
}

/* Healthy fabrics: no finding at all, retests included. */
static void test_healthy(void **state)
{
	unsigned int clean = 0, retests = 0, suspects = 0, inconclusive = 0;

	for (uint64_t seed = 1001; seed < 1001 + SEEDS; seed++) {
		struct synth s = fabric(seed);
		struct rck_report_links st = {.size = sizeof(st)};
		struct rck_report *r;
		unsigned int n;

		assert_int_equal(synth_run(&s, NULL, ROUNDS, &r, &n, NULL), 0);
		rck_report_links(r, &st);
		retests += n;
		suspects += st.suspects;
		inconclusive += st.inconclusive;
		if (!rck_report_finding_count(r) && rck_report_verdict(r) == RCK_VERDICT_HEALTHY &&
		    !rck_report_retest_count(r))
			clean++;
		else
			dump(r);
		rck_report_free(r);
		synth_fini(&s);
	}
	print_message("healthy: %u of %u seeds without findings; %u suspects, %u retests, "
		      "%u inconclusive (%u links per seed)\n", clean, SEEDS, suspects, retests,
		      inconclusive, HOSTS * (HOSTS - 1));
	assert_int_equal(clean, SEEDS);
}

/* Without retests, the analysis says so: unconfirmed warnings, a retest list. */
static void test_no_retest(void **state)
{
	struct synth s = fabric(7);
	struct rck_report *r;
	struct rck_analysis *a;

	s.bad_src = 3;
	s.bad_dst = 9;
	s.bad_factor = 0.80;
	assert_int_equal(synth_analysis(&s, NULL, &a), 0);
	assert_int_equal(rck_analysis_run(a, &r), 0);
	assert_true(rck_report_retest_count(r) > 0);
	assert_int_equal(rck_report_verdict(r), RCK_VERDICT_HEALTHY);
	for (unsigned int i = 0; i < rck_report_finding_count(r); i++) {
		const struct rck_finding *f = rck_report_finding(r, i);

		assert_int_equal(rck_finding_severity(f), RCK_SEVERITY_WARNING);
		assert_non_null(strstr(rck_finding_reason(f), "not retested"));
	}
	assert_true(rck_report_code_count(r, RCK_FINDING_LINK_SLOW) >= 1);
	rck_report_free(r);
	rck_analysis_free(a);
	synth_fini(&s);
}

/* Run a fabric whose NICs @from..@to-1 run at @factor; expect one finding. */
static void one_finding(uint64_t seed, unsigned int from, unsigned int to, double factor,
			enum rck_finding_code code, enum rck_entity ent, const char *host)
{
	struct synth s = fabric(seed);
	double nic_factor[HOSTS];
	const struct rck_finding *f;
	struct rck_report *r;

	for (unsigned int i = 0; i < HOSTS; i++)
		nic_factor[i] = i >= from && i < to ? factor : 1;
	s.nic_factor = nic_factor;
	assert_int_equal(synth_run(&s, NULL, ROUNDS, &r, NULL, NULL), 0);
	if (rck_report_finding_count(r) != 1)
		dump(r);
	assert_int_equal(rck_report_finding_count(r), 1);
	f = rck_report_finding(r, 0);
	assert_int_equal(rck_finding_code(f), code);
	assert_int_equal(rck_finding_entity(f), ent);
	if (host)
		assert_string_equal(rck_finding_host(f), host);
	else
		assert_null(rck_finding_host(f));
	assert_int_equal(rck_report_verdict(r), RCK_VERDICT_DEGRADED);
	rck_report_free(r);
	synth_fini(&s);
}

/* One NIC at half speed: the NIC, not its 510 links. */
static void test_slow_nic(void **state)
{
	one_finding(42, 17, 18, 0.5, RCK_FINDING_NIC_DEGRADED, RCK_ENTITY_NIC, "n0017");
}

/* Half the hosts slow (a spine down): one fabric finding. */
static void test_half_fabric_slow(void **state)
{
	one_finding(43, 0, HOSTS / 2, 0.6, RCK_FINDING_FABRIC_SLOW, RCK_ENTITY_FABRIC, NULL);
}

/* A healthy fabric whose centre sits just above the absolute floor (91% of
 * line rate, floor 90%, noise 2%): many suspects, retests, no finding. */
static void test_marginal_fabric(void **state)
{
	struct synth s = fabric(44);
	struct rck_report_links st = {.size = sizeof(st)};
	struct rck_report *r;
	unsigned int n;

	s.mean_gbps = 91;
	assert_int_equal(synth_run(&s, NULL, ROUNDS, &r, &n, NULL), 0);
	rck_report_links(r, &st);
	print_message("marginal fabric: %u suspects, %u retests, %u cleared, %u inconclusive\n",
		      st.suspects, n, st.cleared, st.inconclusive);
	if (rck_report_finding_count(r))
		dump(r);
	assert_int_equal(rck_report_finding_count(r), 0);
	assert_int_equal(rck_report_verdict(r), RCK_VERDICT_HEALTHY);
	rck_report_free(r);
	synth_fini(&s);
}

/* Mixed line rates: 32 hosts at 100G, 224 at 400G; links are judged
 * within their rate class, so the 100G NICs are not slow 400G ones, and
 * one 400G link at 0.90 is still found. */
static void test_mixed_rates(void **state)
{
	struct synth s = fabric(45);
	double rate[HOSTS];
	const struct rck_finding *f;
	struct rck_report *r;

	for (unsigned int i = 0; i < HOSTS; i++)
		rate[i] = i < 32 ? 100 : 400;
	s.nic_rate = rate;
	s.bad_src = 100;
	s.bad_dst = 200;
	s.bad_factor = 0.9;
	assert_int_equal(synth_run(&s, NULL, ROUNDS, &r, NULL, NULL), 0);
	if (rck_report_finding_count(r) != 1)
		dump(r);
	assert_int_equal(rck_report_finding_count(r), 1);
	f = rck_report_finding(r, 0);
	assert_int_equal(rck_finding_code(f), RCK_FINDING_LINK_SLOW);
	assert_string_equal(rck_finding_host(f), "n0100");
	assert_string_equal(rck_finding_peer_host(f), "n0200");
	rck_report_free(r);
	synth_fini(&s);
}

/* Every probe failed: verdict error, with the reason. */
static void test_all_failed(void **state)
{
	struct synth s = {.hosts = 8, .mean_gbps = 97, .cv = 0.02, .seed = 1, .fail_all = 1};
	struct rck_report *r;

	assert_int_equal(synth_run(&s, NULL, 1, &r, NULL, NULL), 0);
	assert_int_equal(rck_report_verdict(r), RCK_VERDICT_ERROR);
	assert_non_null(rck_report_error(r));
	assert_non_null(strstr(rck_report_error(r), "all 56 probes failed"));
	assert_non_null(strstr(rck_report_error(r), "connection refused"));
	/* Every NIC failed all its probes: one finding per NIC, not 56. */
	assert_int_equal(rck_report_code_count(r, RCK_FINDING_PROBE_FAILED), 8);
	rck_report_free(r);
}

static struct rck_report *one_host(const struct rck_inventory *inv, const struct rck_thresholds *th)
{
	struct rck_analysis *a;
	struct rck_report *r;

	assert_int_equal(rck_analysis_new(th, &a), 0);
	assert_int_equal(rck_analysis_add_host(a, "h1", inv, NULL, NULL), 0);
	assert_int_equal(rck_analysis_run(a, &r), 0);
	rck_analysis_free(a);
	return r;
}

static bool has_finding(const struct rck_report *r, enum rck_finding_code code, const char *nic)
{
	for (unsigned int i = 0; i < rck_report_finding_count(r); i++) {
		const struct rck_finding *f = rck_report_finding(r, i);

		if (rck_finding_code(f) == code && (!nic || (rck_finding_nic(f) && !strcmp(rck_finding_nic(f), nic))))
			return true;
	}
	return false;
}

/* Per-host checks on every recorded tree. */
static void test_fixtures(void **state)
{
	static const struct {
		const char *tree;
		unsigned int findings;
	} cases[] = {{"mlx5", 1}, {"bnxt", 0}, {"irdma", 0}, {"rxe", 0}};
	struct rck_inventory *inv;
	struct rck_report *r;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		inv = fixture_inventory(cases[i].tree);
		r = one_host(inv, NULL);
		if (rck_report_finding_count(r) != cases[i].findings)
			dump(r);
		assert_int_equal(rck_report_finding_count(r), cases[i].findings);
		rck_report_free(r);
		rck_inventory_free(inv);
	}
	/* mlx5: PCIe x8 in an x16 slot, the mark the text writer shows. */
	inv = fixture_inventory("mlx5");
	assert_true(rck_analysis_pci_degraded(rck_inventory_device(inv, 0)));
	r = one_host(inv, NULL);
	assert_true(has_finding(r, RCK_FINDING_PCIE_DEGRADED, "mlx5_0"));
	assert_int_equal(rck_report_verdict(r), RCK_VERDICT_DEGRADED);
	rck_report_free(r);
	rck_inventory_free(inv);

	/* An expected rate and MTU the bnxt port does not meet. */
	{
		struct rck_thresholds *th;

		assert_int_equal(rck_thresholds_new(&th), 0);
		assert_int_equal(rck_thresholds_set(th, "expect_rate_gbps", 400), 0);
		assert_int_equal(rck_thresholds_set(th, "expect_mtu", 9000), 0);
		inv = fixture_inventory("bnxt");
		r = one_host(inv, th);
		assert_true(has_finding(r, RCK_FINDING_PORT_RATE, "bnxt_re0/1"));
		assert_true(has_finding(r, RCK_FINDING_MTU_MISMATCH, "bnxt_re0/1"));
		rck_report_free(r);
		rck_inventory_free(inv);
		rck_thresholds_free(th);
	}

	/* broken: port 1 down (port 2 is InfiniBand, not a RoCE port). */
	inv = fixture_inventory("broken");
	r = one_host(inv, NULL);
	dump(r);
	assert_true(rck_report_finding_count(r) >= 1);
	assert_true(has_finding(r, RCK_FINDING_PORT_DOWN, "mlx5_9/1"));
	assert_false(has_finding(r, RCK_FINDING_PORT_DOWN, "mlx5_9/2"));
	assert_int_equal(rck_report_verdict(r), RCK_VERDICT_DEGRADED);
	rck_report_free(r);
	rck_inventory_free(inv);
}

/* A probed NIC the inventory lacks. */
static void test_port_missing(void **state)
{
	struct rck_analysis_nic nic = {.size = sizeof(nic), .device = "mlx5_7", .port = 1};
	struct rck_inventory *inv = fixture_inventory("mlx5");
	struct rck_analysis *a;
	struct rck_report *r;

	assert_int_equal(rck_analysis_new(NULL, &a), 0);
	assert_int_equal(rck_analysis_add_host(a, "h1", inv, NULL, NULL), 0);
	assert_int_equal(rck_analysis_add_nic(a, 0, &nic, NULL), 0);
	assert_int_equal(rck_analysis_add_nic(a, 0, &nic, NULL), -EEXIST);
	assert_int_equal(rck_analysis_run(a, &r), 0);
	assert_true(has_finding(r, RCK_FINDING_PORT_MISSING, "mlx5_7/1"));
	/* mlx5_0 is not a probed NIC of this host, so not judged. */
	assert_false(has_finding(r, RCK_FINDING_PCIE_DEGRADED, NULL));
	rck_report_free(r);
	rck_analysis_free(a);
	rck_inventory_free(inv);
}

/* Counter deltas of a host: the mlx5 fixture's snapshot, and a copy 10 s
 * later with errors, a link down, long pauses on priority 3 and a counter
 * that went backwards. */
static void test_host_counters(void **state)
{
	const char *fix = getenv("ROCECHECK_FIXTURES");
	char root[4096], old_path[] = "/tmp/rck-an-old.XXXXXX", new_path[] = "/tmp/rck-an-new.XXXXXX";
	struct rck_snapshot *s0, *s1;
	struct rck_inventory *inv = fixture_inventory("mlx5");
	struct rck_analysis *a;
	struct rck_report *r;
	struct rck_delta *d;
	struct rck_ctx *ctx;
	json_t *j, *c;
	int fd;

	snprintf(root, sizeof(root), "%s/sysfs/mlx5", fix);
	assert_int_equal(rck_ctx_new(&ctx), 0);
	assert_int_equal(rck_ctx_set_sysfs_root(ctx, root), 0);
	assert_int_equal(rck_snapshot_new(ctx, inv, NULL, 0, &s0), 0);
	assert_true((fd = mkstemp(old_path)) >= 0);
	close(fd);
	assert_true((fd = mkstemp(new_path)) >= 0);
	close(fd);
	assert_int_equal(rck_snapshot_save(s0, old_path), 0);
	j = json_load_file(old_path, 0, NULL);
	assert_non_null(j);
	json_object_set_new(j, "time_ns", json_integer(json_integer_value(json_object_get(j, "time_ns")) +
						       10000000000LL));
	c = json_object_get(json_array_get(json_object_get(json_array_get(json_object_get(j, "devices"), 0),
							   "ports"), 0), "counters");
	assert_non_null(c);
	json_object_set_new(c, "symbol_errors", json_integer(50));   /* 5/s: a warning */
	json_object_set_new(c, "link_downed", json_integer(json_integer_value(json_object_get(c, "link_downed")) + 1));
	json_object_set_new(c, "crc_errors", json_integer(0));
	json_array_set_new(json_object_get(c, "pfc_tx_pause_duration"), 3, json_integer(402 + 8000000));
	json_object_set_new(c, "tx_packets", json_integer(1));          /* went backwards */
	assert_int_equal(json_dump_file(j, new_path, 0), 0);
	json_decref(j);
	assert_int_equal(rck_snapshot_load(ctx, old_path, &s1), 0);
	rck_snapshot_free(s0);
	s0 = s1;
	assert_int_equal(rck_snapshot_load(ctx, new_path, &s1), 0);
	assert_int_equal(rck_delta_new(s0, s1, &d), 0);
	assert_int_equal(rck_analysis_new(NULL, &a), 0);
	assert_int_equal(rck_analysis_add_host(a, "h1", inv, d, NULL), 0);
	assert_int_equal(rck_analysis_run(a, &r), 0);
	dump(r);
	assert_true(has_finding(r, RCK_FINDING_ERROR_COUNTER, "mlx5_0/1"));
	assert_true(has_finding(r, RCK_FINDING_PAUSE_STORM, "mlx5_0/1"));
	for (unsigned int i = 0; i < rck_report_finding_count(r); i++) {
		const struct rck_finding *f = rck_report_finding(r, i);

		if (rck_finding_code(f) != RCK_FINDING_ERROR_COUNTER)
			continue;
		if (strstr(rck_finding_reason(f), "symbol_errors"))
			assert_int_equal(rck_finding_severity(f), RCK_SEVERITY_WARNING);
		else if (strstr(rck_finding_reason(f), "link_downed"))
			assert_int_equal(rck_finding_severity(f), RCK_SEVERITY_DEGRADED);
		else
			fail_msg("unexpected: %s", rck_finding_reason(f));
	}
	assert_int_equal(rck_report_code_count(r, RCK_FINDING_ERROR_COUNTER), 2);
	/* tx_packets is not an error counter: its reset is not judged. */
	assert_int_equal(rck_report_code_count(r, RCK_FINDING_COUNTER_RESET), 0);
	rck_report_free(r);
	rck_analysis_free(a);
	rck_delta_free(d);
	rck_snapshot_free(s0);
	rck_snapshot_free(s1);
	rck_inventory_free(inv);
	rck_ctx_free(ctx);
	unlink(old_path);
	unlink(new_path);
}

/* Lint: seven mlx5 hosts and one bnxt host; the odd one is named with the
 * majority value. */
static void test_lint(void **state)
{
	struct rck_inventory *mlx = fixture_inventory("mlx5"), *bnxt = fixture_inventory("bnxt");
	struct rck_analysis *a;
	struct rck_report *r;
	unsigned int mism = 0;

	assert_int_equal(rck_analysis_new(NULL, &a), 0);
	for (unsigned int h = 0; h < 8; h++) {
		char name[16];

		snprintf(name, sizeof(name), "h%u", h);
		assert_int_equal(rck_analysis_add_host(a, name, h == 5 ? bnxt : mlx, NULL, NULL), 0);
	}
	assert_int_equal(rck_analysis_add_host(a, "h0", mlx, NULL, NULL), -EEXIST);
	assert_int_equal(rck_analysis_run(a, &r), 0);
	for (unsigned int i = 0; i < rck_report_finding_count(r); i++) {
		const struct rck_finding *f = rck_report_finding(r, i);

		if (rck_finding_code(f) != RCK_FINDING_CONFIG_MISMATCH)
			continue;
		mism++;
		assert_string_equal(rck_finding_host(f), "h5");
		assert_non_null(strstr(rck_finding_reason(f), "the majority (7 of 8) has"));
	}
	if (mism != 2)
		dump(r);
	/* port rate 200 vs 100 and netdev MTU 4200 vs 9000; firmware is
	 * compared within one board type only. */
	assert_int_equal(mism, 2);
	assert_true(has_finding(r, RCK_FINDING_CONFIG_MISMATCH, "bnxt_re0/1"));
	rck_report_free(r);
	rck_analysis_free(a);
	rck_inventory_free(mlx);
	rck_inventory_free(bnxt);
}

/* Counter findings on a 4-host fabric with hand-made deltas. */
#define ALL_CTRS (~0ULL >> (64 - RCK_CTR_PFC_TX_PAUSE - 8))

static struct rck_analysis *small(uint64_t counters, const char *pattern)
{
	struct rck_analysis *a;

	assert_int_equal(rck_analysis_new(NULL, &a), 0);
	for (unsigned int h = 0; h < 4; h++) {
		struct rck_analysis_nic nic = {.size = sizeof(nic), .device = "mlx5_0", .port = 1,
					       .line_rate_gbps = 100, .counters = counters};
		char name[16];

		snprintf(name, sizeof(name), "n%u", h);
		assert_int_equal(rck_analysis_add_host(a, name, NULL, NULL, NULL), 0);
		assert_int_equal(rck_analysis_add_nic(a, h, &nic, NULL), 0);
	}
	if (pattern)
		assert_int_equal(rck_analysis_set_pattern(a, pattern), 0);
	return a;
}

/* Add all 12 links; link (0 -> 1) gets @ctrs, the others @others. */
static void links(struct rck_analysis *a, const struct rck_link_counter *ctrs, unsigned int n,
		  const struct rck_link_counter *others, unsigned int n_others)
{
	for (unsigned int s = 0; s < 4; s++)
		for (unsigned int d = 0; d < 4; d++) {
			struct rck_link_sample x = {.size = sizeof(x), .test = RCK_LINK_TEST_BW,
						    .src_nic = s, .dst_nic = d};

			if (s == d)
				continue;
			x.meas.gbps = 96 + 0.1 * (s + d);
			if (s == 0 && d == 1) {
				x.counters = ctrs;
				x.n_counters = n;
			} else {
				x.counters = others;
				x.n_counters = n_others;
			}
			assert_int_equal(rck_analysis_add_links(a, &x, 1), 0);
		}
}

static struct rck_report *run_small(struct rck_analysis *a)
{
	struct rck_report *r;

	assert_int_equal(rck_analysis_run(a, &r), 0);
	rck_analysis_free(a);
	return r;
}

static void expect_only(struct rck_report *r, enum rck_finding_code code)
{
	const struct rck_finding *f;

	if (rck_report_finding_count(r) != 1)
		dump(r);
	assert_int_equal(rck_report_finding_count(r), 1);
	f = rck_report_finding(r, 0);
	assert_int_equal(rck_finding_code(f), code);
	assert_int_equal(rck_finding_entity(f), RCK_ENTITY_LINK);
	assert_string_equal(rck_finding_host(f), "n0");
	assert_string_equal(rck_finding_peer_host(f), "n1");
	rck_report_free(r);
}

static void test_link_counters(void **state)
{
	const struct rck_link_counter loss[] = {{RCK_LINK_DST, RCK_CTR_OUT_OF_SEQUENCE, 12},
						 {RCK_LINK_SRC, RCK_CTR_LOCAL_ACK_TIMEOUTS, 3}};
	const struct rck_link_counter pfc[] = {{RCK_LINK_DST, RCK_CTR_PFC_TX_PAUSE + 0, 50}};
	const struct rck_link_counter pfc3[] = {{RCK_LINK_DST, RCK_CTR_PFC_TX_PAUSE + 3, 50}};
	const struct rck_link_counter ecn[] = {{RCK_LINK_DST, RCK_CTR_ECN_MARKED_PACKETS, 900}};
	const struct rck_link_counter ecn_ok[] = {{RCK_LINK_DST, RCK_CTR_ECN_MARKED_PACKETS, 900},
						   {RCK_LINK_DST, RCK_CTR_CNP_SENT, 40},
						   {RCK_LINK_SRC, RCK_CTR_CNP_HANDLED, 40}};
	const struct rck_link_counter cnp[] = {{RCK_LINK_SRC, RCK_CTR_CNP_HANDLED, 40}};
	const struct rck_link_counter bad_id[] = {{RCK_LINK_DST, RCK_CTR_COUNT, 1}};
	struct rck_link_sample x = {.size = sizeof(x), .src_nic = 0, .dst_nic = 1,
				    .counters = bad_id, .n_counters = 1};
	struct rck_analysis *a;
	struct rck_report *r;

	/* Counters on link n0 -> n1 only: the finding they raise, or none (-1). */
	const struct {
		uint64_t has;
		const struct rck_link_counter *c;
		unsigned int n;
		int code;
	} cases[] = {
		{ALL_CTRS, loss, 2, RCK_FINDING_LOSS_ON_LOSSLESS},
		{ALL_CTRS, pfc, 1, RCK_FINDING_PFC_WRONG_PRIORITY},
		{ALL_CTRS, pfc3, 1, -1},
		{ALL_CTRS, ecn, 1, RCK_FINDING_ECN_NO_CNP},
		{ALL_CTRS, ecn_ok, 3, -1},
		{ALL_CTRS, cnp, 1, RCK_FINDING_CNP_NO_ECN},
		/* A NIC without CNP counters is never blamed for missing CNPs. */
		{ALL_CTRS & ~(1ULL << RCK_CTR_CNP_SENT), ecn, 1, -1},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		a = small(cases[i].has, NULL);
		links(a, cases[i].c, cases[i].n, NULL, 0);
		r = run_small(a);
		if (cases[i].code >= 0) {
			expect_only(r, (enum rck_finding_code)cases[i].code);
			continue;
		}
		assert_int_equal(rck_report_finding_count(r), 0);
		rck_report_free(r);
	}
	/* Loss on every link of n1's column and row: one NIC finding. */
	a = small(ALL_CTRS, NULL);
	for (unsigned int s = 0; s < 4; s++)
		for (unsigned int d = 0; d < 4; d++) {
			struct rck_link_sample y = {.size = sizeof(y), .src_nic = s, .dst_nic = d};

			if (s == d)
				continue;
			y.meas.gbps = 96;
			if (s == 1 || d == 1) {
				y.counters = loss;
				y.n_counters = 2;
			}
			assert_int_equal(rck_analysis_add_links(a, &y, 1), 0);
		}
	r = run_small(a);
	assert_int_equal(rck_report_finding_count(r), 1);
	assert_int_equal(rck_finding_entity(rck_report_finding(r, 0)), RCK_ENTITY_NIC);
	assert_string_equal(rck_finding_host(rck_report_finding(r, 0)), "n1");
	rck_report_free(r);
	/* Bad input is refused whole. */
	a = small(ALL_CTRS, NULL);
	assert_int_equal(rck_analysis_add_links(a, &x, 1), -EINVAL);
	x.counters = NULL;
	x.n_counters = 0;
	x.dst_nic = 0;
	assert_int_equal(rck_analysis_add_links(a, &x, 1), -EINVAL);
	x.dst_nic = 9;
	assert_int_equal(rck_analysis_add_links(a, &x, 1), -EINVAL);
	assert_int_equal(rck_analysis_set_pattern(a, "incast:1"), -EINVAL);
	assert_int_equal(rck_analysis_set_pattern(a, "ring"), -EINVAL);
	rck_analysis_free(a);
}

/* Incast: ECN marks or PFC pauses prove the lossless setup; none is a finding. */
static void test_incast(void **state)
{
	const struct rck_link_counter ecn_ok[] = {{RCK_LINK_DST, RCK_CTR_ECN_MARKED_PACKETS, 900},
						   {RCK_LINK_DST, RCK_CTR_CNP_SENT, 40},
						   {RCK_LINK_SRC, RCK_CTR_CNP_HANDLED, 40}};
	const struct rck_link_counter pause[] = {{RCK_LINK_DST, RCK_CTR_PFC_TX_PAUSE + 3, 7}};
	const struct rck_link_counter loss[] = {{RCK_LINK_DST, RCK_CTR_OUT_OF_SEQUENCE, 12}};
	struct rck_analysis *a;
	struct rck_report *r;

	a = small(ALL_CTRS, "incast:3");
	links(a, ecn_ok, 3, ecn_ok, 3);
	r = run_small(a);
	assert_int_equal(rck_report_finding_count(r), 0);
	rck_report_free(r);
	a = small(ALL_CTRS, "incast:3");
	links(a, pause, 1, pause, 1);
	r = run_small(a);
	assert_int_equal(rck_report_finding_count(r), 0);
	rck_report_free(r);
	/* Nothing signalled anywhere: one fabric finding, a warning. */
	a = small(ALL_CTRS, "incast:3");
	links(a, NULL, 0, NULL, 0);
	r = run_small(a);
	assert_int_equal(rck_report_finding_count(r), 1);
	assert_int_equal(rck_finding_code(rck_report_finding(r, 0)), RCK_FINDING_LOSSLESS_UNPROVEN);
	assert_int_equal(rck_finding_entity(rck_report_finding(r, 0)), RCK_ENTITY_FABRIC);
	assert_int_equal(rck_finding_severity(rck_report_finding(r, 0)), RCK_SEVERITY_WARNING);
	rck_report_free(r);
	/* NICs without the counters (rxe): info only. */
	a = small(0, "incast:3");
	links(a, NULL, 0, NULL, 0);
	r = run_small(a);
	assert_int_equal(rck_finding_severity(rck_report_finding(r, 0)), RCK_SEVERITY_INFO);
	assert_int_equal(rck_report_verdict(r), RCK_VERDICT_HEALTHY);
	rck_report_free(r);
	/* Loss under incast: the link, with its evidence. */
	a = small(ALL_CTRS, "incast:3");
	links(a, loss, 1, ecn_ok, 3);
	r = run_small(a);
	assert_true(has_finding(r, RCK_FINDING_LOSS_ON_LOSSLESS, "mlx5_0/1"));
	assert_int_equal(rck_report_verdict(r), RCK_VERDICT_DEGRADED);
	rck_report_free(r);
}

/* 8 hosts, every link measured at @gbps(src, dst, @arg) with three equal
 * retests; the links from n2 carry @from2 (@n2 counters). */
static struct rck_report *eight(double (*gbps)(unsigned int, unsigned int, const double *),
				const double *arg, const struct rck_link_counter *from2, unsigned int n2)
{
	struct rck_analysis *a;

	assert_int_equal(rck_analysis_new(NULL, &a), 0);
	for (unsigned int h = 0; h < 8; h++) {
		struct rck_analysis_nic nic = {.size = sizeof(nic), .device = "mlx5_0", .port = 1,
					       .line_rate_gbps = 100, .counters = ALL_CTRS};
		char name[16];

		snprintf(name, sizeof(name), "n%u", h);
		assert_int_equal(rck_analysis_add_host(a, name, NULL, NULL, NULL), 0);
		assert_int_equal(rck_analysis_add_nic(a, h, &nic, NULL), 0);
	}
	for (unsigned int s = 0; s < 8; s++)
		for (unsigned int d = 0; d < 8; d++) {
			struct rck_link_sample x = {.size = sizeof(x), .test = RCK_LINK_TEST_BW,
						    .src_nic = s, .dst_nic = d, .line_rate_gbps = 100};

			if (s == d)
				continue;
			x.meas.gbps = gbps(s, d, arg);
			x.n_retests = 3;
			for (unsigned int k = 0; k < 3; k++)
				x.retest[k] = x.meas;
			if (s == 2) {
				x.counters = from2;
				x.n_counters = n2;
			}
			assert_int_equal(rck_analysis_add_links(a, &x, 1), 0);
		}
	return run_small(a);
}

/* A NIC found degraded keeps its probes' counters as evidence: loss on the
 * links of a slow NIC is a finding on that NIC, never on its links. */
static double n2_slow(unsigned int s, unsigned int d, const double *arg)
{
	(void)arg;
	return (s == 2 || d == 2 ? 48 : 96) + 0.1 * (s + d);
}

static void test_bad_nic_evidence(void **state)
{
	const struct rck_link_counter loss[] = {{RCK_LINK_DST, RCK_CTR_OUT_OF_SEQUENCE, 30}};
	struct rck_report *r;
	bool nic_loss = false;

	(void)state;
	/* 8 hosts: n2's 14 links of 56 are slow, not half the fabric. */
	r = eight(n2_slow, NULL, loss, 1);
	for (unsigned int i = 0; i < rck_report_finding_count(r); i++) {
		const struct rck_finding *f = rck_report_finding(r, i);

		assert_int_not_equal(rck_finding_entity(f), RCK_ENTITY_LINK);
		nic_loss |= rck_finding_code(f) == RCK_FINDING_LOSS_ON_LOSSLESS &&
			    rck_finding_entity(f) == RCK_ENTITY_NIC && !strcmp(rck_finding_host(f), "n2");
	}
	if (!nic_loss || !has_finding(r, RCK_FINDING_NIC_DEGRADED, "mlx5_0/1"))
		dump(r);
	assert_true(has_finding(r, RCK_FINDING_NIC_DEGRADED, "mlx5_0/1"));
	assert_true(nic_loss);
	rck_report_free(r);
}

/* n2's links at 48 Gb/s; n5's at @v[0], but from n0, n1, n3 at @v[1]. */
static double n2_n5_slow(unsigned int s, unsigned int d, const double *v)
{
	if (s == 2 || d == 2)
		return 48;
	if (d == 5 && (s == 0 || s == 1 || s == 3))
		return v[1];
	return s == 5 || d == 5 ? v[0] : 96 + 0.1 * (s + d);
}

/* n2 sends with loss on the sender's counters and out-of-sequence packets
 * at its receivers. */
static struct rck_report *two_slow(double n5, double to5)
{
	const struct rck_link_counter sent[] = {{RCK_LINK_SRC, RCK_CTR_LOCAL_ACK_TIMEOUTS, 20},
						{RCK_LINK_DST, RCK_CTR_OUT_OF_SEQUENCE, 30}};
	const double v[2] = {n5, to5};

	return eight(n2_n5_slow, v, sent, 2);
}

static bool nic_has(const struct rck_report *r, enum rck_finding_code code, const char *host)
{
	for (unsigned int i = 0; i < rck_report_finding_count(r); i++) {
		const struct rck_finding *f = rck_report_finding(r, i);

		if (rck_finding_code(f) == code && rck_finding_entity(f) == RCK_ENTITY_NIC &&
		    !strcmp(rck_finding_host(f), host))
			return true;
	}
	return false;
}

/* A slow NIC's links pull its peers' medians down (in CI: 4 hosts, 1% loss
 * on one, and a second NIC flagged with the first one's loss): the peer is
 * judged without its links to a worse NIC, and loss seen only on its probe
 * with the lossy NIC is that NIC's evidence. */
static void test_explain_away(void **state)
{
	/* n5 receives at 88 (below the floor of 89.3) from three hosts and at
	 * 48 from n2: a median of 88 with n2, 92 without: not degraded. n5
	 * slow by itself (60, n2 worse at 48): degraded, and the
	 * out-of-sequence count it saw from n2 stays n2's loss. */
	static const struct {
		double n5, to5;
		bool n5_degraded;
	} cases[] = {{96, 88, false}, {60, 60, true}};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rck_report *r = two_slow(cases[i].n5, cases[i].to5);

		if (nic_has(r, RCK_FINDING_NIC_DEGRADED, "n5") != cases[i].n5_degraded ||
		    nic_has(r, RCK_FINDING_LOSS_ON_LOSSLESS, "n5"))
			dump(r);
		assert_true(nic_has(r, RCK_FINDING_NIC_DEGRADED, "n2"));
		assert_true(nic_has(r, RCK_FINDING_LOSS_ON_LOSSLESS, "n2"));
		assert_int_equal(nic_has(r, RCK_FINDING_NIC_DEGRADED, "n5"), cases[i].n5_degraded);
		assert_false(nic_has(r, RCK_FINDING_LOSS_ON_LOSSLESS, "n5"));
		rck_report_free(r);
	}
}

/* A 4-host fabric where link 0 -> 1 (bw) and 0 -> 2 (lat) are slow, with
 * the given retests. */
static struct rck_report *retested(const struct rck_link_meas *bw_rt, unsigned int n_bw,
				   const struct rck_link_meas *lat_rt, unsigned int n_lat)
{
	struct rck_analysis *a = small(0, NULL);

	for (unsigned int s = 0; s < 4; s++)
		for (unsigned int d = 0; d < 4; d++) {
			struct rck_link_sample x = {.size = sizeof(x), .src_nic = s, .dst_nic = d};

			if (s == d)
				continue;
			x.test = RCK_LINK_TEST_BW;
			x.meas.gbps = s == 0 && d == 1 ? 50 : 96 + 0.3 * s - 0.2 * d;
			if (s == 0 && d == 1 && n_bw) {
				/* Past the sample's own array: more_retests. */
				x.n_retests = n_bw < RCK_LINK_RETEST_MAX ? n_bw : RCK_LINK_RETEST_MAX;
				memcpy(x.retest, bw_rt, x.n_retests * sizeof(*bw_rt));
				if (n_bw > RCK_LINK_RETEST_MAX) {
					x.more_retests = bw_rt + RCK_LINK_RETEST_MAX;
					x.n_more_retests = n_bw - RCK_LINK_RETEST_MAX;
				}
			}
			assert_int_equal(rck_analysis_add_links(a, &x, 1), 0);
			x.test = RCK_LINK_TEST_LAT;
			x.n_retests = 0;
			x.n_more_retests = 0;
			x.meas.lat_p50_us = s == 0 && d == 2 ? 30 : 3 + 0.01 * (s + d);
			x.meas.lat_p99_us = 2 * x.meas.lat_p50_us;
			if (s == 0 && d == 2 && n_lat) {
				x.n_retests = n_lat;
				memcpy(x.retest, lat_rt, n_lat * sizeof(*lat_rt));
			}
			assert_int_equal(rck_analysis_add_links(a, &x, 1), 0);
		}
	return run_small(a);
}

static void test_retests(void **state)
{
	const struct rck_link_meas failed[4] = {{.status = RCK_LINK_FAILED}, {.status = RCK_LINK_FAILED},
						{.status = RCK_LINK_FAILED}, {.status = RCK_LINK_FAILED}};
	/* 12 links: one deep value in 12 cannot be told from a dip that
	 * likely (spread.c): each measurement counts for ln(12) at most. */
	const struct rck_link_meas slow_bw[6] = {{.gbps = 51}, {.gbps = 49}, {.gbps = 50.5},
						 {.gbps = 50}, {.gbps = 49.5}, {.gbps = 50.2}};
	/* Just below the test's midpoint: little evidence each. */
	const struct rck_link_meas near_bw[8] = {{.gbps = 92.75}, {.gbps = 92.75}, {.gbps = 92.75},
						 {.gbps = 92.75}, {.gbps = 92.75}, {.gbps = 92.75},
						 {.gbps = 92.75}, {.gbps = 92.75}};
	const struct rck_link_meas fast_bw[2] = {{.gbps = 96}, {.gbps = 95.8}};
	const struct rck_link_meas slow_lat = {.lat_p50_us = 28}, fast_lat = {.lat_p50_us = 3};
	struct rck_report *r;

	/* Not retested: two unconfirmed warnings, both on the retest list. */
	r = retested(NULL, 0, NULL, 0);
	assert_int_equal(rck_report_verdict(r), RCK_VERDICT_HEALTHY);
	assert_int_equal(rck_report_retest_count(r), 2);
	assert_int_equal(rck_report_severity_count(r, RCK_SEVERITY_WARNING), 2);
	rck_report_free(r);
	/* One retest, below the floor: asked again, and shown meanwhile as a
	 * suspect warning (a caller out of retest passes reports it). */
	r = retested(slow_bw, 1, NULL, 0);
	assert_int_equal(rck_report_verdict(r), RCK_VERDICT_HEALTHY);
	assert_true(rck_report_retest_count(r) >= 1);
	assert_true(has_finding(r, RCK_FINDING_LINK_SLOW, "mlx5_0/1"));
	for (unsigned int i = 0, seen = 0; i < rck_report_finding_count(r) || !seen; i++) {
		const struct rck_finding *f = rck_report_finding(r, i);

		assert_non_null(f); /* one at least */
		if (rck_finding_code(f) != RCK_FINDING_LINK_SLOW || !strstr(rck_finding_reason(f), "undecided"))
			continue;
		seen++;
		assert_int_equal(rck_finding_severity(f), RCK_SEVERITY_WARNING);
		assert_true(rck_finding_suspect(f));
		assert_non_null(strstr(rck_finding_reason(f), "undecided after 1 retest,"));
	}
	assert_int_equal(rck_report_severity_count(r, RCK_SEVERITY_DEGRADED), 0);
	rck_report_free(r);
	/* Retests agree: both degraded, nothing left to retest. */
	/* Undecided after link_retests_max (4): the link goes on, asked
	 * again, not truncated to inconclusive. */
	r = retested(near_bw, 4, &slow_lat, 1);
	if (rck_report_retest_count(r) != 1)
		dump(r);
	assert_int_equal(rck_report_retest_count(r), 1);
	assert_int_equal(rck_report_severity_count(r, RCK_SEVERITY_DEGRADED), 1);
	rck_report_free(r);
	/* ... until its evidence reaches the bound; but at 92.75 Gb/s its
	 * retests sit above the floor (90): never slow, inconclusive. */
	r = retested(near_bw, 8, &slow_lat, 1);
	if (rck_report_severity_count(r, RCK_SEVERITY_DEGRADED) != 1)
		dump(r);
	assert_int_equal(rck_report_severity_count(r, RCK_SEVERITY_DEGRADED), 1);
	assert_int_equal(rck_report_code_count(r, RCK_FINDING_LINK_SLOW), 0);
	assert_int_equal(rck_report_retest_count(r), 0);
	rck_report_free(r);
	r = retested(slow_bw, 6, &slow_lat, 1);
	if (rck_report_severity_count(r, RCK_SEVERITY_DEGRADED) != 2)
		dump(r);
	assert_int_equal(rck_report_severity_count(r, RCK_SEVERITY_DEGRADED), 2);
	assert_true(has_finding(r, RCK_FINDING_LINK_SLOW, "mlx5_0/1"));
	assert_true(has_finding(r, RCK_FINDING_LINK_LATENCY, "mlx5_0/1"));
	assert_int_equal(rck_report_retest_count(r), 0);
	rck_report_free(r);
	/* Retests disagree: cleared, no finding. */
	r = retested(fast_bw, 2, &fast_lat, 1);
	if (rck_report_finding_count(r))
		dump(r);
	assert_int_equal(rck_report_finding_count(r), 0);
	assert_int_equal(rck_report_retest_count(r), 0);
	rck_report_free(r);
	/* Every retest failed: said so, and not asked for again past the limit. */
	r = retested(failed, 4, NULL, 0);
	assert_int_equal(rck_report_retest_count(r), 1);  /* the latency link */
	assert_int_equal(rck_report_code_count(r, RCK_FINDING_LINK_SLOW), 1);
	for (unsigned int i = 0; i < rck_report_finding_count(r); i++)
		if (rck_finding_code(rck_report_finding(r, i)) == RCK_FINDING_LINK_SLOW)
			assert_non_null(strstr(rck_finding_reason(rck_report_finding(r, i)), "its retests failed"));
	rck_report_free(r);
}

/* Unreachable hosts are one finding each; their links are not judged. */
static void test_unreachable(void **state)
{
	struct rck_analysis *a = small(0, NULL);
	struct rck_report *r;

	for (unsigned int s = 0; s < 4; s++)
		for (unsigned int d = 0; d < 4; d++) {
			struct rck_link_sample x = {.size = sizeof(x), .src_nic = s, .dst_nic = d};

			if (s == d)
				continue;
			x.meas.gbps = 96;
			if (s == 2 || d == 2)
				x.meas.status = RCK_LINK_UNREACHABLE;
			assert_int_equal(rck_analysis_add_links(a, &x, 1), 0);
		}
	assert_int_equal(rck_analysis_set_unreachable(a, 2, "agent did not answer in 10 s"), 0);
	r = run_small(a);
	assert_int_equal(rck_report_finding_count(r), 1);
	assert_int_equal(rck_finding_code(rck_report_finding(r, 0)), RCK_FINDING_HOST_UNREACHABLE);
	assert_string_equal(rck_finding_host(rck_report_finding(r, 0)), "n2");
	assert_int_equal(rck_finding_severity(rck_report_finding(r, 0)), RCK_SEVERITY_CRITICAL);
	rck_report_free(r);
}

/* Nothing to analyse is an error verdict, not a crash. */
static void test_empty(void **state)
{
	struct rck_analysis *a;
	struct rck_report *r;

	assert_int_equal(rck_analysis_new(NULL, &a), 0);
	assert_int_equal(rck_analysis_run(a, &r), 0);
	assert_int_equal(rck_report_verdict(r), RCK_VERDICT_ERROR);
	assert_null(rck_report_finding(r, 0));
	rck_report_free(r);
	rck_analysis_free(a);
}

/* The thresholds file: comments, blanks, ranges, errors with line numbers. */
static void test_thresholds(void **state)
{
	static const struct {
		const char *text;
		const char *err;
	} bad[] = {
		{"link_abs_floor = 0.8\nno_such = 1\n", "t.conf:2: unknown key \"no_such\""},
		{"# c\n\nroce_priority = 8\n", "t.conf:3: roce_priority = 8 out of range"},
		{"ecn_min = 1\necn_min = 2\n", "t.conf:2: key \"ecn_min\" given twice"},
		{"loss_min = 0x10\n", "t.conf:1: value \"0x10\" of loss_min is not a number"},
		{"symbol_error_rate = inf\n", "t.conf:1: value \"inf\" of symbol_error_rate is not a number"},
		{"expect_mtu = 1500.5\n", "t.conf:1: expect_mtu = 1500.5 out of range"},
		{"link_miss\n", "t.conf:1: expected `key = value`"},
		{"link_miss =\n", "t.conf:1: no value for \"link_miss\""},
		{"link_miss = 0.1 0.2\n", "t.conf:1: value \"0.1 0.2\" of link_miss is not a number"},
	};
	const char *good = "# site thresholds\n  link_rel_floor = 0.95   # stricter\n\r\n"
			   "expect_rate_gbps\t=\t400\r\nlink_false_alarm = 1e-12";
	struct rck_thresholds *th;
	char err[200];
	double v;

	assert_int_equal(rck_thresholds_new(&th), 0);
	assert_int_equal(rck_thresholds_get(th, "link_rel_floor", &v), 0);
	assert_true(v == 0.93);
	assert_int_equal(rck_thresholds_parse(th, good, strlen(good), "t.conf", err, sizeof(err)), 0);
	assert_int_equal(rck_thresholds_get(th, "link_rel_floor", &v), 0);
	assert_true(v == 0.95);
	assert_int_equal(rck_thresholds_get(th, "expect_rate_gbps", &v), 0);
	assert_true(v == 400);
	assert_int_equal(rck_thresholds_get(th, "link_false_alarm", &v), 0);
	assert_true(v == 1e-12);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = 0;
		assert_int_equal(rck_thresholds_parse(th, bad[i].text, strlen(bad[i].text), "t.conf", err,
						      sizeof(err)), -EINVAL);
		if (strncmp(err, bad[i].err, strlen(bad[i].err)))
			fail_msg("case %zu: got \"%s\", want \"%s\"", i, err, bad[i].err);
	}
	/* A refused file changes nothing. */
	assert_int_equal(rck_thresholds_get(th, "link_rel_floor", &v), 0);
	assert_true(v == 0.95);
	assert_int_equal(rck_thresholds_set(th, "roce_priority", 9), -ERANGE);
	assert_int_equal(rck_thresholds_set(th, "nope", 1), -ENOENT);
	assert_int_equal(rck_thresholds_get(th, "nope", &v), -ENOENT);
	assert_int_equal(rck_thresholds_load(th, "/nonexistent/t.conf", err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "/nonexistent/t.conf"));
	assert_int_equal(rck_thresholds_load(th, "/", err, sizeof(err)), -EINVAL);
	assert_null(rck_thresholds_key(1000));
	rck_thresholds_free(th);
}

int main(void)
{
	const char *wrap = getenv("ROCECHECK_WRAP");

	if (wrap && strstr(wrap, "valgrind"))
		SEEDS = 10;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_slow_link),
		cmocka_unit_test(test_healthy),
		cmocka_unit_test(test_no_retest),
		cmocka_unit_test(test_slow_nic),
		cmocka_unit_test(test_half_fabric_slow),
		cmocka_unit_test(test_marginal_fabric),
		cmocka_unit_test(test_mixed_rates),
		cmocka_unit_test(test_all_failed),
		cmocka_unit_test(test_fixtures),
		cmocka_unit_test(test_port_missing),
		cmocka_unit_test(test_host_counters),
		cmocka_unit_test(test_lint),
		cmocka_unit_test(test_link_counters),
		cmocka_unit_test(test_incast),
		cmocka_unit_test(test_bad_nic_evidence),
		cmocka_unit_test(test_explain_away),
		cmocka_unit_test(test_retests),
		cmocka_unit_test(test_unreachable),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_thresholds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
