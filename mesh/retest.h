/* Rounds of retests after a sweep: the cells a caller asks for, as plan
 * tasks, packed into rounds in which no NIC is in two probes. */
#ifndef RCK_MESH_RETEST_H
#define RCK_MESH_RETEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plan.h"

/*
 * The tasks of plan @p that probe the @n cells @cells of @m, each once
 * (a task runs every test, so two cells of one NIC pair are one task),
 * in the order of the tasks in the plan, into @tasks (room for @n). Cells
 * unknown to @m, not in the plan, or with RCK_MESH_RETEST_MAX retests
 * already are left out. Returns how many, or -ENOMEM.
 */
long mesh_retest_tasks(const struct mesh_plan *p, const struct rck_mesh *m, const unsigned int *cells,
		       size_t n, uint32_t *tasks);

/*
 * Pack @n tasks into rounds, greedily in the order given: round[i] gets
 * the first round in which neither NIC of tasks[i] is taken yet. No NIC
 * is in two tasks of one round. Returns the number of rounds, or -ENOMEM.
 */
long mesh_retest_rounds(const struct mesh_plan *p, const uint32_t *tasks, size_t n, uint32_t *round);

/*
 * A retest pass's rounds (mesh_retest_rounds()), with @bidir (the sweep's
 * --bidir) a pair's two directions in one step: mate[i] gets the index in
 * @tasks of tasks[i]'s reverse direction when it is asked for too (the
 * pair then takes one round, the round of its first), else -1. Without
 * @bidir every mate is -1. Returns the number of rounds, or -ENOMEM.
 */
long mesh_retest_steps(const struct mesh_plan *p, const uint32_t *tasks, size_t n, bool bidir, long *mate,
		       uint32_t *round);

#endif
