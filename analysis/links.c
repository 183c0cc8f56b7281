/* Link checks: fabric-wide slowdown, NICs most of whose links are slow,
 * and single slow links decided by a sequential test. */
#include <math.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_int.h"
#include "units.h"

/*
 * Why a sequential test. With a noise of 2% (coefficient of variation), a
 * healthy link and one at 0.90 of its peers are 5 sigma apart. A fixed
 * threshold on one or two measurements cannot both catch the slow link in
 * 100 of 100 fabrics and keep 65,280 x 100 healthy links clean (the
 * lowest of 6.5 million healthy measurements lies near 0.89). So:
 *  - screen: the first measurement is suspect below floor + z * sigma
 *    (at most half-way between the floor and the centre); a link at 0.90
 *    passes this screen with probability 1 - 5e-4;
 *  - decide each suspect with Wald's sequential probability ratio test of
 *    "healthy" (mean = centre) against "at the floor" (mean = floor, or
 *    link_min_gap sigmas below the centre when the floor is closer) on
 *    all its measurements: slow when the log likelihood ratio reaches
 *    its bound and the median of two or more retests alone sits below the
 *    floor, cleared when it falls to ln(link_miss), and
 *    otherwise one more retest, up to link_retests_max, and past it, up to
 *    link_retests_undecided, for the undecided links leaning to slow. Wald's bound keeps
 *    the false alarm rate per link below link_false_alarm whatever the
 *    number of retests. One measurement's ratio is capped below the
 *    confirmation bound, so a single dip never confirms a link.
 * Sigma is the robust spread of the first measurements (1.4826 x MAD over
 * the median), never below link_noise_min.
 */

/* Links are compared within their line-rate class (a 100G and a 400G NIC
 * pair have different centres); a class too small for a median of its own,
 * or past the table, uses the fabric's. */
#define AN_CLASSES 16
#define AN_CLASS_MIN 32
#define AN_CENTRE_SE_Z 2
#define AN_NOISE_MIN_LINKS 6

struct bw_ctx {
	double centre, sigma;                  /* the fabric's */
	size_t n_centre;                       /* links its centre is the median of */
	double centre_rate;                    /* their median line rate, 0 unknown */
	double rate[AN_CLASSES], c[AN_CLASSES], sig[AN_CLASSES];
	size_t n_c[AN_CLASSES];
	unsigned int n_classes;
	double lnA, lnB;
	double lnA_link;                       /* links' bound (link_sweep_false_alarm) */
	size_t dip_n, dip_deep;                /* first measurements, deep ones (spread.c) */
	unsigned int retests_first, retests_max; /* link_retests_max, _undecided */
};

static unsigned int class_of(const struct bw_ctx *b, double rate)
{
	for (unsigned int k = 0; k < b->n_classes; k++)
		if (b->rate[k] == rate)
			return k;
	return AN_CLASSES;
}

static void class_centre(const struct bw_ctx *b, double rate, double *c, double *sig)
{
	unsigned int k = class_of(b, rate);

	*c = k < AN_CLASSES ? b->c[k] : b->centre;
	*sig = k < AN_CLASSES ? b->sig[k] : b->sigma;
}

/* The standard error (Gb/s) of the centre links of @rate are judged
 * against: a median of n values is off by about sqrt(pi / 2n) spreads. */
static double class_centre_se(const struct bw_ctx *b, double rate)
{
	unsigned int k = class_of(b, rate);
	double c = k < AN_CLASSES ? b->c[k] : b->centre, sig = k < AN_CLASSES ? b->sig[k] : b->sigma;
	size_t n = k < AN_CLASSES ? b->n_c[k] : b->n_centre;

	return n ? c * sig * sqrt(M_PI / 2 / (double)n) : 0;
}

static bool touches(const uint8_t *bad, const struct an_link *l)
{
	return bad[l->src] || bad[l->dst];
}

static double floor_of(const struct rck_analysis *a, double centre, double line_rate)
{
	double rel = an_th(a, TH_LINK_REL_FLOOR) * centre;
	double abs_ = line_rate > 0 ? an_th(a, TH_LINK_ABS_FLOOR) * line_rate : 0;

	return rel > abs_ ? rel : abs_;
}

/* The floor of a link of @rate against centre @c. A centre at or below
 * the absolute floor of its own line rate is a fabric near its floor (not
 * slow, or fabric_slow would have said so): its links are judged against
 * their peers, not against a floor the fabric's own noise straddles (at CV
 * 10% half of them sat below it, and a link whose retest did too was
 * called slow). */
static double link_floor(const struct rck_analysis *a, const struct bw_ctx *b, double c, double rate)
{
	double fl = floor_of(a, c, rate);

	if (fl >= c && (class_of(b, rate) < AN_CLASSES || rate == b->centre_rate))
		fl = an_th(a, TH_LINK_REL_FLOOR) * c;
	return fl;
}

