/* Localisation: each probe's path through the topology (NIC and cable, leaf,
 * uplinks, spine), and a greedy cover of the bad probes by the fewest parts. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "localise.h"
#include "rocecheck/topology.h"

RCK_EXPORT int rck_analysis_set_topology(struct rck_analysis *a, const struct rck_topology *t)
{
	if (!a)
		return -EINVAL;
	a->topo = t;
	return 0;
}

/* ---- which leaf and port each analysis NIC is cabled to ---- */


static int key_cmp(const void *x, const void *y)
{
	const struct nic_key *a = x, *b = y;
	int c = strcmp(a->host, b->host);

	return c ? c : strcmp(a->label, b->label);
}

static int host_cmp(const void *x, const void *y)
{
	const struct nic_key *a = x, *b = y;

	return strcmp(a->host, b->host);
}

/* A cable's NIC as the analysis labels it: "dev/port", a bare device is port 1. */
static void label_of(const char *nic, char *buf, size_t n)
{
	snprintf(buf, n, strchr(nic, '/') ? "%s" : "%s/1", nic);
}

struct host_cable {
	const char *host;
	int32_t sw;
};

static int hc_cmp(const void *x, const void *y)
{
	const struct host_cable *a = x, *b = y;
	int c = strcmp(a->host, b->host);

	return c ? c : (a->sw > b->sw) - (a->sw < b->sw);
}

/* The host as a whole (Slurm), under one leaf per rail: its j-th NIC by
 * name goes on the j-th of its leaves in switch order. */
static int map_hosts(struct lc *l, struct host_cable *hc, size_t n)
{
	struct nic_key *keys = l->keys;

	qsort(hc, n, sizeof(*hc), hc_cmp);
	for (size_t i = 0, e; i < n; i = e) {
		struct nic_key k = {hc[i].host, "", 0}, *hit;

		for (e = i; e < n && !strcmp(hc[e].host, hc[i].host); e++)
			;
		hit = bsearch(&k, keys, l->n_nics, sizeof(*keys), host_cmp);
		if (!hit)
			continue;
		while (hit > keys && !strcmp(hit[-1].host, hc[i].host))
			hit--;
		for (size_t j = 0; hit < keys + l->n_nics && !strcmp(hit->host, hc[i].host); hit++, j++)
			if (l->nic_sw[hit->nic] < 0)
				l->nic_sw[hit->nic] = hc[i + j % (e - i)].sw;
	}
	return 0;
}

/* The NIC of @host bound to @netdev (LLDP names a host NIC by its netdev). */
static struct nic_key *by_netdev(const struct lc *l, const char *host, const char *netdev)
{
	struct nic_key k = {host, "", 0}, *hit = bsearch(&k, l->keys, l->n_nics, sizeof(*l->keys), host_cmp);

	if (!hit || !netdev)
		return NULL;
	while (hit > l->keys && !strcmp(hit[-1].host, host))
		hit--;
	for (; hit < l->keys + l->n_nics && !strcmp(hit->host, host); hit++)
		if (l->a->nics[hit->nic].netdev && !strcmp(l->a->nics[hit->nic].netdev, netdev))
			return hit;
	return NULL;
}

static int map_nics(struct lc *l)
{
	unsigned int nc = rck_topology_cable_count(l->t);
	struct host_cable *hc = malloc((nc ? nc : 1) * sizeof(*hc));
	size_t nh = 0;

	if (!hc)
		return -ENOMEM;
	for (unsigned int i = 0; i < nc; i++) {
		struct rck_topology_cable cb = {.size = sizeof(cb)};
		char lab[256];
		struct nic_key k, *hit;

		if (rck_topology_cable(l->t, i, &cb) || cb.sw < 0 || !cb.host)
			continue;
		if (!cb.nic) {
			hc[nh++] = (struct host_cable){cb.host, cb.sw};
			continue;
		}
		label_of(cb.nic, lab, sizeof(lab));
		k = (struct nic_key){cb.host, lab, 0};
		hit = bsearch(&k, l->keys, l->n_nics, sizeof(*l->keys), key_cmp);
		if (!hit)
			hit = by_netdev(l, cb.host, cb.netdev ? cb.netdev : cb.nic);
		if (hit) {
			l->nic_sw[hit->nic] = cb.sw;
			l->nic_port[hit->nic] = cb.port;
		}
	}
	map_hosts(l, hc, nh);
	free(hc);
	return 0;
}

