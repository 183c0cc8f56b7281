/* The monitor's probes: tiny datagrams to every peer at its rate over UDP
 * or RDMA UD (ud.c), the peer's responder echoing them; pongs matched here. */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "monitor_int.h"

int md_msg_parse(const void *buf, size_t len, struct md_msg *m)
{
	if (len != MD_MSG_LEN && len != MD_PONG_DWELL_LEN)
		return -EINVAL;
	memset(m, 0, sizeof(*m));
	memcpy(m, buf, len);
	m->magic = ntohl(m->magic);
	m->type = ntohl(m->type);
	m->id = ntohl(m->id);
	m->seq = ntohl(m->seq);
	m->dwell_ns = ntohl(m->dwell_ns);
	m->rsvd = 0;
	if (m->magic != MD_MAGIC || (m->type != MD_PING && m->type != MD_PONG) ||
	    (len == MD_PONG_DWELL_LEN && m->type != MD_PONG))
		return -EINVAL;
	return 0;
}

/* "IP", "IP:PORT" or "[IPv6]:PORT" (as the pinglist checked it) to a socket address. */
int md_addr(const char *s, unsigned int def_port, struct sockaddr_storage *sa, socklen_t *len)
{
	char buf[80];
	const char *port = NULL;
	struct sockaddr_in *s4 = (struct sockaddr_in *)sa;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)sa;
	unsigned long p = def_port;

	memset(sa, 0, sizeof(*sa));
	snprintf(buf, sizeof(buf), "%s", s);
	if (buf[0] == '[') {
		char *e = strchr(buf, ']');

		if (!e)
			return -EINVAL;
		*e = 0;
		port = e[1] == ':' ? e + 2 : NULL;
		if (inet_pton(AF_INET6, buf + 1, &s6->sin6_addr) != 1)
			return -EINVAL;
		s6->sin6_family = AF_INET6;
	} else if (inet_pton(AF_INET6, buf, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
	} else {
		char *c = strchr(buf, ':');

		if (c) {
			*c = 0;
			port = c + 1;
		}
		if (inet_pton(AF_INET, buf, &s4->sin_addr) != 1)
			return -EINVAL;
		s4->sin_family = AF_INET;
	}
	if (port)
		p = strtoul(port, NULL, 10);
	if (!p || p > 65535)
		return -EINVAL;
	if (s4->sin_family == AF_INET) {
		s4->sin_port = htons((uint16_t)p);
		*len = sizeof(*s4);
	} else {
		s6->sin6_port = htons((uint16_t)p);
		*len = sizeof(*s6);
	}
	return 0;
}

uint64_t md_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void put(struct md_msg *m, uint32_t type, uint32_t id, uint32_t seq, uint64_t t)
{
	m->magic = htonl(MD_MAGIC);
	m->type = htonl(type);
	m->id = htonl(id);
	m->seq = htonl(seq);
	m->t_ns = t;
}

/* Send @n prepared datagrams. sendmmsg may send fewer than asked with no
 * error: the rest go in the next call. One the route refuses (no route, a
 * firewall) is skipped and the rest still go: its loss is the timeout's, as
 * on the wire. A full send buffer (EAGAIN, ENOBUFS) is waited out once, for
 * MD_TX_WAIT_MS; still full, each datagram refused is skipped in turn (at
 * most @n calls) and the timeout counts it: a host that cannot send is a
 * path that loses. */
static void send_batch(int fd, struct mmsghdr *h, unsigned int n)
{
	unsigned int off = 0, intr = 0;
	bool waited = false;

	while (off < n) {
		int r = sendmmsg(fd, h + off, n - off, MSG_DONTWAIT), err = errno;
		struct pollfd pfd = { .fd = fd, .events = POLLOUT };

		if (r > 0) {
			off += (unsigned int)r;
		} else if (r < 0 && err == EINTR && intr++ < 4) {
			continue;
		} else if (r < 0 && (err == EAGAIN || err == EWOULDBLOCK || err == ENOBUFS) && !waited) {
			waited = true;
			(void)poll(&pfd, 1, MD_TX_WAIT_MS);
		} else {
			off++;
		}
	}
}

