/* The sweep coordinator: every agent connection on one thread with poll(),
 * a handshake per host, then the scheduler's events turned into SERVE/RUN
 * requests and their replies into the sweep result. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

#include "agent_proto.h"
#include "agent_tasks_proto.h"
#include "coord.h"
#include "coord_sweep.h"
#include "resolve.h"
#include "retest.h"
#include "sched.h"

static double secs(uint64_t ns)
{
	return ns / 1e9;
}

/* Queue one frame for @h; it leaves on POLLOUT. */
int coord_queue(struct sweep *s, struct host *h, uint16_t type, const uint8_t *p, size_t len)
{
	/* After the handshake every frame is sealed (the reader holds the keys). */
	size_t need = h->out_len + (h->fr.sec ? wire_sealed_len(len) : WIRE_HDR_LEN + len);

	if (need > h->out_cap) {
		size_t cap = need * 2;
		uint8_t *n = realloc(h->out, cap);

		if (!n)
			return -ENOMEM;
		h->out = n;
		h->out_cap = cap;
	}
	if (wire_seal(h->fr.sec, &ag_proto, type, p, len, h->out + h->out_len))
		return -EMSGSIZE;
	h->out_len = need;
	if (!h->dirty) {
		h->dirty = true;
		s->dirty[s->n_dirty++] = (uint32_t)(h - s->h);
	}
	return 0;
}

static int send_msg(struct sweep *s, struct host *h, const struct ag_msg *m)
{
	size_t len;
	int rc = ag_encode(m, s->buf, AG_MAX_PAYLOAD, &len);

	return rc ? rc : coord_queue(s, h, m->type, s->buf, len);
}

