/* The server's front door: one poll() over the listener and every
 * connection that has not yet said who it is, run by the caller between
 * sessions and by a thread of its own during one. */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "chan.h"
#include "clock.h"
#include "internal.h"
#include "lobby.h"
#include "sock.h"

#define ACCEPT_BATCH 16
/* After accept() failed for want of descriptors or memory, leave the
 * listener alone this long (its backlog keeps the clients) instead of
 * spinning on a socket that stays readable. */
#define BACKOFF_NS 100000000ull
#define LOG_EVERY_NS 5000000000ull
#define BUSY_TEXT "serves another session; try again later"

int plobby_init(struct plobby *l, const struct rck_ctx *ctx, int lfd, unsigned int hello_ms)
{
	memset(l, 0, sizeof(*l));
	l->ctx = ctx;
	l->lfd = lfd;
	l->hello_ms = hello_ms;
	l->stop[0] = l->stop[1] = l->streams[0] = l->streams[1] = -1;
	if (pipe2(l->stop, O_CLOEXEC | O_NONBLOCK) || pipe2(l->streams, O_CLOEXEC | O_NONBLOCK)) {
		int rc = -errno;

		plobby_free(l);
		return rc;
	}
	return 0;
}

static void forget(struct plobby *l, unsigned int i)
{
	l->conn[i] = l->conn[--l->n];
}

static void drop(struct plobby *l, unsigned int i)
{
	close(l->conn[i].fd);
	pframe_free(&l->conn[i].fr);
	forget(l, i);
}

static void close_streams(struct plobby *l)
{
	struct plobby_stream s;

	while (read(l->streams[0], &s, sizeof(s)) == sizeof(s))
		close(s.fd);
}

void plobby_free(struct plobby *l)
{
	if (l->running)
		plobby_busy_stop(l);
	while (l->n)
		drop(l, l->n - 1);
	if (l->streams[0] >= 0)
		close_streams(l);
	for (int i = 0; i < 2; i++) {
		if (l->stop[i] >= 0)
			close(l->stop[i]);
		if (l->streams[i] >= 0)
			close(l->streams[i]);
		l->stop[i] = l->streams[i] = -1;
	}
}

/* One ERROR, without waiting: a fresh connection's send buffer takes it
 * at once, and a peer that does not read gets nothing more from us. */
static void reply(const struct plobby_conn *c, uint16_t status, const char *text)
{
	uint8_t buf[XQ_HDR_LEN + 4 + XQ_TEXT_MAX], sealed[XQ_HDR_LEN + 4 + XQ_TEXT_MAX + WIRE_TAG_LEN];
	union xq_msg m = { 0 };
	size_t len;

	m.error.status = status;
	snprintf(m.error.text, sizeof(m.error.text), "%s", text);
	if (xq_encode(XQ_ERROR, &m, buf, sizeof(buf), &len))
		return;
	/* An authenticated peer reads sealed frames only. */
	if (c->fr.sec) {
		if (wire_seal(c->fr.sec, &xq_proto, XQ_ERROR, buf + XQ_HDR_LEN, len - XQ_HDR_LEN, sealed))
			return;
		len = wire_sealed_len(len - XQ_HDR_LEN);
	}
	(void)!send(c->fd, c->fr.sec ? sealed : buf, len, MSG_DONTWAIT | MSG_NOSIGNAL);
}

static bool fatal_accept(int err)
{
	return err == EBADF || err == EINVAL || err == ENOTSOCK || err == EOPNOTSUPP || err == EFAULT;
}

static void add(struct plobby *l, int fd, struct sockaddr_storage *sa, uint64_t now)
{
	struct plobby_conn *c;
	char addr[64];
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (l->n == LOBBY_MAX) {
		/* Full of silent peers: the oldest goes, a new client gets its turn. */
		unsigned int old = 0;

		for (unsigned int i = 1; i < l->n; i++)
			if (l->conn[i].deadline < l->conn[old].deadline)
				old = i;
		rck_info(l->ctx, "probe server: %s dropped: %u connections wait to say HELLO",
			 l->conn[old].peer, LOBBY_MAX);
		drop(l, old);
	}
	c = &l->conn[l->n++];
	memset(c, 0, sizeof(*c));
	c->fd = fd;
	c->deadline = now + (uint64_t)l->hello_ms * 1000000u;
	pframe_init(&c->fr);
	if (l->key) {
		uint8_t out[64];
		size_t len;

		/* A fresh connection's send buffer takes the challenge at once. */
		if (wire_auth_challenge(c->nonce, out, sizeof(out), &len) ||
		    wire_send(fd, &xq_proto, WIRE_T_CHALLENGE, out, len, pclock_ns() + 1000000ull))
			c->deadline = now; /* dropped on the next round */
	}
	psock_unmap(sa);
	psock_addr_str(sa, addr, sizeof(addr));
	snprintf(c->peer, sizeof(c->peer), "client %s port %u", addr, psock_addr_port(sa));
}

