/* One analysis report per line, JSON (or text with -t), for scenarios
 * covering every part of schemas/analysis.schema.json (analysis-schema.py). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rocecheck/rocecheck.h>

#include "synth.h"

static enum rck_format fmt = RCK_FORMAT_JSON;

static int emit(struct rck_report *r)
{
	int rc = rck_report_write(r, stdout, fmt);

	rck_report_free(r);
	return rc;
}

static int synthetic(unsigned int hosts, double bad, unsigned int nic_slow, int fail_all, unsigned int rounds)
{
	struct synth s = {.hosts = hosts, .mean_gbps = 97, .cv = 0.02, .line_rate = 100, .seed = 5,
			  .fail_all = fail_all};
	double *factor = calloc(hosts, sizeof(*factor));
	struct rck_report *r;
	int rc;

	if (!factor || synth_init(&s))
		return 1;
	for (unsigned int i = 0; i < hosts; i++)
		factor[i] = i == nic_slow ? 0.5 : 1;
	s.nic_factor = factor;
	if (bad > 0) {
		s.bad_src = 1;
		s.bad_dst = 2;
		s.bad_factor = bad;
	}
	rc = synth_run(&s, NULL, rounds, &r, NULL, NULL);
	if (!rc)
		rc = emit(r);
	synth_fini(&s);
	free(factor);
	return rc;
}

/* @n NICs at half speed (every fifth) at noise @cv, retested: the circuit
 * breaker's held hosts, or an inconclusive verdict. */
static int several(unsigned int hosts, double cv, unsigned int n)
{
	struct synth s = {.hosts = hosts, .mean_gbps = 97, .cv = cv, .line_rate = 100, .seed = 9};
	double *factor = calloc(hosts, sizeof(*factor));
	struct rck_report *r;
	int rc;

	if (!factor || synth_init(&s))
		return 1;
	for (unsigned int i = 0; i < hosts; i++)
		factor[i] = i % 5 == 0 && i / 5 < n ? 0.5 : 1;
	s.nic_factor = factor;
	rc = synth_run(&s, NULL, 6, &r, NULL, NULL);
	if (!rc)
		rc = emit(r);
	synth_fini(&s);
	free(factor);
	return rc;
}

static struct rck_inventory *load(const char *tree)
{
	const char *fix = getenv("ROCECHECK_FIXTURES");
	struct rck_inventory *inv = NULL;
	struct rck_ctx *ctx;
	char root[4096];

	snprintf(root, sizeof(root), "%s/sysfs/%s", fix ? fix : ".", tree);
	if (rck_ctx_new(&ctx))
		return NULL;
	if (rck_ctx_set_sysfs_root(ctx, root) || rck_inventory_new(ctx, &inv))
		inv = NULL;
	rck_ctx_free(ctx);
	return inv;
}

/* Hosts from fixture trees (lint across them), a 4-NIC mesh with counters. */
static int hosts_and_counters(const char *const *trees, unsigned int n, const char *pattern)
{
	const struct rck_link_counter loss[] = {{RCK_LINK_DST, RCK_CTR_OUT_OF_SEQUENCE, 12},
						 {RCK_LINK_SRC, RCK_CTR_PFC_TX_PAUSE + 1, 5},
						 {RCK_LINK_DST, RCK_CTR_ECN_MARKED_PACKETS, 50}};
	struct rck_inventory *inv[16] = {NULL};
	struct rck_analysis *a;
	struct rck_report *r;
	int rc = rck_analysis_new(NULL, &a);

	for (unsigned int h = 0; !rc && h < n; h++) {
		char name[32];

		snprintf(name, sizeof(name), "h%u-%s", h, trees[h]);
		inv[h] = load(trees[h]);
		rc = inv[h] ? rck_analysis_add_host(a, name, inv[h], NULL, NULL) : 1;
	}
	if (!rc && pattern) {
		for (unsigned int h = 0; !rc && h < 4; h++) {
			struct rck_analysis_nic nic = {.size = sizeof(nic), .device = "mlx5_0", .port = 1,
						       .line_rate_gbps = 100, .counters = ~0ULL};
			char name[16];

			snprintf(name, sizeof(name), "m%u", h);
			rc = rck_analysis_add_host(a, name, NULL, NULL, NULL) ||
			     rck_analysis_add_nic(a, n + h, &nic, NULL);
		}
		rc = rc || rck_analysis_set_pattern(a, pattern);
		for (unsigned int s = 0; !rc && s < 4; s++)
			for (unsigned int d = 0; !rc && d < 4; d++) {
				struct rck_link_sample x = {.size = sizeof(x), .src_nic = s, .dst_nic = d};

				if (s == d)
					continue;
				x.test = (s + d) % 2 ? RCK_LINK_TEST_BW : RCK_LINK_TEST_LAT;
				x.meas.gbps = 90;
				x.meas.lat_p50_us = s == 0 && d == 2 ? 30 : 3;
				x.meas.lat_p99_us = 5;
				if (s == 0 && d == 1) {
					x.counters = loss;
					x.n_counters = 3;
				}
				if (s == 3 && d == 1) {
					x.meas.status = RCK_LINK_FAILED;
					x.reason = "rdma_cm: route resolution timed out";
				}
				rc = rck_analysis_add_links(a, &x, 1);
			}
		if (!rc)
			rc = rck_analysis_set_unreachable(a, 0, "agent did not answer");
	}
	if (!rc)
		rc = rck_analysis_run(a, &r);
	if (!rc)
		rc = emit(r);
	rck_analysis_free(a);
	for (unsigned int h = 0; h < n; h++)
		rck_inventory_free(inv[h]);
	return rc;
}

int main(int argc, char **argv)
{
	static const char *const trees[] = {"mlx5", "mlx5", "mlx5", "bnxt", "irdma", "rxe", "broken"};
	struct rck_analysis *a;
	struct rck_report *r;
	int rc = 0;

	if (argc > 1 && !strcmp(argv[1], "-t"))
		fmt = RCK_FORMAT_TEXT;
	rc |= synthetic(16, 0, 99, 0, 6);       /* healthy */
	rc |= synthetic(16, 0.5, 99, 0, 1);     /* a slow link, not retested */
	rc |= synthetic(16, 0.5, 99, 0, 6);     /* a slow link, confirmed */
	rc |= synthetic(16, 0, 3, 0, 6);        /* a slow NIC, confirmed */
	rc |= synthetic(16, 0, 3, 0, 1);        /* a slow NIC, a suspect */
	rc |= several(16, 0.02, 3);             /* three: held by the circuit breaker */
	rc |= several(16, 0.3, 1);              /* too noisy: inconclusive */
	rc |= synthetic(8, 0, 99, 1, 1);        /* every probe failed */
	rc |= hosts_and_counters(trees, 7, NULL);
	rc |= hosts_and_counters(trees, 2, "full");
	rc |= hosts_and_counters(trees, 1, "incast:3");
	rc |= rck_analysis_new(NULL, &a) || rck_analysis_run(a, &r) || emit(r);
	rck_analysis_free(a);
	return rc ? 1 : 0;
}