/* Median of the values of @n links listed in @idx, each divided by its
 * limit when @lim is set. */
static double group_median(const struct rck_analysis *a, const uint32_t *idx, uint32_t n,
			   const double *lim, double *scratch)
{
	for (uint32_t i = 0; i < n; i++)
		scratch[i] = a->links[idx[i]].value / (lim ? lim[idx[i]] : 1);
	return an_median(scratch, n);
}

/* How far NIC @n is past its limit, larger is worse: its worse ratio (for
 * bandwidth the lower one, as a reciprocal). */
static double badness(const double *rq, const double *cq, unsigned int n, bool lat)
{
	double r = rq[n], c = cq[n];

	if (lat)
		return isnan(r) ? c : isnan(c) ? r : r > c ? r : c;
	r = isnan(r) ? INFINITY : r;
	c = isnan(c) ? INFINITY : c;
	return 1 / (r < c ? r : c);
}

/* Ratio of link @i to its limit: @lim[i] for bandwidth, @lat_limit else. */
static double ratio(const struct rck_analysis *a, size_t i, const double *lim, double lat_limit)
{
	return a->links[i].value / (lim ? lim[i] : lat_limit);
}

/*
 * A NIC that receives from a slow NIC shares that NIC's slow links: in a
 * small group (4 hosts: 3 links each way) one of them moves its median to
 * its limit. So each degraded NIC is judged again without its links to
 * degraded NICs worse than itself; the worst keeps all its links, and a
 * NIC with bad links of its own stays degraded. @deg is cleared where the
 * rest of its links are within their limits.
 */
static void explain_away(const struct rck_analysis *a, const struct an_groups *g, const double *lim,
			 double lat_limit, const double *rq, const double *cq, uint8_t *deg,
			 double *scratch)
{
	bool lat = !lim;
	uint8_t *clear = calloc(a->n_nics ? a->n_nics : 1, 1);

	if (!clear)
		return; /* no memory: keep the first judgement */
	for (unsigned int n = 0; n < a->n_nics; n++) {
		double mine, q[2];

		if (!deg[n])
			continue;
		mine = badness(rq, cq, n, lat);
		for (int side = 0; side < 2; side++) {
			const uint32_t *start = side ? g->col_start : g->row_start;
			const uint32_t *idx = side ? g->col_idx : g->row_idx;
			uint32_t k = 0;

			/* A side too short to be judged first stays unjudged. */
			if (start[n + 1] - start[n] < an_th(a, TH_ATTRIBUTION_MIN_LINKS)) {
				q[side] = NAN;
				continue;
			}
			for (uint32_t i = start[n]; i < start[n + 1]; i++) {
				const struct an_link *l = &a->links[idx[i]];
				unsigned int peer = side ? l->src : l->dst;

				if (deg[peer] && badness(rq, cq, peer, lat) > mine)
					continue;
				scratch[k++] = ratio(a, idx[i], lim, lat_limit);
			}
			q[side] = k ? an_median(scratch, k) : NAN;
		}
		/* NaN (no link left on a side) compares false: not bad there. */
		clear[n] = !(lat ? q[0] > 1 || q[1] > 1 : q[0] < 1 || q[1] < 1);
	}
	for (unsigned int n = 0; n < a->n_nics; n++)
		deg[n] &= !clear[n];
	free(clear);
}

/*
 * NICs most of whose links (as sender or as receiver) are beyond their
 * limit: the median of the row or column, each link over its own limit,
 * is past 1. Each such NIC is then decided on its own measurements
 * (confirm.c): confirmed, suspect (retests asked) or cleared. A host with
 * several NICs, most of them degraded, is one host finding instead,
 * confirmed when most are confirmed. @ref: each bandwidth link's centre,
 * spread and floor; NULL for latency, whose limit is factor x @centre
 * (above it is bad). NICs confirmed or suspect go into @bad.
 */
