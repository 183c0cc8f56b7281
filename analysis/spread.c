/* The spread each bandwidth test uses: each NIC's own (a noisy host is not
 * judged by the fabric's), and the share of deep dips a healthy link shows. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_int.h"

/* Below this many links a NIC's own spread is not estimated. */
#define AN_SPREAD_MIN_LINKS 6

/* Append NIC @n's deviations (value over centre, from the median of its
 * side's first measurements) to @dev; @v is scratch. With @own (its own
 * spread for its confirmation, an_nic_own_spread()) its retests count
 * too, and an odd side's median, one of its values, gives no zero; with
 * @zeros the same zeros are left out and counted there. Returns how many. */
static uint32_t nic_devs(const struct rck_analysis *a, const struct an_groups *g, const double *cen,
			 unsigned int n, bool own, double *v, double *dev, unsigned int *zeros)
{
	uint32_t k = 0;

	for (int side = 0; side < 2; side++) {
		const uint32_t *start = side ? g->col_start : g->row_start;
		const uint32_t *idx = side ? g->col_idx : g->row_idx;
		uint32_t m = start[n + 1] - start[n];
		bool zero = (own || zeros) && m % 2;
		double med;

		if (zero && zeros)
			(*zeros)++;
		if (!m)
			continue;
		for (uint32_t i = 0; i < m; i++)
			v[i] = a->links[idx[start[n] + i]].value / cen[idx[start[n] + i]];
		med = an_median(v, m);
		for (uint32_t i = 0; i < m; i++) {
			const struct an_link *l = &a->links[idx[start[n] + i]];
			double c = cen[idx[start[n] + i]], d = fabs(l->value / c - med);

			if (zero && d == 0)
				zero = false;
			else
				dev[k++] = d;
			for (unsigned int j = 0; own && j < l->n_retests; j++)
				if (a->retests[l->retest + j].status == RCK_LINK_OK)
					dev[k++] = fabs(a->retests[l->retest + j].gbps / c - med);
		}
	}
	return k;
}

/*
 * Each NIC's robust spread (1.4826 x the median absolute deviation), over
 * its links as sender around their own median and as receiver around
 * theirs, each link's value over its centre @cen: a NIC slow in one
 * direction keeps a small spread, a NIC on a CPU-starved host (high
 * variance, normal median) a large one. A host's NICs pooled give its
 * host's spread, known better (8 rails: 240 links at 16 hosts, where one
 * NIC's 30 put a spread of 15% anywhere from 5 to 21%): @out[n] is the
 * larger of the NIC's and its host's, NAN with fewer than
 * AN_SPREAD_MIN_LINKS links. Returns 0 or -ENOMEM.
 */
static int nic_spread(const struct rck_analysis *a, const struct an_groups *g, const double *cen,
		      double *out)
{
	size_t cap = 2 * a->n_links + 1;
	double *v = malloc(cap * sizeof(*v)), *dev = malloc(cap * sizeof(*dev));
	double *all = malloc(cap * sizeof(*all));
	size_t *off = malloc(((size_t)a->n_nics + 1) * sizeof(*off));

	if (!v || !dev || !all || !off) {
		free(v);
		free(dev);
		free(all);
		free(off);
		return -ENOMEM;
	}
	/* Each NIC's deviations once, kept for its host's pool without the
	 * zeros of odd sides (a side's median is one of its values): among
	 * the 3 links a side of 4 hosts they put a noisy host's pooled spread
	 * near 0.6 of the truth, under twice the fabric's, and its links were
	 * judged by the fabric's. A NIC's own keeps them: there one slow
	 * peer's link of three a side would be half the rest. */
	off[0] = 0;
	for (unsigned int n = 0; n < a->n_nics; n++) {
		unsigned int z = 0;
		uint32_t k = nic_devs(a, g, cen, n, false, v, all + off[n], &z);

		off[n + 1] = off[n] + k;
		memcpy(dev, all + off[n], k * sizeof(*dev));
		for (unsigned int i = 0; i < z; i++)
			dev[k + i] = 0;
		out[n] = k + z >= AN_SPREAD_MIN_LINKS ? 1.4826 * an_median(dev, k + z) : NAN;
	}
	for (unsigned int h = 0; h < a->n_hosts; h++) {
		size_t k = 0, nics = 0;
		double hs;

		AN_FOR_HOST_NIC(a, h, n) {
			memcpy(dev + k, all + off[n], (off[n + 1] - off[n]) * sizeof(*dev));
			k += off[n + 1] - off[n];
			nics++;
		}
		if (nics < 2 || k < AN_SPREAD_MIN_LINKS)
			continue;
		hs = 1.4826 * an_median(dev, k);
		AN_FOR_HOST_NIC(a, h, n)
			if (!(out[n] >= hs))
				out[n] = hs;
	}
	free(v);
	free(dev);
	free(all);
	free(off);
	return 0;
}

