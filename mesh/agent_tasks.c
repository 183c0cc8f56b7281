/* The delegated schedule in the agent: one thread per NIC runs that NIC's
 * tasks in global plan order; results go out in batches of AG_TRES. */
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
static int flush_locked(struct agent_tasks *at, bool last)
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

static void report(struct agent_tasks *at, const struct ag_tres *r)
{
	pthread_mutex_lock(&at->lock);
	if (!at->n_pending)
		at->first_pending = wire_now_ns();
	at->pending[at->n_pending] = *r;
	at->pending[at->n_pending++].end_ns = wire_now_ns();
	if (at->n_pending == AG_TRES_PER_FRAME)
		flush_locked(at, false);
	pthread_mutex_unlock(&at->lock);
}

static void own_counters(const struct rck_probe_result *res, struct ag_tres *r)
{
	r->n_ctr = 0;
	for (unsigned int id = 0; id < RCK_CTR_COUNT && r->n_ctr < AG_MAX_CTRS; id++) {
		uint64_t v;

		if (!rck_probe_result_counter(res, RCK_PROBE_LOCAL, (enum rck_counter)id, &v)) {
			r->ctr[r->n_ctr].id = id;
			r->ctr[r->n_ctr++].value = v;
		}
	}
}

static void from_result(const struct rck_probe_result *res, struct ag_tres *r)
{
	r->status = rck_probe_result_status(res);
	snprintf(r->text, sizeof(r->text), "%s", rck_probe_result_error(res) ? rck_probe_result_error(res) : "");
	r->seconds = rck_probe_result_seconds(res);
	if (r->status == RCK_PROBE_OK) {
		r->gbps = rck_probe_result_gbps(res);
		rck_probe_result_latency(res, RCK_LAT_P50, &r->lat_p50_us);
		rck_probe_result_latency(res, RCK_LAT_P99, &r->lat_p99_us);
	}
	own_counters(res, r);
}

/* The coordinator saw the peer's host go (AG_DROP). */
static bool dropped(struct agent_tasks *at, const struct ag_task *t)
{
	bool gone = false;

	pthread_mutex_lock(&at->dlock);
	for (size_t i = 0; i < at->n_dropped && !gone; i++)
		gone = at->dropped[i].port == t->peer_port && !strcmp(at->dropped[i].addr, t->peer);
	pthread_mutex_unlock(&at->dlock);
	return gone;
}

static bool stopped(struct agent_tasks *at, const struct ag_task *t, uint64_t deadline)
{
	return atomic_load(&at->stop) || wire_now_ns() >= deadline || dropped(at, t);
}

/* One end's wait for the other, from the head of its queue: the peer may
 * still run one earlier probe, and one more for each end its own queue
 * holds before this task beyond ours (the coordinator counts them). */
static uint64_t wait_ns(const struct ag_plan *p, const struct ag_task *t)
{
	uint64_t one = (uint64_t)p->timeout_ms * 1000000ull + 2ull * p->duration_ms * 1000000ull;

	return one + (uint64_t)t->ahead * one;
}

/* @g: the incast group this end serves in (NULL: alone). */
static void serve_task(struct nicq *q, const struct ag_task *t, struct pgroup *g, struct ag_tres *r)
{
	struct agent_tasks *at = q->at;
	uint64_t deadline = wire_now_ns() + wait_ns(&at->plan, t);
	struct rck_probe_result *res = NULL;
	int rc = -ETIMEDOUT;

	/* In slices, so a STOP is seen within one. */
	while (rc == -ETIMEDOUT && !stopped(at, t, deadline)) {
		uint64_t until = wire_now_ns() + SLICE_NS;

		rc = psrv_serve_member(q->srv[t->lane], t->id + 1, until < deadline ? until : deadline, g, &res);
	}
	if (g && rc == -ETIMEDOUT)
		pgroup_leave(g);
	if (!rc && res) {
		from_result(res, r);
		r->start_ns = psrv_began(q->srv[t->lane]);
		rck_probe_result_free(res);
		return;
	}
	r->status = rc == -ETIMEDOUT ? RCK_PROBE_TIMEOUT : RCK_PROBE_SYSTEM;
	if (atomic_load(&at->stop))
		snprintf(r->text, sizeof(r->text), "cancelled");
	else if (rc == -ETIMEDOUT && dropped(at, t))
		snprintf(r->text, sizeof(r->text), "peer %s is down", t->peer);
	else if (rc == -ETIMEDOUT)
		snprintf(r->text, sizeof(r->text), "peer %s never came for task %u", t->peer, t->id);
	else
		snprintf(r->text, sizeof(r->text), "probe listener: %s", strerror(-rc));
}