static void attribute(const struct rck_analysis *a, struct rck_report *r, const uint8_t *take,
		      const struct an_bw_ref *ref, double centre, uint8_t *bad)
{
	double min = an_th(a, TH_ATTRIBUTION_MIN_LINKS), factor = an_th(a, TH_LINK_LATENCY_FACTOR);
	const double *lim = ref ? ref->fl : NULL;
	size_t nn = a->n_nics ? a->n_nics : 1, nh = a->n_hosts ? a->n_hosts : 1;
	double *rmed = calloc(nn, sizeof(double)), *cmed = calloc(nn, sizeof(double));
	double *rq = calloc(nn, sizeof(double)), *cq = calloc(nn, sizeof(double));
	bool lat = !lim;
	uint8_t *deg = calloc(nn, 1), *side = calloc(nn, 1), *conf = calloc(nn, 1);
	struct an_evidence *ev = calloc(nn, sizeof(*ev));
	unsigned int *with = calloc(nh, sizeof(unsigned int)), *ndeg = calloc(nh, sizeof(unsigned int));
	unsigned int *nconf = calloc(nh, sizeof(unsigned int));
	double *scratch = NULL;
	struct an_groups g = {0};
	uint32_t maxg = 1;

	if (!rmed || !cmed || !rq || !cq || !deg || !side || !conf || !ev || !with || !ndeg || !nconf ||
	    an_groups_build(a, take, &g))
		goto oom;
	for (unsigned int n = 0; n < a->n_nics; n++) {
		uint32_t rn = g.row_start[n + 1] - g.row_start[n], cn = g.col_start[n + 1] - g.col_start[n];

		maxg = rn > maxg ? rn : maxg;
		maxg = cn > maxg ? cn : maxg;
	}
	scratch = malloc(maxg * sizeof(*scratch));
	if (!scratch)
		goto oom;
	for (unsigned int n = 0; n < a->n_nics; n++) {
		uint32_t rn = g.row_start[n + 1] - g.row_start[n], cn = g.col_start[n + 1] - g.col_start[n];
		bool rbad, cbad;

		rq[n] = rn ? group_median(a, g.row_idx + g.row_start[n], rn, lim, scratch) : NAN;
		cq[n] = cn ? group_median(a, g.col_idx + g.col_start[n], cn, lim, scratch) : NAN;
		if (lat) {
			rmed[n] = rq[n];
			cmed[n] = cq[n];
			rq[n] /= factor * centre;
			cq[n] /= factor * centre;
		}
		rbad = rn >= min && (lat ? rq[n] > 1 : rq[n] < 1);
		cbad = cn >= min && (lat ? cq[n] > 1 : cq[n] < 1);
		deg[n] = rbad || cbad;
		side[n] = (uint8_t)(rbad | cbad << 1);
	}
	explain_away(a, &g, lim, lat ? factor * centre : 0, rq, cq, deg, scratch);
	for (unsigned int n = 0; n < a->n_nics; n++) {
		uint32_t rn = g.row_start[n + 1] - g.row_start[n], cn = g.col_start[n + 1] - g.col_start[n];

		if (deg[n]) {
			conf[n] = (uint8_t)an_confirm_nic(a, r, &g, n, side[n] & 1, side[n] & 2, ref,
							  factor * centre, &ev[n]);
			deg[n] = conf[n] != AN_CLEARED;
		}
		/* Bandwidth medians in Gb/s only for the reason of a finding. */
		if (!lat && deg[n]) {
			rmed[n] = rn ? group_median(a, g.row_idx + g.row_start[n], rn, NULL, scratch) : NAN;
			cmed[n] = cn ? group_median(a, g.col_idx + g.col_start[n], cn, NULL, scratch) : NAN;
		}
		if (rn + cn)
			with[a->nics[n].host]++;
		ndeg[a->nics[n].host] += deg[n];
		nconf[a->nics[n].host] += deg[n] && conf[n] == AN_CONFIRMED;
	}
	for (unsigned int h = 0; h < a->n_hosts; h++) {
		struct rck_finding *f;
		bool confirmed = 2 * nconf[h] > with[h];

		if (with[h] < 2 || 2 * ndeg[h] <= with[h])
			continue;
		f = an_add(r, RCK_FINDING_HOST_DEGRADED,
			   confirmed ? RCK_SEVERITY_DEGRADED : RCK_SEVERITY_WARNING, RCK_ENTITY_HOST,
			   a->hosts[h].name, NULL, NULL, NULL,
			   "%u of its %u probed NICs have most of their links %s; %u of them confirmed by "
			   "retests", ndeg[h], with[h], lat ? "slow to answer" : "below the floor", nconf[h]);
		if (f)
			f->suspect = !confirmed;
		an_value(f, "nics_degraded", ndeg[h]);
		an_value(f, "nics", with[h]);
		an_value(f, "nics_confirmed", nconf[h]);
		AN_FOR_HOST_NIC(a, h, n)
			if (deg[n]) {
				bad[n] = 1;
				deg[n] = 0;
			}
	}
	for (unsigned int n = 0; n < a->n_nics; n++) {
		if (!deg[n])
			continue;
		bad[n] = 1;
		an_nic_finding(a, r, n, lat, rmed[n], cmed[n], rq[n], cq[n], centre,
			    g.row_start[n + 1] - g.row_start[n], g.col_start[n + 1] - g.col_start[n],
			    (enum an_conf)conf[n], &ev[n]);
	}
	goto out;
oom:
	r->err = -ENOMEM;
out:
	an_groups_free(&g);
	free(scratch);
	free(rmed);
	free(cmed);
	free(rq);
	free(cq);
	free(deg);
	free(side);
	free(conf);
	free(ev);
	free(with);
	free(ndeg);
	free(nconf);
}

