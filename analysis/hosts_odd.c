/* The odd host out among the NICs that agents described in one sweep: a
 * netdev MTU, RDMA MTU or RoCE v2 GID index unlike most of its peers'. */
#include <stdlib.h>
#include <string.h>

#include "analysis_int.h"

enum { ODD_NMTU, ODD_AMTU, ODD_GID, ODD_COUNT };

/* Fewer described hosts than this and no value is "the peers'". */
#define ODD_MIN_HOSTS 3

static long value_of(const struct an_nic *n, int what)
{
	switch (what) {
	case ODD_NMTU:
		return n->netdev_mtu ? (long)n->netdev_mtu : -1;
	case ODD_AMTU:
		return n->active_mtu ? (long)n->active_mtu : -1;
	default:
		return n->gid_index >= 0 ? n->gid_index : -1;
	}
}

static bool judged(const struct rck_analysis *a, const struct an_nic *n)
{
	return n->state && !a->hosts[n->host].unreachable && !a->hosts[n->host].spare;
}

/* The value most NICs have, with how many have it and how many have one. */
static long mode_of(const struct rck_analysis *a, int what, unsigned int *have, unsigned int *known)
{
	long best = -1, cand = -1;
	unsigned int votes = 0;

	*known = 0;
	/* Boyer-Moore majority vote, then a count: a value held by more than
	 * half of the NICs, or none. */
	for (unsigned int i = 0; i < a->n_nics; i++) {
		long v = judged(a, &a->nics[i]) ? value_of(&a->nics[i], what) : -1;

		if (v < 0)
			continue;
		(*known)++;
		if (!votes)
			cand = v;
		votes += v == cand ? 1 : (unsigned int)-1;
	}
	*have = 0;
	for (unsigned int i = 0; i < a->n_nics; i++)
		if (judged(a, &a->nics[i]) && value_of(&a->nics[i], what) == cand)
			(*have)++;
	if (*known && *have * 2 > *known)
		best = cand;
	return best;
}

static unsigned int described_hosts(const struct rck_analysis *a)
{
	unsigned int n = 0, last = (unsigned int)-1;

	for (unsigned int i = 0; i < a->n_nics; i++)
		if (judged(a, &a->nics[i]) && a->nics[i].host != last) {
			last = a->nics[i].host;
			n++;
		}
	return n;
}

/* hosts.c may have named this NIC's MTU already (below what its netdev
 * MTU allows, or unlike an expected value): one finding is enough. */
static bool said(const struct rck_report *r, const char *host, const char *nic)
{
	for (unsigned int i = 0; i < rck_report_finding_count(r); i++) {
		const struct rck_finding *f = rck_report_finding(r, i);
		const char *h = rck_finding_host(f), *n = rck_finding_nic(f);

		if (rck_finding_code(f) == RCK_FINDING_MTU_MISMATCH && h && n && !strcmp(h, host) &&
		    !strcmp(n, nic))
			return true;
	}
	return false;
}

static void report_odd(struct rck_report *r, const struct rck_analysis *a, const struct an_nic *n, int what,
		       long v, long peers, unsigned int have, unsigned int known)
{
	static const char *const name[ODD_COUNT] = {"netdev MTU", "active RDMA MTU", "RoCE v2 GID index"};
	static const char *const key[ODD_COUNT] = {"netdev_mtu", "active_mtu", "gid_index"};
	/* A smaller MTU than the peers' drops their full-size frames (netdev)
	 * or caps every path through the NIC (RDMA): degraded. A larger one,
	 * or another GID index (which matters where NCCL_IB_GID_INDEX is set
	 * by hand), is a warning. */
	enum rck_severity sev = what != ODD_GID && v < peers ? RCK_SEVERITY_DEGRADED : RCK_SEVERITY_WARNING;
	enum rck_finding_code code = what == ODD_GID ? RCK_FINDING_CONFIG_MISMATCH : RCK_FINDING_MTU_MISMATCH;
	struct rck_finding *f = an_add(r, code, sev, RCK_ENTITY_NIC, a->hosts[n->host].name, n->label, NULL, NULL,
				       "%s %ld, its peers' %ld (%u of %u NICs in this sweep)", name[what], v, peers,
				       have, known);

	an_value(f, key[what], (double)v);
	an_value(f, "peers_value", (double)peers);
	an_value(f, "peers_with_it", have);
	an_value(f, "nics_described", known);
}

void an_check_odd_config(const struct rck_analysis *a, struct rck_report *r)
{
	if (described_hosts(a) < ODD_MIN_HOSTS)
		return;
	for (int what = 0; what < ODD_COUNT; what++) {
		unsigned int have, known;
		long peers = mode_of(a, what, &have, &known), nmtu_peers = -1;

		if (peers < 0)
			continue;
		if (what == ODD_AMTU) {
			unsigned int h2, k2;

			nmtu_peers = mode_of(a, ODD_NMTU, &h2, &k2);
		}
		for (unsigned int i = 0; i < a->n_nics; i++) {
			const struct an_nic *n = &a->nics[i];
			long v = judged(a, n) ? value_of(n, what) : -1;

			if (v < 0 || v == peers)
				continue;
			/* An RDMA MTU that its odd netdev MTU explains is said once, there. */
			if (what == ODD_AMTU && nmtu_peers >= 0 && (long)n->netdev_mtu != nmtu_peers && n->netdev_mtu)
				continue;
			if (what != ODD_GID && said(r, a->hosts[n->host].name, n->label))
				continue;
			report_odd(r, a, n, what, v, peers, have, known);
		}
	}
}
