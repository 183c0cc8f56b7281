/* Per-host checks on a host's inventory and counter deltas: port state and
 * rate, PCIe link, RoCE v2 GID, MTUs, error counters, pause storms. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_int.h"
#include "units.h"
#include "lint_pci.h"

RCK_EXPORT bool rck_analysis_pci_degraded(const struct rck_device *dev)
{
	double gts = 0, max_gts = 0;
	unsigned int w = 0, max_w = 0;

	if (!dev || !rck_device_pci_link(dev, &gts, &w) || !rck_device_pci_max_link(dev, &max_gts, &max_w))
		return false;
	return (w && max_w && w < max_w) || (gts > 0 && max_gts > 0 && gts < max_gts);
}

/* The largest RDMA path MTU a netdev MTU carries: RoCE v2 headers (IP,
 * UDP, BTH, extended headers, ICRC) take up to 96 bytes of it, as the
 * kernel's iboe_get_mtu() counts them. */
static unsigned int roce_mtu_for(unsigned int netdev_mtu)
{
	static const unsigned int ib[] = {4096, 2048, 1024, 512, 256};

	for (size_t i = 0; i < RCK_ARRAY_SIZE(ib); i++)
		if (netdev_mtu >= ib[i] + 96)
			return ib[i];
	return 0;
}

static void port_label(char *buf, size_t len, const char *dev, unsigned int port)
{
	snprintf(buf, len, "%s/%u", dev ? dev : "?", port);
}

static struct rck_finding *add_port(struct rck_report *r, const char *host, const char *dev,
				    unsigned int port, enum rck_finding_code code,
				    enum rck_severity sev, const char *fmt, const char *a1,
				    const char *a2) RCK_PRINTF(7, 0);
/* One finding about a port, with up to two string arguments in @fmt. */
static struct rck_finding *add_port(struct rck_report *r, const char *host, const char *dev,
				    unsigned int port, enum rck_finding_code code,
				    enum rck_severity sev, const char *fmt, const char *a1, const char *a2)
{
	char nic[80], reason[400];

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	snprintf(reason, sizeof(reason), fmt, a1, a2);
#pragma GCC diagnostic pop
	port_label(nic, sizeof(nic), dev, port);
	return an_add(r, code, sev, RCK_ENTITY_NIC, host, nic, NULL, NULL, "%s", reason);
}

static bool gid_v2_ipv4(const struct rck_port *p, bool *any_v2)
{
	*any_v2 = false;
	for (unsigned int g = 0; g < rck_port_gid_count(p); g++) {
		const struct rck_gid *gid = rck_port_gid(p, g);

		if (rck_gid_type(gid) != RCK_GID_TYPE_ROCE_V2)
			continue;
		*any_v2 = true;
		if (rck_gid_ipv4(gid))
			return true;
	}
	return false;
}

/* A port as judged: from an inventory, or as an agent described it. */
struct port_view {
	const char *dev, *state, *phys; /* phys NULL: not known (an agent's view) */
	unsigned int num, nmtu, amtu;   /* MTUs 0: unknown */
	bool has_rate, phys_known;
	double rate;
	int gid;                        /* 1 a RoCE v2 IPv4 GID; 0 v2 without IPv4; -1 none */
};