int lc_find_nic(const struct lc *l, const char *host, const char *label, uint32_t *nic)
{
	struct nic_key k = {host, label, 0}, *hit;

	if (!host || !label)
		return -ENOENT;
	hit = bsearch(&k, l->keys, l->n_nics, sizeof(*l->keys), key_cmp);
	if (!hit)
		return -ENOENT;
	*nic = hit->nic;
	return 0;
}

static void map_uplinks(struct lc *l)
{
	unsigned int nu = rck_topology_uplink_count(l->t);

	for (unsigned int s = 0; s < l->n_sw; s++)
		l->sw_spine[s] = l->sw_uplink[s] = -1;
	for (unsigned int i = 0; i < nu; i++) {
		struct rck_topology_uplink u = {.size = sizeof(u)};

		if (rck_topology_uplink(l->t, i, &u) || u.lower >= l->n_sw || u.upper >= l->n_sw)
			continue;
		if (!l->sw_n_up[u.lower]++) {
			l->sw_uplink[u.lower] = (int32_t)i;
			l->sw_spine[u.lower] = (int32_t)u.upper;
		} else if (l->sw_spine[u.lower] != (int32_t)u.upper) {
			l->sw_spine[u.lower] = -2; /* several switches above: ECMP, no one spine */
		}
	}
	for (unsigned int s = 0; s < l->n_sw; s++)
		if (l->sw_spine[s] < -1)
			l->sw_spine[s] = -1;
}

unsigned int lc_path(const struct lc *l, size_t k, uint32_t *out)
{
	return lc_path_nics(l, l->a->links[k].src, l->a->links[k].dst, out);
}

unsigned int lc_path_nics(const struct lc *l, uint32_t src, uint32_t dst, uint32_t *out)
{
	int32_t ls = l->nic_sw[src], ld = l->nic_sw[dst];
	unsigned int n = 0;

	out[n++] = lc_comp(l, LC_NIC, src);
	out[n++] = lc_comp(l, LC_NIC, dst);
	if (ls >= 0)
		out[n++] = lc_comp(l, LC_SWITCH, (uint32_t)ls);
	if (ld >= 0 && ld != ls)
		out[n++] = lc_comp(l, LC_SWITCH, (uint32_t)ld);
	if (ls < 0 || ld < 0 || ls == ld)
		return n;
	if (l->sw_n_up[ls]) {
		out[n++] = lc_comp(l, LC_UP_BOTH, (uint32_t)ls);
		out[n++] = lc_comp(l, LC_UP_OUT, (uint32_t)ls);
	}
	if (l->sw_n_up[ld]) {
		out[n++] = lc_comp(l, LC_UP_BOTH, (uint32_t)ld);
		out[n++] = lc_comp(l, LC_UP_IN, (uint32_t)ld);
	}
	if (l->sw_spine[ls] >= 0 && l->sw_spine[ls] == l->sw_spine[ld])
		out[n++] = lc_comp(l, LC_SWITCH, (uint32_t)l->sw_spine[ls]);
	return n;
}

/* ---- which probes are bad ---- */

static const enum rck_counter loss_ids[] = {
	RCK_CTR_OUT_OF_SEQUENCE, RCK_CTR_SEQ_ERR_NAKS, RCK_CTR_LOCAL_ACK_TIMEOUTS,
	RCK_CTR_RETRY_EXCEEDED,
};

