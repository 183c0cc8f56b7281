/* The delegated schedule in the agent, session side: the plan, task lists,
 * GO and drops from the coordinator; results flushed in batches of AG_TRES. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "rocecheck/probe.h"

#include "../probes/task.h"
#include "agent_srv.h"
#include "agent_tasks_int.h"

int agent_tasks_new(struct rck_ctx *ctx, const struct rck_agent_opts *o, agent_raw_send_fn send,
		    void *arg, struct agent_tasks **out)
{
	struct agent_tasks *at = calloc(1, sizeof(*at));

	if (!at)
		return -ENOMEM;
	at->pending = malloc(AG_TRES_PER_FRAME * sizeof(*at->pending));
	at->buf = malloc(AG_MAX_PAYLOAD);
	if (!at->pending || !at->buf) {
		free(at->pending);
		free(at->buf);
		free(at);
		return -ENOMEM;
	}
	at->ctx = ctx;
	at->o = o;
	at->send = send;
	at->arg = arg;
	pthread_mutex_init(&at->lock, NULL);
	pthread_mutex_init(&at->dlock, NULL);
	*out = at;
	return 0;
}

/* Join the queues of the pass that ran and forget its tasks. */
static void end_pass(struct agent_tasks *at)
{
	for (unsigned int i = 0; i < AG_MAX_NICS; i++) {
		if (at->q[i].started)
			pthread_join(at->q[i].t, NULL);
		at->q[i].started = false;
		free(at->q[i].idx);
		at->q[i].idx = NULL;
		at->q[i].n = 0;
	}
	at->n_tasks = 0;
	at->going = at->last_sent = false;
}

void agent_tasks_free(struct agent_tasks *at)
{
	if (!at)
		return;
	atomic_store(&at->stop, 1);
	end_pass(at);
	for (unsigned int i = 0; i < AG_MAX_NICS; i++)
		for (unsigned int l = 0; l < AG_MAX_LANES; l++)
			rck_probe_server_free(at->q[i].srv[l]);
	pthread_mutex_destroy(&at->lock);
	pthread_mutex_destroy(&at->dlock);
	free(at->dropped);
	memset(at->plan.key, 0, sizeof(at->plan.key));
	free(at->tasks);
	free(at->pending);
	free(at->buf);
	free(at);
}

/* Send the pending results; the caller holds the lock. */
int agent_tasks_flush_locked(struct agent_tasks *at, bool last)
{
	size_t len;
	int rc;

	at->last_flush = wire_now_ns();
	for (size_t i = 0; i < at->n_pending; i++) {
		at->pending[i].ago = (at->last_flush - at->pending[i].end_ns) / 1e9;
		at->pending[i].start_ago = at->pending[i].start_ns && at->pending[i].start_ns < at->last_flush
						   ? (at->last_flush - at->pending[i].start_ns) / 1e9 : 0;
	}
	rc = ag_tres_encode(at->pending, at->n_pending, last, at->buf, AG_MAX_PAYLOAD, &len);
	if (!rc)
		rc = at->send(at->arg, AG_TRES, at->buf, len);
	at->n_pending = 0;
	if (rc && !at->send_rc)
		at->send_rc = rc;
	return rc;
}

static int reply_planned(struct agent_tasks *at, const struct ag_planned *p)
{
	size_t len;
	int rc;

	pthread_mutex_lock(&at->lock);
	rc = ag_planned_encode(p, at->buf, AG_MAX_PAYLOAD, &len);
	if (!rc)
		rc = at->send(at->arg, AG_PLANNED, at->buf, len);
	pthread_mutex_unlock(&at->lock);
	return rc ? -EPIPE : 0;
}

