/* The agent: one authenticated coordinator session at a time over the agent
 * protocol; probes run in worker threads, every other request inline. */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <syslog.h>
#include <unistd.h>

#include "internal.h"
#include "rocecheck/agent.h"
#include "rocecheck/mesh.h"
#include "rocecheck/probe.h"

#include "../probes/sock.h"
#include "agent_door.h"
#include "agent_lldp.h"
#include "agent_proto.h"
#include "agent_srv.h"
#include "agent_tasks.h"

#define SLICE_MS 100
/* A connection must prove the key (or, without one, send its first
 * request) within this, at most: many wait at once, each on its own. */
#define HELLO_MS_MAX 5000
#define MAX_PROBES_CAP 256

struct rck_agent {
	struct rck_ctx *ctx;
	struct rck_agent_opts o;
	uint8_t key[RCK_KEY_MAX];
	size_t key_len;
	uint8_t key_next[RCK_KEY_MAX]; /* a second key, while one is rolled */
	size_t key_next_len;
	char *bind_addr;
	char *dcb_file;
	char *lldp_file;
	int lfd;
	unsigned int port;
	volatile sig_atomic_t stop;
	struct agent_door door;
};

struct worker {
	pthread_t t;
	bool used;
	atomic_bool done;
	struct session *s;
	struct ag_msg req;
};

struct session {
	struct rck_agent *a;
	int fd;
	char peer[80];
	struct wire_sec *sec; /* the session's keys (in the frame reader); NULL without a key */
	pthread_mutex_t wlock;
	struct worker *w;
	unsigned int n_w;
	struct agent_tasks *tasks; /* the delegated schedule, once a PLAN came */
	atomic_bool abort;  /* the coordinator went away or the agent stops: serves end */
	struct ag_msg *msg; /* scratch of the main thread */
	uint8_t *out;       /* scratch of the main thread's replies */
};

RCK_EXPORT int rck_key_load(const char *path, uint8_t *key, size_t cap, size_t *len, char *err,
			    size_t errlen)
{
	char dummy[1];

	if (!path || !key || !len || cap < RCK_KEY_MAX)
		return -EINVAL;
	if (!err) {
		err = dummy;
		errlen = sizeof(dummy);
	}
	return wire_key_load(path, key, len, err, errlen);
}

RCK_EXPORT void rck_agent_opts_init(struct rck_agent_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->size = sizeof(*o);
	o->port = RCK_AGENT_DEFAULT_PORT;
	o->idle_s = 60;
	o->request_s = 10;
	o->max_probe_size = 64ull << 20;
	o->max_probe_s = 60;
	o->max_probes = 16;
}

RCK_EXPORT int rck_agent_new(struct rck_ctx *ctx, const struct rck_agent_opts *o,
			     struct rck_agent **out)
{
	struct rck_agent_opts oo;
	struct rck_agent *a;
	int rc;

	/* A caller built before key_next has a shorter struct: no second key. */
	if (!ctx || !o || !out || o->size < offsetof(struct rck_agent_opts, key_next))
		return -EINVAL;
	if (o->size < sizeof(*o)) {
		memset(&oo, 0, sizeof(oo));
		memcpy(&oo, o, o->size);
		oo.size = sizeof(oo);
		oo.key_next = NULL;
		oo.key_next_len = 0;
		o = &oo;
	}
	if (o->port > 65535 || !(o->idle_s > 0) || !(o->request_s > 0) || !(o->max_probe_s > 0) ||
	    o->max_probes == 0 || o->max_probes > MAX_PROBES_CAP || !(o->test_client_delay_s >= 0) ||
	    (o->key && (o->key_len < RCK_KEY_MIN || o->key_len > RCK_KEY_MAX)) ||
	    (o->key_next && (!o->key || o->key_next_len < RCK_KEY_MIN || o->key_next_len > RCK_KEY_MAX))) {
		rck_err(ctx, "agent: an option is out of range (port, times, max_probes 1..%d, key %d..%d bytes)",
			MAX_PROBES_CAP, RCK_KEY_MIN, RCK_KEY_MAX);
		return -EINVAL;
	}
	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	a->ctx = ctx;
	a->o = *o;
	a->lfd = -1;
	if (o->key) {
		memcpy(a->key, o->key, o->key_len);
		a->key_len = o->key_len;
	}
	a->o.key = NULL;
	if (o->key_next) {
		memcpy(a->key_next, o->key_next, o->key_next_len);
		a->key_next_len = o->key_next_len;
	}
	a->o.key_next = NULL;
	if (o->bind_addr && !(a->bind_addr = strdup(o->bind_addr))) {
		free(a);
		return -ENOMEM;
	}
	a->o.bind_addr = a->bind_addr;
	if (o->dcb_file && !(a->dcb_file = strdup(o->dcb_file))) {
		rck_agent_free(a);
		return -ENOMEM;
	}
	a->o.dcb_file = a->dcb_file;
	if (o->lldp_file && !(a->lldp_file = strdup(o->lldp_file))) {
		rck_agent_free(a);
		return -ENOMEM;
	}
	a->o.lldp_file = a->lldp_file;
	rc = psock_listen(a->bind_addr, o->port, &a->lfd, &a->port);
	if (rc) {
		rck_err(ctx, "agent: cannot listen on %s port %u: %s", o->bind_addr ? o->bind_addr : "*",
			o->port, strerror(-rc));
		rck_agent_free(a);
		return rc;
	}
	agent_door_init(&a->door, ctx, a->lfd,
			o->request_s * 1000 < HELLO_MS_MAX ? (unsigned int)(o->request_s * 1000) : HELLO_MS_MAX);
	if (a->key_len) {
		a->door.key[0] = a->key;
		a->door.key_len[0] = a->key_len;
		a->door.n_keys = 1;
	}
	if (a->key_next_len) {
		a->door.key[a->door.n_keys] = a->key_next;
		a->door.key_len[a->door.n_keys++] = a->key_next_len;
	}
	*out = a;
	return 0;
}