static int flush(struct host *h)
{
	while (h->out_off < h->out_len) {
		ssize_t n = send(h->fd, h->out + h->out_off, h->out_len - h->out_off,
				 MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -errno;
		h->out_off += (size_t)n;
	}
	h->out_off = h->out_len = 0;
	return 0;
}

static void progress(struct sweep *s)
{
	struct rck_mesh_progress p = { .size = sizeof(p) };

	if (!s->c->progress)
		return;
	p.done = s->done;
	p.total = s->total;
	p.hosts_down = s->down;
	p.elapsed_s = secs(wire_now_ns() - s->t0);
	p.eta_s = s->done ? p.elapsed_s / s->done * (s->total - s->done) : NAN;
	s->c->progress(s->c->progress_data, &p);
}

/* Keep a copy of the source's answer until the destination's comes in. */
static int stash(struct sweep *s, struct rtask *r, const struct ag_msg *m)
{
	if (!r->res)
		r->res = s->n_pool ? s->pool[--s->n_pool] : malloc(sizeof(*r->res));
	if (!r->res)
		return -ENOMEM;
	ag_msg_copy(r->res, m);
	return 0;
}

/* The pool holds at most one message per task ever stashed: it has room. */
static void unstash(struct sweep *s, struct rtask *r)
{
	if (r->res)
		s->pool[s->n_pool++] = r->res;
	r->res = NULL;
}

static int set_running(struct sweep *s, uint32_t t, bool on)
{
	struct rtask *r = &s->rt[t];

	if (r->running == on)
		return 0;
	r->running = on;
	if (on) {
		r->run_pos = s->n_run;
		s->run_list[s->n_run++] = t;
	} else {
		uint32_t last = s->run_list[--s->n_run];

		s->run_list[r->run_pos] = last;
		s->rt[last].run_pos = r->run_pos;
		unstash(s, r);
	}
	return 0;
}

uint32_t coord_host_of(const struct sweep *s, uint32_t nic)
{
	return s->plan->nic_host[nic];
}

/* Record one test of task @t; counters from the source's RESULT. */
void coord_record(struct sweep *s, uint32_t t, enum rck_mesh_status st, const char *reason,
		   const struct ag_msg *res)
{
	struct rtask *r = &s->rt[t];
	const struct mesh_task *task = &s->plan->tasks[t];
	enum rck_mesh_test test = s->tests[r->test_i];
	struct rck_mesh_meas meas = { .size = sizeof(meas), .status = st, .reason = reason,
				      .gbps = NAN, .lat_p50_us = NAN, .lat_p99_us = NAN };
	unsigned int attempt = 0, cell;
	uint64_t now = wire_now_ns();

	meas.start_s = r->started ? secs(r->started - s->t0) : secs(now - s->t0);
	meas.seconds = r->started ? secs(now - r->started) : 0;
	if (res && st == RCK_MESH_OK) {
		if (test == RCK_MESH_TEST_BW)
			meas.gbps = res->gbps;
		else {
			meas.lat_p50_us = res->lat_p50_us;
			meas.lat_p99_us = res->lat_p99_us;
		}
	}
	/* A retest is the cell's next attempt. */
	if (r->retest && !rck_mesh_find_cell(s->m, test, task->src, task->dst, &cell))
		attempt = rck_mesh_cell_attempts(s->m, cell);
	if (rck_mesh_set_result(s->m, test, task->src, task->dst, attempt, &meas, &cell))
		return;
	for (int end = 0; res && end < 2; end++)
		for (uint32_t i = 0; i < res->n_ctr[end]; i++)
			if (res->ctr[end][i].id < RCK_CTR_COUNT && res->ctr[end][i].value)
				rck_mesh_set_counter(s->m, cell, attempt, (enum rck_mesh_end)end,
						     (enum rck_counter)res->ctr[end][i].id,
						     res->ctr[end][i].value);
	s->done++;
	progress(s);
}

bool coord_suspect(struct sweep *s, uint32_t t)
{
	const struct mesh_task *task = &s->plan->tasks[t];
	unsigned int cell;

	if (!s->c->suspect)
		return false;
	for (unsigned int i = 0; i < s->n_tests; i++)
		if (!rck_mesh_find_cell(s->m, s->tests[i], task->src, task->dst, &cell) &&
		    s->c->suspect(s->c->suspect_data, s->m, cell))
			return true;
	return false;
}

static void unit_of_task_done(struct sweep *s, uint32_t t);

/* The fields SERVE and RUN share: the task's test on NIC @nic of that end. */
static void probe_request(struct sweep *s, uint32_t t, uint16_t type, uint32_t nic, struct ag_msg *m)
{
	const struct rtask *r = &s->rt[t];
	struct rck_mesh_nic info = { .size = sizeof(info) };

	ag_msg_clear(m);
	m->type = type;
	m->id = t * 2 + r->retest;
	rck_mesh_get_nic(s->m, nic, &info, NULL);
	if (s->c->transport == RCK_PROBE_TRANSPORT_RDMA) {
		snprintf(m->device, sizeof(m->device), "%s", info.device);
		m->ib_port = info.port;
	}
	m->test = s->tests[r->test_i] == RCK_MESH_TEST_BW ? RCK_PROBE_TEST_BW : RCK_PROBE_TEST_LAT;
	m->transport = s->c->transport;
	m->size = s->c->size;
	m->iters = s->c->iters;
	m->duration_ms = (uint32_t)(s->c->duration_s * 1000);
	m->timeout_ms = s->timeout_ms;
}

static int start_test(struct sweep *s, uint32_t t)
{
	struct rtask *r = &s->rt[t];
	const struct mesh_task *task = &s->plan->tasks[t];
	struct host *dst = &s->h[coord_host_of(s, task->dst)];
	struct ag_msg *m = s->msg;

	r->got_serving = r->got_result = r->got_served = false;
	unstash(s, r);
	r->started = wire_now_ns();
	r->deadline = r->started + (uint64_t)s->timeout_ms * 1000000ull;
	probe_request(s, t, AG_SERVE, task->dst, m);
	return send_msg(s, dst, m);
}

/* The task's current test has both ends' answers (or a dead end); @res is
 * the source's RESULT when it is OK. */
static void test_done(struct sweep *s, uint32_t t, enum rck_mesh_status st, const char *reason,
		      const struct ag_msg *res)
{
	struct rtask *r = &s->rt[t];

	coord_record(s, t, st, reason, st == RCK_MESH_OK ? res : NULL);
	if (st == RCK_MESH_UNREACHABLE || st == RCK_MESH_SKIPPED) {
		/* The remaining tests cannot run either. */
		while (++r->test_i < s->n_tests)
			coord_record(s, t, st, reason, NULL);
	} else if (++r->test_i < s->n_tests && !start_test(s, t)) {
		return;
	}
	set_running(s, t, false);
	unit_of_task_done(s, t);
}

static void unit_of_task_done(struct sweep *s, uint32_t t)
{
	uint32_t u = s->task_unit[t];
	const struct mesh_unit *un = &s->plan->units[u];
	bool sus = false;

	if (s->in_rounds) {
		s->round_left--;
		return;
	}
	if (--s->unit_left[u])
		return;
	for (uint32_t i = 0; i < un->n_tasks && !s->rt[un->first_task].retest; i++)
		sus |= coord_suspect(s, un->first_task + i);
	mesh_sched_done(s->sched, u, sus);
}

void coord_host_dead(struct sweep *s, struct host *h, const char *fmt, ...)
{
	char reason[AG_TEXT_MAX + 64];
	uint32_t hi = (uint32_t)(h - s->h);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	if (h->st == H_DEAD)
		return;
	rck_warn(s->ctx, "mesh: %s: %s", h->cfg->name, reason);
	s->settled += h->st != H_READY;
	h->st = H_DEAD;
	if (h->fd >= 0)
		close(h->fd);
	h->fd = -1;
	s->down++;
	rck_mesh_host_set_unreachable(s->m, hi, reason);
	if (s->dg)
		delegate_host_dead(s, hi, reason);
	if (!s->sched)
		return;
	mesh_sched_host_dead(s->sched, hi);
	/* Backwards: a task leaving the list swaps in one already seen. */
	for (uint32_t i = s->n_run; i-- > 0;) {
		uint32_t t;
		const struct mesh_task *task;

		if (i >= s->n_run)
			continue;
		t = s->run_list[i];
		task = &s->plan->tasks[t];
		if (coord_host_of(s, task->src) == hi || coord_host_of(s, task->dst) == hi)
			test_done(s, t, RCK_MESH_UNREACHABLE, reason, NULL);
	}
}

static void start_unit(struct sweep *s, uint32_t u, bool retest)
{
	const struct mesh_unit *un = &s->plan->units[u];

	s->unit_left[u] = un->n_tasks;
	for (uint32_t i = 0; i < un->n_tasks; i++) {
		struct rtask *r = &s->rt[un->first_task + i];

		r->retest = retest;
		r->test_i = 0;
		if (set_running(s, un->first_task + i, true) || start_test(s, un->first_task + i)) {
			set_running(s, un->first_task + i, false);
			coord_record(s, un->first_task + i, RCK_MESH_FAILED, "out of memory", NULL);
			unit_of_task_done(s, un->first_task + i);
		}
	}
}

static void unit_unreachable(struct sweep *s, uint32_t u)
{
	const struct mesh_unit *un = &s->plan->units[u];

	for (uint32_t i = 0; i < un->n_tasks; i++) {
		uint32_t t = un->first_task + i;
		const struct mesh_task *task = &s->plan->tasks[t];
		const char *why = rck_mesh_host_unreachable(s->m, coord_host_of(s, task->src));

		if (!why)
			why = rck_mesh_host_unreachable(s->m, coord_host_of(s, task->dst));
		for (s->rt[t].test_i = 0; s->rt[t].test_i < s->n_tests; s->rt[t].test_i++)
			coord_record(s, t, RCK_MESH_UNREACHABLE, why ? why : "host unreachable", NULL);
	}
}

/* Both ends answered the current test of task @t; @res is the source's. */
static void both_answered(struct sweep *s, uint32_t t, const struct ag_msg *res)
{
	if (res->type == AG_ERROR)
		test_done(s, t, RCK_MESH_FAILED, res->text, NULL);
	else if (res->status != RCK_PROBE_OK)
		test_done(s, t, RCK_MESH_FAILED, res->text[0] ? res->text : "probe failed", NULL);
	else
		test_done(s, t, RCK_MESH_OK, NULL, res);
}

static void send_run(struct sweep *s, uint32_t t, uint32_t probe_port)
{
	struct rtask *r = &s->rt[t];
	const struct mesh_task *task = &s->plan->tasks[t];
	struct host *src = &s->h[coord_host_of(s, task->src)], *dst = &s->h[coord_host_of(s, task->dst)];
	struct ag_msg *m = s->msg;
	const char *addr = dst->nic_addr[task->dst - dst->first_nic];

	probe_request(s, t, AG_RUN, task->src, m);
	/* RDMA: the peer NIC's own address, so the probe takes that rail. */
	snprintf(m->peer, sizeof(m->peer), "%s",
		 s->c->transport == RCK_PROBE_TRANSPORT_RDMA && addr[0] ? addr : dst->cfg->addr);
	m->probe_port = probe_port;
	r->deadline = wire_now_ns() + (uint64_t)(s->c->duration_s * 1e9) +
		      3ull * s->timeout_ms * 1000000ull;
	if (send_msg(s, src, m))
		coord_host_dead(s, src, "%s", "out of memory");
}

static int add_nics(struct sweep *s, struct host *h, const struct ag_msg *m)
{
	uint32_t hi = (uint32_t)(h - s->h);
	unsigned int n = s->c->transport == RCK_PROBE_TRANSPORT_TCP ? 1 : m->n_nics;

	h->first_nic = rck_mesh_nic_count(s->m);
	h->nic_addr = calloc(n ? n : 1, sizeof(*h->nic_addr));
	if (!h->nic_addr)
		return -ENOMEM;
	for (unsigned int i = 0; i < n; i++) {
		const struct ag_nic *a = &m->nics[i];
		struct rck_mesh_nic nic = { .size = sizeof(nic), .rail = -1, .gid_index = -1 };
		int rc;

		if (s->c->transport == RCK_PROBE_TRANSPORT_TCP) {
			nic.device = "tcp";
			nic.port = 1;
		} else {
			nic.device = a->device;
			nic.port = a->port;
			nic.netdev = a->netdev[0] ? a->netdev : NULL;
			nic.state = a->state[0] ? a->state : NULL;
			nic.fw_ver = a->fw_ver[0] ? a->fw_ver : NULL;
			nic.rate_gbps = a->rate_gbps;
			nic.active_mtu = a->active_mtu;
			nic.netdev_mtu = a->netdev_mtu;
			nic.gid_index = a->gid_index;
			nic.counters = a->counters;
			snprintf(h->nic_addr[i], sizeof(h->nic_addr[i]), "%s", a->addr);
		}
		rc = rck_mesh_add_nic(s->m, hi, &nic, NULL);
		if (rc)
			return rc;
		h->n_nics++;
	}
	return 0;
}

/* The handshake and the describe step, one frame at a time. */
static void handshake_frame(struct sweep *s, struct host *h, const struct wire_frame *f)
{
	uint8_t out[128];
	size_t len;
	int rc;

	if (f->h.type == AG_ERROR && h->st != H_DCB) {
		rc = ag_decode(f->h.type, f->payload, f->h.length, s->msg);
		coord_host_dead(s, h, "agent refused: %s", rc ? "malformed error" : s->msg->text);
		return;
	}
	switch (h->st) {
	case H_CHALLENGE:
		if (f->h.type != WIRE_T_CHALLENGE ||
		    wire_auth_answer(&ag_proto, h->key, h->key_len, f->payload, f->h.length, h->sn,
				     h->cn, out, sizeof(out), &len)) {
			coord_host_dead(s, h, "%s", "agent sent no authentication challenge");
			return;
		}
		coord_queue(s, h, WIRE_T_AUTH, out, len);
		h->st = H_AUTH_OK;
		return;
	case H_AUTH_OK:
		if (f->h.type == WIRE_T_AUTH_FAIL) {
			coord_host_dead(s, h, "%s", "agent refused our key");
			return;
		}
		if (f->h.type != WIRE_T_AUTH_OK ||
		    wire_auth_verify_ok(&ag_proto, h->key, h->key_len, h->sn, h->cn, f->payload,
					f->h.length)) {
			coord_host_dead(s, h, "%s", "agent failed to prove the key");
			return;
		}
		if (wire_frame_secure_client(&h->fr, &ag_proto, h->key, h->key_len, h->sn, h->cn)) {
			coord_host_dead(s, h, "%s", "no session keys (out of memory)");
			return;
		}
		break;
	case H_DESCRIBE:
		if (f->h.type == WIRE_T_CHALLENGE) {
			coord_host_dead(s, h, "%s", "agent wants a key (give --key-file)");
			return;
		}
		if (f->h.type != AG_HOST || ag_decode(f->h.type, f->payload, f->h.length, s->msg)) {
			coord_host_dead(s, h, "%s", "malformed host description");
			return;
		}
		if (add_nics(s, h, s->msg)) {
			coord_host_dead(s, h, "%s", "its NICs do not fit the result");
			return;
		}
		h->st = H_READY;
		if (!s->c->dcb) {
			s->settled++;
			return;
		}
		memset(s->msg, 0, sizeof(*s->msg));
		s->msg->type = AG_DCB_GET;
		send_msg(s, h, s->msg);
		h->st = H_DCB;
		return;
	case H_DCB: /* an agent's refusal is noted, not fatal */
		rc = f->h.type == AG_DCB ? coord_dcb_reply(s->m, (unsigned int)(h - s->h), f->payload, f->h.length)
		     : f->h.type == AG_ERROR && !ag_decode(f->h.type, f->payload, f->h.length, s->msg)
			 ? rck_mesh_host_set_dcb(s->m, (unsigned int)(h - s->h), NULL, 0, s->msg->text)
			 : -EBADMSG;
		if (rc) {
			coord_host_dead(s, h, "%s", "malformed DCB state");
			return;
		}
		h->st = H_READY;
		s->settled++;
		return;
	default:
		return;
	}
	ag_msg_clear(s->msg);
	s->msg->type = AG_DESCRIBE;
	send_msg(s, h, s->msg);
	h->st = H_DESCRIBE;
}

/* A reply during the sweep. */
static void sweep_frame(struct sweep *s, struct host *h, const struct wire_frame *f)
{
	struct ag_msg *m = s->msg;
	uint32_t hi = (uint32_t)(h - s->h), t;
	struct rtask *r;
	bool from_src, from_dst;

	/* A batch of the agents' pass after it ended: its last, or reports
	 * of tasks already given up. */
	if (f->h.type == AG_TRES)
		return;
	if (ag_decode(f->h.type, f->payload, f->h.length, m) ||
	    (m->type != AG_SERVING && m->type != AG_SERVED && m->type != AG_RESULT &&
	     m->type != AG_ERROR)) {
		coord_host_dead(s, h, "sent a malformed or unexpected %s", ag_type_name(f->h.type));
		return;
	}
	t = m->id / 2;
	if (t >= s->plan->n_tasks)
		return;
	r = &s->rt[t];
	/* A late answer of a task already given up, or of its first attempt. */
	if (!r->running || (m->id & 1) != r->retest)
		return;
	from_src = coord_host_of(s, s->plan->tasks[t].src) == hi;
	from_dst = coord_host_of(s, s->plan->tasks[t].dst) == hi;
	if (m->type == AG_SERVING && from_dst && !r->got_serving) {
		r->got_serving = true;
		send_run(s, t, m->probe_port);
		return;
	}
	if ((m->type == AG_SERVED || m->type == AG_ERROR) && from_dst && !r->got_served) {
		r->got_served = true;
		if (!r->got_serving && !r->got_result) {
			/* No listener: the source was never asked. */
			r->got_result = true;
			m->type = AG_ERROR;
			both_answered(s, t, m);
		} else if (r->got_result) {
			both_answered(s, t, r->res);
		}
	} else if ((m->type == AG_RESULT || m->type == AG_ERROR) && from_src && !r->got_result) {
		r->got_result = true;
		if (r->got_served)
			both_answered(s, t, m);
		else if (stash(s, r, m))
			coord_host_dead(s, h, "%s", "out of memory");
	}
}

static int connect_host(struct host *h, const struct mesh_addr *a)
{
	int one = 1;

	h->fd = socket(a->sa.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (h->fd < 0)
		return -errno;
	setsockopt(h->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return connect(h->fd, (const struct sockaddr *)&a->sa, a->len) && errno != EINPROGRESS ? -errno : 0;
}

/* Register what @h waits for: always input, output while some is queued. */
static void arm(struct sweep *s, struct host *h)
{
	uint32_t want = EPOLLIN | (h->out_len || h->st == H_CONNECTING ? EPOLLOUT : 0);
	struct epoll_event ev = { .events = want, .data.u32 = (uint32_t)(h - s->h) };

	if (h->st == H_DEAD || h->armed == want)
		return;
	epoll_ctl(s->ep, h->armed ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, h->fd, &ev);
	h->armed = want;
}

/* Send what was queued in this round, right away where the socket takes it. */
static void flush_dirty(struct sweep *s)
{
	for (size_t i = 0; i < s->n_dirty; i++) {
		struct host *h = &s->h[s->dirty[i]];
		int rc;

		h->dirty = false;
		if (h->st == H_DEAD || h->st == H_CONNECTING)
			continue;
		if ((rc = flush(h)))
			coord_host_dead(s, h, "connection lost: %s", strerror(-rc));
		else
			arm(s, h);
	}
	s->n_dirty = 0;
}

static void host_event(struct sweep *s, struct host *h, uint32_t ev)
{
	int rc, err = 0;
	socklen_t len = sizeof(err);

	if (h->st == H_DEAD)
		return;
	if (h->st == H_CONNECTING) {
		getsockopt(h->fd, SOL_SOCKET, SO_ERROR, &err, &len);
		if (err) {
			coord_host_dead(s, h, "cannot connect to its agent: %s", strerror(err));
			return;
		}
		h->st = h->key_len ? H_CHALLENGE : H_AUTH_OK;
		if (!h->key_len) {
			ag_msg_clear(s->msg);
			s->msg->type = AG_DESCRIBE;
			send_msg(s, h, s->msg);
			h->st = H_DESCRIBE;
		}
		arm(s, h);
	}
	if ((ev & EPOLLOUT) && (rc = flush(h))) {
		coord_host_dead(s, h, "connection lost: %s", strerror(-rc));
		return;
	}
	if (ev & EPOLLOUT)
		arm(s, h);
	if (!(ev & (EPOLLIN | EPOLLHUP | EPOLLERR)))
		return;
	/* Whatever the socket holds, in one recv(): nothing but this protocol
	 * follows on an agent connection, so frames may be read ahead. */
	for (int k = 0; k < 16 && h->st != H_DEAD; k++) {
		ssize_t n = recv(h->fd, s->in, INBUF, MSG_DONTWAIT);
		size_t off = 0;

		if (n == 0) {
			const char *why = delegate_close_reason(s, h);

			coord_host_dead(s, h, "agent connection lost: %s", why ? why : "closed by the agent");
			return;
		}
		if (n < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
				coord_host_dead(s, h, "agent connection lost: %s", strerror(errno));
			return;
		}
		while (off < (size_t)n && h->st != H_DEAD) {
			size_t used;

			rc = wire_frame_put(&h->fr, s->in + off, (size_t)n - off, &used);
			off += used;
			if (rc < 0) {
				char why[200];

				coord_host_dead(s, h, "agent connection lost: %s",
					  rc == -ENOMEM ? "out of memory"
						       : wire_hdr_strerror(&ag_proto, &h->fr.h, rc, why, sizeof(why)));
				return;
			}
			if (rc == 0)
				break;
			if (h->st == H_READY && s->dg)
				delegate_frame(s, h, &h->fr);
			else if (h->st == H_READY)
				sweep_frame(s, h, &h->fr);
			else
				handshake_frame(s, h, &h->fr);
			wire_frame_next(&h->fr);
		}
		if ((size_t)n < INBUF)
			return;
	}
}

/* One epoll round: every connection with something to say, then what that
 * queued for any host leaves. */
void coord_poll_round(struct sweep *s, int wait_ms)
{
	struct epoll_event ev[256];
	int n;

	flush_dirty(s);
	n = epoll_wait(s->ep, ev, 256, wait_ms);
	for (int i = 0; i < n; i++)
		host_event(s, &s->h[ev[i].data.u32], ev[i].events);
	flush_dirty(s);
}

bool coord_stopping(struct sweep *s, uint64_t deadline)
{
	return atomic_load(&s->c->cancel) || wire_now_ns() >= deadline;
}

/* A host's name has an answer: dial it (or record why not). */
static void host_resolved(void *arg, size_t i, const struct mesh_addr *a)
{
	struct sweep *s = arg;
	struct host *h = &s->h[i];
	int rc;

	if (a->err) {
		coord_host_dead(s, h, a->err == -ECANCELED ? "%s" : "cannot connect to its agent: %s", a->why);
		return;
	}
	rc = connect_host(h, a);
	if (rc)
		coord_host_dead(s, h, "cannot connect to its agent: %s", strerror(-rc));
	else
		arm(s, h);
}

static void poll_now(void *arg)
{
	coord_poll_round(arg, 0);
}

/* Connect, authenticate and describe every host within the timeout. */
static void meet_hosts(struct sweep *s, uint64_t deadline)
{
	uint64_t until = wire_now_ns() + (uint64_t)s->timeout_ms * 1000000ull;
	struct mesh_resolve_cb cb = {.ready = host_resolved, .extra_fd = s->ep, .extra = poll_now, .arg = s};
	struct mesh_addr *a = NULL;
	int rc;

	if (until > deadline)
		until = deadline;
	/* All names at once within the timeout (mesh/resolve.c), each host
	 * dialled as soon as its name resolves; a host whose launcher failed
	 * is neither resolved nor dialled. */
	for (size_t i = 0; i < s->n_h; i++)
		if (s->h[i].cfg->down)
			coord_host_dead(s, &s->h[i], "%s", s->h[i].cfg->down);
	rc = mesh_resolve_hosts(s->c->hosts, s->n_h, until, &s->c->cancel, &cb, &a);
	for (size_t i = 0; rc && i < s->n_h; i++)
		coord_host_dead(s, &s->h[i], "cannot resolve its name: %s", strerror(-rc));
	free(a);
	while (s->settled < s->n_h && !coord_stopping(s, until))
		coord_poll_round(s, SLICE_MS);
	for (size_t i = 0; i < s->n_h; i++)
		if (s->h[i].st != H_READY)
			coord_host_dead(s, &s->h[i], "%s", atomic_load(&s->c->cancel) ? "cancelled"
								: "its agent did not answer in time");
	/* With TCP every host has its one pseudo NIC, so the pairs of a host
	 * that never answered are in the result, unreachable. */
	for (size_t i = 0; i < s->n_h; i++) {
		struct host *h = &s->h[i];

		if (s->c->transport == RCK_PROBE_TRANSPORT_TCP && h->st == H_DEAD && !h->nic_addr) {
			ag_msg_clear(s->msg);
			add_nics(s, h, s->msg);
		}
	}
}

static void check_deadlines(struct sweep *s)
{
	uint64_t now = wire_now_ns();

	/* Deadlines are seconds apart: a look every poll slice is enough. */
	if (now < s->next_check)
		return;
	s->next_check = now + SLICE_MS * 1000000ull;
	for (uint32_t i = s->n_run; i-- > 0;) {
		uint32_t t;
		struct rtask *r;
		const struct mesh_task *task;

		if (i >= s->n_run)
			continue;
		t = s->run_list[i];
		r = &s->rt[t];
		task = &s->plan->tasks[t];
		if (now < r->deadline)
			continue;
		/* The end that owes an answer is the one that hangs. */
		if (!r->got_serving && !r->got_served)
			coord_host_dead(s, &s->h[coord_host_of(s, task->dst)], "%s", "its agent stopped answering");
		else if (!r->got_result)
			coord_host_dead(s, &s->h[coord_host_of(s, task->src)], "%s", "its agent stopped answering");
		else
			coord_host_dead(s, &s->h[coord_host_of(s, task->dst)], "%s", "its agent stopped answering");
	}
}

void coord_skip_rest(struct sweep *s, const char *why)
{
	for (uint32_t t = 0; t < s->plan->n_tasks; t++) {
		const struct mesh_task *task = &s->plan->tasks[t];
		unsigned int cell;

		for (unsigned int i = 0; i < s->n_tests; i++)
			if (rck_mesh_find_cell(s->m, s->tests[i], task->src, task->dst, &cell)) {
				s->rt[t].test_i = (uint8_t)i;
				s->rt[t].started = 0;
				s->rt[t].retest = false;
				coord_record(s, t, RCK_MESH_SKIPPED, why, NULL);
			}
	}
}

static void run_plan(struct sweep *s, uint64_t deadline)
{
	struct mesh_event ev[64];

	for (size_t i = 0; i < s->n_h; i++)
		if (s->h[i].st == H_DEAD)
			mesh_sched_host_dead(s->sched, (uint32_t)i);
	while (!mesh_sched_finished(s->sched)) {
		size_t n = mesh_sched_next(s->sched, ev, 64);

		for (size_t i = 0; i < n; i++) {
			if (ev[i].kind == MESH_EV_UNREACHABLE)
				unit_unreachable(s, ev[i].unit);
			else
				start_unit(s, ev[i].unit, ev[i].kind == MESH_EV_RETEST);
		}
		if (n)
			continue;
		if (coord_stopping(s, deadline)) {
			coord_skip_rest(s, atomic_load(&s->c->cancel) ? "cancelled" : "sweep deadline passed");
			return;
		}
		coord_poll_round(s, SLICE_MS);
		check_deadlines(s);
	}
}

/* Start task @t alone as a retest (retest.c packed it into a round). */
static void start_retest_task(struct sweep *s, uint32_t t)
{
	const struct mesh_task *task = &s->plan->tasks[t];

	if (s->h[coord_host_of(s, task->src)].st != H_READY || s->h[coord_host_of(s, task->dst)].st != H_READY)
		return;
	s->rt[t].retest = true;
	s->rt[t].test_i = 0;
	s->round_left++;
	if (set_running(s, t, true) || start_test(s, t)) {
		set_running(s, t, false);
		s->round_left--;
	}
}

void coord_run_rounds(struct sweep *s, const uint32_t *tasks, long nt, uint32_t *round,
		      uint64_t deadline)
{
	long nr = nt > 0 ? mesh_retest_rounds(s->plan, tasks, (size_t)nt, round) : 0;

	s->in_rounds = true;
	s->total += nr > 0 ? (unsigned int)nt * s->n_tests : 0;
	for (long r = 0; r < nr && !coord_stopping(s, deadline); r++) {
		for (long i = 0; i < nt; i++)
			if (round[i] == (uint32_t)r)
				start_retest_task(s, tasks[i]);
		while (s->round_left && !coord_stopping(s, deadline)) {
			coord_poll_round(s, SLICE_MS);
			check_deadlines(s);
		}
	}
}

/* The retest hook's cells, pass after pass, each pass in rounds of
 * disjoint NIC pairs (retest.c); a round ends when its probes have. */
static void run_retest_passes(struct sweep *s, uint64_t deadline)
{
	unsigned int max = rck_mesh_cell_count(s->m), *cells = calloc(max + 1, sizeof(*cells));
	uint32_t *tasks = calloc(max + 1, sizeof(*tasks)), *round = calloc(max + 1, sizeof(*round));

	for (unsigned int pass = 0; cells && tasks && round && s->c->retest && pass < s->c->retest_passes;
	     pass++) {
		unsigned int n = s->c->retest(s->c->retest_data, s->m, cells, max);
		long nt = mesh_retest_tasks(s->plan, s->m, cells, n < max ? n : max, tasks);

		if (nt <= 0 || coord_stopping(s, deadline))
			break;
		coord_run_rounds(s, tasks, nt, round, deadline);
	}
	free(cells);
	free(tasks);
	free(round);
}

static void say_goodbye(struct sweep *s)
{
	uint64_t until = wire_now_ns() + CLOSE_NS;

	for (size_t i = 0; i < s->n_h; i++) {
		struct host *h = &s->h[i];

		if (h->st == H_READY) {
			ag_msg_clear(s->msg);
			s->msg->type = AG_CLOSE;
			send_msg(s, h, s->msg);
		}
	}
	for (size_t i = 0; i < s->n_h; i++) {
		struct host *h = &s->h[i];

		while (h->st != H_DEAD && h->out_len && wire_now_ns() < until) {
			struct pollfd p = { .fd = h->fd, .events = POLLOUT };

			if (flush(h) || poll(&p, 1, 20) < 0)
				break;
		}
	}
}

static int setup(struct sweep *s)
{
	s->h = calloc(s->n_h, sizeof(*s->h));
	s->dirty = calloc(s->n_h, sizeof(*s->dirty));
	s->in = malloc(INBUF);
	s->ep = epoll_create1(EPOLL_CLOEXEC);
	s->msg = malloc(sizeof(*s->msg));
	s->buf = malloc(AG_MAX_PAYLOAD);
	if (s->ep < 0)
		return -errno;
	if (!s->h || !s->dirty || !s->msg || !s->buf || !s->in)
		return -ENOMEM;
	for (unsigned int i = 0; i < RCK_MESH_TEST_COUNT; i++)
		if (s->c->tests & (1u << i))
			s->tests[s->n_tests++] = (enum rck_mesh_test)i;
	for (size_t i = 0; i < s->n_h; i++) {
		struct host *h = &s->h[i];
		int rc;

		h->cfg = &s->c->hosts[i];
		h->key = h->cfg->token ? h->cfg->token : s->c->key;
		h->key_len = h->cfg->token ? h->cfg->token_len : s->c->key_len;
		h->fd = -1;
		wire_frame_init(&h->fr, &ag_proto);
		rc = rck_mesh_add_host(s->m, h->cfg->name, NULL);
		if (rc)
			return rc;
	}
	return 0;
}

static void teardown(struct sweep *s)
{
	for (size_t i = 0; s->h && i < s->n_h; i++) {
		struct host *h = &s->h[i];

		if (h->fd >= 0)
			close(h->fd);
		wire_frame_free(&h->fr);
		free(h->out);
		free(h->nic_addr);
	}
	for (size_t t = 0; s->rt && t < s->plan->n_tasks; t++)
		free(s->rt[t].res);
	for (size_t i = 0; i < s->n_pool; i++)
		free(s->pool[i]);
	free(s->pool);
	free(s->rt);
	free(s->unit_left);
	free(s->task_unit);
	free(s->run_list);
	mesh_sched_free(s->sched);
	mesh_plan_free(s->plan);
	free(s->h);
	free(s->dirty);
	free(s->in);
	if (s->ep >= 0)
		close(s->ep);
	free(s->msg);
	free(s->buf);
}

static int plan_sweep(struct sweep *s)
{
	char err[256];
	int rc = mesh_plan_build(s->m, &s->c->plan, &s->plan, err, sizeof(err));

	if (rc) {
		rck_err(s->ctx, "mesh: %s", err);
		return rc;
	}
	rc = mesh_sched_new(s->plan, 0, &s->sched);
	if (rc)
		return rc;
	s->rt = calloc(s->plan->n_tasks ? s->plan->n_tasks : 1, sizeof(*s->rt));
	s->unit_left = calloc(s->plan->n_units ? s->plan->n_units : 1, sizeof(*s->unit_left));
	s->task_unit = calloc(s->plan->n_tasks ? s->plan->n_tasks : 1, sizeof(*s->task_unit));
	s->run_list = calloc(s->plan->n_tasks ? s->plan->n_tasks : 1, sizeof(*s->run_list));
	s->pool = calloc(s->plan->n_tasks ? s->plan->n_tasks : 1, sizeof(*s->pool));
	if (!s->rt || !s->unit_left || !s->task_unit || !s->run_list || !s->pool)
		return -ENOMEM;
	for (uint32_t u = 0; u < s->plan->n_units; u++)
		for (uint32_t i = 0; i < s->plan->units[u].n_tasks; i++)
			s->task_unit[s->plan->units[u].first_task + i] = u;
	s->total = (unsigned int)(s->plan->n_tasks * s->n_tests);
	return 0;
}

RCK_EXPORT int rck_mesh_run(struct rck_ctx *ctx, struct rck_mesh_config *c, struct rck_mesh **out)
{
	struct sweep s = { .ctx = ctx, .c = c, .ep = -1 };
	struct rck_mesh_info info = { .size = sizeof(info) };
	struct timespec wall;
	uint64_t deadline;
	int rc;

	if (!ctx || !c || !out || c->n_hosts < 2) {
		if (ctx)
			rck_err(ctx, "mesh: a sweep needs at least 2 hosts");
		return -EINVAL;
	}
	rc = rck_mesh_new(&s.m);
	if (rc)
		return rc;
	s.n_h = c->n_hosts;
	s.timeout_ms = rck_ctx_get_timeout_ms(ctx);
	s.t0 = wire_now_ns();
	clock_gettime(CLOCK_REALTIME, &wall);
	deadline = c->deadline_s > 0 ? s.t0 + (uint64_t)(c->deadline_s * 1e9) : UINT64_MAX;
	atomic_store(&c->cancel, 0);
	rc = setup(&s);
	if (!rc) {
		meet_hosts(&s, deadline);
		rc = plan_sweep(&s);
	}
	if (!rc && c->schedule == RCK_MESH_SCHEDULE_AGENTS)
		rc = delegate_run(&s, deadline);
	else if (!rc)
		run_plan(&s, deadline);
	if (!rc) {
		run_retest_passes(&s, deadline);
		say_goodbye(&s);
		info.pattern = c->pattern;
		info.rails = c->rails;
		info.start_ns = (uint64_t)wall.tv_sec * 1000000000ull + (uint64_t)wall.tv_nsec;
		info.seconds = secs(wire_now_ns() - s.t0);
		rc = rck_mesh_set_info(s.m, &info);
	}
	teardown(&s);
	if (rc) {
		rck_mesh_free(s.m);
		return rc;
	}
	*out = s.m;
	return 0;
}
