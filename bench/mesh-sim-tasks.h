/* mesh-bench's simulated agents under the agents' schedule: they take the
 * task list and answer it with no-op results in batches, at a fixed pace. */
#ifndef RCK_BENCH_MESH_SIM_TASKS_H
#define RCK_BENCH_MESH_SIM_TASKS_H

#include <stdbool.h>
#include <stdint.h>

#include "../mesh/agent_tasks_proto.h"

struct sim_tasks {
	uint32_t *ends;        /* id * 2 + role, in plan order */
	size_t n, cap, next;
	uint64_t go;           /* 0: not running */
	uint32_t pend[AG_TRES_PER_FRAME];
	size_t n_pend;
	uint64_t first_pend;
	bool last_sent;
};

/* The keys of the connection being served (NULL: no key): replies are
 * sealed with them. One process serves its agents on one thread. */
extern struct wire_sec *sim_sec;

/* A frame of the agents' schedule: 1 handled, 0 not one of its types, -1 error. */
int sim_tasks_frame(struct sim_tasks *t, int fd, const struct wire_frame *f, uint8_t *buf);
/* Report the ends due by @now (one every @per_task_ns after GO) in batches
 * of AG_TRES_PER_FRAME or after 200 ms, the last batch at the end. True
 * while the agent still runs. */
bool sim_tasks_tick(struct sim_tasks *t, int fd, uint8_t *buf, uint64_t now, uint64_t per_task_ns);
void sim_tasks_reset(struct sim_tasks *t);

#endif