RCK_EXPORT void rck_agent_free(struct rck_agent *a)
{
	if (!a)
		return;
	agent_door_free(&a->door);
	if (a->lfd >= 0)
		close(a->lfd);
	memset(a->key, 0, sizeof(a->key));
	memset(a->key_next, 0, sizeof(a->key_next));
	free(a->bind_addr);
	free(a->dcb_file);
	free(a->lldp_file);
	free(a);
}

RCK_EXPORT unsigned int rck_agent_port(const struct rck_agent *a)
{
	return a ? a->port : 0;
}

RCK_EXPORT void rck_agent_stop(struct rck_agent *a)
{
	if (a)
		a->stop = 1;
}

/* Send one encoded reply; workers and the main thread share the socket. */
static int send_reply(struct session *s, uint16_t type, const uint8_t *buf, size_t len)
{
	int rc;

	pthread_mutex_lock(&s->wlock);
	rc = wire_send_sec(s->fd, &ag_proto, s->sec, type, buf, len,
			   wire_now_ns() + (uint64_t)(s->a->o.request_s * 1e9));
	pthread_mutex_unlock(&s->wlock);
	return rc;
}

static int raw_send(void *arg, uint16_t type, const uint8_t *buf, size_t len)
{
	return send_reply(arg, type, buf, len);
}

/* The delegated schedule's requests (agent_tasks.c). */
static int handle_tasks(struct session *s, const struct wire_frame *f)
{
	int rc;

	if (!s->tasks && (rc = agent_tasks_new(s->a->ctx, &s->a->o, raw_send, s, &s->tasks)))
		return rc;
	return agent_tasks_frame(s->tasks, f->h.type, f->payload, f->h.length, s->peer);
}

static int reply(struct session *s, const struct ag_msg *m, uint8_t *buf)
{
	size_t len;
	int rc = ag_encode(m, buf, AG_MAX_PAYLOAD, &len);

	return rc ? rc : send_reply(s, m->type, buf, len);
}

static int reply_error(struct session *s, uint32_t id, uint32_t status, const char *text)
{
	struct ag_msg *m = s->msg;

	ag_msg_clear(m);
	m->type = AG_ERROR;
	m->id = id;
	m->status = status;
	snprintf(m->text, sizeof(m->text), "%s", text);
	return reply(s, m, s->out);
}

struct wsend {
	struct session *s;
	uint8_t *buf;
};

static int worker_send(void *arg, const struct ag_msg *m)
{
	struct wsend *ws = arg;

	return reply(ws->s, m, ws->buf);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct ag_msg *m = malloc(sizeof(*m));
	struct wsend ws = { .s = w->s, .buf = malloc(AG_MAX_PAYLOAD) };

	if (m && ws.buf) {
		if (w->req.type == AG_RUN)
			agent_run_probe(w->s->a->ctx, &w->req, m, worker_send, &ws);
		else
			agent_serve_probe(w->s->a->ctx, &w->req, &w->s->a->o, m, worker_send, &ws,
					  &w->s->abort);
	}
	free(m);
	free(ws.buf);
	atomic_store(&w->done, true);
	return NULL;
}

static void reap(struct session *s, bool all)
{
	for (unsigned int i = 0; i < s->n_w; i++) {
		struct worker *w = &s->w[i];

		if (w->used && (all || atomic_load(&w->done))) {
			pthread_join(w->t, NULL);
			w->used = false;
		}
	}
}