/*
 * One fabric finding when most links sit below their absolute floor, or the
 * centre itself sits far below the line rate, and a sign test agrees: were
 * the fabric at its floor, each link would lie below it with probability
 * fabric_slow_fraction, and so many below must be that unlikely
 * (AN_FABRIC_SLOW_ALPHA). 3 of 6 links below is not "most": a healthy
 * 4-host fabric at CV 10% (a NIC set aside, 6 links left) was called slow
 * in 11 trials of 1000. A few links can still show a fabric far below its
 * floor: most of them AN_FABRIC_FAR_Z times noise_max under it, which a
 * fabric at its floor gives a link with probability AN_FABRIC_FAR_P
 * (two NICs at 0.3 of 4 hosts: 10 links of 12).
 */
#define AN_FABRIC_SLOW_ALPHA 1e-3
#define AN_FABRIC_FAR_Z 2
#define AN_FABRIC_FAR_P 0.025

static bool fabric_slow(const struct rck_analysis *a, struct rck_report *r, const uint8_t *take,
			double centre, double *scratch)
{
	size_t known = 0, slow = 0, far = 0;
	double lm, abs_ = an_th(a, TH_LINK_ABS_FLOOR), frac = an_th(a, TH_FABRIC_SLOW_FRACTION);
	double far_below = abs_ * (1 - AN_FABRIC_FAR_Z * an_th(a, TH_NOISE_MAX));
	char u[2][32];
	struct rck_finding *f;

	for (size_t i = 0; i < a->n_links; i++) {
		const struct an_link *l = &a->links[i];

		if (!take[i] || !(l->line_rate > 0))
			continue;
		scratch[known++] = l->line_rate;
		slow += l->value < abs_ * l->line_rate;
		far += l->value < far_below * l->line_rate;
	}
	if (!known)
		return false;
	lm = an_median(scratch, known);
	if (((slow < frac * (double)known && centre >= an_th(a, TH_FABRIC_CENTRE_FLOOR) * lm) ||
	     an_binom_tail(known, slow, frac) > AN_FABRIC_SLOW_ALPHA) &&
	    (!(far > frac * (double)known) || an_binom_tail(known, far, AN_FABRIC_FAR_P) > AN_FABRIC_SLOW_ALPHA))
		return false;
	f = an_add(r, RCK_FINDING_FABRIC_SLOW, RCK_SEVERITY_DEGRADED, RCK_ENTITY_FABRIC, NULL, NULL,
		   NULL, NULL,
		   "%zu of %zu links below %g of their line rate; fabric median %s of %s",
		   slow, known, abs_, units_rate(u[0], 32, centre), units_rate(u[1], 32, lm));
	an_value(f, "links_slow", (double)slow);
	an_value(f, "links", (double)known);
	an_value(f, "fabric_median_gbps", centre);
	an_value(f, "line_rate_gbps", lm);
	an_value(f, "ratio", lm > 0 ? centre / lm : 0);
	return true;
}

/* One measurement's log likelihood ratio, capped below the confirmation
 * bound: no single measurement (a transient dip) confirms a link, a retest
 * must agree. Capping only lowers the ratio, so Wald's bound still holds. */
static double llr(double cap, double k, double mid, double x)
{
	double v = k * (mid - x);

	return v < cap ? v : cap;
}

/*
 * The test's hypotheses for a link of centre @c, floor @fl and spread @sig
 * (Gb/s): "slow" (*@alt) at the floor, but never closer to the centre than
 * link_min_gap sigmas, where a few measurements cannot tell the two apart
 * (a centre just above the absolute floor); "healthy" AN_CENTRE_SE_Z of
 * the centre's standard errors @se below it. The centre is a median, off
 * by se the same way for every measurement of the link: little at 16
 * hosts and up (se under a tenth of a spread), but on 4 hosts (12 links)
 * a healthy link was called slow against a median that came out high (9
 * fabrics in 1000 at CV 5-10%). *@mid and *@k: the LLR's midpoint, slope.
 */
static void hypotheses(const struct rck_analysis *a, double c, double fl, double se, double sig,
		       double *alt, double *mid, double *k)
{
	double healthy = c - AN_CENTRE_SE_Z * se;

	*alt = c - an_th(a, TH_LINK_MIN_GAP) * sig;
	if (fl < *alt)
		*alt = fl;
	if (healthy < *alt + sig)
		healthy = *alt + sig;
	*mid = (healthy + *alt) / 2;
	*k = (healthy - *alt) / (sig * sig);
}

/*
 * The sample standard deviation of @n >= 2 retests; from three on, without
 * those under AN_DIP_OF_MEDIAN of their median: a deep dip (one probe in
 * 50 at half speed) is no spread of the link's, and one in a slow link's
 * retests would leave it undecided. 0 with fewer than two left.
 */