/* The peer's listener answered: it serves or waits for an earlier task, or
 * is busy with a session, so the peer is alive and not at ours yet: the
 * wait starts again. A later task: it gave ours up, so stop waiting. */
static void still_coming(struct agent_tasks *at, const struct ag_task *t, const struct rck_probe_result *res,
			 uint64_t *deadline, uint64_t hard)
{
	const char *e = rck_probe_result_error(res), *p;
	uint64_t again = wire_now_ns() + wait_ns(&at->plan, t);
	unsigned long theirs;

	/* The restarts have a bound of their own: a peer that stays busy for
	 * ever (or two peers waiting on each other) fails this probe instead
	 * of holding the agent's queue, and so the pass, for ever. */
	if (again > hard)
		again = hard;
	if (!e)
		return;
	if (strstr(e, "server busy")) {
		if (again > *deadline)
			*deadline = again;
		return;
	}
	p = strstr(e, "serves task ");
	if (!p)
		return;
	theirs = strtoul(p + strlen("serves task "), NULL, 10);
	if (theirs < t->id + 1ul && again > *deadline)
		*deadline = again;
	else if (theirs > t->id + 1ul)
		*deadline = 0;
}

static void run_task(struct nicq *q, const struct ag_task *t, struct ag_tres *r)
{
	struct agent_tasks *at = q->at;
	const struct ag_plan_nic *nic = &at->plan.nics[t->nic];
	uint64_t deadline = wire_now_ns() + wait_ns(&at->plan, t);
	uint64_t hard = wire_now_ns() + WAIT_RESTARTS_MAX * wait_ns(&at->plan, t);
	struct rck_probe_opts o;

	rck_probe_opts_init(&o);
	o.test = (enum rck_probe_test)t->test;
	o.transport = (enum rck_probe_transport)at->plan.transport;
	o.device = nic->device[0] ? nic->device : NULL;
	o.ib_port = nic->port;
	o.msg_size = at->plan.size;
	o.iters = at->plan.iters;
	o.duration_s = at->plan.duration_ms / 1000.0;
	o.port = t->peer_port;
	o.key = at->plan.key;
	o.key_len = sizeof(at->plan.key);
	o.task = t->id + 1;
	/* Until the peer's listener takes our task: it may still serve an
	 * earlier one (busy), wait for a later one (refused), or not read its
	 * listener now because its queue runs a probe as a client (no
	 * challenge within the timeout). A connection given up that way is
	 * dropped by the listener at the key challenge, never served. */
	for (;;) {
		struct rck_probe_result *res = NULL;
		int rc = rck_probe_run(at->ctx, t->peer, &o, &res);

		if (rc) {
			r->status = RCK_PROBE_INVALID;
			snprintf(r->text, sizeof(r->text), "probe refused: %s", strerror(-rc));
			return;
		}
		if ((rck_probe_result_status(res) != RCK_PROBE_UNREACHABLE &&
		     rck_probe_result_status(res) != RCK_PROBE_TIMEOUT) ||
		    rck_probe_result_messages(res) || stopped(at, t, deadline)) {
			from_result(res, r);
			if (atomic_load(&at->stop) && r->status != RCK_PROBE_OK)
				snprintf(r->text, sizeof(r->text), "cancelled");
			rck_probe_result_free(res);
			return;
		}
		still_coming(at, t, res, &deadline, hard);
		rck_probe_result_free(res);
		usleep(RETRY_US);
	}
}

