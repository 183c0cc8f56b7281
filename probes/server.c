/* The probe server: a listener that serves one session at a time within
 * the operator's caps, taking every other parameter from the client and
 * answering protocol faults with an ERROR message instead of silence. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "internal.h"
#include "rocecheck/agent.h"
#include "lobby.h"
#include "opts.h"
#include "session.h"
#include "sock.h"
#include "task.h"
#include "transport.h"

struct rck_probe_server {
	struct rck_ctx *ctx;
	int lfd;
	unsigned int port;
	char *device;
	unsigned int ib_port;
	int gid_index;
	struct plimits lim;
	struct plobby lobby;
	uint8_t key[RCK_KEY_MAX];
	struct pgroup *group;   /* the session being served is this group's member */
	bool came;              /* it reached the group's start */
	uint64_t began;         /* when the last session's measured part began */
	uint32_t door_task;     /* psrv_door(): the door stays open at this task between sessions */
};

RCK_EXPORT int rck_probe_server_new(struct rck_ctx *ctx, const struct rck_probe_opts *opts,
				    struct rck_probe_server **out)
{
	struct rck_probe_server *srv;
	struct rck_probe_opts o;
	struct plimits lim;
	char why[256];
	int rc;

	if (!ctx || !out)
		return -EINVAL;
	rc = popts_copy(opts, &o, why, sizeof(why));
	if (!rc)
		rc = popts_check_server(&o, &lim, why, sizeof(why));
	if (rc) {
		rck_err(ctx, "probe server: %s", why);
		return rc;
	}
	srv = calloc(1, sizeof(*srv));
	if (!srv || (o.device && !(srv->device = strdup(o.device)))) {
		free(srv);
		return -ENOMEM;
	}
	srv->ctx = ctx;
	srv->ib_port = o.ib_port;
	srv->gid_index = o.gid_index;
	srv->lim = lim;
	rc = psock_listen(o.bind_addr, o.port, &srv->lfd, &srv->port);
	if (rc) {
		rck_err(ctx, "probe server: cannot listen on %s port %u: %s", o.bind_addr ? o.bind_addr : "*",
			o.port, strerror(-rc));
		free(srv->device);
		free(srv);
		return rc;
	}
	rc = plobby_init(&srv->lobby, ctx, srv->lfd, lim.hello_ms);
	if (!rc && o.key) {
		memcpy(srv->key, o.key, o.key_len);
		srv->lobby.key = srv->key;
		srv->lobby.key_len = o.key_len;
	}
	if (rc) {
		close(srv->lfd);
		free(srv->device);
		free(srv);
		return rc;
	}
	*out = srv;
	return 0;
}

RCK_EXPORT void rck_probe_server_free(struct rck_probe_server *srv)
{
	if (!srv)
		return;
	plobby_free(&srv->lobby);
	close(srv->lfd);
	free(srv->device);
	free(srv);
}

RCK_EXPORT unsigned int rck_probe_server_port(const struct rck_probe_server *srv)
{
	return srv->port;
}

static uint64_t make_cookie(void)
{
	uint64_t c = 0;

	if (getrandom(&c, sizeof(c), GRND_NONBLOCK) != sizeof(c))
		c = pclock_ns() * 0x9e3779b97f4a7c15ull ^ (uint64_t)getpid();
	return c;
}

/* Our endpoint for the ACCEPT, and whatever the transport needs before it. */
static int prepare(struct rck_probe_server *srv, struct psess *s, struct xq_accept *acc)
{
	const struct pdev want = { srv->device, srv->ib_port, srv->gid_index };

	memset(acc, 0, sizeof(*acc));
	acc->cookie = s->cookie = make_cookie();
	return ptransport_of(&s->p)->accept(s, &want, acc);
}

/* When the run must be over: the client's duration, or for a run counted
 * in messages the server's cap, plus the timeout for the last replies and
 * the client's DONE. TICKs do not move it. */
static uint64_t run_end(const struct rck_probe_server *srv, const struct psess *s)
{
	uint64_t ms = s->p.iters ? srv->lim.max_duration_ms : s->p.duration_ms;

	return pclock_ns() + (ms + s->timeout_ms) * 1000000u;
}

int pgroup_init(struct pgroup *g, unsigned int n, uint64_t wait_ns)
{
	pthread_condattr_t a;
	int rc;

	memset(g, 0, sizeof(*g));
	g->n = n;
	g->wait_ns = wait_ns;
	if ((rc = pthread_mutex_init(&g->mu, NULL)))
		return -rc;
	pthread_condattr_init(&a);
	pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	rc = pthread_cond_init(&g->cv, &a);
	pthread_condattr_destroy(&a);
	if (rc)
		pthread_mutex_destroy(&g->mu);
	return -rc;
}