static void judge_port(const struct rck_analysis *a, struct rck_report *r, const char *host,
		       const struct port_view *v)
{
	const char *dev = v->dev, *state = v->state, *phys = v->phys;
	unsigned int num = v->num, nmtu = v->nmtu, amtu = v->amtu, want;
	double rate = v->rate, expect = an_th(a, TH_EXPECT_RATE_GBPS);
	struct rck_finding *f;
	char buf[64];

	if (!state || strcmp(state, "ACTIVE") || (v->phys_known && (!phys || strcmp(phys, "LinkUp")))) {
		add_port(r, host, dev, num, RCK_FINDING_PORT_DOWN, RCK_SEVERITY_CRITICAL,
			 "port state %s, physical state %s (expected ACTIVE, LinkUp)",
			 state ? state : "unknown", phys ? phys : "unknown");
		return;
	}
	if (expect > 0 && v->has_rate && rate < expect) {
		char have[32], exp[32];

		snprintf(buf, sizeof(buf), "%s, expected %s", units_rate(have, sizeof(have), rate),
			 units_rate(exp, sizeof(exp), expect));
		f = add_port(r, host, dev, num, RCK_FINDING_PORT_RATE, RCK_SEVERITY_DEGRADED,
			     "port rate %s", buf, NULL);
		an_value(f, "rate_gbps", rate);
		an_value(f, "expected_gbps", expect);
	}
	if (v->gid < 1)
		add_port(r, host, dev, num, RCK_FINDING_NO_ROCE_V2_GID,
			 v->gid == 0 ? RCK_SEVERITY_DEGRADED : RCK_SEVERITY_CRITICAL, "%s%s",
			 v->gid == 0 ? "RoCE v2 GIDs, but none with an IPv4 address (no address on "
				       "the netdev?)" : "no RoCE v2 GID: RoCE v2 traffic cannot use this port",
			 "");
	want = (unsigned int)an_th(a, TH_EXPECT_MTU);
	if (want && nmtu && nmtu != want) {
		snprintf(buf, sizeof(buf), "%u, expected %u", nmtu, want);
		f = add_port(r, host, dev, num, RCK_FINDING_MTU_MISMATCH, RCK_SEVERITY_DEGRADED,
			     "netdev MTU %s", buf, NULL);
		an_value(f, "netdev_mtu", nmtu);
		an_value(f, "expected_mtu", want);
	}
	want = (unsigned int)an_th(a, TH_EXPECT_ACTIVE_MTU);
	if (!want)
		want = roce_mtu_for(nmtu);
	if (want && amtu && amtu < want) {
		snprintf(buf, sizeof(buf), "%u, below %u%s", amtu, want,
			 an_th(a, TH_EXPECT_ACTIVE_MTU) > 0 ? " (expected)" : " (what the netdev MTU allows)");
		f = add_port(r, host, dev, num, RCK_FINDING_MTU_MISMATCH, RCK_SEVERITY_DEGRADED,
			     "active RDMA MTU %s", buf, NULL);
		an_value(f, "active_mtu", amtu);
		an_value(f, "expected_active_mtu", want);
		if (nmtu)
			an_value(f, "netdev_mtu", nmtu);
	}
}

static void check_port(const struct rck_analysis *a, struct rck_report *r, const char *host,
		       const struct rck_port *p)
{
	struct port_view v = {.dev = rck_device_name(rck_port_device(p)), .state = rck_port_state(p),
			      .phys = rck_port_phys_state(p), .num = rck_port_num(p), .phys_known = true};
	bool any_v2;

	v.has_rate = rck_port_rate_gbps(p, &v.rate);
	v.gid = gid_v2_ipv4(p, &any_v2) ? 1 : any_v2 ? 0 : -1;
	rck_port_netdev_mtu(p, &v.nmtu);
	rck_port_active_mtu(p, &v.amtu);
	judge_port(a, r, host, &v);
}

/* A probed NIC as its agent described it (a host without an inventory). */
static void check_described(const struct rck_analysis *a, struct rck_report *r, const char *host,
			    const struct an_nic *n)
{
	struct port_view v = {.dev = n->device, .state = n->state, .num = n->port, .nmtu = n->netdev_mtu,
			      .amtu = n->active_mtu, .has_rate = n->line_rate > 0, .rate = n->line_rate,
			      .gid = n->gid_index >= 0 ? 1 : -1};

	judge_port(a, r, host, &v);
}

static void check_pci(struct rck_report *r, const char *host, const struct rck_device *d,
		      const struct rck_pcie *pcie)
{
	double gts = 0, max_gts = 0;
	unsigned int w = 0, max_w = 0;
	struct rck_finding *f;
	char link[128];

	/* Below its own maximum because its slot is narrower or slower: the
	 * PCIe paths' pcie_slot_limited says so (lint_pci.c), not a fault. */
	if (!rck_analysis_pci_degraded(d) || lp_nic_slot_limited(pcie, rck_device_pci_address(d)))
		return;
	rck_device_pci_link(d, &gts, &w);
	rck_device_pci_max_link(d, &max_gts, &max_w);
	/* The fact first: an 80-column NPD or Slurm line keeps it. */
	f = an_add(r, RCK_FINDING_PCIE_DEGRADED, RCK_SEVERITY_DEGRADED, RCK_ENTITY_NIC, host,
		   rck_device_name(d), NULL, NULL, "PCIe %s: bandwidth capped",
		   units_pcie_link(link, sizeof(link), rck_device_pci_address(d) ? rck_device_pci_address(d) : "its slot",
				   gts, w, max_gts, max_w));
	an_value(f, "speed_gts", gts);
	an_value(f, "width", w);
	an_value(f, "max_speed_gts", max_gts);
	an_value(f, "max_width", max_w);
}

