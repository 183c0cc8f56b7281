/* Benchmark of the sweep scheduler's own overhead: a full mesh of 256 and
 * of 1024 hosts run in the discrete-event simulation (CPU time of the
 * scheduler plus the simulation's heap, an upper bound); prints
 * microseconds per circle round (n/2 pairs both ways) against the 2 ms
 * target, and the event-driven makespan against a round-barrier schedule
 * of the same probe durations. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../mesh/plan.h"
#include "../mesh/sched.h"
#include "../mesh/sim.h"
#include "rocecheck/mesh.h"

#define TARGET_US_PER_ROUND 2000.0

struct durs {
	const struct mesh_plan *p;
	bool equal;
};

/* A fixed pseudo-random duration per unit, 0.9 .. 1.1 s (2% spread on
 * hardware is typical; 10% here stresses the no-barrier claim). */
static double unit_duration(const struct durs *d, uint32_t unit)
{
	uint64_t x = (uint64_t)unit * 0x9e3779b97f4a7c15ULL + 0x1234567;

	if (d->equal)
		return 1.0;
	x ^= x >> 31;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 29;
	return 0.9 + (double)(x >> 11) / 9007199254740992.0 * 0.2;
}

static double duration(void *arg, uint32_t unit, bool retest)
{
	(void)retest;
	return unit_duration(arg, unit);
}

/* CPU time of this process: the machine may be shared, and what counts is
 * the work the scheduler does, not the time others take. */
static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* With a barrier after every directional step of the circle (SuperBench's
 * way), each step lasts as long as its slowest probe. The plan lists the
 * units step by step: a step ends where a unit reuses a host. */
static double barrier_makespan(const struct durs *d, unsigned int n)
{
	const struct mesh_plan *p = d->p;
	uint8_t *used = calloc(n, 1);
	double total = 0, step = 0;

	if (!used)
		return -1;
	for (size_t u = 0; u < p->n_units; u++) {
		uint32_t a = p->nic_host[p->tasks[p->units[u].first_task].src];
		uint32_t b = p->nic_host[p->tasks[p->units[u].first_task].dst];

		if (used[a] || used[b]) {
			total += step;
			step = 0;
			memset(used, 0, n);
		}
		used[a] = used[b] = 1;
		if (unit_duration(d, (uint32_t)u) > step)
			step = unit_duration(d, (uint32_t)u);
	}
	free(used);
	return total + step;
}

static int run(unsigned int n, bool equal, double *us_round)
{
	struct rck_mesh *m;
	struct mesh_plan *p;
	struct mesh_sched *s;
	struct mesh_plan_opts po = {.pattern = MESH_PATTERN_FULL, .rails = MESH_RAILS_SAME};
	struct mesh_sim_stats st;
	struct durs d = {.equal = equal};
	struct mesh_sim_opts so = {.arg = &d, .duration = duration, .dead_host = -1};
	char err[256];
	double t0, t_plan, t_run, barrier;
	int rc;

	if (rck_mesh_new(&m))
		return -ENOMEM;
	for (unsigned int h = 0; h < n; h++) {
		char name[32];
		struct rck_mesh_nic nic = {.size = sizeof(nic), .device = "mlx5_0", .port = 1, .rail = 0,
					   .gid_index = 3};

		snprintf(name, sizeof(name), "node%04u", h);
		if (rck_mesh_add_host(m, name, NULL) || rck_mesh_add_nic(m, h, &nic, NULL))
			return -ENOMEM;
	}
	t0 = now_s();
	rc = mesh_plan_build(m, &po, &p, err, sizeof(err));
	t_plan = now_s() - t0;
	if (rc) {
		fprintf(stderr, "mesh-sched-bench: plan: %s\n", err);
		return rc;
	}
	d.p = p;
	rc = mesh_sched_new(p, 0, &s);
	t0 = now_s();
	if (!rc)
		rc = mesh_sim_run(s, &so, &st);
	t_run = now_s() - t0;
	if (rc) {
		fprintf(stderr, "mesh-sched-bench: simulation failed: %d\n", rc);
		return rc;
	}
	barrier = barrier_makespan(&d, n);
	*us_round = t_run * 1e6 / (n - 1);
	printf("%5u hosts %-6s: %8zu probes, plan %.3f s, scheduler+simulation %.3f s CPU = %.1f us per round"
	       " (%.3f us per probe), %.2f of the target; makespan %.2f, with round barriers %.2f (ratio %.3f)\n",
	       n, equal ? "equal" : "spread", p->n_tasks, t_plan, t_run, *us_round,
	       t_run * 1e6 / (double)p->n_tasks, *us_round / TARGET_US_PER_ROUND, st.makespan, barrier,
	       st.makespan / barrier);
	mesh_sched_free(s);
	mesh_plan_free(p);
	rck_mesh_free(m);
	return 0;
}

int main(void)
{
	static const unsigned int sizes[] = {256, 1024};
	double us[2][2];
	int fail = 0;

	for (int i = 0; i < 2; i++)
		for (int e = 0; e < 2; e++)
			if (run(sizes[i], e == 0, &us[i][e]))
				return 1;
	printf("per-round overhead 1024/256 hosts: %.2f (equal), %.2f (spread); rounds hold 4x the probes\n",
	       us[1][0] / us[0][0], us[1][1] / us[0][1]);
	for (int e = 0; e < 2; e++)
		if (us[1][e] > TARGET_US_PER_ROUND) {
			printf("FAIL: %.1f us per round at 1024 hosts, target %.0f\n", us[1][e], TARGET_US_PER_ROUND);
			fail = 1;
		}
	if (!fail)
		printf("ok: at most %.1f us per round at 1024 hosts, target %.0f\n",
		       us[1][0] > us[1][1] ? us[1][0] : us[1][1], TARGET_US_PER_ROUND);
	return fail;
}