void pgroup_destroy(struct pgroup *g)
{
	pthread_cond_destroy(&g->cv);
	pthread_mutex_destroy(&g->mu);
}

/* This member came (@came) or will not (its session ended before);
 * one that came waits for the others when @wait. */
static void group_at(struct pgroup *g, bool came, bool wait)
{
	uint64_t now = pclock_ns();

	pthread_mutex_lock(&g->mu);
	if (!g->until && came)
		g->until = now + g->wait_ns;
	if (++g->in >= g->n) {
		g->released = now;
		pthread_cond_broadcast(&g->cv);
	}
	while (came && wait && g->in < g->n && pclock_ns() < g->until) {
		struct timespec ts = { .tv_sec = (time_t)(g->until / 1000000000ull),
				       .tv_nsec = (long)(g->until % 1000000000ull) };

		pthread_cond_timedwait(&g->cv, &g->mu, &ts);
	}
	if (came && wait && !g->released)
		g->released = pclock_ns();
	pthread_mutex_unlock(&g->mu);
}

static void group_in(struct pgroup *g, bool came)
{
	group_at(g, came, true);
}

void pgroup_arrive(struct pgroup *g)
{
	group_at(g, true, false);
}

void pgroup_leave(struct pgroup *g)
{
	group_in(g, false);
}

static void group_come(struct rck_probe_server *srv)
{
	srv->came = true;
	group_in(srv->group, true);
}

static int serve(struct rck_probe_server *srv, struct psess *s)
{
	union xq_msg *m = &s->msg;
	uint64_t end_by;
	char why[256];
	int rc;

	if ((rc = pchan_recv(&s->ctl, XQ_HELLO, m, &s->err)))
		return rc;
	s->p = m->hello.p;
	s->remote = m->hello.ep;
	/* Before anything is allocated for the session. */
	if (pparams_check(&s->p, &srv->lim, why, sizeof(why)))
		return perr_set(&s->err, RCK_PROBE_INVALID, -EINVAL, "refused parameters: %s", why);
	if ((rc = prepare(srv, s, &m->accept)) || (rc = pchan_send(&s->ctl, XQ_ACCEPT, m, &s->err)) ||
	    (rc = ptransport_of(&s->p)->join(s)) || (rc = pchan_recv(&s->ctl, XQ_START, m, &s->err)))
		return rc;
	if (srv->group)
		group_come(srv);
	end_by = run_end(srv, s);
	psess_end_by(s, end_by);
	srv->began = pclock_ns();
	psess_begin(s);
	rc = pchan_send(&s->ctl, XQ_START, NULL, &s->err);
	if (!rc)
		rc = psess_measure(s);
	if (!rc)
		rc = pchan_recv_until(&s->ctl, XQ_DONE, end_by, m, &s->err);
	/* A failed probe's counters too (client.c). */
	psess_finish(s);
	if (rc)
		return rc;
	s->theirs = m->done.st;
	s->their_ctr = m->done.ctr;
	s->have_theirs = true;
	m->result.st = s->mine;
	m->result.ctr = s->my_ctr;
	return pchan_send(&s->ctl, XQ_RESULT, m, &s->err);
}

/* With a task to expect: a HELLO naming another is answered with an
 * ERROR and dropped, and the wait goes on. 1: dropped, 0: take it. */
static int wrong_task(struct rck_probe_server *srv, uint32_t task, int fd, const struct pframe *first)
{
	union xq_msg *m;
	uint8_t buf[XQ_TEXT_MAX + 64];
	size_t len;
	int drop;

	if (!task || first->h.type != XQ_HELLO)
		return 0;
	m = malloc(sizeof(*m));
	if (!m)
		return 0;
	drop = !xq_decode(first->h.type, first->payload, first->h.length, m) && m->hello.task != task;
	if (drop) {
		uint32_t theirs = m->hello.task;

		memset(m, 0, sizeof(*m));
		m->error.status = RCK_PROBE_UNREACHABLE;
		/* The queue's place (its group's first task) rather than this
		 * lane's task: a group member's client elsewhere in the group
		 * is not told that its task was passed. */
		snprintf(m->error.text, sizeof(m->error.text), "this listener serves task %u now, not task %u",
			 srv->door_task && srv->door_task < task ? srv->door_task : task, theirs);
		if (!xq_encode(XQ_ERROR, m, buf, sizeof(buf), &len))
			wire_send_sec(fd, &xq_proto, first->sec, XQ_ERROR, buf + WIRE_HDR_LEN,
				      len - WIRE_HDR_LEN, pclock_ns() + 200000000ull);
		close(fd);
		rck_dbg(srv->ctx, "probe server: dropped a client of task %u waiting for task %u", theirs, task);
	}
	free(m);
	return drop;
}