static bool lossy(const struct rck_analysis *a, const struct an_link *ln)
{
	uint64_t sum = 0;

	for (uint32_t i = 0; i < ln->n_ctr; i++)
		for (size_t j = 0; j < RCK_ARRAY_SIZE(loss_ids); j++)
			if (a->ctrs[ln->ctr + i].id == loss_ids[j])
				sum += a->ctrs[ln->ctr + i].delta;
	return sum && (double)sum >= an_th(a, TH_LOSS_MIN);
}

static double norm(const struct rck_analysis *a, const struct an_link *ln)
{
	double lr = ln->line_rate;

	if (lr <= 0) {
		double s = a->nics[ln->src].line_rate, d = a->nics[ln->dst].line_rate;

		lr = s > 0 && d > 0 ? fmin(s, d) : 0;
	}
	return lr > 0 ? lr : 1;
}

/* Bandwidth relative to line rate and latency p50 of the first measurements:
 * the centres, and the bandwidth's cut (below it a probe is slow). A probe is
 * judged on its first measurement alone: an uplink's fault shows under the
 * sweep's load, not in a retest run alone. */
static int classify(struct lc *l, double *ratio)
{
	const struct rck_analysis *a = l->a;
	double *v = malloc((a->n_links ? a->n_links : 1) * sizeof(*v));
	double cb = 0, cl = 0, cv = 0, cut;
	size_t nb = 0, nl = 0;

	if (!v)
		return -ENOMEM;
	for (size_t k = 0; k < a->n_links; k++) {
		const struct an_link *ln = &a->links[k];

		ratio[k] = ln->test == RCK_LINK_TEST_BW ? ln->value / norm(a, ln) : ln->value;
		if (ln->status == RCK_LINK_OK && ln->test == RCK_LINK_TEST_BW)
			v[nb++] = ratio[k];
	}
	if (nb) {
		cb = an_median(v, nb);
		for (size_t i = 0; i < nb; i++)
			v[i] = fabs(v[i] - cb);
		cv = cb > 0 ? 1.4826 * an_median(v, nb) / cb : 0;
	}
	for (size_t k = 0; k < a->n_links; k++)
		if (a->links[k].status == RCK_LINK_OK && a->links[k].test == RCK_LINK_TEST_LAT)
			v[nl++] = a->links[k].value;
	cl = nl ? an_median(v, nl) : 0;
	free(v);
	/* Below the relative floor, and well below the noise (3 spreads), never
	 * under 0.6 of the centre: noisy fabrics still show a half-speed part. */
	cut = fmax(0.6, fmin(an_th(a, TH_LINK_REL_FLOOR), 1 - 3 * cv)) * cb;
	for (size_t k = 0; k < a->n_links; k++) {
		const struct an_link *ln = &a->links[k];
		uint8_t w = LC_WHYS;

		if (ln->status != RCK_LINK_OK)
			w = LC_FAIL;
		else if (lossy(a, ln))
			w = LC_LOSS;
		else if (ln->test == RCK_LINK_TEST_BW && cb > 0 && ratio[k] < cut)
			w = LC_SLOW;
		else if (ln->test == RCK_LINK_TEST_LAT && cl > 0 &&
			 ln->value > an_th(a, TH_LINK_LATENCY_FACTOR) * cl)
			w = LC_LAT;
		l->why[k] = w;
		if (w == LC_SLOW && cb > 0)
			ratio[k] /= cb;
	}
	return 0;
}

/* ---- the cover ---- */