struct err_ctr {
	enum rck_counter id;
	enum rck_severity sev;   /* on any increase */
	enum th_key rate_key;    /* TH_COUNT: none; above this rate: degraded */
};

static const struct err_ctr err_ctrs[] = {
	{RCK_CTR_SYMBOL_ERRORS, RCK_SEVERITY_WARNING, TH_SYMBOL_ERROR_RATE},
	{RCK_CTR_LINK_DOWNED, RCK_SEVERITY_DEGRADED, TH_COUNT},
	{RCK_CTR_LINK_ERROR_RECOVERY, RCK_SEVERITY_WARNING, TH_LINK_ERROR_RECOVERY_RATE},
	{RCK_CTR_LOCAL_LINK_INTEGRITY_ERRORS, RCK_SEVERITY_DEGRADED, TH_COUNT},
	{RCK_CTR_EXCESSIVE_BUFFER_OVERRUN_ERRORS, RCK_SEVERITY_DEGRADED, TH_COUNT},
	{RCK_CTR_CRC_ERRORS, RCK_SEVERITY_WARNING, TH_COUNT},
	{RCK_CTR_RX_DISCARDS, RCK_SEVERITY_WARNING, TH_COUNT},
};

static void check_counters(const struct rck_analysis *a, struct rck_report *r, const char *host,
			   const struct rck_delta *d, unsigned int i)
{
	const char *dev = NULL;
	unsigned int port = 0;
	double secs = rck_delta_seconds(d), frac = an_th(a, TH_PAUSE_STORM_FRACTION);
	struct rck_finding *f;
	uint64_t v;
	double rate;
	char nic[80];

	rck_delta_port(d, i, &dev, &port);
	port_label(nic, sizeof(nic), dev, port);
	for (size_t k = 0; k < RCK_ARRAY_SIZE(err_ctrs); k++) {
		const char *name = rck_counter_name(err_ctrs[k].id, NULL);
		enum rck_delta_state st = rck_delta_get(d, i, err_ctrs[k].id, &v, &rate);
		enum rck_severity sev = err_ctrs[k].sev;

		if (st == RCK_DELTA_RESET) {
			an_add(r, RCK_FINDING_COUNTER_RESET, RCK_SEVERITY_INFO, RCK_ENTITY_NIC, host, nic,
			       NULL, NULL, "%s went backwards: counters reset or the host rebooted", name);
			continue;
		}
		if (st == RCK_DELTA_SATURATED) {
			an_add(r, RCK_FINDING_ERROR_COUNTER, RCK_SEVERITY_WARNING, RCK_ENTITY_NIC, host, nic,
			       NULL, NULL, "%s is stuck at its maximum: increases cannot be seen", name);
			continue;
		}
		if (st != RCK_DELTA_OK || (double)v < an_th(a, TH_ERROR_COUNTER_MIN))
			continue;
		if (err_ctrs[k].rate_key != TH_COUNT && rate > an_th(a, err_ctrs[k].rate_key))
			sev = RCK_SEVERITY_DEGRADED;
		f = an_add(r, RCK_FINDING_ERROR_COUNTER, sev, RCK_ENTITY_NIC, host, nic, NULL, NULL,
			   "%s rose by %llu in %.0f s (%.3g/s)", name, (unsigned long long)v, secs, rate);
		an_value(f, name, (double)v);
		an_value(f, "rate_per_s", rate);
		an_value(f, "seconds", secs);
	}
	if (rck_delta_get(d, i, RCK_CTR_PAUSE_STORM_EVENTS, &v, NULL) == RCK_DELTA_OK && v) {
		f = an_add(r, RCK_FINDING_PAUSE_STORM, RCK_SEVERITY_DEGRADED, RCK_ENTITY_NIC, host, nic,
			   NULL, NULL, "%llu pause storm events: the NIC kept pausing its peer",
			   (unsigned long long)v);
		an_value(f, "pause_storm_events", (double)v);
	}
	if (!(secs > 0))
		return;
	for (unsigned int p = 0; p < 8; p++) {
		for (int dir = 0; dir < 2; dir++) {
			enum rck_counter id = (enum rck_counter)((dir ? RCK_CTR_PFC_RX_PAUSE_DURATION :
						RCK_CTR_PFC_TX_PAUSE_DURATION) + p);
			double share;

			if (rck_delta_get(d, i, id, &v, NULL) != RCK_DELTA_OK)
				continue;
			share = (double)v / (secs * 1e6);
			if (share < frac)
				continue;
			f = an_add(r, RCK_FINDING_PAUSE_STORM, RCK_SEVERITY_DEGRADED, RCK_ENTITY_NIC, host,
				   nic, NULL, NULL, "%s on priority %u %.0f%% of the time",
				   dir ? "paused by its peer" : "pausing its peer", p, 100 * share);
			an_value(f, "priority", p);
			an_value(f, "paused_fraction", share);
		}
	}
}