/* One task end, reported. @g: its incast group when it serves in one. */
static void one_end(struct nicq *q, const struct ag_task *t, struct pgroup *g, struct ag_tres *r)
{
	struct agent_tasks *at = q->at;

	memset(r, 0, offsetof(struct ag_tres, ctr));
	r->id = t->id;
	r->role = t->role;
	r->gbps = r->lat_p50_us = r->lat_p99_us = NAN;
	r->start_ns = 0;
	if (atomic_load(&at->stop)) {
		r->status = RCK_PROBE_TIMEOUT;
		snprintf(r->text, sizeof(r->text), "cancelled");
	} else if (dropped(at, t)) {
		r->status = RCK_PROBE_UNREACHABLE;
		snprintf(r->text, sizeof(r->text), "peer %s is down", t->peer);
	} else if (t->role == AG_ROLE_SERVE) {
		serve_task(q, t, g, r);
	} else {
		run_task(q, t, r);
	}
	if (g && t->role == AG_ROLE_SERVE && r->status != RCK_PROBE_OK && !r->text[0])
		snprintf(r->text, sizeof(r->text), "incast group %u: probe failed", t->group);
	report(at, r);
}

struct member {
	struct nicq *q;
	const struct ag_task *t;
	struct pgroup *g;
	pthread_t th;
	struct ag_tres r;
};

static void *serve_member(void *arg)
{
	struct member *m = arg;

	one_end(m->q, m->t, m->g, &m->r);
	return NULL;
}

/* The @n ends of one group on this NIC at once: an incast group's serving
 * ends (one listener, or lane, each; their sessions start together,
 * probes/task.h), or both ends of a bidirectional pair. */
static void run_group(struct nicq *q, const uint32_t *idx, size_t n)
{
	struct agent_tasks *at = q->at;
	struct member *m = calloc(n, sizeof(*m));
	unsigned int serving = 0;
	struct pgroup g;
	bool have_g;

	if (!m)
		return;
	for (size_t i = 0; i < n; i++)
		serving += at->tasks[idx[i]].role == AG_ROLE_SERVE;
	/* The senders wait for each other at most half a timeout: their
	 * clients' own wait for the start is one. */
	have_g = serving && !pgroup_init(&g, serving, (uint64_t)at->plan.timeout_ms * 500000ull);
	for (size_t i = 0; i < n; i++) {
		const struct ag_task *t = &at->tasks[idx[i]];

		m[i] = (struct member){ .q = q, .t = t, .g = have_g && t->role == AG_ROLE_SERVE ? &g : NULL };
		if (pthread_create(&m[i].th, NULL, serve_member, &m[i])) {
			m[i].th = 0;
			if (m[i].g)
				pgroup_leave(m[i].g); /* it cannot start with the others */
			one_end(q, m[i].t, NULL, &m[i].r);
		}
	}
	for (size_t i = 0; i < n; i++)
		if (m[i].th)
			pthread_join(m[i].th, NULL);
	if (have_g)
		pgroup_destroy(&g);
	free(m);
}

static void *queue_main(void *arg)
{
	struct nicq *q = arg;
	struct agent_tasks *at = q->at;
	struct ag_tres *r = malloc(sizeof(*r));

	for (size_t i = 0; r && i < q->n;) {
		const struct ag_task *t = &at->tasks[q->idx[i]];
		size_t n = 1;

		/* A group's ends on this NIC are consecutive in its queue. */
		while (i + n < q->n && at->tasks[q->idx[i + n]].group == t->group)
			n++;
		if (n > 1)
			run_group(q, q->idx + i, n);
		else
			one_end(q, t, NULL, r);
		i += n;
	}
	free(r);
	atomic_fetch_sub(&at->queues_left, 1);
	return NULL;
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
		if (pthread_create(&q->t, NULL, queue_main, q)) {
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
		flush_locked(at, true);
		at->last_sent = true;
	} else if ((at->n_pending && wire_now_ns() - at->first_pending >= FLUSH_NS) ||
		   wire_now_ns() - at->last_flush >= ALIVE_NS) {
		flush_locked(at, false);
	}
	rc = at->send_rc;
	pthread_mutex_unlock(&at->lock);
	return rc ? -EPIPE : 0;
}

bool agent_tasks_busy(const struct agent_tasks *at)
{
	return at->going && !at->last_sent;
}
