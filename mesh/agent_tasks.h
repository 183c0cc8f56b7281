/* The agent's side of the delegated schedule: its task list run per NIC
 * in plan order on standing probe listeners, results sent in batches. */
#ifndef RCK_MESH_AGENT_TASKS_H
#define RCK_MESH_AGENT_TASKS_H

#include <stdbool.h>
#include <stdint.h>

#include "rocecheck/agent.h"
#include "rocecheck/context.h"

#include "agent_tasks_proto.h"

/* Send one encoded message on the session (thread-safe): 0 or -errno. */
typedef int (*agent_raw_send_fn)(void *arg, uint16_t type, const uint8_t *buf, size_t len);

struct agent_tasks;

int agent_tasks_new(struct rck_ctx *ctx, const struct rck_agent_opts *o, agent_raw_send_fn send,
		    void *arg, struct agent_tasks **out);
/* Stop the NIC threads (at their next deadline check) and join them. */
void agent_tasks_free(struct agent_tasks *at);
/* One of AG_PLAN, AG_TASKS, AG_GO, AG_STOP: 0, -EBADMSG (logged; the
 * session closes), -EPIPE (the reply could not be sent). */
int agent_tasks_frame(struct agent_tasks *at, uint16_t type, const uint8_t *p, size_t len,
		      const char *peer);
/* From the session loop: a batch due by time, the last one when every
 * queue is done. 0 or -EPIPE. */
int agent_tasks_tick(struct agent_tasks *at);
/* Tasks run or wait to be reported. */
bool agent_tasks_busy(const struct agent_tasks *at);

#endif
