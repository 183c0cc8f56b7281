/* Synthetic sweeps with one switch-side or cabling fault (topo-faults.h):
 * measurements are a pure function of (seed, probe, attempt). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rocecheck/topology.h>

#include "topo-faults.h"

const char *tf_fault_name(enum tf_fault f)
{
	static const char *const n[TF_COUNT] = {"healthy", "uplink_05", "tor_dead", "cable_lossy",
						"rails_crossed", "host_dead"};

	return (unsigned int)f < TF_COUNT ? n[f] : "?";
}

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static double normal(uint64_t seed, uint64_t k, unsigned int att)
{
	uint64_t a = mix(seed ^ mix(k * 8 + att)), b = mix(a);
	double u = ((double)(a >> 11) + 0.5) / 9007199254740992.0, v = (double)(b >> 11) / 9007199254740992.0;

	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

void tf_draw(struct tf_trial *t)
{
	const struct tsyn *f = t->f;
	uint64_t x = mix(t->seed ^ 0x5eed);

	t->victim_leaf = (unsigned int)(x % (tsyn_groups(f) * f->rails));
	t->victim_host = (unsigned int)(mix(x) % f->hosts);
	t->victim_rail = (unsigned int)(mix(x + 1) % f->rails);
	if (t->fault == TF_RAILS_CROSSED)
		t->victim_rail = 0;
}

/* The leaf a NIC is physically on (rail * groups + group). */
static unsigned int leaf_of(const struct tf_trial *t, unsigned int h, unsigned int r)
{
	const struct tsyn *f = t->f;

	if (t->fault == TF_RAILS_CROSSED && h == t->victim_host && r < 2)
		r ^= 1;
	return r * tsyn_groups(f) + h / f->per_leaf;
}

struct meas {
	double factor, retest_factor;
	bool fail, loss_src, loss_dst;
};

static struct meas effect(const struct tf_trial *t, uint32_t a, uint32_t b)
{
	const struct tsyn *f = t->f;
	unsigned int ha = a / f->rails, ra = a % f->rails, hb = b / f->rails, rb = b % f->rails;
	unsigned int la = leaf_of(t, ha, ra), lb = leaf_of(t, hb, rb);
	uint32_t v = tf_nic(f, t->victim_host, t->victim_rail);
	struct meas m = {1, 1, false, false, false};

	switch (t->fault) {
	case TF_UPLINK_05:
		/* Half the uplink under a sweep's load; a retest alone fits. */
		if (la != lb && (la == t->victim_leaf || lb == t->victim_leaf))
			m.factor = 0.5;
		break;
	case TF_TOR_DEAD:
		m.fail = la == t->victim_leaf || lb == t->victim_leaf;
		break;
	case TF_CABLE_LOSSY:
		if (a == v || b == v) {
			m.factor = m.retest_factor = 0.85;
			m.loss_src = a == v;
			m.loss_dst = b == v;
		}
		break;
	case TF_RAILS_CROSSED:
		/* Rails are separate fabrics: a crossed NIC reaches none of its peers. */
		m.fail = (ha == t->victim_host && ra < 2) || (hb == t->victim_host && rb < 2);
		break;
	case TF_HOST_DEAD:
		m.fail = ha == t->victim_host || hb == t->victim_host;
		break;
	default:
		break;
	}
	if (t->also_cable && t->fault != TF_CABLE_LOSSY && (a == v || b == v)) {
		m.factor *= 0.85;
		m.retest_factor *= 0.85;
		m.loss_src = a == v;
		m.loss_dst = b == v;
	}
	if (t->nic_first > 0 && (a == v || b == v))
		m.factor *= t->nic_first;
	if (t->nic_retest > 0 && (a == v || b == v))
		m.retest_factor *= t->nic_retest;
	return m;
}

static void measure(const struct tf_trial *t, uint64_t k, unsigned int att, double factor, bool fail,
		    struct rck_link_meas *out)
{
	double mean = 0.92 * t->f->gbps;

	if (fail) {
		*out = (struct rck_link_meas){.status = RCK_LINK_FAILED};
		return;
	}
	*out = (struct rck_link_meas){.status = RCK_LINK_OK,
				      .gbps = mean * factor * (1 + t->cv * normal(t->seed, k, att))};
}