/* send_batch(), timed: a datagram's share of it kept as a running mean. */
static void send_timed(struct rck_monitor *m, struct mmsghdr *h, unsigned int n)
{
	uint64_t t0 = md_now(), d;

	send_batch(m->fd, h, n);
	if (!n)
		return;
	d = (md_now() - t0) / n;
	m->tx_dgram_ns = m->tx_dgram_ns ? (7 * m->tx_dgram_ns + d) / 8 : d;
}

void md_flush(struct rck_monitor *m)
{
	uint64_t t = md_now(), t1;

	/* stamped as they go out: a preemption between queueing and sending is
	 * this host's delay, not the path's RTT */
	for (unsigned int k = 0; k < m->n_tx; k++) {
		struct md_peer *p = &m->peers[m->tx_peer[k]];

		p->slot[ntohl(m->tx_msg[k].seq) % MD_SLOTS].t_ns = t;
		m->tx_msg[k].t_ns = t;
	}
	send_timed(m, m->tx_hdr, m->n_tx);
	/* the k-th of a batch left about k/n of the call later: in a batch of
	 * 64 the last leaves tens of microseconds after the first, as much as
	 * a fabric's RTT, and always the same peers are last */
	t1 = md_now();
	for (unsigned int k = 0; k < m->n_tx; k++)
		m->peers[m->tx_peer[k]].slot[ntohl(m->tx_msg[k].seq) % MD_SLOTS].sent_ns =
			t + (t1 - t) * (k + 1) / m->n_tx;
	m->n_tx = 0;
}

static void queue(struct rck_monitor *m, unsigned int peer, const struct md_msg *msg,
		  const struct sockaddr_storage *sa, socklen_t salen)
{
	unsigned int k = m->n_tx++;

	m->tx_peer[k] = peer;
	m->tx_msg[k] = *msg;
	m->tx_iov[k] = (struct iovec){ .iov_base = &m->tx_msg[k], .iov_len = MD_MSG_LEN };
	m->tx_hdr[k] = (struct mmsghdr){ .msg_hdr = { .msg_name = (void *)sa, .msg_namelen = salen,
						      .msg_iov = &m->tx_iov[k], .msg_iovlen = 1 } };
	if (m->n_tx == MD_BATCH)
		md_flush(m);
}

void md_send(struct rck_monitor *m, unsigned int i, uint64_t now)
{
	struct md_peer *p = &m->peers[i];
	unsigned int s = p->seq % MD_SLOTS;
	struct md_msg msg;

	if (p->slot[s].busy) { /* a probe a whole ring old: lost */
		mw_lost(&p->win);
		p->lost_total++;
	}
	memset(&msg, 0, sizeof(msg));
	/* over UDP the responder may answer on its tick: ask for its dwell */
	put(&msg, MD_PING, p->rdma ? i : i | MD_ID_DWELL, p->seq, now);
	p->slot[s].seq = p->seq;
	p->slot[s].t_ns = p->slot[s].sent_ns = now;
	p->slot[s].busy = true;
	p->slot[s].has_tx = p->slot[s].pend_rx = false;
	p->seq++;
	mw_sent(&p->win);
	p->sent_total++;
	/* a full queue or an unreachable peer is a probe lost, seen by the timeout */
	if (p->rdma)
		(void)mu_send(&m->ud[p->ep], p->gid, p->sgid_index, p->qpn, p->qkey, &msg,
			      ((uint64_t)i << 32) | (p->seq - 1));
	else
		queue(m, i, &msg, &p->sa, p->salen);
}