static unsigned int running(const struct session *s)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < s->n_w; i++)
		n += s->w[i].used;
	return n;
}

static int start_worker(struct session *s, const struct ag_msg *req)
{
	char why[200];
	int rc = agent_check_probe(req, &s->a->o, why, sizeof(why));

	if (rc)
		return reply_error(s, req->id, AG_ERR_LIMIT, why);
	reap(s, false);
	for (unsigned int i = 0; i < s->n_w; i++) {
		struct worker *w = &s->w[i];

		if (w->used)
			continue;
		w->req = *req;
		w->s = s;
		atomic_store(&w->done, false);
		if (pthread_create(&w->t, NULL, worker_main, w))
			return reply_error(s, req->id, RCK_PROBE_SYSTEM, "cannot start a thread");
		w->used = true;
		return 0;
	}
	snprintf(why, sizeof(why), "%u probes already run in this session, the limit", s->n_w);
	return reply_error(s, req->id, AG_ERR_LIMIT, why);
}

/* AG_LLDP_GET: the session waits for the capture it asks (bounded). */
static int handle_lldp(struct session *s, const struct wire_frame *f)
{
	uint32_t id, ms;
	size_t len;

	if (ag_lldp_get_decode(f->payload, f->h.length, &id, &ms)) {
		rck_warn(s->a->ctx, "agent: %s: malformed LLDP request, closing", s->peer);
		return -EBADMSG;
	}
	if (agent_lldp(s->a->ctx, &s->a->o, id, ms, s->out, AG_MAX_PAYLOAD, &len))
		return reply_error(s, id, RCK_PROBE_SYSTEM, "cannot encode the LLDP neighbours") ? -EPIPE : 0;
	return send_reply(s, AG_LLDP, s->out, len) ? -EPIPE : 0;
}

/* One whole request. Returns 0 to go on, 1 after CLOSE, -EBADMSG (logged). */
static int handle(struct session *s, const struct wire_frame *f)
{
	struct ag_msg *m = s->msg;
	struct ag_msg *req;
	int rc;

	if (f->h.type >= AG_PLAN && f->h.type <= AG_TASK_TYPE_MAX)
		return handle_tasks(s, f);
	if (f->h.type == AG_LLDP_GET)
		return handle_lldp(s, f);
	rc = ag_decode(f->h.type, f->payload, f->h.length, m);

	if (rc || f->h.type == AG_ERROR || f->h.type == AG_HOST || f->h.type == AG_COUNTERS ||
	    f->h.type == AG_SERVING || f->h.type == AG_SERVED || f->h.type == AG_RESULT ||
	    f->h.type == AG_DCB || f->h.type == AG_PCIE) {
		rck_warn(s->a->ctx, "agent: %s: %s %s request (type %u), closing", s->peer,
			 rc ? "malformed" : "unexpected", ag_type_name(f->h.type), f->h.type);
		return -EBADMSG;
	}
	switch (f->h.type) {
	case AG_CLOSE:
		return 1;
	case AG_DESCRIBE: {
		uint32_t id = m->id;

		rc = agent_describe(s->a->ctx, m);
		m->id = id;
		if (rc) {
			char why[120];

			snprintf(why, sizeof(why), "cannot read the inventory: %s", strerror(-rc));
			return reply_error(s, id, RCK_PROBE_SYSTEM, why) ? -EPIPE : 0;
		}
		return reply(s, m, s->out) ? -EPIPE : 0;
	}
	case AG_DCB_GET: {
		size_t len;

		rc = agent_dcb(s->a->ctx, &s->a->o, m->id, s->out, AG_MAX_PAYLOAD, &len);
		if (rc)
			return reply_error(s, m->id, RCK_PROBE_SYSTEM, "cannot encode the DCB state") ? -EPIPE : 0;
		return send_reply(s, AG_DCB, s->out, len) ? -EPIPE : 0;
	}
	case AG_PCIE_GET: {
		size_t len;

		rc = agent_pcie(s->a->ctx, m->id, s->out, AG_MAX_PAYLOAD, &len);
		if (rc)
			return reply_error(s, m->id, RCK_PROBE_SYSTEM, "cannot encode the PCIe paths") ? -EPIPE : 0;
		return send_reply(s, AG_PCIE, s->out, len) ? -EPIPE : 0;
	}
	case AG_SNAPSHOT:
		req = malloc(sizeof(*req));
		if (!req)
			return -ENOMEM;
		*req = *m;
		agent_snapshot(s->a->ctx, req, m);
		free(req);
		return reply(s, m, s->out) ? -EPIPE : 0;
	default: /* SERVE, RUN */
		req = malloc(sizeof(*req));
		if (!req)
			return -ENOMEM;
		*req = *m;
		rc = start_worker(s, req);
		free(req);
		return rc ? -EPIPE : 0;
	}
}

