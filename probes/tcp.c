/* TCP transport of the probes: non-blocking streams driven by poll(), the
 * traffic class applied as IP TOS, every wait bounded by the timeout. */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "sock.h"
#include "tcp.h"

#define RXBUF (256u << 10)

void ptcp_init(struct ptcp *t, unsigned int timeout_ms)
{
	memset(t, 0, sizeof(*t));
	t->timeout_ms = timeout_ms;
	for (unsigned int i = 0; i < XQ_MAX_QPS; i++)
		t->fd[i] = -1;
}

void ptcp_close(struct ptcp *t)
{
	for (unsigned int i = 0; i < XQ_MAX_QPS; i++) {
		if (t->fd[i] >= 0)
			close(t->fd[i]);
		t->fd[i] = -1;
	}
	free(t->buf);
	free(t->rxbuf);
	t->buf = t->rxbuf = NULL;
	t->n = 0;
}

/* Each side allocates what its role uses: a sender a message to send, a
 * bandwidth receiver a chunk to read into, a ping-pong side a message to
 * read (the server answers from it). */
static bool sends(const struct xq_params *p, bool server)
{
	return p->test == RCK_PROBE_TEST_BW ? !server || (p->flags & XQ_F_BIDIR) : !server;
}

static size_t rx_len(const struct xq_params *p)
{
	return p->test == RCK_PROBE_TEST_BW ? RXBUF : p->size;
}

uint64_t ptcp_buffer_bytes(const struct xq_params *p, bool server)
{
	return (sends(p, server) ? p->size : 0) + (uint64_t)rx_len(p);
}

static int buffers(struct ptcp *t, const struct xq_params *p, bool server, struct perr *e)
{
	t->size = p->size;
	t->n = p->qps;
	t->rxlen = rx_len(p);
	t->buf = sends(p, server) ? calloc(1, p->size) : NULL;
	t->rxbuf = malloc(t->rxlen);
	if ((sends(p, server) && !t->buf) || !t->rxbuf)
		return perr_set(e, RCK_PROBE_SYSTEM, -ENOMEM, "cannot allocate %llu bytes of buffers",
				(unsigned long long)ptcp_buffer_bytes(p, server));
	return 0;
}

static void set_tos(int fd, const struct xq_params *p)
{
	struct sockaddr_storage sa;
	int tos = p->tclass;

	if (tos < 0 || psock_local(fd, &sa))
		return;
	if (sa.ss_family == AF_INET)
		setsockopt(fd, IPPROTO_IP, IP_TOS, &tos, sizeof(tos));
	else
		setsockopt(fd, IPPROTO_IPV6, IPV6_TCLASS, &tos, sizeof(tos));
}

int ptcp_client_attach(struct ptcp *t, const struct sockaddr_storage *srv, const struct xq_params *p,
		       uint64_t cookie, struct perr *e)
{
	uint8_t msg[XQ_HDR_LEN + 16], sealed[XQ_HDR_LEN + 16 + WIRE_TAG_LEN];
	union xq_msg m = { 0 };
	struct wire_frame f;
	bool secured;
	size_t len;
	int rc = buffers(t, p, false, e);

	for (unsigned int i = 0; !rc && i < p->qps; i++) {
		uint64_t deadline = pclock_after_ms(t->timeout_ms);

		rc = psock_connect_addr(srv, deadline, &t->fd[i]);
		if (rc)
			return perr_set(e, perr_sock_status(rc), rc, "cannot open TCP stream %u: %s", i,
					strerror(-rc));
		set_tos(t->fd[i], p);
		wire_frame_init(&f, &xq_proto);
		if (t->key) {
			char err[200];

			rc = wire_auth_client_sec(t->fd[i], &xq_proto, t->key, t->key_len, deadline, &f, err,
						  sizeof(err));
			if (rc) {
				wire_frame_free(&f);
				return perr_set(e, RCK_PROBE_PROTOCOL, rc, "TCP stream %u: %s", i, err);
			}
		}
		m.attach.cookie = cookie;
		m.attach.index = (uint16_t)i;
		/* With a key the ATTACH is sealed; the measured bytes after it are not. */
		rc = xq_encode(XQ_ATTACH, &m, msg, sizeof(msg), &len);
		secured = f.sec != NULL;
		if (!rc && secured && !(rc = wire_seal(f.sec, &xq_proto, XQ_ATTACH, msg + XQ_HDR_LEN,
							len - XQ_HDR_LEN, sealed)))
			len = wire_sealed_len(len - XQ_HDR_LEN);
		wire_frame_free(&f);
		if (rc || (rc = psock_send_all(t->fd[i], secured ? sealed : msg, len, deadline)))
			return perr_set(e, perr_sock_status(rc), rc ? rc : -EIO,
					"cannot attach TCP stream %u", i);
	}
	return rc;
}

