/* rck_mesh_run(): connections met, the plan built, then its passes (the
 * plan, suspects' retests, the retest hook's rounds) run by the agents. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

#include "coord_sweep.h"
#include "retest.h"

static int pass_alloc(struct pass *p, size_t n, bool groups)
{
	memset(p, 0, sizeof(*p));
	p->task = malloc((n ? n : 1) * sizeof(*p->task));
	p->test = malloc(n ? n : 1);
	if (groups) {
		p->group = malloc((n ? n : 1) * sizeof(*p->group));
		p->lane = malloc(n ? n : 1);
	}
	return !p->task || !p->test || (groups && (!p->group || !p->lane)) ? -ENOMEM : 0;
}

static void pass_free(struct pass *p)
{
	free(p->task);
	free(p->test);
	free(p->group);
	free(p->lane);
	free(p->pos);
}

/* The plan: unit after unit, each test of a unit together. */
static int main_pass(struct sweep *s, uint64_t deadline)
{
	struct pass p;
	int rc = pass_alloc(&p, s->plan->n_tasks * s->n_tests, sched_groups(s));

	for (size_t u = 0; !rc && u < s->plan->n_units; u++) {
		const struct mesh_unit *un = &s->plan->units[u];

		for (uint8_t i = 0; i < s->n_tests; i++) {
			uint32_t first = p.n_ids;

			for (uint32_t k = 0; k < un->n_tasks; k++, p.n_ids++) {
				p.task[p.n_ids] = un->first_task + k;
				p.test[p.n_ids] = i;
				if (p.group) {
					p.group[p.n_ids] = first;
					p.lane[p.n_ids] = (uint8_t)k;
				}
			}
		}
	}
	if (!rc)
		rc = sched_run_pass(s, &p, deadline);
	pass_free(&p);
	return rc;
}

/* @nt tasks again: retest.c's steps, one after the other in every NIC's
 * queue (a counting sort by round), so no NIC is in two probes at once;
 * with --bidir a pair's two directions asked for are one group, run at
 * once as in the sweep, each direction its own result. */
static int retest_pass(struct sweep *s, const uint32_t *tasks, long nt, uint64_t deadline)
{
	bool bidir = s->c->plan.bidir && sched_groups(s);
	uint32_t *round = malloc((size_t)(nt > 0 ? nt : 1) * sizeof(*round)), *at = NULL;
	long *mate = malloc((size_t)(nt > 0 ? nt : 1) * sizeof(*mate));
	long nr = round && mate && nt > 0 ? mesh_retest_steps(s->plan, tasks, (size_t)nt, bidir, mate, round)
					   : -ENOMEM;
	struct pass p;
	int rc = nr < 0 ? (int)nr : 0;

	if (!rc && !(at = calloc((size_t)nr + 1, sizeof(*at))))
		rc = -ENOMEM;
	if (!rc && !(rc = pass_alloc(&p, (size_t)nt * s->n_tests, bidir))) {
		p.retest = true;
		for (long i = 0; i < nt; i++)
			at[round[i] + 1] += s->n_tests;
		for (long r = 0; r < nr; r++)
			at[r + 1] += at[r];
		/* A pair's ids by its first: per test, first then its mate. */
		for (long i = 0; i < nt; i++)
			for (uint8_t k = 0; (mate[i] < 0 || mate[i] > i) && k < s->n_tests; k++)
				for (int m = 0; m < 1 + (mate[i] >= 0); m++) {
					uint32_t id = at[round[i]]++;

					p.task[id] = tasks[m ? mate[i] : i];
					p.test[id] = k;
					if (p.group) {
						p.group[id] = id - (uint32_t)m;
						p.lane[id] = (uint8_t)m;
					}
				}
		p.n_ids = (uint32_t)(nt * s->n_tests);
		s->total += p.n_ids;
		rc = sched_run_pass(s, &p, deadline);
	}
	if (at && round && mate && nr >= 0)
		pass_free(&p);
	free(at);
	free(round);
	free(mate);
	return rc;
}

/* Suspects of the main pass probed again alone. */
static int retest_suspects(struct sweep *s, uint64_t deadline)
{
	uint32_t *tasks = malloc((s->plan->n_tasks + 1) * sizeof(*tasks));
	long nt = 0;
	int rc = 0;

	for (uint32_t t = 0; tasks && t < s->plan->n_tasks; t++) {
		const struct mesh_task *task = &s->plan->tasks[t];

		if (s->h[coord_host_of(s, task->src)].st == H_READY && s->h[coord_host_of(s, task->dst)].st == H_READY &&
		    coord_suspect(s, t))
			tasks[nt++] = t;
	}
	if (!tasks)
		rc = -ENOMEM;
	else if (nt && !coord_stopping(s, deadline))
		rc = retest_pass(s, tasks, nt, deadline);
	free(tasks);
	return rc;
}

