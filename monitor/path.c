/* Which transport serves each peer (RDMA UD where this host has a device for
 * the peer's address, UDP otherwise) and the hello that learns the peer's UD QPN. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../probes/gid_select.h"
#include "monitor_int.h"
#include "rocecheck/inventory.h"

#define NS 1000000000ull
/* Forced RDMA: a peer whose QPN is still unknown this long after the start
 * (its monitor starting too) counts its probes lost. */
#define MD_HELLO_GRACE_NS (5 * NS)
/* A peer that said it has no UD endpoint is asked again this often. */
#define MD_HELLO_RETRY_NS (10 * NS)

void md_hello_put(const struct md_hello *h, uint8_t buf[MD_HELLO_LEN])
{
	uint32_t w[6] = { htonl(MD_MAGIC), htonl(h->type), htonl(h->id), htonl(h->qpn), htonl(h->qkey), 0 };

	memcpy(buf, w, 24);
	memcpy(buf + 24, h->addr, 16);
	memcpy(buf + 40, h->gid, 16);
}

int md_hello_parse(const void *buf, size_t len, struct md_hello *h)
{
	uint32_t w[6];

	if (len != MD_HELLO_LEN)
		return -EINVAL;
	memcpy(w, buf, 24);
	if (ntohl(w[0]) != MD_MAGIC || w[5])
		return -EINVAL;
	h->type = ntohl(w[1]);
	h->id = ntohl(w[2]);
	h->qpn = ntohl(w[3]);
	h->qkey = ntohl(w[4]);
	memcpy(h->addr, (const uint8_t *)buf + 24, 16);
	memcpy(h->gid, (const uint8_t *)buf + 40, 16);
	/* QPNs are 24 bits; a hello asks, it carries no endpoint */
	if ((h->type != MD_HELLO && h->type != MD_HELLO_ACK) || h->qpn > 0xffffff ||
	    (h->type == MD_HELLO && h->qpn))
		return -EINVAL;
	return 0;
}