static int add_hosts(const struct tf_trial *t, struct rck_analysis *a)
{
	const struct tsyn *f = t->f;

	for (unsigned int h = 0; h < f->hosts; h++) {
		char name[16], dev[16];
		unsigned int hi;
		int rc;

		snprintf(name, sizeof(name), "h%05u", h);
		if ((rc = rck_analysis_add_host(a, name, NULL, NULL, &hi)))
			return rc;
		if (t->fault == TF_HOST_DEAD && h == t->victim_host &&
		    (rc = rck_analysis_set_unreachable(a, hi, "its agent did not answer in time")))
			return rc;
		for (unsigned int r = 0; r < f->rails; r++) {
			struct rck_analysis_nic n = {.size = sizeof(n), .device = dev, .port = 1,
						     .line_rate_gbps = f->gbps,
						     .counters = 1ull << RCK_CTR_OUT_OF_SEQUENCE, .gid_index = -1};

			snprintf(dev, sizeof(dev), "mlx5_%u", r);
			if ((rc = rck_analysis_add_nic(a, hi, &n, NULL)))
				return rc;
		}
	}
	return 0;
}

static int add_probe(const struct tf_trial *t, struct rck_analysis *a, uint64_t k, uint32_t s, uint32_t d)
{
	struct meas m = effect(t, s, d);
	struct rck_link_counter c[2];
	struct rck_link_sample x = {.size = sizeof(x), .test = RCK_LINK_TEST_BW, .src_nic = s, .dst_nic = d,
				    .counters = c};

	measure(t, k, 0, m.factor, m.fail, &x.meas);
	if (m.fail)
		x.reason = "timeout waiting for the peer";
	x.n_retests = t->retests;
	for (unsigned int i = 0; i < t->retests; i++)
		measure(t, k, i + 1, m.retest_factor, m.fail, &x.retest[i]);
	if (m.loss_src)
		c[x.n_counters++] = (struct rck_link_counter){RCK_LINK_SRC, RCK_CTR_OUT_OF_SEQUENCE, 40};
	if (m.loss_dst)
		c[x.n_counters++] = (struct rck_link_counter){RCK_LINK_DST, RCK_CTR_OUT_OF_SEQUENCE, 40};
	return rck_analysis_add_links(a, &x, 1);
}

int tf_analysis(const struct tf_trial *t, const uint32_t *pairs, size_t n_pairs, struct rck_analysis **out)
{
	const struct tsyn *f = t->f;
	struct rck_analysis *a;
	uint64_t k = 0;
	int rc;

	if ((rc = rck_analysis_new(NULL, &a)))
		return rc;
	if ((rc = add_hosts(t, a)) || (rc = rck_analysis_set_pattern(a, "full")))
		goto fail;
	if (pairs) {
		for (size_t i = 0; i < n_pairs; i++)
			if ((rc = add_probe(t, a, i, pairs[2 * i], pairs[2 * i + 1])))
				goto fail;
	} else {
		for (unsigned int r = 0; r < f->rails; r++)
			for (unsigned int s = 0; s < f->hosts; s++)
				for (unsigned int d = 0; d < f->hosts; d++)
					if (s != d && (rc = add_probe(t, a, k++, tf_nic(f, s, r), tf_nic(f, d, r))))
						goto fail;
	}
	*out = a;
	return 0;
fail:
	rck_analysis_free(a);
	return rc;
}

int tf_topology(const struct tsyn *f, struct rck_topology **out)
{
	struct tsyn_cable *c = tsyn_cables(f);
	struct rck_topology *t = NULL;
	char err[256];
	size_t len;
	char *text = c ? tsyn_json(f, c, true, &len) : NULL;
	int rc = -ENOMEM;

	if (text && !(rc = rck_topology_new(&t)) && (rc = rck_topology_add_json(t, text, len, "synth.json", err, sizeof(err)))) {
		fprintf(stderr, "%s\n", err);
		rck_topology_free(t);
		t = NULL;
	}
	free(text);
	free(c);
	*out = t;
	return rc;
}