#define AN_DIP_OF_MEDIAN 0.6

static double retest_spread(const double *rt, unsigned int n)
{
	double v[RCK_LINK_RETESTS_MOST], lo = 0, mean = 0, ss = 0;
	unsigned int k = 0;

	if (n >= 3) {
		memcpy(v, rt, n * sizeof(*v));
		lo = AN_DIP_OF_MEDIAN * an_median(v, n);
	}
	for (unsigned int i = 0; i < n; i++)
		if (rt[i] >= lo) {
			mean += rt[i];
			k++;
		}
	if (k < 2)
		return 0;
	mean /= k;
	for (unsigned int i = 0; i < n; i++)
		if (rt[i] >= lo)
			ss += (rt[i] - mean) * (rt[i] - mean);
	return sqrt(ss / (k - 1));
}

/* Decide one bandwidth link; see the comment at the top. */
static void judge_bw(const struct rck_analysis *a, struct rck_report *r, const struct an_link *l,
		     const struct bw_ctx *b, double sig)
{
	double c, fl, alt, gap, mid, screen, k, s, sum, cap, rt[RCK_LINK_RETESTS_MOST], rmed, se;
	double sd, alt2, mid2, k2;
	size_t deep;
	char u[3][32];
	unsigned int m = 1;
	struct rck_finding *f;
	bool plain, agree;

	class_centre(b, l->line_rate, &c, &gap);
	fl = link_floor(a, b, c, l->line_rate);
	se = class_centre_se(b, l->line_rate);
	hypotheses(a, c, fl, se, sig, &alt, &mid, &k);
	screen = alt + an_th(a, TH_LINK_SCREEN_Z) * sig;
	/* A link whose own floor is at or above the centre (a faster NIC pair
	 * in a slower fabric) has no healthy reference: below its floor it is
	 * a suspect, and its latest retest decides. */
	plain = fl >= c;
	if (screen > mid)
		screen = mid;
	/* Where the gap is link_min_gap sigmas (high noise), a link between
	 * the floor and the centre is caught by z sigmas under the centre. */
	if (alt < fl && screen < c - an_th(a, TH_LINK_SCREEN_Z) * sig)
		screen = c - an_th(a, TH_LINK_SCREEN_Z) * sig;
	if (plain)
		screen = fl;
	if (!(l->value < screen))
		return;
	r->links.suspects++;
	/* The share of deep dips among the other links bounds each one. */
	deep = b->dip_deep - (l->value < alt && b->dip_deep);
	cap = log((double)b->dip_n / (double)(deep + 1));
	if (cap > 0.9 * b->lnA_link)
		cap = 0.9 * b->lnA_link;
	s = llr(cap, k, mid, l->value);
	sum = l->value;
	for (unsigned int i = 0; i < l->n_retests; i++) {
		const struct rck_link_meas *x = &a->retests[l->retest + i];

		if (x->status != RCK_LINK_OK)
			continue;
		s += llr(cap, k, mid, x->gbps);
		sum += x->gbps;
		rt[m - 1] = x->gbps; /* input.c keeps n_retests <= RCK_LINK_RETESTS_MOST */
		m++;
	}
	/*
	 * Its retests, unselected draws, show its own spread: a link of a host
	 * short of CPU whose spread came out low from a handful of links (3
	 * a side on 4 hosts) had its retests scattered 3 spreads wide, each
	 * counted as evidence of slowness. With two retests or more the test
	 * uses the larger of its spread and theirs (retest_spread()).
	 */
	if (m >= 3 && (sd = retest_spread(rt, m - 1)) > sig) {
		hypotheses(a, c, fl, se, sd, &alt2, &mid2, &k2);
		s = llr(cap, k2, mid2, l->value);
		for (unsigned int i = 0; i + 1 < m; i++)
			s += llr(cap, k2, mid2, rt[i]);
	}
	if (m == 1) {
		/* Never retested, or every retest failed: ask again, up to the limit. */
		if (l->n_retests < b->retests_first)
			an_retest_add(r, RCK_LINK_TEST_BW, l->src, l->dst);
		if (l->value < fl) {
			f = an_add_link(r, a, l, RCK_FINDING_LINK_SLOW, RCK_SEVERITY_WARNING,
					"%s, below the floor %s (fabric median %s); %s, unconfirmed",
					units_rate(u[0], 32, l->value), units_rate(u[1], 32, fl),
					units_rate(u[2], 32, c),
					l->n_retests ? "its retests failed" : "not retested");
			an_value(f, "gbps", l->value);
			an_value(f, "floor_gbps", fl);
			an_value(f, "fabric_median_gbps", c);
			an_value(f, "measurements", 1);
		}
		return;
	}
	if (plain) {
		const struct rck_link_meas *last = NULL;

		for (unsigned int i = 0; i < l->n_retests; i++)
			if (a->retests[l->retest + i].status == RCK_LINK_OK)
				last = &a->retests[l->retest + i];
		s = last && last->gbps < fl ? b->lnA_link : b->lnB;
	}
	/*
	 * Two retests at least must agree, their median below the floor, as a
	 * NIC's (confirm.c): dips and values 3-4 sigmas low brought healthy
	 * links to the bound on one retest, or with retests above the floor
	 * (test-verdicts replays them). Past link_retests_max, retests still
	 * above the floor leave it inconclusive (a link at 0.96, above its
	 * floor, would otherwise lean slow for ever).
	 */
	rmed = an_median(rt, m - 1);
	agree = plain || (m >= 3 && rmed < fl);
	if (s >= b->lnA_link && agree) {
		r->links.confirmed++;
		f = an_add_link(r, a, l, RCK_FINDING_LINK_SLOW, RCK_SEVERITY_DEGRADED,
				"%s (mean of %u measurements, %u of them retests alone), below "
				"the floor %s (fabric median %s)", units_rate(u[0], 32, sum / m), m, m - 1,
				units_rate(u[1], 32, fl), units_rate(u[2], 32, c));
		an_value(f, "gbps", l->value);
		an_value(f, "mean_gbps", sum / m);
		an_value(f, "measurements", m);
		an_value(f, "retest_median_gbps", rmed);
		an_value(f, "floor_gbps", fl);
		an_value(f, "fabric_median_gbps", c);
		an_value(f, "ratio", sum / m / c);
		if (l->line_rate > 0)
			an_value(f, "line_rate_gbps", l->line_rate);
	} else if (s <= b->lnB) {
		r->links.cleared++;
	} else if (l->n_retests >= b->retests_max ||
		   (l->n_retests >= b->retests_first && (s <= 0 || (s >= b->lnA_link && !agree)))) {
		/* Past link_retests_max only links whose evidence leans to
		 * slow go on: one leaning to healthy would only cost time. */
		r->links.inconclusive++;
	} else {
		an_retest_add(r, RCK_LINK_TEST_BW, l->src, l->dst);
		/* Shown if the caller has no retest pass left to give it. */
		an_link_undecided(r, a, l, sum / m, rmed, m, fl, c);
	}
}