/* An address as a GID would hold it: IPv4-mapped for IPv4. */
static void to_gid(const struct sockaddr_storage *sa, uint8_t out[16])
{
	memset(out, 0, 16);
	if (sa->ss_family == AF_INET) {
		out[10] = out[11] = 0xff;
		memcpy(out + 12, &((const struct sockaddr_in *)sa)->sin_addr, 4);
	} else {
		memcpy(out, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
	}
}

static void from_gid(const uint8_t g[16], struct sockaddr_storage *sa)
{
	static const uint8_t v4[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	memset(sa, 0, sizeof(*sa));
	if (!memcmp(g, v4, 12)) {
		sa->ss_family = AF_INET;
		memcpy(&((struct sockaddr_in *)sa)->sin_addr, g + 12, 4);
	} else {
		sa->ss_family = AF_INET6;
		memcpy(&((struct sockaddr_in6 *)sa)->sin6_addr, g, 16);
	}
}

int md_select(const struct rck_inventory *inv, enum rck_monitor_transport mode,
	      const struct sockaddr_storage *src, struct gsel *g, char *why, size_t len)
{
	char err[200] = "no route to the peer";

	if (mode == RCK_MONITOR_TRANSPORT_UDP) {
		snprintf(why, len, "UDP asked for");
		return MD_PATH_UDP;
	}
	if (inv && src && !gsel_pick(inv, NULL, 0, -1, src, g, err, sizeof(err))) {
		snprintf(why, len, "%s port %u GID %d holds the route's source address", g->device, g->port,
			 g->gid_index);
		return MD_PATH_RDMA;
	}
	if (mode == RCK_MONITOR_TRANSPORT_RDMA) {
		snprintf(why, len, "no RDMA device for this peer: %s", err);
		return -ENODEV;
	}
	snprintf(why, len, "no RDMA device for this peer (%s)", err);
	return MD_PATH_UDP;
}

static int find_ud(const struct rck_monitor *m, const char *device, unsigned int port)
{
	for (unsigned int e = 0; e < m->n_ud; e++)
		if (m->ud[e].port == port && !strcmp(m->ud[e].device, device))
			return (int)e;
	return -1;
}

static bool roce_v2_ipv4(const struct rck_gid *gid)
{
	static const uint8_t v4[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	const char *t = rck_gid_type_str(gid);

	return t && !strcmp(t, "RoCE v2") && !memcmp(rck_gid_raw(gid), v4, 12);
}

/* A UD endpoint on every port holding a RoCE v2 IPv4 GID; one that fails
 * to open is left out (@why keeps the last failure). */
static int open_endpoints(struct rck_monitor *m, char *why, size_t len)
{
	const struct rck_inventory *inv = m->inv;

	for (unsigned int d = 0; d < rck_inventory_device_count(inv); d++) {
		const struct rck_device *dev = rck_inventory_device(inv, d);

		for (unsigned int p = 0; p < rck_device_port_count(dev); p++) {
			const struct rck_port *port = rck_device_port(dev, p);
			bool any = false;
			struct md_ud *v;

			for (unsigned int k = 0; k < rck_port_gid_count(port) && !any; k++)
				any = roce_v2_ipv4(rck_port_gid(port, k));
			if (!any || find_ud(m, rck_device_name(dev), rck_port_num(port)) >= 0)
				continue;
			v = realloc(m->ud, (m->n_ud + 1) * sizeof(*v));
			if (!v)
				return -ENOMEM;
			m->ud = v;
			if (mu_open(&m->ud[m->n_ud], rck_device_name(dev), rck_port_num(port), why, len))
				mu_close(&m->ud[m->n_ud]);
			else
				m->n_ud++;
		}
	}
	return 0;
}

int md_paths_open(struct rck_monitor *m)
{
	enum rck_monitor_transport mode = m->cfg.transport;
	char fail[200] = "";
	int rc;

	for (unsigned int i = 0; i < m->n_peers; i++)
		m->peers[i].ep = -1;
	if (mode != RCK_MONITOR_TRANSPORT_UDP) {
		if ((rc = rck_inventory_new(m->ctx, &m->inv)) && mode == RCK_MONITOR_TRANSPORT_RDMA)
			return rc;
		if (!rc && (rc = open_endpoints(m, fail, sizeof(fail))))
			return rc;
	}
	for (unsigned int i = 0; i < m->n_peers; i++) {
		struct md_peer *p = &m->peers[i];
		struct sockaddr_storage src;
		bool have_src = mode != RCK_MONITOR_TRANSPORT_UDP && !gsel_route_source(&p->sa, &src);
		struct gsel g;
		int path = md_select(m->inv, mode, have_src ? &src : NULL, &g, p->why, sizeof(p->why));

		if (path < 0)
			return path;
		if (path == MD_PATH_UDP)
			continue;
		p->ep = find_ud(m, g.device, g.port);
		p->sgid_index = g.gid_index;
		if (p->ep < 0) {
			snprintf(p->why, sizeof(p->why), "no UD endpoint on %s port %u: %s", g.device, g.port,
				 *fail ? fail : "not opened");
			if (mode == RCK_MONITOR_TRANSPORT_RDMA)
				return -ENODEV;
		} else {
			snprintf(p->why, sizeof(p->why), "waiting for the peer's UD QPN (hello)");
		}
	}
	return 0;
}

void md_paths_close(struct rck_monitor *m)
{
	for (unsigned int e = 0; e < m->n_ud; e++)
		mu_close(&m->ud[e]);
	free(m->ud);
	m->ud = NULL;
	m->n_ud = 0;
}

bool md_path_blocked(struct rck_monitor *m, struct md_peer *p, uint64_t now)
{
	if (p->rdma || m->cfg.transport != RCK_MONITOR_TRANSPORT_RDMA)
		return false;
	/* forced RDMA and no QPN yet: nothing to send it to */
	if (now - m->start_ns >= MD_HELLO_GRACE_NS) {
		mw_sent(&p->win);
		mw_lost(&p->win);
		p->sent_total++;
		p->lost_total++;
	}
	return true;
}

void md_paths_tick(struct rck_monitor *m, uint64_t now)
{
	for (unsigned int i = 0; i < m->n_peers; i++) {
		struct md_peer *p = &m->peers[i];
		struct md_hello h = { .type = MD_HELLO, .id = i };
		uint8_t buf[MD_HELLO_LEN];

		if (p->ep < 0 || p->rdma || now < p->hello_ns)
			continue;
		to_gid(&p->sa, h.addr);
		md_hello_put(&h, buf);
		(void)sendto(m->fd, buf, sizeof(buf), MSG_DONTWAIT, (struct sockaddr *)&p->sa, p->salen);
		p->hello_ns = now + (p->refused ? MD_HELLO_RETRY_NS : NS);
	}
}

static void answer(struct rck_monitor *m, struct md_hello *h, const struct sockaddr_storage *from, socklen_t flen)
{
	struct sockaddr_storage sa;
	uint8_t buf[MD_HELLO_LEN];
	struct gsel g;
	char err[200];
	int e = -1;

	from_gid(h->addr, &sa);
	if (m->inv && m->n_ud && !gsel_pick(m->inv, NULL, 0, -1, &sa, &g, err, sizeof(err)))
		e = find_ud(m, g.device, g.port);
	h->type = MD_HELLO_ACK;
	h->qpn = e >= 0 ? mu_qpn(&m->ud[e]) : 0;
	h->qkey = e >= 0 ? MU_QKEY : 0;
	memset(h->gid, 0, sizeof(h->gid));
	if (e >= 0)
		memcpy(h->gid, g.gid, 16);
	md_hello_put(h, buf);
	(void)sendto(m->fd, buf, sizeof(buf), MSG_DONTWAIT, (const struct sockaddr *)from, flen);
}

void md_hello_recv(struct rck_monitor *m, const struct md_hello *h, const struct sockaddr_storage *from,
		   socklen_t flen)
{
	struct md_hello copy = *h;
	struct md_peer *p;
	uint8_t want[16];
	char a[INET6_ADDRSTRLEN] = "";

	if (h->type == MD_HELLO) {
		answer(m, &copy, from, flen);
		return;
	}
	if (h->id >= m->n_peers)
		return;
	p = &m->peers[h->id];
	to_gid(&p->sa, want);
	if (p->ep < 0 || p->rdma || memcmp(want, h->addr, 16))
		return;
	if (!h->qpn) {
		if (!p->refused) {
			inet_ntop(AF_INET6, h->addr, a, sizeof(a));
			snprintf(p->why, sizeof(p->why), "the peer's monitor has no UD endpoint for %s", a);
			p->refused = true;
			md_event_path(m, p);
		}
		return;
	}
	p->qpn = h->qpn;
	p->qkey = h->qkey;
	memcpy(p->gid, h->gid, 16);
	/* probes in flight over UDP are forgotten, not lost: the window starts again on UD */
	for (unsigned int s = 0; s < MD_SLOTS; s++)
		p->slot[s].busy = false;
	mw_reset(&p->win);
	p->rdma = true;
	p->refused = false;
	snprintf(p->why, sizeof(p->why), "the peer's UD QPN %u learned by hello", h->qpn);
	md_event_path(m, p);
}

const char *md_peer_device(const struct rck_monitor *m, const struct md_peer *p, unsigned int *port)
{
	*port = p->rdma ? m->ud[p->ep].port : m->port;
	return p->rdma ? m->ud[p->ep].device : "udp";
}

const char *md_peer_timestamps(const struct rck_monitor *m, const struct md_peer *p)
{
	return p->rdma && m->ud[p->ep].nic_ts ? "nic" : "software";
}