static int index_bad(struct lc *l, const double *ratio)
{
	const struct rck_analysis *a = l->a;
	uint32_t p[LC_PATH_MAX];
	size_t total = 0;

	l->bstart = calloc((size_t)l->n_comp + 1, sizeof(*l->bstart));
	if (!l->bstart)
		return -ENOMEM;
	for (size_t k = 0; k < a->n_links; k++) {
		unsigned int n = lc_path(l, k, p);

		for (unsigned int i = 0; i < n; i++) {
			struct lc_comp *c = &l->c[p[i]];

			c->all++;
			if (l->why[k] == LC_WHYS)
				continue;
			c->all_bad++;
			c->why[l->why[k]]++;
			if (l->why[k] == LC_SLOW) {
				c->ratio_sum += ratio[k];
				c->n_ratio++;
			}
			l->bstart[p[i] + 1]++;
			total++;
		}
	}
	for (uint32_t c = 0; c < l->n_comp; c++) {
		l->bstart[c + 1] += l->bstart[c];
		l->c[c].bad = l->c[c].all_bad;
		l->c[c].tot = l->c[c].all;
	}
	l->bidx = malloc((total ? total : 1) * sizeof(*l->bidx));
	uint32_t *fill = malloc((size_t)l->n_comp * sizeof(*fill) + 1);

	if (!l->bidx || !fill) {
		free(fill);
		return -ENOMEM;
	}
	memcpy(fill, l->bstart, (size_t)l->n_comp * sizeof(*fill));
	for (size_t k = 0; k < a->n_links; k++) {
		unsigned int n;

		if (l->why[k] == LC_WHYS)
			continue;
		n = lc_path(l, k, p);
		for (unsigned int i = 0; i < n; i++)
			l->bidx[fill[p[i]]++] = (uint32_t)k;
	}
	free(fill);
	return 0;
}

/* Ties go to the most specific part: a NIC, then uplinks, then a switch. */
static unsigned int rank(const struct lc *l, uint32_t c)
{
	static const unsigned int r[LC_KINDS] = {0, 4, 1, 2, 3};
	enum lc_kind k = lc_kind_of(l, c);

	if (k == LC_SWITCH && rck_topology_switch_tier(l->t, lc_index(l, c)) == RCK_SWITCH_TIER_SPINE)
		return 5;
	return r[k];
}

/* A switch-side part explains probes of two NICs or more under it (a
 * spine: of two leaves or more); else its evidence is one NIC's. */
static bool spans(const struct lc *l, uint32_t c, uint8_t *mark)
{
	enum lc_kind k = lc_kind_of(l, c);
	uint32_t s = lc_index(l, c), seen = 0;
	bool spine = k == LC_SWITCH && rck_topology_switch_tier(l->t, s) == RCK_SWITCH_TIER_SPINE;

	if (k == LC_NIC)
		return true;
	for (uint32_t i = l->bstart[c]; i < l->bstart[c + 1] && seen < 2; i++) {
		const struct an_link *ln = &l->a->links[l->bidx[i]];
		uint32_t ends[2] = {ln->src, ln->dst};

		if (l->done[l->bidx[i]])
			continue;
		for (int e = 0; e < 2 && seen < 2; e++) {
			int32_t sw = l->nic_sw[ends[e]];
			uint32_t id = spine ? (uint32_t)sw : ends[e];

			if (sw < 0 || (!spine && (uint32_t)sw != s) || mark[id])
				continue;
			mark[id] = 1;
			seen++;
		}
	}
	/* Clear the marks set above. */
	for (uint32_t i = l->bstart[c]; i < l->bstart[c + 1]; i++) {
		const struct an_link *ln = &l->a->links[l->bidx[i]];

		if (spine) {
			if (l->nic_sw[ln->src] >= 0)
				mark[l->nic_sw[ln->src]] = 0;
			if (l->nic_sw[ln->dst] >= 0)
				mark[l->nic_sw[ln->dst]] = 0;
		} else {
			mark[ln->src] = mark[ln->dst] = 0;
		}
	}
	return seen >= 2;
}

#define LC_PICKS_MAX 4096

