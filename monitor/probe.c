/* The monitor's probes: tiny datagrams to every peer at its rate over UDP
 * or RDMA UD (ud.c), the peer's responder echoing them; pongs matched here. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "monitor_int.h"

int md_msg_parse(const void *buf, size_t len, struct md_msg *m)
{
	if (len != sizeof(*m))
		return -EINVAL;
	memcpy(m, buf, sizeof(*m));
	m->magic = ntohl(m->magic);
	m->type = ntohl(m->type);
	m->id = ntohl(m->id);
	m->seq = ntohl(m->seq);
	if (m->magic != MD_MAGIC || (m->type != MD_PING && m->type != MD_PONG))
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

void md_send(struct rck_monitor *m, unsigned int i, uint64_t now)
{
	struct md_peer *p = &m->peers[i];
	unsigned int s = p->seq % MD_SLOTS;
	struct md_msg msg;

	if (p->slot[s].busy) { /* a probe a whole ring old: lost */
		mw_lost(&p->win);
		p->lost_total++;
	}
	put(&msg, MD_PING, i, p->seq, now);
	p->slot[s].seq = p->seq;
	p->slot[s].t_ns = now;
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
		(void)sendto(m->fd, &msg, sizeof(msg), MSG_DONTWAIT, (struct sockaddr *)&p->sa, p->salen);
}

void md_match(struct rck_monitor *m, const struct md_msg *msg, bool rdma, uint64_t now,
	      const uint64_t *nic_rx)
{
	struct md_peer *p;
	unsigned int s;

	if (msg->id >= m->n_peers)
		return;
	p = &m->peers[msg->id];
	s = msg->seq % MD_SLOTS;
	/* only a probe still in flight over the path it went, with the time we
	 * sent (a forged or late answer does not count) */
	if (p->rdma != rdma || !p->slot[s].busy || p->slot[s].seq != msg->seq || p->slot[s].t_ns != msg->t_ns)
		return;
	p->slot[s].busy = false;
	if (!nic_rx) {
		mw_rtt(&p->win, (double)(now - msg->t_ns) / 1e3);
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

void md_expire(struct rck_monitor *m, uint64_t now)
{
	for (unsigned int i = 0; i < m->n_peers; i++) {
		struct md_peer *p = &m->peers[i];

		for (unsigned int s = 0; s < MD_SLOTS; s++) {
			if (p->slot[s].busy && now - p->slot[s].t_ns > m->th.probe_timeout_ns) {
				p->slot[s].busy = false;
				mw_lost(&p->win);
				p->lost_total++;
			}
		}
	}
}

/* Drain the socket: answer pings, match pongs. Never blocks. */
void md_recv(struct rck_monitor *m)
{
	for (int budget = 0; budget < 4096; budget++) {
		struct sockaddr_storage from;
		socklen_t flen = sizeof(from);
		unsigned char buf[64];
		struct md_msg msg;
		ssize_t n = recvfrom(m->fd, buf, sizeof(buf), MSG_DONTWAIT, (struct sockaddr *)&from, &flen);

		if (n < 0)
			return;
		if ((size_t)n == MD_HELLO_LEN) {
			struct md_hello h;

			if (!md_hello_parse(buf, (size_t)n, &h))
				md_hello_recv(m, &h, &from, flen);
			continue;
		}
		if (md_msg_parse(buf, (size_t)n, &msg))
			continue;
		if (msg.type == MD_PING) {
			msg.magic = htonl(MD_MAGIC);
			msg.type = htonl(MD_PONG);
			msg.id = htonl(msg.id);
			msg.seq = htonl(msg.seq);
			(void)sendto(m->fd, &msg, sizeof(msg), MSG_DONTWAIT, (struct sockaddr *)&from, flen);
			continue;
		}
		md_match(m, &msg, false, md_now(), NULL);
	}
}
