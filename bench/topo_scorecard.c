/* Localisation's scorecard on synthetic two-tier fabrics swept with the
 * topo pattern (uplink at 0.5, dead leaf, lossy cable, crossed rails), and
 * the topo pattern at 10,000 hosts x 8 rails against the full mesh. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "../mesh/plan.h"
#include "rocecheck/rocecheck.h"
#include "topo-faults.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static double rss_mib(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss / 1024.0;
}

/* The topo plan of @f (every host in the topology): its probes as pairs
 * (NIC h * rails + r), steps and probes. */
static int topo_pairs(const struct tsyn *f, const struct rck_topology *t, uint32_t **pairs, size_t *n,
		      size_t *steps)
{
	struct rck_mesh *m;
	struct mesh_plan *p = NULL;
	struct mesh_plan_opts o = {.pattern = MESH_PATTERN_TOPO, .rails = MESH_RAILS_SAME, .topo = t};
	char err[256];
	int rc = rck_mesh_new(&m);

	for (unsigned int h = 0; !rc && h < f->hosts; h++) {
		char name[16], dev[16];
		unsigned int hi;

		snprintf(name, sizeof(name), "h%05u", h);
		rc = rck_mesh_add_host(m, name, &hi);
		for (unsigned int r = 0; !rc && r < f->rails; r++) {
			struct rck_mesh_nic nic = {.size = sizeof(nic), .device = dev, .port = 1, .rail = (int)r,
						   .gid_index = 3};

			snprintf(dev, sizeof(dev), "mlx5_%u", r);
			rc = rck_mesh_add_nic(m, hi, &nic, NULL);
		}
	}
	if (!rc && (rc = mesh_plan_build(m, &o, &p, err, sizeof(err))))
		fprintf(stderr, "plan: %s\n", err);
	if (!rc && !(*pairs = malloc(p->n_tasks * 2 * sizeof(**pairs))))
		rc = -ENOMEM;
	if (!rc) {
		for (size_t i = 0; i < p->n_tasks; i++) {
			(*pairs)[2 * i] = p->tasks[i].src;
			(*pairs)[2 * i + 1] = p->tasks[i].dst;
		}
		*n = p->n_tasks;
		*steps = p->n_steps;
	}
	mesh_plan_free(p);
	rck_mesh_free(m);
	return rc;
}

static bool localising(enum rck_finding_code c)
{
	return c == RCK_FINDING_UPLINK_DEGRADED || c == RCK_FINDING_SWITCH_DOWN ||
	       c == RCK_FINDING_SWITCH_DEGRADED || c == RCK_FINDING_CABLE_BAD || c == RCK_FINDING_RAIL_CROSSED;
}

/* Does @x name the injected fault of @t exactly? */
static bool right(const struct tf_trial *t, const struct rck_finding *x)
{
	const struct tsyn *f = t->f;
	char leaf[32], host[16], nic[16];
	unsigned int g = tsyn_groups(f);
	enum rck_finding_code c = rck_finding_code(x);

	snprintf(leaf, sizeof(leaf), "leaf-r%u-g%u", t->victim_leaf / g, t->victim_leaf % g);
	snprintf(host, sizeof(host), "h%05u", t->victim_host);
	snprintf(nic, sizeof(nic), "mlx5_%u/1", t->victim_rail);
	switch (t->fault) {
	case TF_UPLINK_05:
		return c == RCK_FINDING_UPLINK_DEGRADED && !strcmp(rck_finding_host(x), leaf);
	case TF_TOR_DEAD:
		return c == RCK_FINDING_SWITCH_DOWN && !strcmp(rck_finding_host(x), leaf);
	case TF_CABLE_LOSSY:
		return c == RCK_FINDING_CABLE_BAD && !strcmp(rck_finding_host(x), host) &&
		       !strcmp(rck_finding_nic(x), nic) && rck_finding_peer_nic(x);
	case TF_RAILS_CROSSED:
		return c == RCK_FINDING_RAIL_CROSSED && !strcmp(rck_finding_host(x), host);
	case TF_HOST_DEAD: /* the host's own finding; no switch or cable blamed */
		return c == RCK_FINDING_HOST_UNREACHABLE && !strcmp(rck_finding_host(x), host);
	default:
		return false;
	}
}

struct score {
	unsigned int trials, named, exact, findings, right_findings, false_drains, drains;
	double seconds;
};

static int trial(struct tf_trial *t, const struct rck_topology *topo, const uint32_t *pairs, size_t n,
		 struct score *s)
{
	struct rck_analysis *a = NULL;
	struct rck_report *r = NULL;
	unsigned int loc = 0, ok = 0;
	char host[16];
	int rc;

