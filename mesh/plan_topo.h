/* The topo pattern (plan_topo.c): a full mesh under each leaf, then steps
 * of whole leaves sending across their uplinks to other leaves. */
#ifndef RCK_MESH_PLAN_TOPO_H
#define RCK_MESH_PLAN_TOPO_H

#include <stddef.h>
#include <stdint.h>

#include "plan.h"

/* NICs per leaf pair and direction in a cross step: a leaf's NICs are
 * split into chunks of about this many, each to another leaf. */
#define MESH_TOPO_CHUNK 4

/*
 * Build the topo pattern into @p (units of one task, steps recorded): the
 * taking part NICs @hnics[h] (@hn[h] of host h), each placed on its leaf by
 * @o->topo (host name and "device/port", or the host as a whole); NICs on
 * no known leaf form a group of their own per rail. Returns 0, -EINVAL
 * (no topology; one line in @err), -E2BIG, -ENOMEM.
 */
int mesh_plan_topo(const struct rck_mesh *m, const struct mesh_plan_opts *o, uint32_t *const *hnics,
		   const unsigned int *hn, struct mesh_plan *p, char *err, size_t errlen);

#endif