/* The retest hook's cells, pass after pass. */
static int retest_hook(struct sweep *s, uint64_t deadline)
{
	unsigned int max = rck_mesh_cell_count(s->m), *cells = calloc(max + 1, sizeof(*cells));
	uint32_t *tasks = calloc(max + 1, sizeof(*tasks));
	int rc = cells && tasks ? 0 : -ENOMEM;

	for (unsigned int pass = 0; !rc && s->c->retest && pass < s->c->retest_passes; pass++) {
		unsigned int n = s->c->retest(s->c->retest_data, s->m, cells, max);
		long nt = mesh_retest_tasks(s->plan, s->m, cells, n < max ? n : max, tasks);

		if (nt <= 0 || coord_stopping(s, deadline))
			break;
		rc = retest_pass(s, tasks, nt, deadline);
	}
	free(cells);
	free(tasks);
	return rc;
}


static int plan_sweep(struct sweep *s)
{
	struct mesh_plan_opts o = s->c->plan;
	char err[256];
	int rc;

	/* The model of the agents' LLDP, now that they answered. */
	rc = coord_topo_build(s->c, s->m);
	if (rc) {
		rck_err(s->ctx, "mesh: cannot build the topology from the agents' LLDP: %s", strerror(-rc));
		return rc;
	}
	if (!o.topo)
		o.topo = rck_mesh_topology(s->m);
	rc = mesh_plan_build(s->m, &o, &s->plan, err, sizeof(err));

	if (rc) {
		rck_err(s->ctx, "mesh: %s", err);
		return rc;
	}
	s->rt = calloc(s->plan->n_tasks ? s->plan->n_tasks : 1, sizeof(*s->rt));
	if (!s->rt)
		return -ENOMEM;
	s->total = (unsigned int)(s->plan->n_tasks * s->n_tests);
	return 0;
}

static int run_passes(struct sweep *s, uint64_t deadline)
{
	int rc = sched_begin(s, deadline);

	if (!rc && !sched_stopped(s))
		rc = main_pass(s, deadline);
	if (!rc && !sched_stopped(s))
		rc = retest_suspects(s, deadline);
	if (!rc && !sched_stopped(s))
		rc = retest_hook(s, deadline);
	sched_end(s);
	return rc;
}

RCK_EXPORT int rck_mesh_run(struct rck_ctx *ctx, struct rck_mesh_config *c, struct rck_mesh **out)
{
	struct sweep s = { .ctx = ctx, .c = c, .ep = -1 };
	struct rck_mesh_info info = { .size = sizeof(info) };
	struct timespec wall;
	uint64_t deadline;
	int rc;

	if (!ctx || !c || !out || c->n_hosts < 2) {
		if (ctx)
			rck_err(ctx, "mesh: a sweep needs at least 2 hosts");
		return -EINVAL;
	}
	rc = rck_mesh_new(&s.m);
	if (rc)
		return rc;
	s.n_h = c->n_hosts;
	s.timeout_ms = rck_ctx_get_timeout_ms(ctx);
	s.t0 = wire_now_ns();
	clock_gettime(CLOCK_REALTIME, &wall);
	deadline = c->deadline_s > 0 ? s.t0 + (uint64_t)(c->deadline_s * 1e9) : UINT64_MAX;
	atomic_store(&c->cancel, 0);
	rc = coord_setup(&s);
	if (!rc) {
		coord_meet_hosts(&s, deadline);
		rc = plan_sweep(&s);
	}
	if (!rc)
		rc = run_passes(&s, deadline);
	if (!rc) {
		coord_goodbye(&s);
		info.pattern = c->pattern;
		info.rails = c->rails;
		info.start_ns = (uint64_t)wall.tv_sec * 1000000000ull + (uint64_t)wall.tv_nsec;
		info.seconds = (wire_now_ns() - s.t0) / 1e9;
		rc = rck_mesh_set_info(s.m, &info);
	}
	coord_teardown(&s);
	if (rc) {
		rck_mesh_free(s.m);
		return rc;
	}
	*out = s.m;
	return 0;
}
