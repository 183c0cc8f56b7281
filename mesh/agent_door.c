/* The agent's front door: accepts connections and runs their handshakes
 * concurrently (poll), each with a short deadline, between sessions. */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "internal.h"

#include "../probes/sock.h"
#include "agent_door.h"
#include "agent_proto.h"

#define SLICE_NS 100000000ull
#define ACCEPT_BATCH 16
/* After accept() failed for want of descriptors or memory, leave the
 * listener alone this long (its backlog keeps the clients). */
#define BACKOFF_NS 100000000ull
#define SEND_NS 1000000ull

/* Before a peer proved the key its only frame is an AUTH of some 80
 * bytes: a larger announced frame is refused before anything is
 * allocated for it (64 silent peers cost no memory). */
static const struct wire_proto hello_proto = {
	.magic = AG_MAGIC,
	.version = AG_VERSION,
	.max_payload = 512,
	.name = "agent",
};

void agent_door_init(struct agent_door *d, struct rck_ctx *ctx, int lfd, unsigned int hello_ms)
{
	memset(d, 0, sizeof(*d));
	d->ctx = ctx;
	d->lfd = lfd;
	d->hello_ms = hello_ms;
}

static void forget(struct agent_door *d, unsigned int i)
{
	d->conn[i] = d->conn[--d->n];
}

static void drop(struct agent_door *d, unsigned int i)
{
	close(d->conn[i].fd);
	wire_frame_free(&d->conn[i].fr);
	forget(d, i);
}

void agent_door_free(struct agent_door *d)
{
	while (d->n)
		drop(d, d->n - 1);
}

void agent_door_busy(int fd)
{
	uint8_t buf[64];
	struct ag_msg m;
	size_t len;

	/* Only "busy": an unauthenticated peer learns nothing of the session. */
	ag_msg_clear(&m);
	m.type = AG_ERROR;
	m.status = AG_ERR_BUSY;
	snprintf(m.text, sizeof(m.text), "busy");
	if (!ag_encode(&m, buf, sizeof(buf), &len))
		(void)!wire_send(fd, &ag_proto, AG_ERROR, buf, len, wire_now_ns() + SEND_NS);
}

void agent_door_busy_all(struct agent_door *d)
{
	while (d->n) {
		agent_door_busy(d->conn[d->n - 1].fd);
		drop(d, d->n - 1);
	}
}

static void add(struct agent_door *d, int fd, struct sockaddr_storage *sa, uint64_t now)
{
	struct door_conn *c;
	char addr[64];
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (d->n == DOOR_MAX) {
		/* Full of silent peers: the oldest goes, the newcomer gets its turn. */
		unsigned int old = 0;

		for (unsigned int i = 1; i < d->n; i++)
			if (d->conn[i].deadline < d->conn[old].deadline)
				old = i;
		rck_info(d->ctx, "agent: %s dropped: %u connections wait to authenticate",
			 d->conn[old].peer, DOOR_MAX);
		drop(d, old);
	}
	c = &d->conn[d->n++];
	memset(c, 0, sizeof(*c));
	c->fd = fd;
	c->deadline = now + (uint64_t)d->hello_ms * 1000000ull;
	wire_frame_init(&c->fr, d->n_keys ? &hello_proto : &ag_proto);
	psock_unmap(sa);
	psock_addr_str(sa, addr, sizeof(addr));
	snprintf(c->peer, sizeof(c->peer), "%s port %u", addr, psock_addr_port(sa));
	if (d->n_keys) {
		uint8_t out[64];
		size_t len;

		/* A fresh connection's send buffer takes the challenge at once. */
		if (wire_auth_challenge(c->nonce, out, sizeof(out), &len) ||
		    wire_send(fd, &ag_proto, WIRE_T_CHALLENGE, out, len, wire_now_ns() + SEND_NS))
			c->deadline = now; /* dropped on the next round */
	}
}

static int accept_some(struct agent_door *d, uint64_t now)
{
	for (unsigned int k = 0; k < ACCEPT_BATCH; k++) {
		struct sockaddr_storage sa;
		socklen_t len = sizeof(sa);
		int fd = accept4(d->lfd, (struct sockaddr *)&sa, &len, SOCK_CLOEXEC | SOCK_NONBLOCK);
		int err = errno;

		if (fd >= 0) {
			add(d, fd, &sa, now);
			continue;
		}
		if (err == EAGAIN || err == EWOULDBLOCK)
			return 0;
		if (err == EINTR || err == ECONNABORTED)
			continue;
		if (err == EBADF || err == EINVAL || err == ENOTSOCK || err == EOPNOTSUPP)
			return -err;
		rck_warn(d->ctx, "agent: accept: %s", strerror(err));
		d->backoff_until = now + BACKOFF_NS;
		return 0;
	}
	return 0;
}

/* At the end of a window, how many failures went unlogged in it. */
static void auth_log_window(struct agent_door *d, uint64_t now)
{
	if (now - d->auth_log_start < DOOR_AUTH_LOG_WINDOW_S * 1000000000ull)
		return;
	if (d->auth_unlogged)
		rck_notice(d->ctx, "%u more failed authentications in %u s were not logged",
			   d->auth_unlogged, DOOR_AUTH_LOG_WINDOW_S);
	d->auth_log_start = now;
	d->auth_logged = d->auth_unlogged = 0;
}

/* One failed authentication from @peer ("ADDR port N"), rate-limited. The
 * lines carry no "agent:" of their own: only the agent logs notices, and
 * its tool names itself. */
