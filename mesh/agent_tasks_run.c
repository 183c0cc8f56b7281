/* The agent's per-NIC queues: each task end served or run against its
 * peer in plan order, incast groups at once, results reported in batches. */
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

static void report(struct agent_tasks *at, const struct ag_tres *r)
{
	pthread_mutex_lock(&at->lock);
	if (!at->n_pending)
		at->first_pending = wire_now_ns();
	at->pending[at->n_pending] = *r;
	at->pending[at->n_pending++].end_ns = wire_now_ns();
	if (at->n_pending == AG_TRES_PER_FRAME)
		agent_tasks_flush_locked(at, false);
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

static void probe_opts(struct agent_tasks *at, const struct ag_task *t, struct rck_probe_opts *o)
{
	const struct ag_plan_nic *nic = &at->plan.nics[t->nic];

	rck_probe_opts_init(o);
	o->test = (enum rck_probe_test)t->test;
	o->transport = (enum rck_probe_transport)at->plan.transport;
	o->device = nic->device[0] ? nic->device : NULL;
	o->ib_port = nic->port;
	o->msg_size = at->plan.size;
	o->iters = at->plan.iters;
	o->duration_s = at->plan.duration_ms / 1000.0;
	o->port = t->peer_port;
	o->key = at->plan.key;
	o->key_len = sizeof(at->plan.key);
	o->task = t->id + 1;
}

/* Where the peer's queue is, from its listener's answer to a HELLO of
 * ours: its door says "at task N" (busy with something else) or "serves
 * task N now" (waiting for that client). 1 with *at, 0 when busy with a
 * session (no number), -1 when it did not answer as a live peer does. */
static int peer_at(const struct rck_probe_result *res, unsigned long *at)
{
	const char *e = rck_probe_result_error(res), *p;

	if (!e)
		return -1;
	if ((p = strstr(e, "serves task ")) || (p = strstr(e, "at task ")))
		return *at = strtoul(strchr(p, 'k') + 2, NULL, 10), 1;
	return strstr(e, "server busy") ? 0 : -1;
}

/* The peer's listener answered: it is busy with a session or another task
 * before ours, so it is alive and not at ours yet: the wait starts again.
 * At a later task: it gave ours up, so stop waiting. A chain of busy peers
 * never fails a probe: each peer in it answers, and the plan order keeps
 * the chain from closing on itself (the sweep's deadline and STOP bound
 * the rest). Only a peer that stays at our very task without coming
 * has a bound: WAIT_RESTARTS_MAX waits from when it got there. */
static void still_coming(struct agent_tasks *at, const struct ag_task *t, const struct rck_probe_result *res,
			 uint64_t *deadline, uint64_t *at_ours)
{
	uint64_t now = wire_now_ns(), again = now + wait_ns(&at->plan, t);
	unsigned long theirs = 0;
	int k = peer_at(res, &theirs);

	if (k < 0)
		return;
	if (k == 1 && theirs > t->id + 1ul) {
		*deadline = 0;
		return;
	}
	if (k == 1 && theirs >= t->group + 1ul) {
		if (!*at_ours)
			*at_ours = now + WAIT_RESTARTS_MAX * wait_ns(&at->plan, t);
		if (again > *at_ours)
			again = *at_ours;
	}
	if (again > *deadline)
		*deadline = again;
}

/* A serve end's wait ran out: where is its client's queue? Asked with a
 * HELLO of a task no listener serves, so the peer's listener only says
 * where it is (still_coming()); no answer leaves the deadline as it is. */
static void ask_peer(struct agent_tasks *at, const struct ag_task *t, uint64_t *deadline, uint64_t *at_ours)
{
	struct rck_probe_result *res = NULL;
	struct rck_probe_opts o;

	if (!t->peer[0] || !t->peer_port || atomic_load(&at->stop))
		return;
	probe_opts(at, t, &o);
	o.task = UINT32_MAX;
	if (!rck_probe_run(at->ctx, t->peer, &o, &res))
		still_coming(at, t, res, deadline, at_ours);
	rck_probe_result_free(res);
}

/* @g: the incast group this end serves in (NULL: alone). */
static void serve_task(struct nicq *q, const struct ag_task *t, struct pgroup *g, struct ag_tres *r)
{
	struct agent_tasks *at = q->at;
	uint64_t deadline = wire_now_ns() + wait_ns(&at->plan, t), at_ours = 0;
	struct rck_probe_result *res = NULL;
	int rc = -ETIMEDOUT;

	/* In slices, so a STOP is seen within one. */
	while (rc == -ETIMEDOUT && !stopped(at, t, deadline)) {
		uint64_t until = wire_now_ns() + SLICE_NS;

		rc = psrv_serve_member(q->srv[t->lane], t->id + 1, until < deadline ? until : deadline, g, &res);
		if (rc == -ETIMEDOUT && wire_now_ns() >= deadline)
			ask_peer(at, t, &deadline, &at_ours);
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

/* @g: the group of the bidirectional pair it runs in (NULL: alone). */
static void run_task(struct nicq *q, const struct ag_task *t, struct pgroup *g, struct ag_tres *r)
{
	struct agent_tasks *at = q->at;
	uint64_t deadline, at_ours = 0;
	struct rck_probe_opts o;
	bool came = false;

	probe_opts(at, t, &o);
	/* A slow pair in tests: this queue busy, its listeners not serving. */
	for (uint64_t slow = wire_now_ns() + (uint64_t)(at->o->test_client_delay_s * 1e9);
	     wire_now_ns() < slow && !atomic_load(&at->stop);)
		usleep(RETRY_US);
	deadline = wire_now_ns() + wait_ns(&at->plan, t);
	/* Until the peer's listener takes our task: it may still serve an
	 * earlier one (busy), wait for a later one (refused), or run another
	 * task (its door says which, doors()); a listener that says nothing
	 * (the peer's queue has not started or has ended) leaves the wait as
	 * it is. */
	for (;;) {
		struct rck_probe_result *res = NULL;
		int rc = pcli_run_member(at->ctx, t->peer, &o, g, &came, &res);

		if (rc) {
			r->status = RCK_PROBE_INVALID;
			snprintf(r->text, sizeof(r->text), "probe refused: %s", strerror(-rc));
			break;
		}
		if ((rck_probe_result_status(res) != RCK_PROBE_UNREACHABLE &&
		     rck_probe_result_status(res) != RCK_PROBE_TIMEOUT) ||
		    rck_probe_result_messages(res) || stopped(at, t, deadline)) {
			from_result(res, r);
			if (atomic_load(&at->stop) && r->status != RCK_PROBE_OK)
				snprintf(r->text, sizeof(r->text), "cancelled");
			rck_probe_result_free(res);
			break;
		}
		still_coming(at, t, res, &deadline, &at_ours);
		rck_probe_result_free(res);
		usleep(RETRY_US);
	}
	if (g && !came)
		pgroup_leave(g);
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
		g = NULL; /* it came or left in there */
	} else {
		run_task(q, t, g, r);
		g = NULL;
	}
	/* Never started: its group does not wait for it. */
	if (g)
		pgroup_leave(g);
	if (t->group && t->role == AG_ROLE_SERVE && r->status != RCK_PROBE_OK && !r->text[0])
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

/* A member's thread; pthread_create() fails for want of resources
 * (EAGAIN: a pids cgroup or threads-max, momentarily) on busy hosts, so
 * it is tried a few times before the member runs in the queue's thread. */
#define MEMBER_TRIES 5

static bool start_member(struct member *m)
{
	for (int tries = 0; tries < MEMBER_TRIES; tries++) {
		int rc = pthread_create(&m->th, NULL, serve_member, m);

		if (!rc)
			return true;
		if (rc != EAGAIN)
			break;
		usleep(RETRY_US);
	}
	m->th = 0;
	return false;
}

/* The @n ends of one group on this NIC at once: an incast group's serving
 * ends (one listener, or lane, each; their sessions start together,
 * probes/task.h), or both ends of a bidirectional pair. A member without
 * its own thread runs in this one once the others have started, so the
 * ends still overlap; a second such member would only run after the first
 * ended, so it leaves the group (its peers do not wait for it). */
static void run_group(struct nicq *q, const uint32_t *idx, size_t n)
{
	struct agent_tasks *at = q->at;
	struct member *m = calloc(n, sizeof(*m));
	unsigned int serving = 0;
	size_t here = n;
	struct pgroup g;
	bool have_g;

	if (!m)
		return;
	for (size_t i = 0; i < n; i++)
		serving += at->tasks[idx[i]].role == AG_ROLE_SERVE;
	/* The senders wait for each other at most half a timeout: their
	 * clients' own wait for the start is one. With a serve end in it,
	 * a client member (a bidirectional pair's) is one of the group. */
	have_g = serving && !pgroup_init(&g, (unsigned int)n, (uint64_t)at->plan.timeout_ms * 500000ull);
	for (size_t i = 0; i < n; i++) {
		const struct ag_task *t = &at->tasks[idx[i]];

		m[i] = (struct member){ .q = q, .t = t, .g = have_g ? &g : NULL };
		if (start_member(&m[i]))
			continue;
		if (here == n) {
			here = i;
			continue;
		}
		if (m[i].g)
			pgroup_leave(m[i].g);
		m[i].g = NULL;
	}
	for (size_t i = 0; i < n; i++)
		if (!m[i].th && i != here)
			rck_warn(at->ctx, "agent: task %u: no thread for it, it runs after its group", m[i].t->id);
	if (here < n)
		one_end(q, m[here].t, m[here].g, &m[here].r);
	for (size_t i = 0; i < n; i++) {
		if (m[i].th)
			pthread_join(m[i].th, NULL);
		else if (i != here)
			one_end(q, m[i].t, NULL, &m[i].r);
	}
	if (have_g)
		pgroup_destroy(&g);
	free(m);
}

/* This NIC's listeners tell clients which task the queue is at, whatever
 * it does (lobby.h); @task 0 closes their doors. */
static void doors(struct nicq *q, uint32_t task)
{
	for (uint32_t l = 0; l < q->at->plan.lanes; l++)
		if (q->srv[l] && psrv_door(q->srv[l], task))
			rck_warn(q->at->ctx, "agent: cannot keep probe listener %u open between its tasks", l);
}

void *agent_tasks_queue_main(void *arg)
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
		doors(q, t->id + 1);
		if (n > 1)
			run_group(q, q->idx + i, n);
		else
			one_end(q, t, NULL, r);
		i += n;
	}
	doors(q, 0);
	free(r);
	atomic_fetch_sub(&at->queues_left, 1);
	return NULL;
}
