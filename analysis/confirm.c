/* Confirmation of a NIC that looks degraded: a sequential test on its own
 * measurements, first pass and retests of its links; then its finding. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "analysis_int.h"
#include "units.h"

/*
 * A NIC whose links' median sits below their floors is only a suspect: the
 * first pass measured all its links at once, and a loaded host, a busy
 * switch port or a noisy loopback slows every link of one NIC together.
 * So it is decided like a single link (links.c): Wald's sequential test
 * of "healthy" (each link at its centre) against "at the floor" (or
 * link_min_gap sigmas below the centre) on every measurement of its links
 * on the side found slow, each with the larger of its spread and the
 * NIC's own (spread.c: a host starved of CPU is noisy, not slow). The
 * first pass together counts for at most 0.9 of the confirmation bound
 * (half of it on fewer than 2 x AN_SMALL_NIC_LINKS links, where the spread
 * is known from a handful), so it never confirms alone: at least one
 * retest alone must agree (and the retests' own median must sit below the
 * floors). Up to nic_retest_links of its links are retested per pass
 * (shared by its slow sides), up to link_retests_max each. Wald's bound keeps the false alarm rate below
 * link_false_alarm per NIC.
 */

/* A NIC judged on fewer links than twice this (one slow side in a fabric
 * of 12 hosts or fewer, both in one of 6) has its spread from a handful of
 * values: its first pass counts for at most half the bound, retests the
 * rest. */
#define AN_SMALL_NIC_LINKS 6

void an_sprt_link(const struct rck_analysis *a, double c, double sig, double fl, double *mid,
		  double *k)
{
	double alt = c - an_th(a, TH_LINK_MIN_GAP) * sig;

	if (fl < alt)
		alt = fl;
	*mid = (c + alt) / 2;
	*k = (c - alt) / (sig * sig);
}

/* One link's measurements: first (@first) or retests, each retest's log
 * likelihood ratio capped below @cap; @retest_ratios gets x / floor. */
static void link_llr(const struct rck_analysis *a, const struct an_bw_ref *ref, uint32_t i, double own,
		     double *first, double *retests, unsigned int *n_rt, double *ratios, unsigned int *n_ratio)
{
	const struct an_link *l = &a->links[i];
	double mid, k, cap = ref->cap < 0.9 * ref->lnA ? ref->cap : 0.9 * ref->lnA;
	double sig = own * ref->c[i] > ref->sig[i] ? own * ref->c[i] : ref->sig[i];

	an_sprt_link(a, ref->c[i], sig, ref->fl[i], &mid, &k);
	*first += k * (mid - l->value);
	for (unsigned int j = 0; j < l->n_retests; j++) {
		const struct rck_link_meas *x = &a->retests[l->retest + j];
		double v;

		if (x->status != RCK_LINK_OK)
			continue;
		v = k * (mid - x->gbps);
		*retests += v < cap ? v : cap;
		(*n_rt)++;
		ratios[(*n_ratio)++] = x->gbps / ref->fl[i];
	}
}

/* Latency: each retest's p50 over the limit. */
static void link_lat(const struct rck_analysis *a, uint32_t i, double limit, unsigned int *n_rt,
		     double *ratios, unsigned int *n_ratio)
{
	const struct an_link *l = &a->links[i];

	for (unsigned int j = 0; j < l->n_retests; j++) {
		const struct rck_link_meas *x = &a->retests[l->retest + j];

		if (x->status != RCK_LINK_OK)
			continue;
		(*n_rt)++;
		ratios[(*n_ratio)++] = x->lat_p50_us / limit;
	}
}

/* Ask for retests of up to @want links of a side, those retested least
 * first; false when every one has had link_retests_max. */
static bool ask(const struct rck_analysis *a, struct rck_report *r, const uint32_t *idx, uint32_t n,
		enum rck_link_test test, unsigned int want)
{
	unsigned int max = (unsigned int)an_th(a, TH_LINK_RETESTS_MAX), asked = 0;

	for (unsigned int round = 0; round < max && asked < want; round++)
		for (uint32_t i = 0; i < n && asked < want; i++)
			if (a->links[idx[i]].n_retests == round) {
				an_retest_add(r, test, a->links[idx[i]].src, a->links[idx[i]].dst);
				asked++;
			}
	return asked > 0;
}

