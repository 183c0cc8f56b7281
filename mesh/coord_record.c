/* Recording: the agents' merged reports into the sweep result, cell by
 * cell, with the caller's progress and suspect hooks. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

#include "coord_sweep.h"

static double secs(uint64_t ns)
{
	return ns / 1e9;
}

static void progress(struct sweep *s)
{
	struct rck_mesh_progress p = { .size = sizeof(p) };

	if (!s->c->progress)
		return;
	p.done = s->done;
	p.total = s->total;
	p.hosts_down = s->down;
	p.elapsed_s = secs(wire_now_ns() - s->t0);
	p.eta_s = s->done ? p.elapsed_s / s->done * (s->total - s->done) : NAN;
	s->c->progress(s->c->progress_data, &p);
}

/* Record one test of task @t; counters from the source's RESULT. */
void coord_record(struct sweep *s, uint32_t t, enum rck_mesh_status st, const char *reason,
		   const struct ag_msg *res)
{
	struct rtask *r = &s->rt[t];
	const struct mesh_task *task = &s->plan->tasks[t];
	enum rck_mesh_test test = s->tests[r->test_i];
	struct rck_mesh_meas meas = { .size = sizeof(meas), .status = st, .reason = reason,
				      .gbps = NAN, .lat_p50_us = NAN, .lat_p99_us = NAN };
	unsigned int attempt = 0, cell;
	uint64_t now = wire_now_ns();

	if (r->ended && r->ended < now)
		now = r->ended;
	meas.start_s = r->started ? secs(r->started - s->t0) : secs(now - s->t0);
	meas.seconds = r->started ? secs(now - r->started) : 0;
	if (res && st == RCK_MESH_OK) {
		if (test == RCK_MESH_TEST_BW)
			meas.gbps = res->gbps;
		else {
			meas.lat_p50_us = res->lat_p50_us;
			meas.lat_p99_us = res->lat_p99_us;
		}
	}
	/* A retest is the cell's next attempt. */
	if (r->retest && !rck_mesh_find_cell(s->m, test, task->src, task->dst, &cell))
		attempt = rck_mesh_cell_attempts(s->m, cell);
	if (rck_mesh_set_result(s->m, test, task->src, task->dst, attempt, &meas, &cell))
		return;
	for (int end = 0; res && end < 2; end++)
		for (uint32_t i = 0; i < res->n_ctr[end]; i++)
			if (res->ctr[end][i].id < RCK_CTR_COUNT && res->ctr[end][i].value)
				rck_mesh_set_counter(s->m, cell, attempt, (enum rck_mesh_end)end,
						     (enum rck_counter)res->ctr[end][i].id,
						     res->ctr[end][i].value);
	s->done++;
	progress(s);
}

bool coord_suspect(struct sweep *s, uint32_t t)
{
	const struct mesh_task *task = &s->plan->tasks[t];
	unsigned int cell;

	if (!s->c->suspect)
		return false;
	for (unsigned int i = 0; i < s->n_tests; i++)
		if (!rck_mesh_find_cell(s->m, s->tests[i], task->src, task->dst, &cell) &&
		    s->c->suspect(s->c->suspect_data, s->m, cell))
			return true;
	return false;
}

void coord_skip_rest(struct sweep *s, const char *why)
{
	for (uint32_t t = 0; t < s->plan->n_tasks; t++) {
		const struct mesh_task *task = &s->plan->tasks[t];
		unsigned int cell;

		for (unsigned int i = 0; i < s->n_tests; i++)
			if (rck_mesh_find_cell(s->m, s->tests[i], task->src, task->dst, &cell)) {
				s->rt[t].test_i = (uint8_t)i;
				s->rt[t].started = 0;
				s->rt[t].retest = false;
				coord_record(s, t, RCK_MESH_SKIPPED, why, NULL);
			}
	}
}
