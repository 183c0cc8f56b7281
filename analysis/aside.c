/* The links a bandwidth centre is taken over: in a small fabric a NIC far
 * below the others, or below them for a known cause, is set aside. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_int.h"

/* A NIC is a candidate when it has at least 1/AN_ASIDE_SHARE of the links
 * (16 hosts or fewer): below that it cannot move the median much. It is set
 * aside when its median on a side is under AN_ASIDE_BELOW of the others':
 * far enough that a noisy host (CV 15%: 3.3 sigmas) almost never is. */
#define AN_ASIDE_SHARE 8
#define AN_ASIDE_BELOW 0.5
/* A NIC slow for a known reason is set aside already under AN_ASIDE_CAPPED
 * of the others: its own PCIe link trained below its slot's (pcie_degraded,
 * a fact read from the host), or retransmissions on most of its links (a
 * lossy NIC's go-back-N). A 400G NIC at x8 runs near 0.6: on 4 hosts its
 * links were half the fabric's and the centre fell between, so the fabric
 * was called slow (fabric_slow) instead of the NIC; a NIC losing 5% made
 * the fabric's noise 35% and the run inconclusive (30 fabrics in 100). */
#define AN_ASIDE_CAPPED 0.9

/* Median of the values of @n links listed in @idx. */
static double side_median(const struct rck_analysis *a, const uint32_t *idx, uint32_t n, double *v)
{
	for (uint32_t i = 0; i < n; i++)
		v[i] = a->links[idx[i]].value;
	return an_median(v, n);
}

/* Is NIC @n's median as sender or receiver under AN_ASIDE_BELOW of the
 * median of the taken links of its line rate that do not touch it? Its
 * links must share one line rate; a NIC of another rate is not compared
 * with the rest (a 100G host among 400G ones is not slow). */
static bool far_below(const struct rck_analysis *a, const uint8_t *take, const struct an_groups *g,
		      unsigned int n, double below, double *v)
{
	uint32_t rn = g->row_start[n + 1] - g->row_start[n];
	uint32_t cn = g->col_start[n + 1] - g->col_start[n];
	const uint32_t *ri = g->row_idx + g->row_start[n], *ci = g->col_idx + g->col_start[n];
	double rate = rn ? a->links[ri[0]].line_rate : a->links[ci[0]].line_rate;
	double others, rm, cm;
	size_t k = 0;

	for (uint32_t i = 0; i < rn; i++)
		if (a->links[ri[i]].line_rate != rate)
			return false;
	for (uint32_t i = 0; i < cn; i++)
		if (a->links[ci[i]].line_rate != rate)
			return false;
	for (size_t i = 0; i < a->n_links; i++)
		if (take[i] && a->links[i].src != n && a->links[i].dst != n && a->links[i].line_rate == rate)
			v[k++] = a->links[i].value;
	if (!k)
		return false;
	others = an_median(v, k);
	if (!(others > 0))
		return false;
	rm = rn ? side_median(a, ri, rn, v) : others;
	cm = cn ? side_median(a, ci, cn, v) : others;
	return rm < below * others || cm < below * others;
}

/* Retransmissions on more than attribution_fraction of NIC @n's links
 * from it or to it. */
static bool lossy(const struct rck_analysis *a, const struct an_groups *g, unsigned int n)
{
	double frac = an_th(a, TH_ATTRIBUTION_FRACTION);
	uint32_t rn = g->row_start[n + 1] - g->row_start[n], cn = g->col_start[n + 1] - g->col_start[n];
	uint32_t rl = 0, cl = 0;

	for (uint32_t i = g->row_start[n]; i < g->row_start[n + 1]; i++)
		rl += an_link_lossy(a, &a->links[g->row_idx[i]]);
	for (uint32_t i = g->col_start[n]; i < g->col_start[n + 1]; i++)
		cl += an_link_lossy(a, &a->links[g->col_idx[i]]);
	return (rn && rl > frac * rn) || (cn && cl > frac * cn);
}

/* NIC @n's own PCIe link capped, as found already in @r (not a link on a
 * GPU's or switch's path, on_path). */
static bool pcie_capped(const struct rck_analysis *a, const struct rck_report *r, unsigned int n)
{
	const struct an_nic *nic = &a->nics[n];
	const char *host = a->hosts[nic->host].name;

	for (unsigned int i = 0; i < r->n_findings; i++) {
		const struct rck_finding *f = &r->findings[i];
		bool on_path = false;

		if (f->code != RCK_FINDING_PCIE_DEGRADED || !f->host || !f->nic || strcmp(f->host, host) ||
		    (strcmp(f->nic, nic->device) && strcmp(f->nic, nic->label)))
			continue;
		for (unsigned int k = 0; k < f->n_values; k++)
			on_path |= !strcmp(f->keys[k], "on_path");
		if (!on_path)
			return true;
	}
	return false;
}

ssize_t an_bw_rest(const struct rck_analysis *a, const struct rck_report *r, const uint8_t *take,
		   uint8_t *rest)
{
	uint8_t *aside = calloc(a->n_nics ? a->n_nics : 1, 1);
	double *v = malloc((a->n_links ? a->n_links : 1) * sizeof(*v));
	struct an_groups g;
	size_t all = 0, left = 0;
	bool any = false;

	if (!aside || !v || an_groups_build(a, take, &g)) {
		free(aside);
		free(v);
		return -ENOMEM;
	}
	for (size_t i = 0; i < a->n_links; i++)
		all += take[i] != 0;
	for (unsigned int n = 0; n < a->n_nics; n++) {
		size_t mine = (g.row_start[n + 1] - g.row_start[n]) + (g.col_start[n + 1] - g.col_start[n]);

		if (!mine || AN_ASIDE_SHARE * mine < all)
			continue;
		if (far_below(a, take, &g, n,
			      pcie_capped(a, r, n) || lossy(a, &g, n) ? AN_ASIDE_CAPPED : AN_ASIDE_BELOW, v))
			aside[n] = any = true;
	}
	an_groups_free(&g);
	for (size_t i = 0; i < a->n_links; i++) {
		rest[i] = take[i] && !aside[a->links[i].src] && !aside[a->links[i].dst];
		left += rest[i];
	}
	if (!any || 2 * left < all) {
		for (size_t i = 0; i < a->n_links; i++)
			rest[i] = take[i] != 0;
		left = all;
	}
	free(aside);
	free(v);
	return (ssize_t)left;
}