static bool expected_port(const struct rck_analysis *a, unsigned int h, const char *dev,
			  unsigned int port, const struct rck_inventory *inv)
{
	bool any = false;

	AN_FOR_HOST_NIC(a, h, n) {
		any = true;
		if (a->nics[n].port == port && !strcmp(a->nics[n].device, dev))
			return true;
	}
	if (any)
		return false;
	/* No NICs named: every Ethernet (RoCE) port of the inventory. */
	if (inv) {
		const struct rck_device *d = rck_inventory_find(inv, dev);
		const struct rck_port *p = d ? rck_device_find_port(d, port) : NULL;
		const char *ll = p ? rck_port_link_layer(p) : NULL;

		return ll && !strcmp(ll, "Ethernet");
	}
	return true;
}

static void check_host(const struct rck_analysis *a, struct rck_report *r, unsigned int h)
{
	const struct an_host *host = &a->hosts[h];
	const struct rck_inventory *inv = host->inv;

	if (inv) {
		AN_FOR_HOST_NIC(a, h, n) {
			const struct rck_device *d;

			d = rck_inventory_find(inv, a->nics[n].device);
			if (!d || !rck_device_find_port(d, a->nics[n].port))
				an_add_nic(r, a, n, RCK_FINDING_PORT_MISSING, RCK_SEVERITY_CRITICAL,
					   "probed NIC not in the host's inventory");
		}
		for (unsigned int i = 0; i < rck_inventory_device_count(inv); i++) {
			const struct rck_device *d = rck_inventory_device(inv, i);
			bool used = false;

			for (unsigned int p = 0; p < rck_device_port_count(d); p++) {
				const struct rck_port *port = rck_device_port(d, p);

				if (!expected_port(a, h, rck_device_name(d), rck_port_num(port), inv))
					continue;
				used = true;
				check_port(a, r, host->name, port);
			}
			if (used)
				check_pci(r, host->name, d, host->pcie);
		}
	}
	/* No inventory: the NICs as the host's agent described them. */
	if (!inv)
		AN_FOR_HOST_NIC(a, h, n)
			if (a->nics[n].state)
				check_described(a, r, host->name, &a->nics[n]);
	if (host->delta) {
		for (unsigned int i = 0; i < rck_delta_port_count(host->delta); i++) {
			const char *dev = NULL;
			unsigned int port = 0;

			rck_delta_port(host->delta, i, &dev, &port);
			if (dev && expected_port(a, h, dev, port, inv))
				check_counters(a, r, host->name, host->delta, i);
		}
	}
}

void an_check_hosts(const struct rck_analysis *a, struct rck_report *r)
{
	for (unsigned int h = 0; h < a->n_hosts; h++)
		if (!a->hosts[h].unreachable)
			check_host(a, r, h);
}