/* Room for NIC @n's deviations: its links and their retests. */
static size_t own_cap(const struct rck_analysis *a, const struct an_groups *g, unsigned int n)
{
	size_t cap = 0;

	for (int side = 0; side < 2; side++) {
		const uint32_t *start = side ? g->col_start : g->row_start;
		const uint32_t *idx = side ? g->col_idx : g->row_idx;

		for (uint32_t i = start[n]; i < start[n + 1]; i++)
			cap += 1 + a->links[idx[i]].n_retests;
	}
	return cap;
}

/*
 * NIC @n's own spread for its confirmation (robust, 1.4826 x the median
 * absolute deviation) over nic_devs(@own): without the zeros of odd sides,
 * which among six deviations of 3 links a side put it near 0.6 of the
 * truth (a noisy host of 4 then looked slow). The larger of the NIC's and
 * its host's, its NICs pooled (at 4 x 8, one NIC's handful left a noisy
 * host's NIC confirmed once in 6000 trials). Not for nic_spread: there one
 * slow peer's link of three a side would be half the rest. NaN with under
 * AN_SPREAD_MIN_LINKS links. 0 or -ENOMEM.
 */
int an_nic_own_spread(const struct rck_analysis *a, const struct an_groups *g, const double *cen,
		      unsigned int n, double *out)
{
	uint32_t links = g->row_start[n + 1] - g->row_start[n] + g->col_start[n + 1] - g->col_start[n];
	unsigned int h = a->nics[n].host, nics = 1;
	size_t cap = own_cap(a, g, n) + 1, k;
	double *v, *dev, host = NAN;

	AN_FOR_HOST_NIC(a, h, m)
		if (m != n)
			cap += own_cap(a, g, m);
	v = malloc(cap * sizeof(*v));
	dev = malloc(cap * sizeof(*dev));
	if (!v || !dev) {
		free(v);
		free(dev);
		return -ENOMEM;
	}
	k = nic_devs(a, g, cen, n, true, v, dev, NULL);
	*out = links >= AN_SPREAD_MIN_LINKS && k ? 1.4826 * an_median(dev, k) : NAN;
	AN_FOR_HOST_NIC(a, h, m)
		if (m != n) {
			k += nic_devs(a, g, cen, m, true, v, dev + k, NULL);
			nics++;
		}
	if (nics >= 2 && k >= AN_SPREAD_MIN_LINKS)
		host = 1.4826 * an_median(dev, k);
	if (!(*out >= host))
		*out = isnan(host) ? *out : host;
	free(v);
	free(dev);
	return 0;
}

/*
 * Deep dips on the first pass: of the links @take marks and @skip does not
 * touch (*@n), how many (*@deep) measured below the test's "slow" level
 * @alt[i], link_min_gap spreads or more under the centre. A Gaussian
 * spread almost never reaches that deep; a heavy tail (a probe in 50 at
 * half speed) does. Links of a NIC most of whose links on a side are deep
 * are left out: that is a slow NIC, not dips. A link is judged with the
 * share of the others, (deep + 1) / (n + 1), which never says zero: one
 * measurement's evidence for "slow" is at most ln(1 / share), as a deep
 * value is that likely on a healthy link. Returns 0 or -ENOMEM.
 */