static void auth_failed(struct agent_door *d, const char *peer, const char *why)
{
	auth_log_window(d, wire_now_ns());
	if (d->auth_logged < DOOR_AUTH_LOG_MAX) {
		rck_notice(d->ctx, "authentication failed from %s: %s", peer, why);
		if (++d->auth_logged == DOOR_AUTH_LOG_MAX)
			rck_notice(d->ctx, "%u failed authentications in %u s: the next are counted, not logged",
				   DOOR_AUTH_LOG_MAX, DOOR_AUTH_LOG_WINDOW_S);
	} else {
		d->auth_unlogged++;
	}
}

/* Connection @i's first frame is whole: with keys, its answer to the
 * challenge. Returns 1 when it starts the session, 0 when dropped,
 * -EACCES when its key was wrong (dropped). */
static int authenticate(struct agent_door *d, unsigned int i)
{
	struct door_conn *c = &d->conn[i];
	uint8_t out[64];
	size_t len = 0;
	int rc = -EBADMSG;

	if (c->fr.h.type != WIRE_T_AUTH) {
		char why[80];

		snprintf(why, sizeof(why), "no answer to the challenge (frame type 0x%04x)", c->fr.h.type);
		auth_failed(d, c->peer, why);
		drop(d, i);
		return 0;
	}
	for (unsigned int k = 0; k < d->n_keys && rc; k++) {
		rc = wire_auth_check(&ag_proto, d->key[k], d->key_len[k], c->nonce, c->fr.payload,
				     c->fr.h.length, out, sizeof(out), &len);
		if (!rc)
			rc = wire_frame_secure_server(&c->fr, &ag_proto, d->key[k], d->key_len[k],
						      c->nonce, c->fr.payload, c->fr.h.length);
		else if (rc != -EACCES)
			break;
	}
	if (!rc && !(rc = wire_send(c->fd, &ag_proto, WIRE_T_AUTH_OK, out, len, wire_now_ns() + SEND_NS))) {
		wire_frame_next(&c->fr);
		c->fr.proto = &ag_proto;
		return 1;
	}
	if (rc == -EACCES) {
		len = wire_auth_fail(out, sizeof(out));
		(void)!wire_send(c->fd, &ag_proto, WIRE_T_AUTH_FAIL, out, len, wire_now_ns() + SEND_NS);
	}
	auth_failed(d, c->peer, rc == -EACCES ? "wrong key"
			       : rc == -EBADMSG ? "malformed answer to the challenge" : strerror(-rc));
	drop(d, i);
	return rc == -EACCES ? -EACCES : 0;
}

/* A readable pending connection. Returns 1 (a session starts), 0, -EACCES. */
static int readable(struct agent_door *d, unsigned int i)
{
	struct door_conn *c = &d->conn[i];
	char why[200];
	int eof, rc = wire_frame_recv(&c->fr, c->fd, &eof);

	if (rc == 0)
		return 0;
	if (rc == 1)
		return d->n_keys ? authenticate(d, i) : 1;
	if (!eof)
		rck_warn(d->ctx, "agent: %s: %s, closing", c->peer,
			 rc == -ECONNRESET ? "connection closed inside its first frame"
					   : wire_hdr_strerror(&ag_proto, &c->fr.h, rc, why, sizeof(why)));
	drop(d, i);
	return 0;
}

int agent_door_wait(struct agent_door *d, uint64_t deadline, volatile sig_atomic_t *stop, int *fd,
		    struct wire_frame *fr, char *peer, size_t peer_len)
{
	for (;;) {
		struct pollfd pfd[DOOR_MAX + 1];
		uint64_t now = wire_now_ns(), wake;
		unsigned int n;
		int r;

		if (*stop)
			return -EINTR;
		auth_log_window(d, now);
		for (unsigned int i = d->n; i-- > 0;) {
			if (d->conn[i].deadline <= now) {
				rck_info(d->ctx, "agent: %s dropped: no %s within %u ms", d->conn[i].peer,
					 d->n_keys ? "answer to the challenge" : "whole request", d->hello_ms);
				drop(d, i);
			}
		}
		if (now >= deadline)
			return -ETIMEDOUT;
		wake = now + SLICE_NS < deadline ? now + SLICE_NS : deadline;
		n = d->n;
		for (unsigned int i = 0; i < n; i++) {
			pfd[i] = (struct pollfd){ .fd = d->conn[i].fd, .events = POLLIN };
			if (d->conn[i].deadline < wake)
				wake = d->conn[i].deadline;
		}
		pfd[n] = (struct pollfd){ .fd = now < d->backoff_until ? -1 : d->lfd, .events = POLLIN };
		r = poll(pfd, n + 1, (int)((wake - now + 999999) / 1000000));
		if (r < 0 && errno != EINTR)
			return -errno;
		if (r <= 0)
			continue;
		/* From the top: dropping entry i moves the last one, already seen, into i. */
		for (unsigned int i = n; i-- > 0;) {
			if (!pfd[i].revents)
				continue;
			r = readable(d, i);
			if (r == 1) {
				*fd = d->conn[i].fd;
				*fr = d->conn[i].fr;
				snprintf(peer, peer_len, "%s", d->conn[i].peer);
				forget(d, i);
				return 0;
			}
			if (r < 0)
				return r;
		}
		if (pfd[n].revents && (r = accept_some(d, wire_now_ns())) < 0) {
			rck_err(d->ctx, "agent: the listener failed: %s", strerror(-r));
			return r;
		}
	}
}
