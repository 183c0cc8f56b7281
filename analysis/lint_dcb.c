/* Cross-host lint of DCB: PFC priorities, trust, the DSCP map, ETS, DCBX
 * and rdma_cm ToS of every RDMA netdev, odd port out named with the
 * majority value; ports whose driver lacks a feature are reported as such. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../dcb/dcb_internal.h"
#include "lint.h"

RCK_EXPORT int rck_analysis_set_host_dcb(struct rck_analysis *a, unsigned int host,
					 const struct rck_dcb *const *ports, size_t n, const char *error)
{
	if (!a || host >= a->n_hosts)
		return -EINVAL;
	return dcb_set_assign(&a->hosts[host].dcb, ports, n, error);
}

enum { D_PFC, D_TRUST, D_DSCP, D_ETS, D_DCBX, D_TOS, D_COUNT };

static const struct what dwhats[D_COUNT] = {
	[D_PFC] = {"PFC-enabled priorities", "", RCK_SEVERITY_DEGRADED},
	[D_TRUST] = {"trust mode", "", RCK_SEVERITY_DEGRADED},
	[D_DSCP] = {"DSCP-to-priority map", "", RCK_SEVERITY_DEGRADED},
	[D_ETS] = {"ETS", "", RCK_SEVERITY_WARNING},
	[D_DCBX] = {"DCBX mode", "", RCK_SEVERITY_WARNING},
	[D_TOS] = {"rdma_cm default ToS", "", RCK_SEVERITY_DEGRADED},
};

/* Which feature each attribute needs; trust needs the APP table or the
 * vendor knob (its "unknown" says neither was there). */
static const enum rck_dcb_feature dfeat[D_COUNT] = {
	[D_PFC] = RCK_DCB_PFC, [D_TRUST] = RCK_DCB_APP, [D_DSCP] = RCK_DCB_APP,
	[D_ETS] = RCK_DCB_ETS, [D_DCBX] = RCK_DCB_DCBX, [D_TOS] = RCK_DCB_RDMA_CM,
};

/* The feature behind each attribute, as unsupported ports are reported. */
static const char *const dfname[D_COUNT] = {
	[D_PFC] = "PFC", [D_TRUST] = "APP table", [D_DSCP] = "APP table (DSCP map)",
	[D_ETS] = "ETS", [D_DCBX] = "DCBX", [D_TOS] = "rdma_cm defaults",
};

/* Runs of consecutive DSCP values with the same priorities: "0-7:0 26:3
 * 48:6" (a DSCP in several entries: "26:3+4"). A map too long for one item
 * is named by its entry count and a digest. */
static void dscp_map(const struct rck_dcb *d, char *buf, size_t len)
{
	uint8_t prios[64] = { 0 };
	char out[1024];
	size_t o = 0, entries = 0;
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < d->n_apps; i++)
		if (d->apps[i].selector == RCK_DCB_SEL_DSCP && d->apps[i].protocol < 64) {
			prios[d->apps[i].protocol] |= (uint8_t)(1u << d->apps[i].priority);
			entries++;
		}
	out[0] = 0;
	for (unsigned int v = 0; v < 64;) {
		unsigned int e = v;

		while (e + 1 < 64 && prios[e + 1] == prios[v])
			e++;
		if (prios[v] && o < sizeof(out) - 40) {
			o += (size_t)snprintf(out + o, sizeof(out) - o, o ? " %u" : "%u", v);
			if (e > v)
				o += (size_t)snprintf(out + o, sizeof(out) - o, "-%u", e);
			for (unsigned int p = 0, first = 1; p < 8; p++)
				if (prios[v] & (1u << p)) {
					o += (size_t)snprintf(out + o, sizeof(out) - o, "%c%u", first ? ':' : '+', p);
					first = 0;
				}
		}
		v = e + 1;
	}
	if (!entries) {
		snprintf(buf, len, "empty");
		return;
	}
	if (o < len) {
		snprintf(buf, len, "%s", out);
		return;
	}
	for (size_t i = 0; i < o; i++)
		h = (h ^ (uint8_t)out[i]) * 16777619u;
	snprintf(buf, len, "%zu entries, digest %08x", entries, h);
}

static void ets_text(const struct rck_dcb *d, char *buf, size_t len)
{
	static const char tsa[] = "sce";
	char tc[9], bw[48], ts[9];
	size_t o = 0;

	for (int i = 0; i < DCB_NPRIO; i++) {
		tc[i] = (char)('0' + d->ets.prio_tc[i]);
		ts[i] = d->ets.tc_tsa[i] < 3 ? tsa[d->ets.tc_tsa[i]] : 'v';
		o += (size_t)snprintf(bw + o, sizeof(bw) - o, i ? ",%u" : "%u", d->ets.tc_tx_bw[i]);
	}
	tc[8] = ts[8] = 0;
	snprintf(buf, len, "prio_tc %s bw %s tsa %s", tc, bw, ts);
}