/*
 * The measured links of @test whose NICs are not in @bad: *@takep marks
 * them, *@vp holds their values (both the caller's to free). Returns their
 * number; *@takep NULL after ENOMEM.
 */
static size_t take_links(const struct rck_analysis *a, const uint8_t *bad, enum rck_link_test test,
			 uint8_t **takep, double **vp)
{
	uint8_t *take = calloc(a->n_links ? a->n_links : 1, 1);
	double *v = malloc((a->n_links ? a->n_links : 1) * sizeof(*v));
	size_t n = 0;

	if (!take || !v) {
		free(take);
		free(v);
		*takep = NULL;
		*vp = NULL;
		return 0;
	}
	for (size_t i = 0; i < a->n_links; i++) {
		const struct an_link *l = &a->links[i];

		if (l->test != test || l->status != RCK_LINK_OK || touches(bad, l))
			continue;
		take[i] = 1;
		v[n++] = l->value;
	}
	*takep = take;
	*vp = v;
	return n;
}

/* Median and robust spread (1.4826 MAD over the median, at least
 * link_noise_min) of the taken links of line rate @rate (any when < 0).
 * Returns how many there were; @v is scratch. */
static size_t centre_sigma(const struct rck_analysis *a, const uint8_t *take, double rate, double *v,
			   double *c, double *sig)
{
	size_t n = 0;

	for (size_t i = 0; i < a->n_links; i++)
		if (take[i] && (rate < 0 || a->links[i].line_rate == rate))
			v[n++] = a->links[i].value;
	*c = an_median(v, n);
	if (!(*c > 0))
		return 0;
	n = 0;
	for (size_t i = 0; i < a->n_links; i++)
		if (take[i] && (rate < 0 || a->links[i].line_rate == rate))
			v[n++] = fabs(a->links[i].value / *c - 1);
	*sig = 1.4826 * an_median(v, n);
	if (*sig < an_th(a, TH_LINK_NOISE_MIN))
		*sig = an_th(a, TH_LINK_NOISE_MIN);
	return n;
}

/*
 * Is the fabric too noisy to judge? Its noise is that of the links left
 * once the NICs found slow (confirmed or suspect) are set aside: a NIC at
 * half speed in a small fabric is an eighth of its links and would
 * otherwise count as noise. When they leave less than half the links, the
 * noise of all (@sigma) stands. @v is scratch.
 */
