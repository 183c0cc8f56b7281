/* The coordinator's connections: every agent connection on one thread with
 * epoll, a handshake per host, per-host state, and the one place that
 * decides a host is dead; frames of READY hosts go to the schedule. */
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
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

#include "agent_proto.h"
#include "agent_tasks_proto.h"
#include "coord.h"
#include "coord_sweep.h"
#include "resolve.h"

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
	h->sent = wire_now_ns();
	if (!h->out_len)
		h->moved = h->sent;
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
		h->moved = wire_now_ns();
	}
	h->out_off = h->out_len = 0;
	/* A task list's chunk is big; 10,000 hosts must not each keep one. */
	if (h->out_cap > KEEP_BYTES) {
		free(h->out);
		h->out = NULL;
		h->out_cap = 0;
	}
	return 0;
}

uint32_t coord_host_of(const struct sweep *s, uint32_t nic)
{
	return s->plan->nic_host[nic];
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
	if (s->ops)
		s->ops->host_dead(s, hi, reason);
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

/* After the NICs (and DCB state): the LLDP neighbours when asked, else the
 * host is met. */
static void ask_lldp(struct sweep *s, struct host *h)
{
	size_t len;

	if (!s->c->lldp || coord_lldp_request(s->c, s->buf, AG_MAX_PAYLOAD, &len)) {
		s->settled++;
		return;
	}
	coord_queue(s, h, AG_LLDP_GET, s->buf, len);
	h->st = H_LLDP;
}

/* After the describe (and DCB) step: ask for the PCIe paths, or the host is settled. */
static void ask_pcie(struct sweep *s, struct host *h)
{
	if (!s->c->pcie) {
		ask_lldp(s, h);
		return;
	}
	memset(s->msg, 0, sizeof(*s->msg));
	s->msg->type = AG_PCIE_GET;
	send_msg(s, h, s->msg);
	h->st = H_PCIE;
}

/* The handshake and the describe step, one frame at a time. */
static void handshake_frame(struct sweep *s, struct host *h, const struct wire_frame *f)
{
	uint8_t out[128];
	size_t len;
	int rc;

	if (f->h.type == AG_ERROR && h->st != H_DCB && h->st != H_PCIE && h->st != H_LLDP) {
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
			ask_pcie(s, h);
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
		ask_pcie(s, h);
		return;
	case H_PCIE: /* likewise: a refusal or a read error is noted, never fatal */
		rc = f->h.type == AG_PCIE ? coord_pcie_reply(s->m, (unsigned int)(h - s->h), f->payload, f->h.length)
		     : f->h.type == AG_ERROR && !ag_decode(f->h.type, f->payload, f->h.length, s->msg)
			 ? rck_mesh_host_set_pcie(s->m, (unsigned int)(h - s->h), NULL, s->msg->text)
			 : -EBADMSG;
		if (rc) {
			coord_host_dead(s, h, "%s", "malformed PCIe paths");
			return;
		}
		h->st = H_READY;
		ask_lldp(s, h);
		return;
	case H_LLDP: /* likewise */
		rc = f->h.type == AG_LLDP ? coord_lldp_reply(s->m, (unsigned int)(h - s->h), f->payload, f->h.length)
		     : f->h.type == AG_ERROR && !ag_decode(f->h.type, f->payload, f->h.length, s->msg)
			 ? rck_mesh_host_set_lldp(s->m, (unsigned int)(h - s->h), NULL, 0, s->msg->text)
			 : -EBADMSG;
		if (rc) {
			coord_host_dead(s, h, "%s", "malformed LLDP neighbours");
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

/* A frame of a READY host outside the schedule's passes: a late batch of
 * a pass given up is dropped, anything else ends the session. */
static void idle_frame(struct sweep *s, struct host *h, const struct wire_frame *f)
{
	if (f->h.type != AG_TRES)
		coord_host_dead(s, h, "sent an unexpected %s", ag_task_type_name(f->h.type));
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
			const char *why = h->st == H_LLDP ? "its agent closed the session on the LLDP request "
							    "(agent message type 23): it predates that feature; upgrade it"
					  : s->ops ? s->ops->close_reason(s, h) : NULL;

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
			if (h->st == H_READY && s->ops)
				s->ops->frame(s, h, &h->fr);
			else if (h->st == H_READY)
				idle_frame(s, h, &h->fr);
			else
				handshake_frame(s, h, &h->fr);
			wire_frame_trim(&h->fr, KEEP_BYTES); /* a big batch: its buffer goes, not the keys */
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

	coord_keepalive(s);
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

/* The floor: a unit-test run on a loaded 2-core runner, -t 300, had healthy
 * loopback agents declared unreachable at 0.3 s, first answering the PLAN,
 * then (launched, so starting as the sweep did) in the meeting itself. An
 * unreachable host can be drained; a slow start costs only this wait. */
#define ANSWER_WAIT_MIN_MS 2000u

uint64_t coord_answer_wait_ms(const struct sweep *s)
{
	uint64_t ms = 3ull * s->timeout_ms;

	return ms < ANSWER_WAIT_MIN_MS ? ANSWER_WAIT_MIN_MS : ms;
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
void coord_meet_hosts(struct sweep *s, uint64_t deadline)
{
	uint64_t now = wire_now_ns(), lldp_ms = s->c->lldp ? s->c->lldp_capture_ms : 0;
	/* A name is one blocking step (-t); the meeting after it is several
	 * messages to a process that may have just been launched. */
	uint64_t resolve_until = now + (s->timeout_ms + lldp_ms) * 1000000ull;
	uint64_t until = now + (coord_answer_wait_ms(s) + lldp_ms) * 1000000ull;
	struct mesh_resolve_cb cb = {.ready = host_resolved, .extra_fd = s->ep, .extra = poll_now, .arg = s};
	struct mesh_addr *a = NULL;
	int rc;

	if (until > deadline)
		until = deadline;
	if (resolve_until > until)
		resolve_until = until;
	/* All names at once within the timeout (mesh/resolve.c), each host
	 * dialled as soon as its name resolves; a host whose launcher failed
	 * is neither resolved nor dialled. */
	for (size_t i = 0; i < s->n_h; i++)
		if (s->h[i].cfg->down)
			coord_host_dead(s, &s->h[i], "%s", s->h[i].cfg->down);
	rc = mesh_resolve_hosts(s->c->hosts, s->n_h, resolve_until, &s->c->cancel, &cb, &a);
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

void coord_goodbye(struct sweep *s)
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

/* One descriptor per agent session and a few more: the soft limit is
 * raised as far as the hard one allows (typically 1024 soft, so 10,000
 * agents need it). Not enough: the sweep still runs, hosts past it get
 * "cannot connect to its agent: Too many open files". */
static void raise_nofile(struct sweep *s)
{
	struct rlimit rl;
	rlim_t want = (rlim_t)s->n_h + 64;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= want)
		return;
	rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > want ? want : rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		return;
	if (rl.rlim_cur < want)
		rck_warn(s->ctx, "mesh: %zu agents need %llu open files, the hard limit is %llu", s->n_h,
			 (unsigned long long)want, (unsigned long long)rl.rlim_cur);
}

int coord_setup(struct sweep *s)
{
	raise_nofile(s);
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

void coord_teardown(struct sweep *s)
{
	for (size_t i = 0; s->h && i < s->n_h; i++) {
		struct host *h = &s->h[i];

		if (h->fd >= 0)
			close(h->fd);
		wire_frame_free(&h->fr);
		free(h->out);
		free(h->nic_addr);
	}
	free(s->rt);
	mesh_plan_free(s->plan);
	free(s->h);
	free(s->dirty);
	free(s->in);
	if (s->ep >= 0)
		close(s->ep);
	free(s->msg);
	free(s->buf);
}

