/* The monitor's loop: probes at each peer's rate, counters every second,
 * windows closed with K-of-N hysteresis, events and files on each change. */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "monitor_int.h"
#include "rocecheck/inventory.h"
#include "sysfs_cache.h"

#define NS 1000000000ull

RCK_EXPORT int rck_monitor_new(struct rck_ctx *ctx, const struct rck_monitor_config *cfg,
			       struct rck_monitor **out)
{
	struct sockaddr_storage sa;
	socklen_t salen;
	struct rck_monitor *m;
	unsigned int n = cfg && cfg->pl ? cfg->pl->n : 0;
	int rc;

	if (!ctx || !cfg || !out)
		return -EINVAL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->ctx = ctx;
	m->fd = -1;
	pthread_mutex_init(&m->snap_mu, NULL);
	m->cfg = *cfg;
	m->cfg.pl = NULL;
	m->cfg.th = NULL;
	m->cfg.host = m->cfg.listen = m->cfg.textfile = m->cfg.npd = NULL;
	if ((cfg->host && !(m->cfg.host = strdup(cfg->host))) ||
	    (cfg->textfile && !(m->cfg.textfile = strdup(cfg->textfile))) ||
	    (cfg->npd && !(m->cfg.npd = strdup(cfg->npd))) ||
	    !(m->peers = calloc(n ? n : 1, sizeof(*m->peers)))) {
		rc = -ENOMEM;
		goto fail;
	}
	mr_th_from(&m->th, cfg->th);
	mh_init(&m->hold_ctr, cfg->hold_k, cfg->hold_n);
	mh_init(&m->hold_probe, cfg->hold_k, cfg->hold_n);
	for (unsigned int i = 0; i < n; i++) {
		struct md_peer *p = &m->peers[i];

		snprintf(p->name, sizeof(p->name), "%s", cfg->pl->peers[i].name);
		snprintf(p->addr, sizeof(p->addr), "%s", cfg->pl->peers[i].addr);
		p->rate_hz = cfg->pl->peers[i].rate_hz;
		p->last.p50_us = p->last.p99_us = NAN;
		if ((rc = md_addr(p->addr, cfg->port, &p->sa, &p->salen)))
			goto fail;
	}
	m->n_peers = n;
	if ((rc = md_addr(cfg->listen ? cfg->listen : "0.0.0.0", cfg->port ? cfg->port : 1, &sa, &salen)))
		goto fail;
	if (!cfg->port)
		((struct sockaddr_in *)&sa)->sin_port = 0; /* same offset in sockaddr_in6 */
	m->fd = socket(sa.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (m->fd < 0 || bind(m->fd, (struct sockaddr *)&sa, salen)) {
		rc = -errno;
		goto fail;
	}
	salen = sizeof(sa);
	if (getsockname(m->fd, (struct sockaddr *)&sa, &salen)) {
		rc = -errno;
		goto fail;
	}
	m->port = ntohs(((struct sockaddr_in *)&sa)->sin_port);
	/* room for pings and answers that arrive while this process is not
	 * scheduled (the default ~200 KiB holds ~50 ms of 8 NICs x 64 peers);
	 * FORCE needs CAP_NET_ADMIN, the plain option is capped by rmem_max */
	if (setsockopt(m->fd, SOL_SOCKET, SO_RCVBUFFORCE, &(int){ MD_RCVBUF }, sizeof(int)))
		(void)setsockopt(m->fd, SOL_SOCKET, SO_RCVBUF, &(int){ MD_RCVBUF }, sizeof(int));
	/* the socket is read on the tick: each datagram's arrival is the
	 * kernel's stamp, not the read's (without it the read's, as before) */
	(void)setsockopt(m->fd, SOL_SOCKET, SO_TIMESTAMPNS, &(int){ 1 }, sizeof(int));
	if ((rc = md_paths_open(m)))
		goto fail;
	*out = m;
	return 0;
fail:
	rck_monitor_free(m);
	return rc;
}

RCK_EXPORT void rck_monitor_free(struct rck_monitor *m)
{
	if (!m)
		return;
	md_metrics_free(m);
	md_paths_close(m);
	pthread_mutex_destroy(&m->snap_mu);
	if (m->fd >= 0)
		close(m->fd);
	free(m->cfg.host);
	free(m->cfg.textfile);
	free(m->cfg.npd);
	free(m->peers);
	free(m->ports);
	rck_inventory_free(m->inv);
	sysfs_cache_free(m->files);
	ms_taps_close(&m->taps);
	mf_list_free(&m->ctr_now);
	mf_list_free(&m->probe_now);
	mh_free(&m->hold_ctr);
	mh_free(&m->hold_probe);
	free(m);
}

RCK_EXPORT unsigned int rck_monitor_port(const struct rck_monitor *m)
{
	return m ? m->port : 0;
}

RCK_EXPORT void rck_monitor_stop(struct rck_monitor *m)
{
	if (m)
		m->stop = 1;
}

static struct mr_port *port_for(struct rck_monitor *m, const char *dev, unsigned int port)
{
	struct mr_port *v;