static void check_noise(const struct rck_analysis *a, struct rck_report *r, const uint8_t *take,
			const uint8_t *bad, double sigma, double *v)
{
	uint8_t *rest = calloc(a->n_links ? a->n_links : 1, 1);
	size_t all = 0, left = 0;
	double c, sig;

	if (!rest) {
		r->err = -ENOMEM;
		return;
	}
	for (size_t i = 0; i < a->n_links; i++) {
		rest[i] = take[i] && !touches(bad, &a->links[i]);
		all += take[i];
		left += rest[i];
	}
	if (2 * left >= all && centre_sigma(a, rest, -1, v, &c, &sig))
		sigma = sig;
	free(rest);
	/* A spread of a handful of links says nothing of the fabric's noise
	 * (two links of a recorded sweep, one slow, made it 59%). */
	if (all < AN_NOISE_MIN_LINKS)
		return;
	if (sigma > an_th(a, TH_NOISE_MAX) && !r->noisy &&
	    asprintf(&r->noisy, "fabric noise %.1f%% above noise_max %.1f%%: too high to decide "
		     "against the floors", 100 * sigma, 100 * an_th(a, TH_NOISE_MAX)) < 0) {
		r->noisy = NULL;
		r->err = -ENOMEM;
	}
}

/* The median line rate of the taken links that know theirs, 0 none. */
static double median_rate(const struct rck_analysis *a, const uint8_t *take, double *v)
{
	size_t n = 0;

	for (size_t i = 0; i < a->n_links; i++)
		if (take[i] && a->links[i].line_rate > 0)
			v[n++] = a->links[i].line_rate;
	return an_median(v, n);
}

/* Line-rate classes with links enough for a centre of their own. */
static void classes(const struct rck_analysis *a, const uint8_t *take, double *v, struct bw_ctx *b)
{
	double rate[AN_CLASSES];
	size_t count[AN_CLASSES] = {0};
	unsigned int n = 0;

	for (size_t i = 0; i < a->n_links; i++) {
		unsigned int k;

		if (!take[i])
			continue;
		for (k = 0; k < n && rate[k] != a->links[i].line_rate; k++)
			;
		if (k == AN_CLASSES)
			return;  /* too many rates: the fabric's centre for all */
		if (k == n)
			rate[n++] = a->links[i].line_rate;
		count[k]++;
	}
	if (n < 2)
		return;  /* one class: the fabric's centre is its centre */
	for (unsigned int k = 0; k < n; k++) {
		unsigned int j = b->n_classes;

		if (count[k] < AN_CLASS_MIN)
			continue;
		b->rate[j] = rate[k];
		if ((b->n_c[j] = centre_sigma(a, take, rate[k], v, &b->c[j], &b->sig[j])))
			b->n_classes++;
	}
}

static void check_bw(const struct rck_analysis *a, struct rck_report *r, uint8_t *bad)
{
	struct bw_ctx b = {0};
	struct an_bw_ref ref;
	double *v, *lim = NULL, *cen = NULL, *sg = NULL, *alt = NULL;
	size_t judged = 0;
	uint8_t *take, *rest = NULL;
	size_t n = take_links(a, bad, RCK_LINK_TEST_BW, &take, &v);

	if (!take) {
		r->err = -ENOMEM;
		goto out;
	}
	if (!n || a->incast)
		goto out;
	/* A NIC far below the rest (a slow one of 4 hosts is half the links)
	 * is left out of the centre, the spread its links are judged by and
	 * the fabric's speed. */
	rest = malloc(a->n_links ? a->n_links : 1);
	if (!rest || an_bw_rest(a, r, take, rest) < 0)
		goto oom;
	if (!(b.n_centre = centre_sigma(a, rest, -1, v, &b.centre, &b.sigma)) ||
	    fabric_slow(a, r, rest, b.centre, v)) {
		r->links.centre_gbps = b.centre;
		goto out;
	}
	r->links.centre_gbps = b.centre;
	r->links.noise_cv = b.sigma;
	b.centre_rate = median_rate(a, rest, v);
	classes(a, rest, v, &b);
	b.lnA = log(1 / an_th(a, TH_LINK_FALSE_ALARM));
	b.lnB = log(an_th(a, TH_LINK_MISS));
	/* A link still undecided after link_retests_max goes on, alone among
	 * the suspects, up to link_retests_undecided retests in all. */
	b.retests_first = b.retests_max = (unsigned int)an_th(a, TH_LINK_RETESTS_MAX);
	if (b.retests_max < an_th(a, TH_LINK_RETESTS_UNDECIDED))
		b.retests_max = (unsigned int)an_th(a, TH_LINK_RETESTS_UNDECIDED);
	/* Each link's centre, spread and floor, for attribution. */
	lim = v;
	cen = malloc((a->n_links ? a->n_links : 1) * sizeof(*cen));
	sg = malloc((a->n_links ? a->n_links : 1) * sizeof(*sg));
	alt = malloc((a->n_links ? a->n_links : 1) * sizeof(*alt));
	if (!cen || !sg || !alt)
		goto oom;
	for (size_t i = 0; i < a->n_links; i++) {
		double c, sig;

		if (!take[i])
			continue;
		class_centre(&b, a->links[i].line_rate, &c, &sig);
		lim[i] = link_floor(a, &b, c, a->links[i].line_rate);
		cen[i] = c;
		sg[i] = sig * c;
	}
	if (an_link_spreads(a, take, cen, sg))
		goto oom;
	for (size_t i = 0; i < a->n_links; i++) {
		double gap = an_th(a, TH_LINK_MIN_GAP) * sg[i];

		if (take[i])
			alt[i] = lim[i] < cen[i] - gap ? lim[i] : cen[i] - gap;
	}
	if (an_dips(a, take, NULL, alt, &b.dip_n, &b.dip_deep))
		goto oom;
	ref = (struct an_bw_ref){cen, sg, lim, b.lnA, b.lnB,
				 log((double)(b.dip_n + 1) / (double)(b.dip_deep + 1))};
	attribute(a, r, take, &ref, b.centre, bad);
	check_noise(a, r, rest, bad, b.sigma, v);
	/* Links are held to link_sweep_false_alarm healthy links called slow
	 * per sweep; one measurement to ln(1 / the share of deep dips). */
	for (size_t i = 0; i < a->n_links; i++)
		judged += take[i] && !touches(bad, &a->links[i]);
	b.lnA_link = log((double)(judged ? judged : 1) / an_th(a, TH_LINK_SWEEP_FALSE_ALARM));
	if (b.lnA_link < 1)
		b.lnA_link = 1;
	if (an_dips(a, take, bad, alt, &b.dip_n, &b.dip_deep))
		goto oom;
	for (size_t i = 0; i < a->n_links; i++)
		if (take[i] && !touches(bad, &a->links[i]))
			judge_bw(a, r, &a->links[i], &b, sg[i]);
	goto out;
oom:
	r->err = -ENOMEM;
out:
	free(take);
	free(rest);
	free(v);
	free(cen);
	free(sg);
	free(alt);
}

