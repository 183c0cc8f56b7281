/* A discrete-event simulation of a sweep: runs a scheduler with made-up
 * probe durations on a virtual clock, for tests, the benchmark and
 * time-to-verdict models. No real time passes. */
#ifndef RCK_MESH_SIM_H
#define RCK_MESH_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include "sched.h"

struct mesh_sim_opts {
	void *arg;
	/* Duration of a unit's run (required); @retest for its second run. */
	double (*duration)(void *arg, uint32_t unit, bool retest);
	/* The caller's rule, asked when a sweep run ends (NULL: never). */
	bool (*suspect)(void *arg, uint32_t unit);
	/* Every event as handed out, and every completion (both may be NULL). */
	void (*on_event)(void *arg, const struct mesh_event *ev, double now);
	void (*on_done)(void *arg, uint32_t unit, double now);
	/* Host @dead_host dies at virtual time @dead_at (dead_host < 0: none). */
	int dead_host;
	double dead_at;
};

struct mesh_sim_stats {
	double makespan;        /* virtual time when the last unit finished */
	uint64_t started, retested, unreachable;
	unsigned int max_running;
};

/* Run @s to the end. 0, -ENOMEM, -EDEADLK when the scheduler stalls (a bug),
 * -EINVAL from a scheduler call. */
int mesh_sim_run(struct mesh_sched *s, const struct mesh_sim_opts *o, struct mesh_sim_stats *st);

#endif