int ptcp_server_attach(struct ptcp *t, struct plobby *l, const struct xq_params *p, struct perr *e)
{
	uint64_t deadline = pclock_after_ms(t->timeout_ms);
	unsigned int joined = 0;
	int rc = buffers(t, p, true, e);

	while (!rc && joined < p->qps) {
		struct plobby_stream st;

		rc = plobby_stream(l, deadline, &st);
		if (rc)
			return perr_set(e, perr_sock_status(rc), rc,
					"%u of %u TCP streams joined within %u ms", joined, p->qps, t->timeout_ms);
		if (st.index >= p->qps || t->fd[st.index] >= 0) {
			close(st.fd);
			continue;
		}
		t->fd[st.index] = st.fd;
		set_tos(st.fd, p);
		joined++;
	}
	return rc;
}

/* The server's end of the run (end_by), folded into a wait's deadline. */
static uint64_t cap(const struct ptcp *t, uint64_t deadline)
{
	return t->end_by && t->end_by < deadline ? t->end_by : deadline;
}

static bool overrun(const struct ptcp *t, uint64_t now)
{
	return t->end_by && now >= t->end_by;
}

struct stream {
	uint64_t left;          /* whole messages still to send */
	uint32_t off;           /* bytes of the current message already sent */
	bool sending, shut, eof;
};

/* At most this much per push() or pull(): on an idle machine with a core
 * each, the peer drains (or fills) the socket as fast as we fill (or
 * drain) it, so "until the socket is full (empty)" never came and a 2 s
 * probe ran 6 s, past the server's end, without looking at the clock. */
#define STEP_BYTES (4u << 20)

/* Send on stream @s until the socket is full or STEP_BYTES went; returns
 * the bytes sent or -errno. */
static int64_t push(struct ptcp *t, int fd, struct stream *s, bool stop)
{
	int64_t sent = 0;

	while (s->sending && !s->shut && sent < (int64_t)STEP_BYTES) {
		ssize_t n;

		if (s->off == 0 && (s->left == 0 || stop)) {
			shutdown(fd, SHUT_WR);
			s->shut = true;
			break;
		}
		n = send(fd, t->buf + s->off, t->size - s->off, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0)
			return errno == EAGAIN || errno == EINTR ? sent : -errno;
		sent += n;
		s->off += (uint32_t)n;
		if (s->off == t->size) {
			s->off = 0;
			s->left--;
		}
	}
	return sent;
}

/* Drain what arrived; at the end of the peer's stream a side that sends
 * nothing closes its own, which tells the sender everything arrived. */
static int pull(struct ptcp *t, int fd, struct stream *s)
{
	for (size_t got = 0; got < STEP_BYTES;) {
		ssize_t n = recv(fd, t->rxbuf, t->rxlen, MSG_DONTWAIT);

		if (n > 0) {
			got += (size_t)n;
			continue;
		}
		if (n == 0) {
			s->eof = true;
			if (!s->sending && !s->shut) {
				shutdown(fd, SHUT_WR);
				s->shut = true;
			}
			return 0;
		}
		return errno == EAGAIN || errno == EINTR ? 0 : -errno;
	}
	return 0; /* more to read: the caller's next poll says so at once */
}

int ptcp_bw(struct ptcp *t, const struct xq_params *p, bool send, struct pchan *ctl,
	    struct xq_stats *st, struct perr *e)
{
	struct stream s[XQ_MAX_QPS] = { 0 };
	struct pollfd pfd[XQ_MAX_QPS];
	uint64_t dur_ns = p->iters ? 0 : (uint64_t)p->duration_ms * 1000000u;
	uint64_t start = pclock_ns(), last = start, now = start, bytes = 0;
	unsigned int done = 0;
	struct pwin win;
	double worst;
	int rc;