void md_match(struct rck_monitor *m, const struct md_msg *msg, bool rdma, uint64_t now,
	      const uint64_t *nic_rx)
{
	uint32_t id = rdma ? msg->id : msg->id & ~MD_ID_DWELL;
	struct md_peer *p;
	unsigned int s;

	if (id >= m->n_peers)
		return;
	p = &m->peers[id];
	s = msg->seq % MD_SLOTS;
	/* only a probe still in flight over the path it went, with the time we
	 * sent (a forged or late answer does not count) */
	if (p->rdma != rdma || !p->slot[s].busy || p->slot[s].seq != msg->seq || p->slot[s].t_ns != msg->t_ns)
		return;
	p->slot[s].busy = false;
	if (!nic_rx) {
		/* the responder's wait (0 from one before dwell) is not the path's */
		uint64_t rtt = now > p->slot[s].sent_ns ? now - p->slot[s].sent_ns : 0;

		mw_rtt(&p->win, (double)(rtt > msg->dwell_ns ? rtt - msg->dwell_ns : 0) / 1e3);
	} else if (p->slot[s].has_tx) {
		mw_rtt(&p->win, mu_ticks_us(&m->ud[p->ep], p->slot[s].nic_tx, *nic_rx));
	} else { /* the send's completion not polled yet: the RTT once it is */
		p->slot[s].nic_rx = *nic_rx;
		p->slot[s].pend_rx = true;
	}
}

void md_sent_at(struct rck_monitor *m, uint32_t peer, uint32_t seq, uint64_t ts)
{
	struct md_peer *p;
	unsigned int s;

	if (peer >= m->n_peers || !m->peers[peer].rdma)
		return;
	p = &m->peers[peer];
	s = seq % MD_SLOTS;
	if (p->slot[s].seq != seq)
		return;
	if (p->slot[s].pend_rx) {
		p->slot[s].pend_rx = false;
		mw_rtt(&p->win, mu_ticks_us(&m->ud[p->ep], ts, p->slot[s].nic_rx));
	} else {
		p->slot[s].nic_tx = ts;
		p->slot[s].has_tx = true;
	}
}

void md_loop_seen(struct rck_monitor *m, uint64_t now)
{
	if (m->loop_ns && now > m->loop_ns + MD_STALL_NS) {
		m->stalls++;
		if (now - m->loop_ns > m->stall_max_ns)
			m->stall_max_ns = now - m->loop_ns;
		m->resume_ns = now;
	}
	m->loop_ns = now;
}

/* Slots are taken in sequence order and stamped in time order, so each
 * peer's scan starts at its oldest probe that may be in flight (tail) and
 * stops at the first one not yet due: O(probes), not O(peers x MD_SLOTS). */
void md_expire(struct rck_monitor *m, uint64_t now)
{
	for (unsigned int i = 0; i < m->n_peers; i++) {
		struct md_peer *p = &m->peers[i];

		if (p->seq - p->tail > MD_SLOTS)
			p->tail = p->seq - MD_SLOTS;
		for (; p->tail != p->seq; p->tail++) {
			unsigned int s = p->tail % MD_SLOTS;
			uint64_t from = p->slot[s].t_ns > m->resume_ns ? p->slot[s].t_ns : m->resume_ns;

			if (!p->slot[s].busy || p->slot[s].seq != p->tail)
				continue;
			/* stamped after @now (sent in this pass) or not due: nor are
			 * the later ones. Over UDP a responder holds a ping up to its
			 * tick (its dwell, taken out of the RTT): not the path's loss */
			if (now <= from || now - from <= m->th.probe_timeout_ns + (p->rdma ? 0 : MD_TICK_MAX_NS))
				break;
			p->slot[s].busy = false;
			mw_lost(&p->win);
			p->lost_total++;
		}
	}
}

static uint64_t real_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

bool md_recv_eager(const struct rck_monitor *m, uint64_t now)
{
	return m->legacy_ns && now < m->legacy_ns + MD_LEGACY_NS;
}

/* Drain the socket: answer pings (one sendmmsg per batch read), match
 * pongs. Read on the tick, a datagram waited up to a tick here: a pong
 * is matched at its receive stamp, and a ping's wait goes back in its pong
 * (the dwell) for the prober to take out. Never blocks. */