enum an_conf an_confirm_nic(const struct rck_analysis *a, struct rck_report *r,
			    const struct an_groups *g, unsigned int nic, bool row, bool col,
			    const struct an_bw_ref *ref, double lat_limit, struct an_evidence *ev)
{
	enum rck_link_test test = ref ? RCK_LINK_TEST_BW : RCK_LINK_TEST_LAT;
	double first = 0, rt = 0, own = NAN, *ratios;
	unsigned int n_ratio = 0, cap = 0, want;
	bool more = false;

	*ev = (struct an_evidence){0};
	for (int side = 0; side < 2; side++) {
		const uint32_t *start = side ? g->col_start : g->row_start;
		const uint32_t *idx = side ? g->col_idx : g->row_idx;

		if (side ? col : row)
			for (uint32_t i = start[nic]; i < start[nic + 1]; i++)
				cap += a->links[idx[i]].n_retests;
	}
	ratios = malloc((cap ? cap : 1) * sizeof(*ratios));
	/* Its links are weighed with its own spread when larger: a host
	 * starved of CPU is as slow as it is noisy, not slow. */
	if (!ratios || (ref && an_nic_own_spread(a, g, ref->c, nic, &own))) {
		free(ratios);
		r->err = -ENOMEM;
		return AN_SUSPECT;
	}
	for (int side = 0; side < 2; side++) {
		const uint32_t *start = side ? g->col_start : g->row_start;
		const uint32_t *idx = side ? g->col_idx : g->row_idx;

		if (!(side ? col : row))
			continue;
		for (uint32_t i = start[nic]; i < start[nic + 1]; i++) {
			ev->links++;
			if (ref)
				link_llr(a, ref, idx[i], own, &first, &rt, &ev->retests, ratios, &n_ratio);
			else
				link_lat(a, idx[i], lat_limit, &ev->retests, ratios, &n_ratio);
		}
	}
	ev->retest_ratio = n_ratio ? an_median(ratios, n_ratio) : NAN;
	free(ratios);
	if (ref) {
		/* The first pass, however clear, stops short of the bound. */
		double most = (ev->links < 2 * AN_SMALL_NIC_LINKS ? 0.5 : 0.9) * ref->lnA;

		if (first > most)
			first = most;
		ev->llr = first + rt;
		ev->bound = ref->lnA;
		if (ev->retests && ev->llr >= ref->lnA && ev->retest_ratio < 1)
			return AN_CONFIRMED;
		if (ev->llr <= ref->lnB)
			return AN_CLEARED;
	} else if (ev->retests) {
		/* Latency: the retests alone decide, their median over the limit. */
		return ev->retest_ratio > 1 ? AN_CONFIRMED : AN_CLEARED;
	}
	/* nic_retest_links a pass, shared by the slow sides: they all share
	 * this NIC, so they run one after another. */
	want = (unsigned int)an_th(a, TH_NIC_RETEST_LINKS);
	for (int side = 0; side < 2; side++) {
		const uint32_t *start = side ? g->col_start : g->row_start;
		const uint32_t *idx = side ? g->col_idx : g->row_idx;

		if (side ? col : row)
			more |= ask(a, r, idx + start[nic], start[nic + 1] - start[nic], test,
				    row && col ? (want + 1 - (unsigned int)side) / 2 : want);
	}
	ev->undecided = !more;
	return AN_SUSPECT;
}

/* The NIC finding of @n: confirmed (degraded) or suspect (warning, not
 * drained), with the medians, ratios and the test's evidence. */
void an_nic_finding(const struct rck_analysis *a, struct rck_report *r, unsigned int n, bool lat,
			double rmed, double cmed, double rq, double cq, double centre, uint32_t rn,
			uint32_t cn, enum an_conf conf, const struct an_evidence *ev)
{
	double factor = an_th(a, TH_LINK_LATENCY_FACTOR);
	char b[6][32], ev_txt[160];
	struct rck_finding *f;
	enum rck_severity sev = conf == AN_CONFIRMED ? RCK_SEVERITY_DEGRADED : RCK_SEVERITY_WARNING;

	if (conf == AN_CONFIRMED)
		snprintf(ev_txt, sizeof(ev_txt), "confirmed by %u retests of its links", ev->retests);
	else if (!ev->retests)
		snprintf(ev_txt, sizeof(ev_txt), "first pass only, %s",
			 ev->undecided ? "no retest left" : "retests asked");
	else
		snprintf(ev_txt, sizeof(ev_txt), "%u retests of its links %s", ev->retests,
			 ev->undecided ? "left it undecided" : "not conclusive yet");
	if (lat)
		f = an_add_nic(r, a, n, RCK_FINDING_NIC_DEGRADED, sev,
			       "latency p50 median %.3g us from it, %.3g us to it, over %.3g us "
			       "(%g x the fabric median %.3g us); %s", rmed, cmed, factor * centre, factor,
			       centre, ev_txt);
	else
		f = an_add_nic(r, a, n, RCK_FINDING_NIC_DEGRADED, sev,
			       "median %s from it, %s to it: %s and %s of their floors "
			       "(fabric median %s); %s", units_rate(b[0], 32, rmed), units_rate(b[1], 32, cmed),
			       units_ratio(b[2], 32, rq, 1), units_ratio(b[3], 32, cq, 1),
			       units_rate(b[4], 32, centre), ev_txt);
	if (!f)
		return;
	f->suspect = conf != AN_CONFIRMED;
	/* An empty row or column is NaN: left out of the numbers. */
	an_value(f, lat ? "from_median_us" : "from_median_gbps", rmed);
	an_value(f, lat ? "to_median_us" : "to_median_gbps", cmed);
	an_value(f, "from_ratio_to_limit", rq);
	an_value(f, "to_ratio_to_limit", cq);
	an_value(f, lat ? "fabric_median_us" : "fabric_median_gbps", centre);
	an_value(f, "links_from", rn);
	an_value(f, "links_to", cn);
	an_value(f, "retests", ev->retests);
	an_value(f, "retest_ratio_to_limit", ev->retest_ratio);
	if (!lat)
		an_value(f, "llr", ev->llr);
}