int an_dips(const struct rck_analysis *a, const uint8_t *take, const uint8_t *skip,
	    const double *alt, size_t *n, size_t *deep)
{
	size_t nn = a->n_nics ? a->n_nics : 1;
	unsigned int *cnt = calloc(4 * nn, sizeof(*cnt));

	*n = 0;
	*deep = 0;
	if (!cnt)
		return -ENOMEM;
	/* cnt[4n]: links from n, [4n+1] deep ones; [4n+2], [4n+3]: to n. */
	for (size_t i = 0; i < a->n_links; i++) {
		const struct an_link *l = &a->links[i];

		if (!take[i])
			continue;
		cnt[4 * l->src]++;
		cnt[4 * l->src + 1] += l->value < alt[i];
		cnt[4 * l->dst + 2]++;
		cnt[4 * l->dst + 3] += l->value < alt[i];
	}
	for (size_t i = 0; i < a->n_links; i++) {
		const struct an_link *l = &a->links[i];
		bool slow = 2 * cnt[4 * l->src + 1] > cnt[4 * l->src] ||
			    2 * cnt[4 * l->src + 3] > cnt[4 * l->src + 2] ||
			    2 * cnt[4 * l->dst + 1] > cnt[4 * l->dst] ||
			    2 * cnt[4 * l->dst + 3] > cnt[4 * l->dst + 2];

		if (!take[i] || slow || (skip && (skip[l->src] || skip[l->dst])))
			continue;
		(*n)++;
		*deep += l->value < alt[i];
	}
	free(cnt);
	return 0;
}

/*
 * Each taken link's spread for its tests, in Gb/s: @sg[i] holds its
 * class's on entry (the fabric's robust spread times its centre @cen[i]).
 *  - When that is over twice the median of the NICs' own spreads, it is
 *    spread between NICs, not noise (a slow NIC is half of a 4-host
 *    fabric's links): the median NIC's spread stands instead.
 *  - A link of a NIC whose own spread is over twice that takes the larger
 *    of its two NICs' spreads: a host starved of CPU measures its links
 *    with its own variance, and the fabric's would call them slow. (One
 *    NIC's 30 links put a spread of 10% as high as 15%: at 1.5 times, a
 *    NIC of a fabric at 10% noise was often judged at 15%.)
 * Never below link_noise_min. Returns 0 or -ENOMEM.
 */
int an_link_spreads(const struct rck_analysis *a, const uint8_t *take, const double *cen, double *sg)
{
	double *ns = malloc((a->n_nics ? a->n_nics : 1) * sizeof(*ns));
	double *v = malloc((a->n_nics ? a->n_nics : 1) * sizeof(*v));
	double med = NAN, lo = an_th(a, TH_LINK_NOISE_MIN);
	struct an_groups g;
	size_t k = 0;

	if (!ns || !v || an_groups_build(a, take, &g)) {
		free(ns);
		free(v);
		return -ENOMEM;
	}
	if (nic_spread(a, &g, cen, ns)) {
		an_groups_free(&g);
		free(ns);
		free(v);
		return -ENOMEM;
	}
	an_groups_free(&g);
	for (unsigned int n = 0; n < a->n_nics; n++)
		if (!isnan(ns[n]))
			v[k++] = ns[n];
	if (k >= 3)
		med = an_median(v, k);
	for (size_t i = 0; i < a->n_links; i++) {
		const struct an_link *l = &a->links[i];
		double s, base;

		if (!take[i])
			continue;
		s = sg[i] / cen[i];
		if (med > 0 && s > 2 * med)
			s = med > lo ? med : lo;
		base = s;
		if (ns[l->src] > 2 * base && ns[l->src] > s)
			s = ns[l->src];
		if (ns[l->dst] > 2 * base && ns[l->dst] > s)
			s = ns[l->dst];
		sg[i] = s * cen[i];
	}
	free(ns);
	free(v);
	return 0;
}