static void cover(struct lc *l, uint8_t *mark)
{
	double frac = an_th(l->a, TH_ATTRIBUTION_FRACTION), minl = an_th(l->a, TH_ATTRIBUTION_MIN_LINKS);
	uint32_t p[LC_PATH_MAX];

	while (l->n_picked < LC_PICKS_MAX) {
		int64_t best = -1;
		double bs = 0;

		for (uint32_t c = 0; c < l->n_comp; c++) {
			const struct lc_comp *x = &l->c[c];
			double s;

			if (x->state || !x->bad || x->bad < minl || x->bad < frac * x->tot)
				continue;
			s = (double)x->bad * x->bad / x->tot;
			if (best < 0 || s > bs * (1 + 1e-9) ||
			    (s >= bs * (1 - 1e-9) && rank(l, c) < rank(l, (uint32_t)best))) {
				best = c;
				bs = s;
			}
		}
		if (best < 0)
			return;
		if (!spans(l, (uint32_t)best, mark)) {
			l->c[best].state = 2;
			continue;
		}
		l->c[best].state = 1;
		l->picked[l->n_picked++] = (uint32_t)best;
		for (uint32_t i = l->bstart[best]; i < l->bstart[best + 1]; i++) {
			uint32_t k = l->bidx[i];
			unsigned int n;

			if (l->done[k])
				continue;
			l->done[k] = 1;
			n = lc_path(l, k, p);
			for (unsigned int j = 0; j < n; j++) {
				l->c[p[j]].bad--;
				l->c[p[j]].tot--;
			}
		}
	}
}

void lc_free(struct lc *l)
{
	free(l->nic_sw);
	free(l->nic_port);
	free(l->sw_spine);
	free(l->sw_uplink);
	free(l->sw_n_up);
	free(l->c);
	free(l->why);
	free(l->done);
	free(l->bstart);
	free(l->bidx);
	free(l->picked);
	free(l->keys);
	memset(l, 0, sizeof(*l));
}

int lc_run(struct lc *l, const struct rck_analysis *a)
{
	size_t nl = a->n_links ? a->n_links : 1;
	unsigned int sw;
	double *ratio = NULL;
	uint8_t *mark = NULL;
	int rc = -ENOMEM;

	memset(l, 0, sizeof(*l));
	l->a = a;
	l->t = a->topo;
	l->n_nics = a->n_nics;
	sw = l->n_sw = rck_topology_switch_count(a->topo);
	if (!sw)
		sw = l->n_sw = 1;
	l->n_comp = l->n_nics + (LC_KINDS - 1) * l->n_sw;
	l->nic_sw = malloc((l->n_nics + 1) * sizeof(*l->nic_sw));
	l->nic_port = malloc((l->n_nics + 1) * sizeof(*l->nic_port));
	l->sw_spine = malloc(sw * sizeof(*l->sw_spine));
	l->sw_uplink = malloc(sw * sizeof(*l->sw_uplink));
	l->sw_n_up = calloc(sw, sizeof(*l->sw_n_up));
	l->c = calloc(l->n_comp, sizeof(*l->c));
	l->why = malloc(nl);
	l->done = calloc(nl, 1);
	l->picked = malloc(LC_PICKS_MAX * sizeof(*l->picked));
	l->keys = malloc((l->n_nics + 1) * sizeof(*l->keys));
	ratio = malloc(nl * sizeof(*ratio));
	mark = calloc(l->n_nics > sw ? l->n_nics : sw, 1);
	if (!l->nic_sw || !l->nic_port || !l->sw_spine || !l->sw_uplink || !l->sw_n_up || !l->c ||
	    !l->why || !l->done || !l->picked || !l->keys || !ratio || !mark)
		goto out;
	for (uint32_t n = 0; n < l->n_nics; n++) {
		l->nic_sw[n] = l->nic_port[n] = -1;
		l->keys[n] = (struct nic_key){a->hosts[a->nics[n].host].name, a->nics[n].label, n};
	}
	qsort(l->keys, l->n_nics, sizeof(*l->keys), key_cmp);
	if (rck_topology_switch_count(a->topo) && (map_nics(l) || (map_uplinks(l), 0)))
		goto out;
	if (!rck_topology_switch_count(a->topo))
		l->sw_spine[0] = l->sw_uplink[0] = -1;
	if (classify(l, ratio) || index_bad(l, ratio))
		goto out;
	cover(l, mark);
	rc = 0;
out:
	free(ratio);
	free(mark);
	if (rc)
		lc_free(l);
	return rc;
}
