/* Sweep plans: which NIC probes which (rails pairing), in which groups and
 * in which preferred order (patterns). Pure data, built from the NICs of a
 * sweep result; the scheduler (sched.h) runs a plan. */
#ifndef RCK_MESH_PLAN_H
#define RCK_MESH_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rocecheck/mesh.h"

enum mesh_rails {
	MESH_RAILS_SAME = 0, /* NIC of rail i with NIC of rail i */
	MESH_RAILS_ALL,      /* every NIC with every NIC */
	MESH_RAILS_DEVICE,   /* only NICs of one device name */
};

enum mesh_pattern {
	MESH_PATTERN_FULL = 0, /* every ordered host pair, circle order */
	MESH_PATTERN_QUICK,    /* the two halves paired, both directions */
	MESH_PATTERN_INCAST,   /* K senders to one receiver at once, each host in turn */
	MESH_PATTERN_PAIRS,    /* explicit pairs from a file */
	MESH_PATTERN_TOPO,     /* per leaf a full mesh, then leaves across uplinks (plan_topo.c) */
};

struct rck_topology;

struct mesh_plan_opts {
	enum mesh_pattern pattern;
	enum mesh_rails rails;
	const char *device;     /* MESH_RAILS_DEVICE */
	unsigned int incast_k;  /* MESH_PATTERN_INCAST: senders per receiver */
	const char *pairs;      /* MESH_PATTERN_PAIRS: the file's text */
	size_t pairs_len;
	const char *pairs_name; /* its name in messages */
	bool bidir;             /* MESH_PATTERN_FULL: both directions of a pair in one unit */
	const struct rck_topology *topo; /* MESH_PATTERN_TOPO: borrowed */
};

/* One directed probe: data flows from src to dst (global NIC numbers). */
struct mesh_task {
	uint32_t src, dst;
};

/* What the scheduler books: tasks that run together on a set of NICs (one
 * task on two NICs, or an incast group on K+1 or more). Units are in
 * preferred order: unit 0 first. */
struct mesh_unit {
	uint32_t first_task, n_tasks;
	uint32_t first_nic, n_nics; /* into plan->unit_nics */
};

/* A host that lacks a rail (or the device) its peers have. */
struct mesh_missing {
	uint32_t host;
	int rail;       /* -1 with MESH_RAILS_DEVICE */
};

struct mesh_plan {
	struct mesh_task *tasks;
	size_t n_tasks;
	struct mesh_unit *units;
	size_t n_units;
	uint32_t *unit_nics;
	size_t n_unit_nics;
	struct mesh_missing *missing;
	size_t n_missing;
	unsigned int n_nics, n_hosts; /* of the result it was built from */
	uint32_t *nic_host;           /* host of each NIC */
	/* MESH_PATTERN_TOPO: steps, units of no NIC twice; step i starts at
	 * unit step_first_unit[i] (other patterns: none). */
	uint32_t *step_first_unit;
	size_t n_steps;
};

/* Most tasks a plan may hold (1024 hosts x 8 rails all-to-all fits). */
#define MESH_PLAN_MAX_TASKS (1u << 27)

/*
 * Build the plan for the hosts and NICs of @m. Errors (-EINVAL with one
 * line in @err: fewer than 2 hosts, incast K out of 1..n-1, a pairs file
 * line that does not parse or names an unknown host/device; -E2BIG past
 * MESH_PLAN_MAX_TASKS; -ENOMEM). The caller owns *out (mesh_plan_free()).
 */
int mesh_plan_build(const struct rck_mesh *m, const struct mesh_plan_opts *o, struct mesh_plan **out,
		    char *err, size_t errlen);
void mesh_plan_free(struct mesh_plan *p);

/* The circle method: in round r (0 .. m-2, m = n rounded up to even) slot
 * i (0 .. m/2-1) pairs hosts *a and *b; a host >= n is the dummy (no pair). */
void mesh_circle_pair(unsigned int n, unsigned int r, unsigned int i, unsigned int *a, unsigned int *b);

#endif
