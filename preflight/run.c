/* rck_preflight_run(): agents through the launcher, the sweep with the
 * analysis's retests pass after pass, then the verdict. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "preflight_int.h"

/* Sweeps again after an inconclusive verdict: at most this many, within
 * noise_budget_s (this default when the thresholds do not say). */
#define PF_NOISE_SWEEPS_MAX 3
#define PF_NOISE_BUDGET_S 60.0

static const char *const phase_names[] = {"launch", "sweep", "retest", "analysis", "done"};

RCK_EXPORT const char *rck_preflight_phase_name(enum rck_preflight_phase p)
{
	return (unsigned int)p < RCK_ARRAY_SIZE(phase_names) ? phase_names[p] : NULL;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct run {
	struct rck_preflight_config *c;
	const char **names;    /* the hosts, then the spares not among them */
	unsigned int n_names;
	struct rck_mesh_config *mc;
	double t0, analysis_s;
	unsigned int passes;
	enum rck_preflight_phase phase;
	uint64_t iters;        /* this sweep's probe length: the config's, */
	double duration_s;     /* doubled for each sweep again after noise */
	struct rck_mesh_progress last; /* the sweep's latest counts */
};

static void report_progress(struct run *r, const struct rck_mesh_progress *mp)
{
	struct rck_preflight_progress p = {.size = sizeof(p), .phase = r->phase, .eta_s = NAN};

	/* A cancel that raced with the sweep's start reaches it here. */
	if (atomic_load(&r->c->cancel))
		rck_mesh_cancel(r->mc);
	if (!r->c->progress)
		return;
	/* Phases without a sweep running keep the last counts it gave, so a
	 * retest, the analysis and the end never read "0/0 probes". */
	if (mp)
		r->last = *mp;
	p.done = r->last.done;
	p.total = r->last.total;
	p.hosts_down = r->last.hosts_down;
	if (mp && (r->phase == RCK_PREFLIGHT_SWEEP || r->phase == RCK_PREFLIGHT_RETEST))
		p.eta_s = mp->eta_s;
	p.elapsed_s = now_s() - r->t0;
	r->c->progress(r->c->progress_data, &p);
}

static void on_probe(void *data, const struct rck_mesh_progress *mp)
{
	report_progress(data, mp);
}

int pf_judge(const struct rck_preflight_config *c, const struct rck_mesh *m, struct rck_report **out)
{
	struct rck_thresholds *th = NULL;
	struct rck_analysis *a = NULL;
	int rc;

	rc = rck_thresholds_new(&th);
	for (unsigned int i = 0; !rc && c->th && rck_thresholds_key(i); i++) {
		double v;

		if (!rck_thresholds_get(c->th, rck_thresholds_key(i), &v))
			rck_thresholds_set(th, rck_thresholds_key(i), v);
	}
	if (!rc && c->expect_rate > 0)
		rc = rck_thresholds_set(th, "expect_rate_gbps", c->expect_rate);
	if (!rc)
		rc = rck_analysis_new(th, &a);
	if (!rc)
		rc = rck_analysis_add_mesh(a, m);
	if (!rc)
		rc = rck_analysis_set_topology(a, c->topo ? c->topo : rck_mesh_topology(m));
	/* Spares are judged, never drained nor counted by the breaker (the
	 * analysis numbers the mesh's hosts as the mesh does). */
	for (unsigned int i = 0; !rc && i < rck_hostlist_count(c->spares); i++) {
		unsigned int h;

		if (!rck_mesh_find_host(m, rck_hostlist_get(c->spares, i), &h))
			rc = rck_analysis_set_spare(a, h, true);
	}
	if (!rc)
		rc = rck_analysis_run(a, out);
	rck_analysis_free(a);
	rck_thresholds_free(th);
	return rc;
}

/* The mesh's retest hook: the analysis of what was measured so far names
 * the links still undecided (NIC numbers are the mesh's). */
static unsigned int retest_hook(void *data, const struct rck_mesh *m, unsigned int *cells, unsigned int max)
{
	struct run *r = data;
	struct rck_report *rep = NULL;
	double t = now_s();
	unsigned int n = 0;

	if (atomic_load(&r->c->cancel) || pf_judge(r->c, m, &rep)) {
		rck_report_free(rep);
		return 0;
	}
	for (unsigned int i = 0; i < rck_report_retest_count(rep) && n < max; i++) {
		enum rck_link_test test;
		unsigned int src, dst, cell;

		if (!rck_report_retest(rep, i, &test, &src, &dst) &&
		    !rck_mesh_find_cell(m, test == RCK_LINK_TEST_BW ? RCK_MESH_TEST_BW : RCK_MESH_TEST_LAT,
					src, dst, &cell))
			cells[n++] = cell;
	}
	rck_report_free(rep);
	r->analysis_s += now_s() - t;
	if (n) {
		r->passes++;
		r->phase = RCK_PREFLIGHT_RETEST;
		report_progress(r, NULL);
	}
	return n;
}

/* The hosts, then the spares not among them: the sweep's hosts. */
static int all_names(struct run *r)
{
	const struct rck_preflight_config *c = r->c;
	unsigned int n = rck_hostlist_count(c->hl), ns = rck_hostlist_count(c->spares);

	r->names = calloc(n + ns + 1, sizeof(*r->names));
	if (!r->names)
		return -ENOMEM;
	for (unsigned int i = 0; i < n; i++)
		r->names[r->n_names++] = rck_hostlist_get(c->hl, i);
	for (unsigned int i = 0; i < ns; i++) {
		const char *s = rck_hostlist_get(c->spares, i);
		bool dup = false;

		for (unsigned int k = 0; k < n && !dup; k++)
			dup = !strcmp(s, r->names[k]);
		if (!dup)
			r->names[r->n_names++] = s;
	}
	return 0;
}

/* The sweep's settings for hosts already in @mc (through the launcher or
 * as running agents). Frees @mc on error. */
static int mesh_config(struct rck_preflight_config *c, struct rck_mesh_config *mc, struct run *r)
{
	int rc = 0;

	if (!rc && c->key_len)
		rc = rck_mesh_config_set_key(mc, c->key, c->key_len);
	if (!rc)
		rc = preflight_sweep_settings(mc, c);
	/* This sweep's probe length: longer after a sweep too noisy to judge. */
	if (!rc)
		rc = rck_mesh_config_set_probe(mc, c->transport, c->size, r->iters, r->duration_s);
	if (!rc && c->deadline_s > 0) {
		double left = c->deadline_s - (now_s() - r->t0);

		rc = rck_mesh_config_set_deadline(mc, left > 0.001 ? left : 0.001);
	}
	if (rc)
		return rc;
	rck_mesh_config_set_progress(mc, on_probe, r);
	rck_mesh_config_set_retest(mc, c->passes ? retest_hook : NULL, r, c->passes);
	return 0;
}

static void count(const struct rck_mesh *m, struct rck_preflight_timings *t)
{
	t->hosts = rck_mesh_host_count(m);
	t->probes = rck_mesh_cell_count(m);
	t->retests = 0;
	for (unsigned int i = 0; i < t->probes; i++)
		t->retests += rck_mesh_cell_attempts(m, i) - 1;
}

/* One sweep: the agents through the launcher, the sweep with its retest
 * passes, the agents stopped; *@m the result. Adds to @t's times. */
static int sweep_once(struct rck_ctx *ctx, struct run *r, struct rck_preflight_timings *t,
		      struct rck_mesh **m)
{
	struct rck_preflight_config *c = r->c;
	struct rck_launch *l = NULL;
	double t1 = now_s();
	int rc;

	if (all_names(r) || rck_mesh_config_new(&r->mc)) {
		free(r->names);
		r->names = NULL;
		return -ENOMEM;
	}
	if (strcmp(c->launcher, "none")) {
		struct rck_launch_opts o;

		r->phase = RCK_PREFLIGHT_LAUNCH;
		report_progress(r, NULL);
		rck_launch_opts_init(&o);
		o.launcher = c->launcher;
		o.extra_args = (const char *const *)c->extra;
		o.ssh_config = c->ssh_config;
		/* The one launch path of sweeps (launch/sweep.c): a host whose
		 * launcher failed is in the sweep, unreachable, never dialled. */
		rc = rck_launch_sweep_hosts(ctx, &o, r->names, r->n_names, r->mc, &l);
		if (rc)
			rck_err(ctx, "preflight: launcher %s: %s", c->launcher, strerror(-rc));
	} else {
		rc = 0;
		for (unsigned int i = 0; !rc && i < r->n_names; i++)
			rc = rck_mesh_config_add_agent(r->mc, r->names[i]);
	}
	t->launch_s += now_s() - t1;
	if (!rc)
		rc = mesh_config(c, r->mc, r);
	if (!rc && atomic_load(&c->cancel))
		rc = -ECANCELED;
	if (!rc) {
		r->phase = RCK_PREFLIGHT_SWEEP;
		report_progress(r, NULL);
		atomic_store(&c->running, r->mc);
		t1 = now_s();
		rc = rck_mesh_run(ctx, r->mc, m);
		atomic_store(&c->running, NULL);
		t->sweep_s += now_s() - t1;
	}
	/* The agents' work is done: stop them before judging. */
	if (l) {
		rck_launch_stop(l);
		rck_launch_sweep_reasons(l, *m);
	}
	rck_launch_free(l);
	rck_mesh_config_free(r->mc);
	r->mc = NULL;
	free(r->names);
	r->names = NULL;
	r->n_names = 0;
	return rc;
}

/* After an inconclusive verdict: sweep again with probes twice as long if
 * that fits the time left of noise_budget_s (its last sweep taken twice). */
static bool sweep_again(const struct run *r, const struct rck_report *rep, double last_s,
			unsigned int done)
{
	double budget = 0;

	if (rck_report_verdict(rep) != RCK_VERDICT_INCONCLUSIVE || done >= PF_NOISE_SWEEPS_MAX ||
	    atomic_load(&r->c->cancel))
		return false;
	if (!r->c->th || rck_thresholds_get(r->c->th, "noise_budget_s", &budget))
		budget = PF_NOISE_BUDGET_S;
	if (r->c->deadline_s > 0 && r->c->deadline_s < budget)
		budget = r->c->deadline_s;
	return now_s() - r->t0 + 2 * last_s <= budget;
}

RCK_EXPORT int rck_preflight_run(struct rck_ctx *ctx, struct rck_preflight_config *c, struct rck_preflight **out)
{
	struct rck_preflight_timings t = {.size = sizeof(t)};
	struct run r = {.c = c, .phase = RCK_PREFLIGHT_LAUNCH};
	struct rck_mesh *m = NULL;
	struct rck_report *rep = NULL;
	double t1;
	int rc;

	if (!ctx || !c || !out)
		return -EINVAL;
	if (rck_hostlist_count(c->hl) < 2) {
		rck_err(ctx, "preflight: needs at least 2 hosts");
		return -EINVAL;
	}
	atomic_store(&c->cancel, 0);
	r.t0 = now_s();
	r.iters = c->iters;
	r.duration_s = c->duration_s;
	for (;;) {
		double start = now_s();

		rc = sweep_once(ctx, &r, &t, &m);
		if (!rc) {
			r.phase = RCK_PREFLIGHT_ANALYSIS;
			report_progress(&r, NULL);
			t1 = now_s();
			rc = pf_judge(c, m, &rep);
			r.analysis_s += now_s() - t1;
		}
		if (rc || !sweep_again(&r, rep, now_s() - start, t.noise_sweeps))
			break;
		/* Too noisy to judge: the same sweep with longer probes. */
		rck_report_free(rep);
		rck_mesh_free(m);
		rep = NULL;
		m = NULL;
		t.noise_sweeps++;
		if (r.duration_s > 0)
			r.duration_s = fmin(2 * r.duration_s, rck_mesh_limits()->duration_max_s);
		else if (2 * r.iters <= rck_mesh_limits()->iters_max)
			r.iters *= 2;
	}
	if (!rc) {
		count(m, &t);
		t.passes = r.passes;
		t.analysis_s = r.analysis_s;
		t.total_s = now_s() - r.t0;
		rc = pf_result(m, rep, &t, c->spares, out);
	}
	if (rc) {
		rck_report_free(rep);
		rck_mesh_free(m);
		return rc;
	}
	r.phase = RCK_PREFLIGHT_DONE;
	report_progress(&r, NULL);
	return 0;
}

RCK_EXPORT int rck_preflight_from_mesh(const struct rck_preflight_config *c, struct rck_mesh *m,
				       struct rck_preflight **out)
{
	struct rck_preflight_timings t = {.size = sizeof(t)};
	struct rck_mesh_info info = {.size = sizeof(info)};
	struct rck_report *rep = NULL;
	double t0 = now_s();
	int rc;

	if (!c || !m || !out)
		return -EINVAL;
	rc = pf_judge(c, m, &rep);
	if (rc)
		return rc;
	count(m, &t);
	t.analysis_s = now_s() - t0;
	if (!rck_mesh_get_info(m, &info))
		t.sweep_s = t.total_s = info.seconds;
	rc = pf_result(m, rep, &t, c->spares, out);
	if (rc)
		rck_report_free(rep);
	return rc;
}