static void judge_lat(const struct rck_analysis *a, struct rck_report *r, const struct an_link *l,
		      double median)
{
	double limit = an_th(a, TH_LINK_LATENCY_FACTOR) * median;
	const struct rck_link_meas *last = NULL;
	struct rck_finding *f;

	if (!(l->value > limit))
		return;
	r->links.suspects++;
	for (unsigned int i = 0; i < l->n_retests; i++)
		if (a->retests[l->retest + i].status == RCK_LINK_OK)
			last = &a->retests[l->retest + i];
	if (!last) {
		if (l->n_retests < an_th(a, TH_LINK_RETESTS_MAX))
			an_retest_add(r, RCK_LINK_TEST_LAT, l->src, l->dst);
		f = an_add_link(r, a, l, RCK_FINDING_LINK_LATENCY, RCK_SEVERITY_WARNING,
				"latency p50 %.2f us over %.2f us (fabric median %.2f); %s, unconfirmed",
				l->value, limit, median, l->n_retests ? "its retests failed" : "not retested");
	} else if (last->lat_p50_us > limit) {
		r->links.confirmed++;
		f = an_add_link(r, a, l, RCK_FINDING_LINK_LATENCY, RCK_SEVERITY_DEGRADED,
				"latency p50 %.2f us, retest alone %.2f us, over %.2f us (fabric median %.2f)",
				l->value, last->lat_p50_us, limit, median);
		an_value(f, "retest_p50_us", last->lat_p50_us);
	} else {
		r->links.cleared++;
		return;
	}
	an_value(f, "p50_us", l->value);
	an_value(f, "p99_us", l->p99);
	an_value(f, "limit_us", limit);
	an_value(f, "fabric_median_us", median);
}

static void check_lat(const struct rck_analysis *a, struct rck_report *r, uint8_t *bad)
{
	uint8_t *take;
	double *v, median;
	size_t n = take_links(a, bad, RCK_LINK_TEST_LAT, &take, &v);

	if (!take) {
		r->err = -ENOMEM;
		goto out;
	}
	if (!n || a->incast)
		goto out;
	median = an_median(v, n);
	r->links.median_lat_us = median;
	if (!(median > 0))
		goto out;
	attribute(a, r, take, NULL, median, bad);
	for (size_t i = 0; i < a->n_links; i++)
		if (take[i] && !touches(bad, &a->links[i]))
			judge_lat(a, r, &a->links[i], median);
out:
	free(take);
	free(v);
}

void an_check_links(const struct rck_analysis *a, struct rck_report *r, uint8_t *bad)
{
	an_check_link_failures(a, r, bad);
	check_bw(a, r, bad);
	check_lat(a, r, bad);
	an_list_failed_links(a, r, bad);
}
