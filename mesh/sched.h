/* The sweep scheduler: a pure, event-driven state machine over a plan. No
 * threads, no clocks, no sleeps: the caller reports completions and asks
 * what may start; a unit starts as soon as all its NICs are free. */
#ifndef RCK_MESH_SCHED_H
#define RCK_MESH_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plan.h"

enum mesh_unit_state {
	MESH_U_PENDING = 0,   /* waiting for its NICs */
	MESH_U_RUNNING,       /* started in the sweep */
	MESH_U_DONE,          /* finished in the sweep (not suspect) */
	MESH_U_UNREACHABLE,   /* never started: a host of it died */
	MESH_U_RETEST_QUEUED, /* finished, suspect: waits to run again alone */
	MESH_U_RETEST_RUNNING,
	MESH_U_RETESTED,      /* finished both times */
};

enum mesh_event_kind {
	MESH_EV_START = 0,    /* run the unit's tasks now, together */
	MESH_EV_RETEST,       /* run them again; nothing else is running */
	MESH_EV_UNREACHABLE,  /* record the unit's tasks as not run: a host died */
};

struct mesh_event {
	uint32_t unit;
	uint32_t kind; /* enum mesh_event_kind */
};

struct mesh_sched;

/* How a freed NIC finds its next unit; the result is the same, only the
 * cost differs. Tests force each way; 0 picks by plan size. */
#define MESH_SCHED_NO_DENSE (1u << 0)   /* no dense NIC x NIC table */
#define MESH_SCHED_NO_PAIRIDX (1u << 1) /* scan NIC lists only */

/* The plan must outlive the scheduler. 0, -EINVAL, -ENOMEM. */
int mesh_sched_new(const struct mesh_plan *p, unsigned int flags, struct mesh_sched **out);
void mesh_sched_free(struct mesh_sched *s);

/*
 * What to do now: at most @max events into @ev, returns how many. START
 * and RETEST events book the unit's NICs until mesh_sched_done(). Call it
 * after every mesh_sched_done() and mesh_sched_host_dead() (and at the
 * beginning) until it returns 0; events not taken stay queued. Retests run
 * only when the sweep's units are all finished, one at a time, alone.
 */
size_t mesh_sched_next(struct mesh_sched *s, struct mesh_event *ev, size_t max);

/*
 * A started unit finished (whatever its probes' outcome). @suspect (the
 * caller's rule, on a sweep run only) queues it for a retest alone, unless
 * one of its hosts is dead. Returns 0, -EINVAL when the unit is not running.
 */
int mesh_sched_done(struct mesh_sched *s, uint32_t unit, bool suspect);

/*
 * Host @host is dead: every pending unit touching it becomes UNREACHABLE
 * (an event each, from mesh_sched_next()), queued retests touching it are
 * dropped (their first result stands). Running units still end with
 * mesh_sched_done(). Returns how many units became unreachable, -EINVAL.
 */
int mesh_sched_host_dead(struct mesh_sched *s, uint32_t host);

/* Nothing pending, running, queued for retest or waiting to be delivered. */
bool mesh_sched_finished(const struct mesh_sched *s);
unsigned int mesh_sched_running(const struct mesh_sched *s);
enum mesh_unit_state mesh_sched_state(const struct mesh_sched *s, uint32_t unit);

#endif