/* Take what the backlog holds. Returns 0, or a fatal -errno. */
static int accept_some(struct plobby *l, uint64_t now)
{
	for (unsigned int k = 0; k < ACCEPT_BATCH; k++) {
		struct sockaddr_storage sa;
		socklen_t len = sizeof(sa);
		int fd = accept4(l->lfd, (struct sockaddr *)&sa, &len, SOCK_CLOEXEC | SOCK_NONBLOCK);
		int err = errno;

		if (fd >= 0) {
			add(l, fd, &sa, now);
			continue;
		}
		if (err == EAGAIN || err == EWOULDBLOCK)
			return 0;
		if (err == EINTR || err == ECONNABORTED)
			continue;
		if (fatal_accept(err))
			return -err;
		/* EMFILE, ENFILE, ENOBUFS, ENOMEM, EPERM (a firewall), EPROTO...:
		 * the listener itself is fine. */
		if (err != l->last_errno || now - l->last_log >= LOG_EVERY_NS) {
			rck_err(l->ctx, "probe server: cannot accept a connection: %s; retrying in %llu ms",
				strerror(err), BACKOFF_NS / 1000000u);
			l->last_errno = err;
			l->last_log = now;
		}
		l->backoff_until = now + BACKOFF_NS;
		return 0;
	}
	return 0;
}

/* An ATTACH: to the running session when it names its cookie. Returns true
 * when the descriptor went on (the entry is then forgotten, not closed). */
static bool pass_stream(struct plobby *l, struct plobby_conn *c, bool busy)
{
	uint64_t cookie = __atomic_load_n(&l->cookie, __ATOMIC_ACQUIRE);
	struct plobby_stream s;
	union xq_msg m;

	if (!busy || !cookie || xq_decode(XQ_ATTACH, c->fr.payload, c->fr.h.length, &m) ||
	    m.attach.cookie != cookie)
		return false;
	memset(&s, 0, sizeof(s));      /* no stray padding bytes in the pipe */
	s.fd = c->fd;
	s.index = m.attach.index;
	return write(l->streams[1], &s, sizeof(s)) == sizeof(s);
}

/* A HELLO while the owner is at another task than a session: the task
 * it is at, so the client knows whether to wait on. */
static void not_now(const struct plobby *l, const struct plobby_conn *c)
{
	uint32_t at = __atomic_load_n(&l->at_task, __ATOMIC_ACQUIRE);
	char text[XQ_TEXT_MAX];
	union xq_msg m;

	if (xq_decode(XQ_HELLO, c->fr.payload, c->fr.h.length, &m)) {
		reply(c, RCK_PROBE_PROTOCOL, "malformed HELLO");
		return;
	}
	if (m.hello.task && m.hello.task < at) {
		snprintf(text, sizeof(text), "this listener serves task %u now, not task %u", at, m.hello.task);
		reply(c, RCK_PROBE_UNREACHABLE, text);
	} else {
		snprintf(text, sizeof(text), "at task %u, not listening for task %u yet", at, m.hello.task);
		reply(c, XQ_ERR_BUSY, text);
	}
}

/* Connection @i has a whole first message (or a refused header, rc < 0).
 * Returns true when it starts a session (only between sessions). */
static bool first_message(struct plobby *l, unsigned int i, int rc, bool busy)
{
	struct plobby_conn *c = &l->conn[i];

	if (rc == 1 && c->fr.h.type == XQ_ATTACH) {
		if (pass_stream(l, c, busy)) {
			pframe_free(&c->fr);
			forget(l, i);
			return false;
		}
		if (busy)
			reply(c, XQ_ERR_BUSY, BUSY_TEXT);
		else
			reply(c, RCK_PROBE_UNREACHABLE, "no session waits for this TCP stream");
	} else if (!busy) {
		return true;
	} else if (rc == 1 && c->fr.h.type == XQ_HELLO && __atomic_load_n(&l->at_task, __ATOMIC_ACQUIRE)) {
		not_now(l, c);
	} else {
		rck_info(l->ctx, "probe server: %s refused: busy with a session", c->peer);
		reply(c, XQ_ERR_BUSY, BUSY_TEXT);
	}
	drop(l, i);
	return false;
}

/* With a key, a connection's first frame must be its answer to the
 * challenge; nothing else of it is read before. */
static void authenticate(struct plobby *l, unsigned int i, int rc)
{
	struct plobby_conn *c = &l->conn[i];
	uint8_t out[64];
	size_t len;

	if (rc == 1 && c->fr.h.type == WIRE_T_AUTH) {
		rc = wire_auth_check(&xq_proto, l->key, l->key_len, c->nonce, c->fr.payload,
				     c->fr.h.length, out, sizeof(out), &len);
		if (!rc)
			rc = wire_frame_secure_server(&c->fr, &xq_proto, l->key, l->key_len, c->nonce,
						      c->fr.payload, c->fr.h.length);
	} else
		rc = -EBADMSG;
	if (rc == 0 && !wire_send(c->fd, &xq_proto, WIRE_T_AUTH_OK, out, len, pclock_ns() + 1000000ull)) {
		c->authed = true;
		pframe_next(&c->fr);
		return;
	}
	if (rc == -EACCES) {
		len = wire_auth_fail(out, sizeof(out));
		(void)!wire_send(c->fd, &xq_proto, WIRE_T_AUTH_FAIL, out, len, pclock_ns() + 1000000ull);
	}
	rck_warn(l->ctx, "probe server: %s refused: %s", c->peer,
		 rc == -EACCES ? "wrong key" : "no answer to the authentication challenge");
	drop(l, i);
}