int psrv_door(struct rck_probe_server *srv, uint32_t task)
{
	srv->door_task = task;
	__atomic_store_n(&srv->lobby.at_task, task, __ATOMIC_RELEASE);
	if (!task) {
		plobby_busy_stop(&srv->lobby);
		return 0;
	}
	return srv->lobby.running ? 0 : plobby_busy_start(&srv->lobby);
}

static int serve_one(struct rck_probe_server *srv, uint32_t task, uint64_t deadline,
		     struct rck_probe_result **out);

/* With the door kept open between sessions (psrv_door()), its thread
 * hands the listener to the serve and takes it back after; during the
 * session the door says busy (at_task 0). */
static int serve_door(struct rck_probe_server *srv, uint32_t task, uint64_t deadline,
		      struct rck_probe_result **out)
{
	int rc;

	if (!srv->door_task)
		return serve_one(srv, task, deadline, out);
	__atomic_store_n(&srv->lobby.at_task, 0, __ATOMIC_RELEASE);
	plobby_busy_stop(&srv->lobby);
	rc = serve_one(srv, task, deadline, out);
	__atomic_store_n(&srv->lobby.at_task, srv->door_task, __ATOMIC_RELEASE);
	if (plobby_busy_start(&srv->lobby))
		psrv_door(srv, 0); /* no thread: the listener is read at the next serve */
	return rc;
}

static int serve_one(struct rck_probe_server *srv, uint32_t task, uint64_t deadline,
		     struct rck_probe_result **out)
{
	struct rck_probe_result *res;
	struct pframe first;
	struct psess *s;
	int fd, rc;

	do {
		rc = plobby_wait(&srv->lobby, deadline, &fd, &first);
		if (rc)
			return rc;
		if (!wrong_task(srv, task, fd, &first))
			break;
		pframe_free(&first);
	} while (1);
	rc = psess_new(srv->ctx, true, &s);
	if (rc) {
		close(fd);
		pframe_free(&first);
		return rc;
	}
	s->lobby = &srv->lobby;
	psess_attach(s, fd);
	pframe_free(&s->ctl.fr);
	s->ctl.fr = first;
	/* The door thread also brings the TCP transport's streams in. */
	if ((rc = plobby_busy_start(&srv->lobby)))
		perr_set(&s->err, RCK_PROBE_SYSTEM, rc, "cannot start the server's door thread: %s",
			 strerror(-rc));
	if (rc || serve(srv, s))
		pchan_send_error(&s->ctl, &s->err);
	plobby_busy_stop(&srv->lobby);
	if (perr_failed(&s->err))
		rck_info(srv->ctx, "probe session with %s: %s", s->peer_addr, s->err.msg);
	rc = psess_result(s, &res);
	psess_free(s);
	if (rc)
		return rc;
	if (out)
		*out = res;
	else
		rck_probe_result_free(res);
	return 0;
}

RCK_EXPORT int rck_probe_server_serve(struct rck_probe_server *srv, int wait_ms, struct rck_probe_result **out)
{
	return serve_one(srv, 0, wait_ms < 0 ? UINT64_MAX : pclock_after_ms((unsigned int)wait_ms), out);
}

int psrv_serve_task(struct rck_probe_server *srv, uint32_t task, uint64_t deadline,
		    struct rck_probe_result **out)
{
	return serve_door(srv, task, deadline, out);
}

uint64_t psrv_began(const struct rck_probe_server *srv)
{
	return srv->began;
}

int psrv_serve_member(struct rck_probe_server *srv, uint32_t task, uint64_t deadline, struct pgroup *g,
		      struct rck_probe_result **out)
{
	int rc;

	srv->group = g;
	srv->came = false;
	srv->began = 0;
	rc = serve_door(srv, task, deadline, out);
	/* A member that never reached the start does not hold the others;
	 * one still waiting for its client after a timeout slice stays in. */
	if (g && !srv->came && rc != -ETIMEDOUT)
		group_in(g, false);
	srv->group = NULL;
	return rc;
}