	tf_draw(t);
	snprintf(host, sizeof(host), "h%05u", t->victim_host);
	if ((rc = tf_analysis(t, pairs, n, &a)) || (rc = rck_analysis_set_topology(a, topo)) ||
	    (rc = rck_analysis_run(a, &r))) {
		rck_analysis_free(a);
		return rc;
	}
	for (unsigned int i = 0; i < rck_report_finding_count(r); i++) {
		const struct rck_finding *x = rck_report_finding(r, i);

		if (t->fault == TF_HOST_DEAD && right(t, x))
			ok++;
		if (!localising(rck_finding_code(x)))
			continue;
		loc++;
		ok += right(t, x);
	}
	if (t->fault == TF_HOST_DEAD)
		loc += ok; /* exact: its own finding and no localised one */
	s->trials++;
	s->findings += loc;
	s->right_findings += ok;
	s->named += ok > 0;
	s->exact += ok == 1 && loc == 1;
	/* A drain is right only for a fault on the host's own cable. */
	for (unsigned int i = 0; i < rck_report_drain_count(r); i++) {
		const char *h;

		rck_report_drain(r, i, &h, NULL);
		s->drains++;
		s->false_drains += !((t->fault == TF_CABLE_LOSSY || t->fault == TF_RAILS_CROSSED ||
				      t->fault == TF_HOST_DEAD) && !strcmp(h, host));
	}
	rck_report_free(r);
	rck_analysis_free(a);
	return 0;
}

static int scorecard(unsigned int trials)
{
	static const struct tsyn f = {.hosts = 64, .rails = 4, .per_leaf = 8, .spines = 1, .gbps = 400,
				      .slow_uplink = -1};
	static const double cvs[] = {0.02, 0.05};
	struct rck_topology *topo = NULL;
	uint32_t *pairs = NULL;
	size_t n = 0, steps = 0;
	unsigned int bad = 0;
	int rc;

	if ((rc = tf_topology(&f, &topo)) || (rc = topo_pairs(&f, topo, &pairs, &n, &steps)))
		return rc;
	printf("Localisation scorecard: %u hosts x %u rails, %u per leaf, topo pattern (%zu probes, %zu steps), "
	       "%u trials a class (noise CV 2%% and 5%%)\n", f.hosts, f.rails, f.per_leaf, n, steps, trials);
	printf("%-14s %6s %6s %7s %6s %9s %8s\n", "class", "prec", "recall", "local", "drains", "false_dr", "ms/trial");
	for (int c = 0; c < TF_COUNT && !rc; c++) {
		struct score s = {0};
		double t0 = now_s();

		for (unsigned int i = 0; i < trials && !rc; i++) {
			struct tf_trial t = {.f = &f, .fault = (enum tf_fault)c, .seed = 1000003ull * c + i + 1,
					     .cv = cvs[i % 2], .retests = 1};

			rc = trial(&t, topo, pairs, n, &s);
		}
		s.seconds = now_s() - t0;
		if (c == TF_HEALTHY)
			printf("%-14s %6s %6s %7s %6u %9u %8.1f   (false findings: %u)\n", tf_fault_name(c), "-", "-", "-",
			       s.drains, s.false_drains, 1e3 * s.seconds / s.trials, s.findings);
		else
			printf("%-14s %6.3f %6.3f %7.3f %6u %9u %8.1f\n", tf_fault_name(c),
			       s.findings ? (double)s.right_findings / s.findings : 1.0, (double)s.named / s.trials,
			       (double)s.exact / s.trials, s.drains, s.false_drains, 1e3 * s.seconds / s.trials);
		bad += s.false_drains + (c == TF_HEALTHY ? s.findings : 0);
	}
	free(pairs);
	rck_topology_free(topo);
	if (!rc && bad) {
		fprintf(stderr, "topo-scorecard: %u false drains or false findings\n", bad);
		return 1;
	}
	return rc;
}

/* 10,000 hosts x 8 rails, 48 a leaf: the plans, modelled time, and the
 * analysis with one uplink at half speed and one lossy cable. */
