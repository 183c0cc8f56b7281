/* Benchmark: analysis of a synthetic recorded 1024-host full mesh against
 * 1 s and 256 MiB, and a model of the time to a verdict (see usage below). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <rocecheck/analysis.h>

#include "synth.h"

/* usage: analysis-bench [HOSTS [ROUND_OVERHEAD_MS [PROBE_S]]]: 2% noise,
 * one NIC at half speed, one link at 0.90, the mesh's retests recorded. */
#define TARGET_S 1.0
#define TARGET_MIB 256.0

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double peak_mib(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_maxrss / 1024.0;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * Input building: @n hosts added one by one (each checked against those
 * added before); prints the whole time and the ratio of the last tenth's
 * time to the first tenth's: about 1 when the duplicate check is linear in
 * all, about 19 when each check scans every host before it. 0 or -1.
 */
static int add_hosts_cost(unsigned int n)
{
	struct rck_analysis *a = NULL;
	double t0, t[2] = {0, 0};
	unsigned int tenth = n / 10;

	if (rck_analysis_new(NULL, &a))
		return -1;
	t0 = cpu();
	for (unsigned int h = 0; h < n; h++) {
		char name[32];
		double t1 = cpu();

		snprintf(name, sizeof(name), "10.%u.%u.%u", h >> 16 & 255, h >> 8 & 255, h & 255);
		if (rck_analysis_add_host(a, name, NULL, NULL, NULL)) {
			rck_analysis_free(a);
			return -1;
		}
		if (h < tenth)
			t[0] += cpu() - t1;
		else if (h >= n - tenth)
			t[1] += cpu() - t1;
	}
	printf("input: %u hosts added in %.3f s of CPU; ratio last/first tenth %.2f (1: linear, 19: quadratic)\n",
	       n, cpu() - t0, t[0] > 0 ? t[1] / t[0] : 0);
	rck_analysis_free(a);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned int hosts = argc > 1 ? (unsigned int)atoi(argv[1]) : 1024, runs = 5, retests = 0;
	/* The mesh's target per-round overhead (its own bench measures it) and
	 * the preflight's probe length. */
	double overhead = (argc > 2 ? atof(argv[2]) : 2.0) / 1000, probe = argc > 3 ? atof(argv[3]) : 0.1;
	double sweep_rounds, sweep_s, retest_s, analysis_s;
	unsigned int slots = 0;
	struct synth s = {.hosts = hosts, .mean_gbps = 388, .cv = 0.02, .line_rate = 400, .seed = 2026};
	double *factor, t[5], ct[5], load, mib;
	struct rck_analysis *a = NULL;
	struct rck_report *r = NULL;
	bool ok;

	if (hosts < 4 || !(factor = calloc(hosts, sizeof(*factor))) || synth_init(&s))
		return 2;
	if (add_hosts_cost(20000))
		return 2;
	for (unsigned int i = 0; i < hosts; i++)
		factor[i] = i == hosts / 3 ? 0.5 : 1;
	s.nic_factor = factor;
	s.bad_src = 5;
	s.bad_dst = hosts - 7;
	s.bad_factor = 0.9;
	/* The sweep as the mesh records it: first results, then the retests
	 * the analysis asked for, until it asks for none. */
	if (synth_run(&s, NULL, RCK_LINK_RETEST_MAX + 2, &r, &retests, &slots))
		return 2;
	rck_report_free(r);
	load = now();
	if (synth_analysis(&s, NULL, &a))
		return 2;
	load = now() - load;
	for (unsigned int i = 0; i < runs; i++) {
		t[i] = now();
		ct[i] = cpu();
		if (rck_analysis_run(a, &r))
			return 2;
		t[i] = now() - t[i];
		ct[i] = cpu() - ct[i];
		if (i + 1 < runs)
			rck_report_free(r);
	}
	mib = peak_mib();
	qsort(t, runs, sizeof(t[0]), cmp_d);
	qsort(ct, runs, sizeof(ct[0]), cmp_d);
	printf("analysis-bench: %u hosts, %zu directed results, %u retests recorded\n", hosts,
	       synth_links(&s), retests);
	printf("input built in %.3f s (generation included)\n", load);
	printf("analysis: min %.3f s, median %.3f s, max %.3f s over %u runs\n", t[0], t[runs / 2],
	       t[runs - 1], runs);
	printf("analysis CPU time: min %.3f s, median %.3f s (single-threaded: the wall time of an idle machine)\n",
	       ct[0], ct[runs / 2]);
	printf("peak RSS %.1f MiB (process: generator, input and report)\n", mib);
	printf("ratio time/target: %.3f (median wall), %.3f (min wall), %.3f (median CPU); target %.1f s\n",
	       t[runs / 2] / TARGET_S, t[0] / TARGET_S, ct[runs / 2] / TARGET_S, TARGET_S);
	printf("ratio RSS/target: %.3f; target %.0f MiB\n", mib / TARGET_MIB, TARGET_MIB);
	/* Full mesh: 2(n-1) rounds of n/2 directed probes (circle method, both
	 * directions); retests alone in rounds of disjoint NIC pairs. */
	sweep_rounds = 2.0 * (hosts - 1);
	sweep_s = sweep_rounds * (probe + overhead);
	retest_s = slots * (probe + overhead);
	analysis_s = s.passes * ct[runs / 2];
	printf("model, %.2f s probes and %.1f ms overhead a round (assumed: the mesh bench measures it):\n",
	       probe, overhead * 1000);
	printf("  sweep %.0f rounds %.1f s; %u retests in %u rounds (%u passes) %.1f s; analysis %u x %.3f s CPU\n",
	       sweep_rounds, sweep_s, retests, slots, s.passes > 0 ? s.passes - 1 : 0, retest_s, s.passes,
	       ct[runs / 2]);
	printf("  time to verdict %.1f s; retests add %.1f%% to the sweep (%.0f s if run one at a time)\n",
	       sweep_s + retest_s + analysis_s, 100 * retest_s / sweep_s, retests * (probe + overhead));
	printf("verdict %s, %u findings:\n", rck_verdict_name(rck_report_verdict(r)),
	       rck_report_finding_count(r));
	rck_report_write(r, stdout, RCK_FORMAT_TEXT);
	rck_report_free(r);
	rck_analysis_free(a);
	synth_fini(&s);
	free(factor);
	/* The median CPU time judges: the analysis is single-threaded, and on
	 * a shared machine other processes inflate the wall time only. */
	ok = ct[runs / 2] <= TARGET_S && mib <= TARGET_MIB;
	printf("%s\n", ok ? "PASS" : "FAIL");
	return ok ? 0 : 1;
}