static bool header_refused(int rc)
{
	return rc == -EPROTO || rc == -EPROTONOSUPPORT || rc == -EMSGSIZE;
}

/*
 * One poll round. Between sessions (!busy): returns 1 with *ready the
 * index of a connection that starts a session, 0 to go on, -ETIMEDOUT at
 * @deadline, -EINTR, or a fatal -errno. Busy: returns 1 when told to stop.
 */
static int step(struct plobby *l, bool busy, uint64_t deadline, unsigned int *ready)
{
	struct pollfd pfd[LOBBY_MAX + 2];
	uint64_t now = pclock_ns(), wake = deadline;
	unsigned int n = l->n, np;
	int r;

	for (unsigned int i = n; i-- > 0;) {
		if (l->conn[i].deadline <= now) {
			rck_info(l->ctx, "probe server: %s dropped: no whole message within %u ms",
				 l->conn[i].peer, l->hello_ms);
			drop(l, i);
		}
	}
	if (!busy && deadline != UINT64_MAX && now >= deadline)
		return -ETIMEDOUT;
	n = l->n;
	for (unsigned int i = 0; i < n; i++) {
		pfd[i] = (struct pollfd){ .fd = l->conn[i].fd, .events = POLLIN };
		if (l->conn[i].deadline < wake)
			wake = l->conn[i].deadline;
	}
	pfd[n] = (struct pollfd){ .fd = l->fatal ? -1 : l->lfd, .events = POLLIN };
	if (now < l->backoff_until) {
		pfd[n].fd = -1;
		if (l->backoff_until < wake)
			wake = l->backoff_until;
	}
	np = n + 1;
	if (busy)
		pfd[np++] = (struct pollfd){ .fd = l->stop[0], .events = POLLIN };
	r = poll(pfd, np, wake == UINT64_MAX ? -1 : pclock_left_ms(wake));
	if (r < 0)
		return errno == EINTR && !busy ? -EINTR : errno == EINTR ? 0 : -errno;
	if (busy && pfd[n + 1].revents)
		return 1;
	now = pclock_ns();
	/* From the top: dropping entry i moves the last one, already seen, into i. */
	for (unsigned int i = n; i-- > 0;) {
		int eof, rc;

		if (!pfd[i].revents)
			continue;
		rc = pframe_recv(&l->conn[i].fr, l->conn[i].fd, &eof);
		if (rc == 0)
			continue;
		if (l->key && !l->conn[i].authed) {
			authenticate(l, i, rc);
			continue;
		}
		if (rc == 1 || header_refused(rc)) {
			if (first_message(l, i, rc, busy)) {
				*ready = i;
				return 1;
			}
			continue;
		}
		rck_dbg(l->ctx, "probe server: %s went away before its first message", l->conn[i].peer);
		drop(l, i);
	}
	if (pfd[n].revents) {
		r = accept_some(l, now);
		if (r < 0) {
			rck_err(l->ctx, "probe server: the listener failed: %s", strerror(-r));
			l->fatal = r;
		}
	}
	return 0;
}

int plobby_wait(struct plobby *l, uint64_t deadline, int *fd, struct pframe *fr)
{
	unsigned int i;
	int rc;

	for (;;) {
		if (l->fatal)
			return l->fatal;
		rc = step(l, false, deadline, &i);
		if (rc < 0)
			return rc;
		if (rc == 1)
			break;
	}
	*fd = l->conn[i].fd;
	*fr = l->conn[i].fr;
	forget(l, i);
	return 0;
}

static void *keep_door(void *arg)
{
	struct plobby *l = arg;

	while (step(l, true, UINT64_MAX, NULL) == 0)
		;
	return NULL;
}

int plobby_busy_start(struct plobby *l)
{
	sigset_t all, old;
	int rc;

	/* Signals stay with the caller's thread, whose waits they interrupt. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&l->thread, NULL, keep_door, l);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc)
		return -rc;
	l->running = true;
	return 0;
}

void plobby_busy_stop(struct plobby *l)
{
	char b = 0;

	if (!l->running)
		return;
	(void)!write(l->stop[1], &b, 1);
	pthread_join(l->thread, NULL);
	while (read(l->stop[0], &b, 1) == 1)
		;
	l->running = false;
	plobby_take_streams(l, 0);
	close_streams(l);
}

void plobby_take_streams(struct plobby *l, uint64_t cookie)
{
	__atomic_store_n(&l->cookie, cookie, __ATOMIC_RELEASE);
}

int plobby_stream(struct plobby *l, uint64_t deadline, struct plobby_stream *s)
{
	for (;;) {
		ssize_t n = read(l->streams[0], s, sizeof(*s));
		int rc;

		if (n == sizeof(*s))
			return 0;
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return -errno;
		rc = psock_wait(l->streams[0], POLLIN, deadline);
		if (rc < 0)
			return rc;
	}
}