	pwin_init(&win, start, (uint64_t)p->window_us * 1000u);
	for (unsigned int i = 0; i < t->n; i++) {
		s[i].sending = send;
		s[i].left = dur_ns ? UINT64_MAX : p->iters / t->n + (i < p->iters % t->n);
	}
	while (done < t->n) {
		bool stop = dur_ns && now - start >= dur_ns;
		uint64_t round = 0;
		int n;

		for (unsigned int i = 0; i < t->n; i++) {
			pfd[i].fd = t->fd[i];
			pfd[i].events = (s[i].eof ? 0 : POLLIN) | (s[i].sending && !s[i].shut ? POLLOUT : 0);
			pfd[i].revents = 0;
		}
		n = poll(pfd, t->n, dur_ns && !stop ? 10 : pclock_left_ms(cap(t, last + (uint64_t)t->timeout_ms * 1000000u)));
		if (n < 0 && errno != EINTR)
			return perr_set(e, RCK_PROBE_SYSTEM, -errno, "poll: %s", strerror(errno));
		now = pclock_ns();
		if (overrun(t, now))
			return perr_overrun(e);
		for (unsigned int i = 0; n > 0 && i < t->n; i++) {
			bool was = s[i].eof && (s[i].shut || !s[i].sending);
			int64_t sent = 0;

			if (pfd[i].revents & (POLLIN | POLLHUP | POLLERR)) {
				if ((rc = pull(t, t->fd[i], &s[i])))
					return perr_set(e, perr_sock_status(rc), rc, "TCP stream %u: %s", i,
							strerror(-rc));
			}
			if (pfd[i].revents & (POLLOUT | POLLERR) || (s[i].sending && !s[i].shut && stop)) {
				sent = push(t, t->fd[i], &s[i], stop);
				if (sent < 0)
					return perr_set(e, perr_sock_status((int)sent), (int)sent,
							"TCP stream %u: %s", i, strerror((int)-sent));
				round += (uint64_t)sent;
			}
			if (!was && s[i].eof && (s[i].shut || !s[i].sending))
				done++;
		}
		if (n > 0 || round)
			last = now;
		if (round) {
			bytes += round;
			pwin_add(&win, now, round);
		}
		if (now - last > (uint64_t)t->timeout_ms * 1000000u)
			return perr_set(e, RCK_PROBE_TIMEOUT, -ETIMEDOUT,
					"TCP streams made no progress within %u ms", t->timeout_ms);
		if (ctl && send && (rc = pchan_tick(ctl, now, e)))
			return rc;
	}
	st->bytes = bytes;
	st->msgs = bytes / t->size;
	st->ns = now - start;
	st->has_worst = send && pwin_worst_gbps(&win, &worst);
	st->worst_gbps = st->has_worst ? worst : 0;
	return 0;
}

static int lat_err(struct perr *e, int rc, const char *what, uint64_t i, unsigned int ms)
{
	if (rc == -ETIMEDOUT)
		return perr_set(e, RCK_PROBE_TIMEOUT, rc, "no %s from the peer within %u ms (round %llu)",
				what, ms, (unsigned long long)i);
	return perr_set(e, perr_sock_status(rc), rc, "TCP stream, round %llu: %s", (unsigned long long)i,
			strerror(-rc));
}

int ptcp_ping(struct ptcp *t, const struct xq_params *p, struct pchan *ctl, struct psamples *smp,
	      struct xq_stats *st, struct perr *e)
{
	struct prounds r;
	bool eof;
	int rc = 0;

	prounds_init(&r, smp, p->warmup, p->iters, p->duration_ms);
	for (uint64_t i = 0; rc == 0 && i < prounds_total(&r); i++) {
		int fd = t->fd[i % t->n];
		uint64_t t0 = pclock_ns(), t1;
		uint64_t deadline = t0 + (uint64_t)t->timeout_ms * 1000000u;

		rc = psock_send_all(fd, t->buf, t->size, deadline);
		if (!rc)
			rc = psock_recv_msg(fd, t->rxbuf, t->size, deadline, &eof);
		if (!rc && eof)
			rc = -ECONNRESET;
		if (rc)
			return lat_err(e, rc, "reply", i, t->timeout_ms);
		t1 = pclock_ns();
		rc = prounds_add(&r, i, t0, t1);
		if (rc < 0)
			return perr_set(e, RCK_PROBE_SYSTEM, rc, "out of memory for samples");
		if (ctl && pchan_tick(ctl, t1, e))
			return -EIO;
	}
	for (unsigned int i = 0; i < t->n; i++)
		shutdown(t->fd[i], SHUT_WR);
	st->msgs = r.measured;
	st->bytes = r.measured * t->size;
	st->ns = r.end - r.start;
	return 0;
}

int ptcp_pong(struct ptcp *t, const struct xq_params *p, struct perr *e)
{
	uint64_t total = p->iters ? p->warmup + p->iters : UINT64_MAX;
	bool eof;
	int rc;

	for (uint64_t i = 0; i < total; i++) {
		int fd = t->fd[i % t->n];
		uint64_t now = pclock_ns(), deadline = cap(t, now + (uint64_t)t->timeout_ms * 1000000u);

		/* A client that pings without end meets the server's end of the run. */
		if (overrun(t, now))
			return perr_overrun(e);

		rc = psock_recv_msg(fd, t->rxbuf, t->size, deadline, &eof);
		if (!rc && eof)
			return 0;
		if (!rc)
			rc = psock_send_all(fd, t->rxbuf, t->size, deadline);
		if (rc == -ETIMEDOUT && overrun(t, pclock_ns()))
			return perr_overrun(e);
		if (rc)
			return lat_err(e, rc, "ping", i, t->timeout_ms);
	}
	return 0;
}