static int scale(unsigned int hosts, unsigned int per_leaf)
{
	const struct tsyn f = {.hosts = hosts, .rails = 8, .per_leaf = per_leaf, .spines = 1, .gbps = 400,
			       .slow_uplink = -1};
	struct rck_topology *topo = NULL;
	struct rck_analysis *a = NULL;
	struct rck_report *r = NULL;
	uint32_t *pairs = NULL;
	size_t n = 0, steps = 0;
	double full_probes = (double)hosts * (hosts - 1) * f.rails, full_steps = 2.0 * (hosts - 1 + (hosts & 1));
	double t0, t_plan, t_build, t_run, rss0, c0, c_run, t_bare = 0;
	struct tf_trial t = {.f = &f, .fault = TF_UPLINK_05, .seed = 42, .cv = 0.02, .also_cable = true};
	unsigned int ok_up = 0, ok_cable = 0, loc = 0, g = tsyn_groups(&f);
	char leaf[32], host[16], nic[16];
	int rc;

	printf("\nScale: %u hosts x %u rails, %u hosts a leaf (%u leaves), 0.1 s probes\n", hosts, f.rails, per_leaf,
	       g * f.rails);
	if ((rc = tf_topology(&f, &topo)))
		return rc;
	t0 = now_s();
	if ((rc = topo_pairs(&f, topo, &pairs, &n, &steps)))
		return rc;
	t_plan = now_s() - t0;
	printf("  plan topo: %zu probes, %zu steps, built in %.2f s; modelled sweep %.1f s (%.1f min)\n", n, steps,
	       t_plan, steps * 0.1, steps * 0.1 / 60);
	printf("  plan full: %.0f probes, %.0f steps; modelled sweep %.0f s (%.1f h)\n", full_probes, full_steps,
	       full_steps * 0.1, full_steps * 0.1 / 3600);
	tf_draw(&t);
	/* The cable's host away from the slow uplink's leaf. */
	if (t.victim_host / per_leaf == t.victim_leaf % g)
		t.victim_host = (t.victim_host + per_leaf) % hosts;
	rss0 = rss_mib();
	t0 = now_s();
	if ((rc = tf_analysis(&t, pairs, n, &a)) || (rc = rck_analysis_set_topology(a, topo)))
		return rc;
	t_build = now_s() - t0;
	t0 = now_s();
	c0 = cpu_s();
	if ((rc = rck_analysis_run(a, &r)))
		return rc;
	t_run = now_s() - t0;
	c_run = cpu_s() - c0;
	{
		struct rck_report *r0 = NULL;

		rck_analysis_set_topology(a, NULL);
		c0 = cpu_s();
		rc = rck_analysis_run(a, &r0);
		t_bare = cpu_s() - c0;
		rck_report_free(r0);
		rck_analysis_set_topology(a, topo);
	}
	snprintf(leaf, sizeof(leaf), "leaf-r%u-g%u", t.victim_leaf / g, t.victim_leaf % g);
	snprintf(host, sizeof(host), "h%05u", t.victim_host);
	snprintf(nic, sizeof(nic), "mlx5_%u/1", t.victim_rail);
	for (unsigned int i = 0; i < rck_report_finding_count(r); i++) {
		const struct rck_finding *x = rck_report_finding(r, i);
		enum rck_finding_code c = rck_finding_code(x);

		if (!localising(c))
			continue;
		loc++;
		ok_up += c == RCK_FINDING_UPLINK_DEGRADED && !strcmp(rck_finding_host(x), leaf);
		ok_cable += c == RCK_FINDING_CABLE_BAD && !strcmp(rck_finding_host(x), host) &&
			    !strcmp(rck_finding_nic(x), nic);
		printf("  finding: %s: %s\n", rck_finding_code_name(c), rck_finding_reason(x));
	}
	printf("  analysis: input built in %.2f s, run in %.2f s wall, %.2f s CPU (target < 10 s; %.2f s CPU "
	       "without the topology); peak RSS growth %.0f MiB (target < 2048)\n", t_build, t_run, c_run, t_bare,
	       rss_mib() - rss0);
	printf("  injected: uplink of %s at 0.5 and the cable of %s %s: named %s, %u localisation findings, %u drains\n",
	       leaf, host, nic, ok_up == 1 && ok_cable == 1 && loc == 2 ? "exactly" : "NOT exactly", loc,
	       rck_report_drain_count(r));
	printf("  modelled time to a verdict: %.1f s topo (target < 120 s) against %.0f s full\n",
	       steps * 0.1 + t_run, full_steps * 0.1);
	if (c_run >= 10)
		printf("  MISSED: analysis %.1f s CPU >= 10 s (%.1f s of it without the topology: the checks before "
		       "localisation)\n", c_run, t_bare);
	/* Fails on what localisation and the plan answer for. */
	rc = ok_up == 1 && ok_cable == 1 && loc == 2 && rss_mib() - rss0 < 2048 && steps * 0.1 < 120 ? 0 : 1;
	rck_report_free(r);
	rck_analysis_free(a);
	rck_topology_free(topo);
	free(pairs);
	return rc;
}

int main(int argc, char **argv)
{
	unsigned int trials = argc > 1 ? (unsigned int)strtoul(argv[1], NULL, 10) : 300;
	unsigned int hosts = argc > 2 ? (unsigned int)strtoul(argv[2], NULL, 10) : 10000;
	int rc = scorecard(trials);

	if (!rc && hosts)
		rc = scale(hosts, 48);
	if (rc < 0)
		fprintf(stderr, "topo-scorecard: %s\n", strerror(-rc));
	return rc ? 1 : 0;
}