/* One standing, key-protected probe listener per NIC of the plan. */
static int on_plan(struct agent_tasks *at, const uint8_t *p, size_t len, const char *peer)
{
	struct ag_planned *rep = calloc(1, sizeof(*rep));
	int rc = 0;

	if (!rep)
		return -ENOMEM;
	if (at->planned || ag_plan_decode(p, len, &at->plan)) {
		rck_warn(at->ctx, "agent: %s: %s PLAN, closing", peer, at->planned ? "a second" : "malformed");
		free(rep);
		return -EBADMSG;
	}
	at->planned = true;
	if (agent_check_limits(&(struct agent_probe_ask){ .transport = at->plan.transport,
							  .size = at->plan.size, .iters = at->plan.iters,
							  .duration_ms = at->plan.duration_ms,
							  .timeout_ms = at->plan.timeout_ms },
			       at->o, rep->text, sizeof(rep->text)))
		rep->status = RCK_PROBE_INVALID;
	for (uint32_t k = 0; !rep->status && k < at->plan.n_nics * at->plan.lanes; k++) {
		uint32_t i = k / at->plan.lanes, lane = k % at->plan.lanes;
		struct rck_probe_opts o;

		rck_probe_opts_init(&o);
		o.port = 0;
		o.bind_addr = at->o->bind_addr;
		o.device = at->plan.nics[i].device[0] ? at->plan.nics[i].device : NULL;
		o.ib_port = at->plan.nics[i].port;
		o.max_size = at->o->max_probe_size > RCK_PROBE_DEFAULT_MAX_SIZE ? at->o->max_probe_size
										 : RCK_PROBE_DEFAULT_MAX_SIZE;
		o.max_duration_s = at->o->max_probe_s;
		o.key = at->plan.key;
		o.key_len = sizeof(at->plan.key);
		rc = rck_probe_server_new(at->ctx, &o, &at->q[i].srv[lane]);
		if (rc) {
			rep->status = RCK_PROBE_SYSTEM;
			snprintf(rep->text, sizeof(rep->text), "cannot listen for probes on NIC %u: %s", i,
				 strerror(-rc));
			break;
		}
		rep->probe_port[rep->n++] = rck_probe_server_port(at->q[i].srv[lane]);
	}
	if (rep->status)
		rep->n = 0;
	rep->idle_ms = at->o->idle_s * 1000 < UINT32_MAX ? (uint32_t)(at->o->idle_s * 1000) : UINT32_MAX;
	rc = reply_planned(at, rep);
	free(rep);
	return rc;
}

static int on_tasks(struct agent_tasks *at, const uint8_t *p, size_t len, const char *peer)
{
	size_t n;

	/* The first TASKS after a pass's last batch starts the next pass. */
	if (at->last_sent)
		end_pass(at);
	if (!at->planned || at->going || at->n_tasks + AG_TASKS_PER_FRAME > AG_MAX_TASKS) {
		rck_warn(at->ctx, "agent: %s: TASKS out of order or above %u tasks, closing", peer, AG_MAX_TASKS);
		return -EBADMSG;
	}
	if (at->n_tasks + AG_TASKS_PER_FRAME > at->cap_tasks) {
		size_t cap = at->cap_tasks ? at->cap_tasks * 2 : 4 * AG_TASKS_PER_FRAME;
		struct ag_task *nt = realloc(at->tasks, cap * sizeof(*nt));

		if (!nt)
			return -ENOMEM;
		at->tasks = nt;
		at->cap_tasks = cap;
	}
	if (ag_tasks_decode(p, len, at->tasks + at->n_tasks, AG_TASKS_PER_FRAME, &n)) {
		rck_warn(at->ctx, "agent: %s: malformed TASKS, closing", peer);
		return -EBADMSG;
	}
	for (size_t i = at->n_tasks; i < at->n_tasks + n; i++) {
		const struct ag_task *t = &at->tasks[i];

		/* Plan order is what keeps the queues free of deadlocks. */
		if (t->nic >= at->plan.n_nics || (i && t->id <= at->tasks[i - 1].id) || t->lane >= at->plan.lanes ||
		    (t->role == AG_ROLE_RUN && (!t->peer[0] || !t->peer_port))) {
			rck_warn(at->ctx, "agent: %s: task %u out of order or with a bad NIC or peer, closing",
				 peer, t->id);
			return -EBADMSG;
		}
	}
	at->n_tasks += n;
	return 0;
}

