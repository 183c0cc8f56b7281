/* The monitor's metrics in the Prometheus text format (rocecheck_monitor_*):
 * what the textfile holds and what an HTTP /metrics handler serves. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "monitor_int.h"

void mp_family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void dp(FILE *f, const char *dev, unsigned int port)
{
	char b[16];

	snprintf(b, sizeof(b), "%u", port);
	mp_label(f, "device", dev);
	fputc(',', f);
	mp_label(f, "port", b);
}

static void peer_dp(FILE *f, const struct rck_monitor *m, const struct md_peer *p)
{
	unsigned int port;
	const char *dev = md_peer_device(m, p, &port);

	dp(f, dev, port);
	fputc(',', f);
	mp_label(f, "peer", p->name);
}

static void probes(FILE *f, const struct rck_monitor *m)
{
	static const char *const q[2] = {"0.5", "0.99"};

	/* quantiles without _sum and _count: a summary to the text format */
	mp_family(f, "rocecheck_monitor_rtt_seconds", "summary", "Probe round-trip time over the last window.");
	for (unsigned int i = 0; i < m->n_peers; i++) {
		const struct md_peer *p = &m->peers[i];
		double v[2] = {p->last.p50_us, p->last.p99_us};

		for (int k = 0; k < 2; k++) {
			if (!isfinite(v[k]))
				continue;
			fputs("rocecheck_monitor_rtt_seconds{", f);
			peer_dp(f, m, p);
			fputc(',', f);
			mp_label(f, "quantile", q[k]);
			fprintf(f, "} %.9g\n", v[k] / 1e6);
		}
	}
	mp_family(f, "rocecheck_monitor_probes_total", "counter", "Probes sent.");
	for (unsigned int i = 0; i < m->n_peers; i++) {
		fputs("rocecheck_monitor_probes_total{", f);
		peer_dp(f, m, &m->peers[i]);
		fprintf(f, "} %llu\n", (unsigned long long)m->peers[i].sent_total);
	}
	mp_family(f, "rocecheck_monitor_probes_lost_total", "counter", "Probes not answered in time.");
	for (unsigned int i = 0; i < m->n_peers; i++) {
		fputs("rocecheck_monitor_probes_lost_total{", f);
		peer_dp(f, m, &m->peers[i]);
		fprintf(f, "} %llu\n", (unsigned long long)m->peers[i].lost_total);
	}
}

static void ports(FILE *f, const struct rck_monitor *m)
{
	static const char *const dir[2] = {"rx", "tx"};

	mp_family(f, "rocecheck_monitor_link_up", "gauge", "1 when the port's link is up.");
	for (unsigned int i = 0; i < m->n_ports; i++) {
		if (!m->ports[i].have_prev) /* not polled yet: no series, not a 0 */
			continue;
		fputs("rocecheck_monitor_link_up{", f);
		dp(f, m->ports[i].device, m->ports[i].port);
		fprintf(f, "} %d\n", m->ports[i].prev.link_up ? 1 : 0);
	}
	mp_family(f, "rocecheck_monitor_link_flaps_total", "counter", "Link flaps seen since the monitor started.");
	for (unsigned int i = 0; i < m->n_ports; i++) {
		fputs("rocecheck_monitor_link_flaps_total{", f);
		dp(f, m->ports[i].device, m->ports[i].port);
		fprintf(f, "} %llu\n", (unsigned long long)m->ports[i].flaps);
	}
	mp_family(f, "rocecheck_monitor_errors_total", "counter", "Error counter increases since the monitor started.");
	for (unsigned int i = 0; i < m->n_ports; i++) {
		/* each in sample.c's ms_want: the poll reads no other */
		static const struct { unsigned int idx; const char *name; } e[] = {
			{RCK_CTR_SYMBOL_ERRORS, "symbol_errors"},
			{RCK_CTR_LINK_ERROR_RECOVERY, "link_error_recovery"},
			{RCK_CTR_LINK_DOWNED, "link_downed"},
			{RCK_CTR_TX_DISCARDS, "tx_discards"},
			{RCK_CTR_COUNT + MS_SLOW_RESTART, "slow_restart"},
		};
		const struct mr_port *p = &m->ports[i];

		for (size_t k = 0; k < RCK_ARRAY_SIZE(e); k++) {
			bool has = e[k].idx < RCK_CTR_COUNT ? p->prev.has[e[k].idx] :
				   p->prev.has_extra[e[k].idx - RCK_CTR_COUNT];

			if (!has)
				continue;
			fputs("rocecheck_monitor_errors_total{", f);
			dp(f, p->device, p->port);
			fputc(',', f);
			mp_label(f, "counter", e[k].name);
			fprintf(f, "} %llu\n", (unsigned long long)p->err_total[e[k].idx]);
		}
	}
	mp_family(f, "rocecheck_monitor_pfc_pause_seconds_total", "counter",
		  "Time paused (rx: by the peer; tx: pausing the peer) since the monitor started.");
	for (unsigned int i = 0; i < m->n_ports; i++) {
		const struct mr_port *p = &m->ports[i];

		for (int d = 0; d < 2; d++)
			for (unsigned int pr = 0; pr < 8; pr++) {
				enum rck_counter id = (enum rck_counter)((d ? RCK_CTR_PFC_TX_PAUSE_DURATION :
									  RCK_CTR_PFC_RX_PAUSE_DURATION) + pr);
				char b[4];

				if (!p->prev.has[id])
					continue;
				snprintf(b, sizeof(b), "%u", pr);
				fputs("rocecheck_monitor_pfc_pause_seconds_total{", f);
				dp(f, p->device, p->port);
				fputc(',', f);
				mp_label(f, "priority", b);
				fputc(',', f);
				mp_label(f, "direction", dir[d]);
				fprintf(f, "} %.9g\n", p->pause_s[d][pr]);
			}
	}
	mp_family(f, "rocecheck_monitor_ecn_marked_total", "counter", "ECN-marked packets received since the monitor started.");
	for (unsigned int i = 0; i < m->n_ports; i++) {
		if (!m->ports[i].prev.has[RCK_CTR_ECN_MARKED_PACKETS])
			continue;
		fputs("rocecheck_monitor_ecn_marked_total{", f);
		dp(f, m->ports[i].device, m->ports[i].port);
		fprintf(f, "} %llu\n", (unsigned long long)m->ports[i].ecn_total);
	}
	mp_family(f, "rocecheck_monitor_cnp_sent_total", "counter", "CNPs sent since the monitor started.");
	for (unsigned int i = 0; i < m->n_ports; i++) {
		if (!m->ports[i].prev.has[RCK_CTR_CNP_SENT])
			continue;
		fputs("rocecheck_monitor_cnp_sent_total{", f);
		dp(f, m->ports[i].device, m->ports[i].port);
		fprintf(f, "} %llu\n", (unsigned long long)m->ports[i].cnp_total);
	}
	mp_family(f, "rocecheck_monitor_state_changed", "gauge",
		  "1 while the port's RDMA state differs from the one first seen.");
	for (unsigned int i = 0; i < m->n_ports; i++)
		for (int w = 0; w < MS_WHAT_COUNT; w++) {
			fputs("rocecheck_monitor_state_changed{", f);
			dp(f, m->ports[i].device, m->ports[i].port);
			fputc(',', f);
			mp_label(f, "what", ms_what_name[w]);
			fprintf(f, "} %d\n", m->ports[i].changed[w] ? 1 : 0);
		}
}