static void port_value(const struct rck_dcb *d, unsigned int kind, char *buf, size_t len)
{
	const char *from;

	switch (kind) {
	case D_PFC:
		dcb_prio_list(d->pfc.pfc_en, buf, len);
		break;
	case D_TRUST:
		snprintf(buf, len, "%s", rck_dcb_trust(d, &from));
		break;
	case D_DSCP:
		dscp_map(d, buf, len);
		break;
	case D_ETS:
		ets_text(d, buf, len);
		break;
	case D_DCBX:
		snprintf(buf, len, "0x%02x", d->dcbx);
		break;
	default:
		snprintf(buf, len, "%u", d->roce_tos);
	}
}

/* "mlx5_0/1 (eth0)", or the interface alone. */
static void port_label(const struct rck_dcb *d, char *buf, size_t len)
{
	if (d->rdma_dev)
		snprintf(buf, len, "%s/%u (%s)", d->rdma_dev, d->rdma_port, d->ifname);
	else
		snprintf(buf, len, "%s", d->ifname);
}

static bool counted(const struct an_host *h)
{
	return h->dcb.has && !h->unreachable && !h->dcb.error;
}

/* Ports lacking a feature others have are named; a feature no port has is
 * one fabric note (nothing to compare). Hosts whose state could not be read
 * are named too. */
static void report_unsupported(const struct rck_analysis *a, struct rck_report *r)
{
	size_t have[D_COUNT] = { 0 }, ports = 0;
	char none[160] = "";
	size_t o = 0;

	for (unsigned int h = 0; h < a->n_hosts; h++) {
		const struct an_host *ah = &a->hosts[h];

		if (ah->dcb.has && !ah->unreachable && ah->dcb.error)
			an_add(r, RCK_FINDING_DCB_UNSUPPORTED, RCK_SEVERITY_WARNING, RCK_ENTITY_HOST, ah->name,
			       NULL, NULL, NULL, "DCB state not read: %s", ah->dcb.error);
		if (!counted(ah))
			continue;
		for (size_t i = 0; i < ah->dcb.n; i++, ports++)
			for (unsigned int k = 0; k < D_COUNT; k++)
				have[k] += !rck_dcb_supported(ah->dcb.ports[i], dfeat[k]);
	}
	for (unsigned int h = 0; h < a->n_hosts; h++) {
		const struct an_host *ah = &a->hosts[h];

		for (size_t i = 0; counted(ah) && i < ah->dcb.n; i++) {
			const struct rck_dcb *d = ah->dcb.ports[i];
			char lacks[120] = "", label[96];
			size_t l = 0, max = 0;
			struct rck_finding *f;

			for (unsigned int k = 0; k < D_COUNT; k++) {
				if (!have[k] || !rck_dcb_supported(d, dfeat[k]) || (k == D_TRUST))
					continue;
				l += (size_t)snprintf(lacks + l, sizeof(lacks) - l, "%s%s", l ? ", " : "",
						      dfname[k]);
				if (have[k] > max)
					max = have[k];
			}
			if (!l)
				continue;
			port_label(d, label, sizeof(label));
			f = an_add(r, RCK_FINDING_DCB_UNSUPPORTED, RCK_SEVERITY_WARNING, RCK_ENTITY_NIC, ah->name,
				   label, NULL, NULL, "not supported by this driver: %s (%zu of %zu ports have them)",
				   lacks, max, ports);
			an_value(f, "ports_with", (double)max);
			an_value(f, "ports", (double)ports);
		}
	}
	for (unsigned int k = 0; ports && k < D_COUNT; k++)
		if (!have[k] && k != D_TRUST)
			o += (size_t)snprintf(none + o, sizeof(none) - o, "%s%s", o ? ", " : "", dfname[k]);
	if (o) {
		struct rck_finding *f = an_add(r, RCK_FINDING_DCB_UNSUPPORTED, RCK_SEVERITY_INFO,
					       RCK_ENTITY_FABRIC, NULL, NULL, NULL, NULL,
					       "no port's driver supports %s: not compared (%zu ports)",
					       none, ports);
		an_value(f, "ports", (double)ports);
	}
}

void an_check_dcb(const struct rck_analysis *a, struct rck_report *r)
{
	struct lint l = { 0 };

	report_unsupported(a, r);
	for (unsigned int k = 0; k < D_COUNT; k++) {
		for (unsigned int h = 0; h < a->n_hosts; h++) {
			const struct an_host *ah = &a->hosts[h];

			for (size_t i = 0; counted(ah) && i < ah->dcb.n; i++) {
				const struct rck_dcb *d = ah->dcb.ports[i];
				char val[128], label[96];
				const char *from;

				/* Trust is known from the APP table or a vendor knob. */
				if (k == D_TRUST ? !strcmp(rck_dcb_trust(d, &from), "unknown")
						 : rck_dcb_supported(d, dfeat[k]) != 0)
					continue;
				port_value(d, k, val, sizeof(val));
				port_label(d, label, sizeof(label));
				lint_add(&l, "", h, label, "%s", val);
			}
		}
		lint_run(a, r, &l, &dwhats[k]);
	}
	free(l.it);
}