static int on_go(struct agent_tasks *at, const char *peer)
{
	if (at->last_sent) /* a pass without tasks for this agent */
		end_pass(at);
	if (!at->planned || at->going) {
		rck_warn(at->ctx, "agent: %s: GO out of order, closing", peer);
		return -EBADMSG;
	}
	at->going = true;
	at->last_flush = wire_now_ns();
	for (size_t i = 0; i < at->n_tasks; i++)
		at->q[at->tasks[i].nic].n++;
	for (uint32_t k = 0; k < at->plan.n_nics; k++) {
		at->q[k].idx = malloc((at->q[k].n ? at->q[k].n : 1) * sizeof(uint32_t));
		if (!at->q[k].idx)
			return -ENOMEM;
		at->q[k].n = 0;
	}
	for (size_t i = 0; i < at->n_tasks; i++) {
		struct nicq *q = &at->q[at->tasks[i].nic];

		q->idx[q->n++] = (uint32_t)i;
	}
	for (uint32_t k = 0; k < at->plan.n_nics; k++) {
		struct nicq *q = &at->q[k];

		if (!q->n)
			continue;
		q->at = at;
		atomic_fetch_add(&at->queues_left, 1);
		if (pthread_create(&q->t, NULL, agent_tasks_queue_main, q)) {
			atomic_fetch_sub(&at->queues_left, 1);
			rck_warn(at->ctx, "agent: %s: cannot start a thread, closing", peer);
			return -EBADMSG;
		}
		q->started = true;
	}
	rck_info(at->ctx, "agent: %s: running %zu tasks on %u NICs", peer, at->n_tasks, at->plan.n_nics);
	return 0;
}

static int on_drop(struct agent_tasks *at, const uint8_t *p, size_t len, const char *peer)
{
	struct ag_peer gone[AG_MAX_NICS];
	size_t n;

	if (!at->planned || ag_drop_decode(p, len, gone, AG_MAX_NICS, &n)) {
		rck_warn(at->ctx, "agent: %s: malformed or early DROP, closing", peer);
		return -EBADMSG;
	}
	if (!n) /* the coordinator's keepalive */
		return 0;
	pthread_mutex_lock(&at->dlock);
	if (!at->dropped)
		at->dropped = calloc(MAX_DROPPED, sizeof(*at->dropped));
	for (size_t i = 0; at->dropped && i < n && at->n_dropped < MAX_DROPPED; i++)
		at->dropped[at->n_dropped++] = gone[i];
	pthread_mutex_unlock(&at->dlock);
	return 0;
}

int agent_tasks_frame(struct agent_tasks *at, uint16_t type, const uint8_t *p, size_t len,
		      const char *peer)
{
	switch (type) {
	case AG_PLAN:
		return on_plan(at, p, len, peer);
	case AG_TASKS:
		return on_tasks(at, p, len, peer);
	case AG_GO:
		return on_go(at, peer);
	case AG_STOP:
		atomic_store(&at->stop, 1);
		return 0;
	case AG_DROP:
		return on_drop(at, p, len, peer);
	default:
		rck_warn(at->ctx, "agent: %s: unexpected %s request, closing", peer, ag_task_type_name(type));
		return -EBADMSG;
	}
}

int agent_tasks_tick(struct agent_tasks *at)
{
	int rc = 0;

	if (!at->going || at->last_sent)
		return 0;
	pthread_mutex_lock(&at->lock);
	if (!atomic_load(&at->queues_left)) {
		agent_tasks_flush_locked(at, true);
		at->last_sent = true;
	} else if ((at->n_pending && wire_now_ns() - at->first_pending >= FLUSH_NS) ||
		   wire_now_ns() - at->last_flush >= ALIVE_NS) {
		agent_tasks_flush_locked(at, false);
	}
	rc = at->send_rc;
	pthread_mutex_unlock(&at->lock);
	return rc ? -EPIPE : 0;
}

bool agent_tasks_busy(const struct agent_tasks *at)
{
	return at->going && !at->last_sent;
}
