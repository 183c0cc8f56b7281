/* Private to the agent's task runner: its state, shared by the session
 * side (agent_tasks.c) and the per-NIC queues (agent_tasks_run.c). */
#ifndef RCK_MESH_AGENT_TASKS_INT_H
#define RCK_MESH_AGENT_TASKS_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "rocecheck/probe.h"

#include "agent_tasks.h"

#define FLUSH_NS 200000000ull
#define ALIVE_NS 1000000000ull /* an empty batch: this agent still runs its queues */
#define SLICE_NS 100000000ull
#define RETRY_US 20000
/* A task waits at most this many times its first wait, restarts included. */
#define WAIT_RESTARTS_MAX 8
#define MAX_DROPPED 4096

struct nicq {
	struct agent_tasks *at;
	pthread_t t;
	bool started;
	struct rck_probe_server *srv[AG_MAX_LANES];
	uint32_t *idx;         /* into at->tasks, in plan order */
	size_t n;
};

struct agent_tasks {
	struct rck_ctx *ctx;
	const struct rck_agent_opts *o;
	agent_raw_send_fn send;
	void *arg;
	bool planned, going, last_sent;
	struct ag_plan plan;
	struct nicq q[AG_MAX_NICS];
	struct ag_task *tasks;
	size_t n_tasks, cap_tasks;
	atomic_int stop;
	atomic_uint queues_left;
	pthread_mutex_t lock;  /* the pending results and the encode buffer */
	struct ag_tres *pending;
	size_t n_pending;
	uint64_t first_pending;
	uint64_t last_flush;
	uint8_t *buf;
	int send_rc;
	pthread_mutex_t dlock;  /* the dropped peers */
	struct ag_peer *dropped;
	size_t n_dropped;
};

/* Send the pending results; the caller holds at->lock (agent_tasks.c). */
int agent_tasks_flush_locked(struct agent_tasks *at, bool last);
/* One NIC's queue, run in plan order by its thread (agent_tasks_run.c). */
void *agent_tasks_queue_main(void *arg);

#endif