	for (unsigned int i = 0; i < m->n_ports; i++)
		if (m->ports[i].port == port && !strcmp(m->ports[i].device, dev))
			return &m->ports[i];
	v = realloc(m->ports, (m->n_ports + 1) * sizeof(*v));
	if (!v)
		return NULL;
	m->ports = v;
	v = &m->ports[m->n_ports++];
	memset(v, 0, sizeof(*v));
	snprintf(v->device, sizeof(v->device), "%s", dev);
	v->port = port;
	return v;
}

static int hold_and_report(struct rck_monitor *m, struct mh *h, const struct mf_list *now)
{
	unsigned int changed[256];
	int n = mh_window(h, now, changed, RCK_ARRAY_SIZE(changed));

	if (n < 0)
		return n;
	for (int i = 0; i < n; i++)
		md_event_finding(m, &h->v[changed[i]].last, h->v[changed[i]].counts);
	return n;
}

/* One second: every port read once, the rules, the storm attribution. */
static int poll_counters(struct rck_monitor *m)
{
	struct ms_sample *s = NULL;
	char (*names)[MF_STR] = NULL;
	unsigned int *ports = NULL, n = 0;
	struct mr_pause *pv;
	int rc, src;

	mf_list_clear(&m->ctr_now);
	bool dcb = m->want_dcb || !m->polls;

	if (m->cfg.counters && !ms_poll(m->ctx, dcb, &m->inv, &m->files, dcb || m->polls % MD_INV_POLLS == 0,
					&s, &names, &ports, &n)) {
		m->want_dcb = false;
		pv = calloc(n ? n : 1, sizeof(*pv));
		for (unsigned int i = 0; i < n; i++) {
			struct mr_port *p = port_for(m, names[i], ports[i]);

			if (!p)
				continue;
			/* a recorded tree's netdevs are not this host's */
			src = !rck_ctx_is_recorded(m->ctx) ? ms_taps_fill(&m->taps, &s[i], m->polls % MD_INV_POLLS == 0) :
			      ms_has_pfc_counters(&s[i]) ? 0 : -EOPNOTSUPP;
			if (!p->pause_said || src != p->pause_src) {
				p->pause_src = src;
				p->pause_said = true;
				md_event_pause_source(m, p, s[i].netdev, src);
			}
			mr_poll(p, &s[i], &m->th, &m->ctr_now);
			/* DCB again on the next poll while a port is down or just flapped */
			m->want_dcb |= p->flapped || !s[i].link_up;
			/* the comparison after a flap is said once DCB was read too */
			if (p->compared && dcb) {
				md_event_compared(m, p);
				p->compared = false;
			} else if (p->compared) {
				m->want_dcb = true;
			}
			if (pv)
				pv[i] = (struct mr_pause){ .host = NULL, .device = p->device, .port = p->port,
							   .tx_frac = p->tx_frac, .rx_frac = p->rx_frac,
							   .prio = p->tx_prio, .tapped = p->pause_tapped };
		}
		if (pv)
			mr_storms(pv, n, m->th.pause_fraction, &m->ctr_now);
		free(pv);
		free(s);
		free(names);
		free(ports);
	}
	m->polls++;
	rc = hold_and_report(m, &m->hold_ctr, &m->ctr_now);
	return rc < 0 ? rc : 0;
}

static int close_window(struct rck_monitor *m)
{
	struct mr_peerwin *v = calloc(m->n_peers ? m->n_peers : 1, sizeof(*v));
	char dev[MF_STR];
	int rc;

	if (!v)
		return -ENOMEM;
	mf_list_clear(&m->probe_now);
	for (unsigned int i = 0; i < m->n_peers; i++) {
		mw_stats(&m->peers[i].win, &m->peers[i].last);
		mw_reset(&m->peers[i].win);
	}
	/* one call per NIC (UDP counts as one): most peers lossy names the NIC */
	for (int e = -1; e < (int)m->n_ud; e++) {
		unsigned int k = 0, port = e < 0 ? m->port : m->ud[e].port;

		for (unsigned int i = 0; i < m->n_peers; i++) {
			const struct md_peer *p = &m->peers[i];

			if ((p->rdma ? p->ep : -1) == e)
				v[k++] = (struct mr_peerwin){ .peer = p->name, .s = p->last };
		}
		snprintf(dev, sizeof(dev), "%s", e < 0 ? "udp" : m->ud[e].device);
		if (k || e < 0)
			mr_probes(dev, port, v, k, &m->th, &m->probe_now);
	}
	free(v);
	m->windows++;
	rc = hold_and_report(m, &m->hold_probe, &m->probe_now);
	return rc < 0 ? rc : 0;
}

RCK_EXPORT int rck_monitor_run(struct rck_monitor *m)
{
	uint64_t start, next_poll, next_win, end, next_tick, next_expire;
	double hz = 0;
	int rc = 0;

	if (!m)
		return -EINVAL;
	start = md_now();
	m->start_ns = start;
	for (unsigned int i = 0; i < m->n_peers; i++)
		md_event_path(m, &m->peers[i]);
	next_poll = start;
	next_tick = start;
	next_expire = start + MD_EXPIRE_NS;
	for (unsigned int i = 0; i < m->n_peers; i++)
		if (m->peers[i].rate_hz > hz)
			hz = m->peers[i].rate_hz;
	m->tick_ns = hz > 0 ? (uint64_t)(NS / hz / 2) : MD_TICK_MAX_NS;
	if (m->tick_ns < MD_TICK_NS)
		m->tick_ns = MD_TICK_NS;
	if (m->tick_ns > MD_TICK_MAX_NS)
		m->tick_ns = MD_TICK_MAX_NS;
	next_win = start + (uint64_t)m->cfg.window_s * NS;
	end = m->cfg.duration > 0 ? start + (uint64_t)(m->cfg.duration * 1e9) : UINT64_MAX;
	/* spread the first probes over one period so peers are not hit at once */
	for (unsigned int i = 0; i < m->n_peers; i++)
		m->peers[i].next_ns = start + (uint64_t)((double)NS / m->peers[i].rate_hz * i / (m->n_peers + 1));
	while (!m->stop && !rc) {
		uint64_t now = md_now(), wake = next_poll < next_win ? next_poll : next_win;
		struct pollfd pfd[1 + MD_UD_POLL];
		unsigned int nfd = 1;
		int ms;

		if (now >= end)
			break;
		md_loop_seen(m, now);
		/* sends are batched on the tick: one pass over the peers per
		 * tick, not per probe */
		if (now >= next_tick) {
			for (unsigned int i = 0; i < m->n_peers; i++) {
				struct md_peer *p = &m->peers[i];

				if (now < p->next_ns)
					continue;
				if (!md_path_blocked(m, p, now))
					md_send(m, i, now);
				p->next_ns += (uint64_t)((double)NS / p->rate_hz);
				if (p->next_ns < now) /* fell behind (a stopped process): no burst */
					p->next_ns = now + (uint64_t)((double)NS / p->rate_hz);
			}
			md_flush(m);
			next_tick = now + m->tick_ns;
			md_paths_tick(m, now);
			/* a completion whose event was missed waits one tick at most */
			for (unsigned int e = 0; e < m->n_ud; e++)
				mu_poll(m, e);
			/* pings and pongs of the tick, in one read: answers that
			 * arrived while this process was not scheduled are read
			 * before the timeout is applied (a stalled prober is no loss) */
			md_recv(m);
			if (now >= next_expire) {
				next_expire = now + MD_EXPIRE_NS;
				md_expire(m, now);
				ms_taps_drain(&m->taps);
			}
		}
		/* a responder without peers ticks too: its socket is read on it */
		if (next_tick < wake)
			wake = next_tick;
		if (now >= next_poll) {
			rc = poll_counters(m);
			/* /metrics says the ports' state from the first poll on, not
			 * from the first window's end (a restart is no link down) */
			if (!rc && m->polls == 1)
				md_metrics_snapshot(m);
			next_poll += NS;
			if (next_poll <= now)
				next_poll = now + NS;
		}
		if (!rc && now >= next_win) {
			rc = close_window(m);
			next_win += (uint64_t)m->cfg.window_s * NS;
			if (next_win <= now)
				next_win = now + (uint64_t)m->cfg.window_s * NS;
			if (!rc) {
				md_write_files(m);
				md_metrics_snapshot(m);
			}
		}
		now = md_now();
		if (wake > end)
			wake = end;
		/* bounded: the next thing due, and never over 100 ms (stop is seen) */
		ms = wake > now ? (int)((wake - now + 999999) / 1000000) : 0;
		if (ms > 100)
			ms = 100;
		/* the UDP socket waits for the tick unless a prober before dwell
		 * is answered (then fd -1: poll() skips it) */
		pfd[0] = (struct pollfd){ .fd = md_recv_eager(m, now) ? m->fd : -1, .events = POLLIN };
		for (unsigned int e = 0; e < m->n_ud && e < MD_UD_POLL; e++)
			pfd[nfd++] = (struct pollfd){ .fd = mu_fd(&m->ud[e]), .events = POLLIN };
		if (poll(pfd, nfd, ms) > 0) {
			if (pfd[0].revents)
				md_recv(m);
			for (unsigned int f = 1; f < nfd; f++)
				if (pfd[f].revents)
					mu_poll(m, f - 1);
		}
	}
	if (!rc)
		md_write_files(m);
	return rc;
}