/* Answer a connection that came while a session runs, and close it. */
static void refuse_busy(struct session *s)
{
	int fd = accept4(s->a->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

	if (fd < 0)
		return;
	agent_door_busy(fd);
	close(fd);
}

/* The session's first request, when the door read it whole (no key). */
static int first_request(struct session *s, struct wire_frame *f)
{
	int rc;

	if (!f->got || wire_frame_want(f))
		return 0;
	rc = handle(s, f);
	wire_frame_next(f);
	return rc;
}

static void session_loop(struct session *s, struct wire_frame *fp)
{
	const struct rck_agent_opts *o = &s->a->o;
	uint64_t last = wire_now_ns(), begun = 0;
	struct wire_frame f = *fp;
	char why[200];

	bool done;

	s->sec = f.sec;
	done = first_request(s, &f) != 0;
	while (!done && !s->a->stop) {
		struct pollfd p[2] = { { .fd = s->fd, .events = POLLIN },
				       { .fd = s->a->lfd, .events = POLLIN } };
		uint64_t now;
		int rc, eof;

		reap(s, false);
		if (poll(p, 2, SLICE_MS) < 0 && errno != EINTR)
			break;
		now = wire_now_ns();
		/* The session's own frames first: after its CLOSE, a connection
		 * waiting in the same round is the next session, not refused. */
		if (p[0].revents) {
			rc = wire_frame_recv(&f, s->fd, &eof);
			if (rc == 1) {
				rc = handle(s, &f);
				wire_frame_next(&f);
				begun = 0;
				last = now;
				if (rc)
					break;
			} else if (rc < 0) {
				if (!eof)
					rck_warn(s->a->ctx, "agent: %s: %s, closing", s->peer,
						 rc == -ECONNRESET ? "connection closed inside a request"
						 : rc == -EPROTO || rc == -EPROTONOSUPPORT || rc == -EMSGSIZE ||
								   rc == WIRE_EINTEGRITY
							 ? wire_hdr_strerror(&ag_proto, &f.h, rc, why, sizeof(why))
							 : strerror(-rc));
				break;
			} else if (f.got && !begun) {
				begun = now;
			}
		}
		if (p[1].revents & POLLIN)
			refuse_busy(s);
		if (begun && now - begun > (uint64_t)(o->request_s * 1e9)) {
			rck_warn(s->a->ctx, "agent: %s: request not whole within %.1f s, closing", s->peer,
				 o->request_s);
			break;
		}
		if (s->tasks && agent_tasks_tick(s->tasks))
			break;
		if (running(s) || (s->tasks && agent_tasks_busy(s->tasks)))
			last = now;
		else if (now - last > (uint64_t)(o->idle_s * 1e9)) {
			rck_info(s->a->ctx, "agent: %s: idle for %.0f s, closing", s->peer, o->idle_s);
			break;
		}
	}
	/* Serves still waiting for their client end now; running probes
	 * within their deadlines, and they may still reply. */
	atomic_store(&s->abort, true);
	reap(s, true);
	agent_tasks_free(s->tasks);
	s->tasks = NULL;
	wire_frame_free(&f);
}

RCK_EXPORT int rck_agent_serve(struct rck_agent *a, int wait_ms)
{
	struct session s = { .a = a };
	struct wire_frame f;
	int rc;

	if (!a)
		return -EINVAL;
	rc = agent_door_wait(&a->door,
			     wait_ms < 0 ? UINT64_MAX : wire_now_ns() + (uint64_t)wait_ms * 1000000ull,
			     &a->stop, &s.fd, &f, s.peer, sizeof(s.peer));
	if (rc)
		return rc;
	/* Those still proving their key meet a running session: busy. */
	agent_door_busy_all(&a->door);
	s.n_w = a->o.max_probes;
	s.w = calloc(s.n_w, sizeof(*s.w));
	s.msg = malloc(sizeof(*s.msg));
	s.out = malloc(AG_MAX_PAYLOAD);
	if (!s.w || !s.msg || !s.out) {
		rc = -ENOMEM;
		wire_frame_free(&f);
	} else {
		pthread_mutex_init(&s.wlock, NULL);
		rck_info(a->ctx, "agent: session of %s", s.peer);
		session_loop(&s, &f);
		pthread_mutex_destroy(&s.wlock);
	}
	close(s.fd);
	free(s.w);
	free(s.msg);
	free(s.out);
	return rc;
}