static void findings(FILE *f, const struct mh *h)
{
	for (unsigned int i = 0; i < h->cnt; i++) {
		const struct mf *x = &h->v[i].last;
		char b[16];

		if (!h->v[i].counts)
			continue;
		snprintf(b, sizeof(b), "%u", x->port);
		fputs("rocecheck_monitor_finding{", f);
		mp_label(f, "code", x->code);
		fputc(',', f);
		mp_label(f, "device", x->device);
		fputc(',', f);
		mp_label(f, "port", b);
		fputc(',', f);
		mp_label(f, "peer", x->peer);
		fputc(',', f);
		mp_label(f, "severity", rck_severity_name(x->sev));
		fputs("} 1\n", f);
	}
}

RCK_EXPORT int rck_monitor_render(const struct rck_monitor *m, FILE *f)
{
	if (!m || !f)
		return -EINVAL;
	mp_family(f, "rocecheck_monitor_up", "gauge", "1 while the monitor runs.");
	fputs("rocecheck_monitor_up 1\n", f);
	mp_family(f, "rocecheck_monitor_timestamping", "gauge",
		  "1 for the kind of timestamps the probes use (hw: NIC completions, sw: host clock).");
	fputs("rocecheck_monitor_timestamping{", f);
	dp(f, "udp", m->port);
	fputs(",kind=\"sw\"} 1\n", f);
	for (unsigned int e = 0; e < m->n_ud; e++) {
		fputs("rocecheck_monitor_timestamping{", f);
		dp(f, m->ud[e].device, m->ud[e].port);
		fprintf(f, ",kind=\"%s\"} 1\n", m->ud[e].nic_ts ? "hw" : "sw");
	}
	mp_family(f, "rocecheck_monitor_probe_path", "gauge",
		  "1 for each peer's probe path: transport rdma-ud or udp, timestamps nic or software.");
	for (unsigned int i = 0; i < m->n_peers; i++) {
		fputs("rocecheck_monitor_probe_path{", f);
		peer_dp(f, m, &m->peers[i]);
		fputc(',', f);
		mp_label(f, "transport", m->peers[i].rdma ? "rdma-ud" : "udp");
		fputc(',', f);
		mp_label(f, "timestamps", md_peer_timestamps(m, &m->peers[i]));
		fputs("} 1\n", f);
	}
	probes(f, m);
	ports(f, m);
	mp_family(f, "rocecheck_monitor_finding", "gauge", "1 while a finding counts (K of N windows).");
	findings(f, &m->hold_ctr);
	findings(f, &m->hold_probe);
	return ferror(f) ? -EIO : 0;
}