void md_recv(struct rck_monitor *m)
{
	struct sockaddr_storage from[MD_BATCH];
	unsigned char buf[MD_BATCH][64];
	union {
		struct cmsghdr align;
		unsigned char b[CMSG_SPACE(sizeof(struct timespec))];
	} ctl[MD_BATCH];
	struct iovec iov[MD_BATCH], oiov[MD_BATCH];
	struct mmsghdr h[MD_BATCH], out[MD_BATCH];
	struct md_msg pong[MD_BATCH];
	uint64_t rx_real[MD_BATCH];

	for (int budget = 0; budget < 4096;) {
		unsigned int n_out = 0;
		uint64_t mono, real, sent;
		int n;

		for (unsigned int k = 0; k < MD_BATCH; k++) {
			iov[k] = (struct iovec){ .iov_base = buf[k], .iov_len = sizeof(buf[k]) };
			h[k] = (struct mmsghdr){ .msg_hdr = { .msg_name = &from[k], .msg_namelen = sizeof(from[k]),
							      .msg_iov = &iov[k], .msg_iovlen = 1,
							      .msg_control = ctl[k].b, .msg_controllen = sizeof(ctl[k].b) } };
		}
		n = recvmmsg(m->fd, h, MD_BATCH, MSG_DONTWAIT, NULL);
		if (n <= 0)
			return;
		budget += n;
		mono = md_now();
		real = real_ns();
		for (int k = 0; k < n; k++) {
			size_t len = h[k].msg_len;
			socklen_t flen = h[k].msg_hdr.msg_namelen;
			uint64_t stamp = mt_rx_stamp(&h[k].msg_hdr), at = mono;
			struct md_msg msg;

			/* the stamp on the monotonic clock; none, or one after now
			 * (the wall clock stepped back), is now */
			if (stamp && stamp <= real && real - stamp < mono)
				at = mono - (real - stamp);
			if (len == MD_HELLO_LEN) {
				struct md_hello hl;

				if (!md_hello_parse(buf[k], len, &hl))
					md_hello_recv(m, &hl, &from[k], flen);
				continue;
			}
			if (md_msg_parse(buf[k], len, &msg))
				continue;
			if (msg.type == MD_PING) {
				struct md_msg *o = &pong[n_out];
				bool dwell = msg.id & MD_ID_DWELL;

				if (!dwell)
					m->legacy_ns = mono ? mono : 1;
				*o = msg;
				o->magic = htonl(MD_MAGIC);
				o->type = htonl(MD_PONG);
				o->id = htonl(msg.id);
				o->seq = htonl(msg.seq);
				rx_real[n_out] = stamp && stamp <= real ? stamp : real;
				oiov[n_out] = (struct iovec){ .iov_base = o,
							      .iov_len = dwell ? MD_PONG_DWELL_LEN : MD_MSG_LEN };
				out[n_out] = (struct mmsghdr){ .msg_hdr = { .msg_name = &from[k], .msg_namelen = flen,
									    .msg_iov = &oiov[n_out], .msg_iovlen = 1 } };
				n_out++;
				continue;
			}
			md_match(m, &msg, false, at, NULL);
		}
		/* the dwell: from each ping's arrival to when its pong leaves,
		 * the k-th of the batch k datagrams' sending later */
		sent = real_ns();
		for (unsigned int k = 0; k < n_out; k++) {
			uint64_t at = sent + m->tx_dgram_ns * (k + 1), d = at > rx_real[k] ? at - rx_real[k] : 0;

			pong[k].dwell_ns = htonl(d > UINT32_MAX ? UINT32_MAX : (uint32_t)d);
			if (oiov[k].iov_len == MD_PONG_DWELL_LEN)
				m->dwell_pongs++;
			else
				m->legacy_pongs++;
		}
		send_timed(m, out, n_out);
		if (n < MD_BATCH)
			return;
	}
}
