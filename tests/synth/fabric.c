/* Rail-aligned synthetic fabrics (NIC r of every host probes NIC r of every
 * other host, both ways): measurements, the analysis input and retest loop. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fabric.h"

#define CHUNK 4096
/* Retests past the sample's own array, per chunk of samples. */
#define MORE_CAP 4096
#define NOISY_CV 0.15

uint64_t sf_mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

double sf_uniform(uint64_t h)
{
	return ((double)(h >> 11) + 0.5) / 9007199254740992.0;
}

double sf_normal(uint64_t h)
{
	return sqrt(-2 * log(sf_uniform(h))) * cos(2 * M_PI * sf_uniform(sf_mix(h)));
}

size_t sf_links(const struct sf_fabric *f)
{
	return (size_t)f->rails * f->hosts * (f->hosts - 1);
}

unsigned int sf_nic(const struct sf_fabric *f, unsigned int host, unsigned int rail)
{
	return host * f->rails + rail;
}

/* Link @l's rail and hosts. */
static void ends(const struct sf_fabric *f, size_t l, unsigned int *src, unsigned int *dst,
		 unsigned int *rail)
{
	size_t per = (size_t)f->hosts * (f->hosts - 1), i = l % per;

	*rail = (unsigned int)(l / per);
	*src = (unsigned int)(i / (f->hosts - 1));
	*dst = (unsigned int)(i % (f->hosts - 1));
	if (*dst >= *src)
		(*dst)++;
}

size_t sf_link_index(const struct sf_fabric *f, unsigned int src, unsigned int dst, unsigned int rail)
{
	return (size_t)rail * f->hosts * (f->hosts - 1) + (size_t)src * (f->hosts - 1) +
	       (dst < src ? dst : dst - 1);
}

int sf_init(struct sf_fabric *f)
{
	size_t n = sf_links(f);

	f->busy_words = 1;
	f->first = calloc(n, sizeof(*f->first));
	f->retests = calloc(n, 1);
	f->buf = calloc(CHUNK, sizeof(*f->buf));
	f->ctrs = calloc((size_t)CHUNK * 8, sizeof(*f->ctrs));
	f->more = calloc(MORE_CAP, sizeof(*f->more));
	f->busy = calloc((size_t)f->hosts * f->rails, sizeof(*f->busy));
	if (!f->first || !f->retests || !f->buf || !f->ctrs || !f->more || !f->busy) {
		sf_fini(f);
		return -ENOMEM;
	}
	return 0;
}

void sf_fini(struct sf_fabric *f)
{
	free(f->first);
	free(f->retests);
	free(f->buf);
	free(f->ctrs);
	free(f->busy);
	free(f->more);
	f->more = NULL;
	f->first = NULL;
	f->retests = NULL;
	f->buf = NULL;
	f->ctrs = NULL;
	f->busy = NULL;
}

static bool is_victim_nic(const struct sf_fabric *f, unsigned int host, unsigned int rail)
{
	return host == f->victim_host && rail == f->victim_rail;
}

static bool is_victim_link(const struct sf_fabric *f, unsigned int src, unsigned int dst, unsigned int rail)
{
	return src == f->victim_host && dst == f->victim_peer && rail == f->victim_rail;
}

/* The link's true mean under the fault. */
static double link_mean(const struct sf_fabric *f, unsigned int src, unsigned int dst, unsigned int rail)
{
	bool nic = is_victim_nic(f, src, rail) || is_victim_nic(f, dst, rail);
	bool link = is_victim_link(f, src, dst, rail);
	double mu = f->mean_gbps;

	switch (f->fault) {
	case SF_LINK_09:
		return link ? 0.9 * mu : mu;
	case SF_LINK_07:
		return link ? 0.7 * mu : mu;
	case SF_LINK_05:
		return link ? 0.5 * mu : mu;
	case SF_NIC_05:
		return nic ? 0.5 * mu : mu;
	case SF_PCIE: /* a 400G NIC behind PCIe 5.0 x8: about 230 Gb/s */
		return nic ? 0.6 * mu : mu;
	case SF_LOSS_LINK_01: case SF_LOSS_LINK_05: case SF_LOSS_LINK_1: case SF_LOSS_LINK_5:
		return link ? mu * sf_loss_factor(sf_fault_loss(f->fault)) : mu;
	case SF_LOSS_NIC_01: case SF_LOSS_NIC_05: case SF_LOSS_NIC_1: case SF_LOSS_NIC_5:
		return nic ? mu * sf_loss_factor(sf_fault_loss(f->fault)) : mu;
	default:
		return mu;
	}
}

static double measure(const struct sf_fabric *f, size_t l, unsigned int src, unsigned int dst,
		      unsigned int rail, unsigned int attempt)
{
	static const double cvs[SF_NOISE_COUNT] = {0.02, 0.05, 0.10, 0.02, 0.02};
	uint64_t h = sf_mix(f->seed ^ sf_mix(l * 8 + attempt + 0x51ed270b));
	double cv = cvs[f->noise], x = link_mean(f, src, dst, rail);

	if (f->noise == SF_NOISE_NOISY_HOST && (src == f->noisy_host || dst == f->noisy_host))
		cv = NOISY_CV;
	if (f->noise == SF_NOISE_DIPS && sf_uniform(sf_mix(h ^ 0xd1b54a32d192ed03ULL)) < 1.0 / 50)
		x *= 0.5;
	x *= 1 + cv * sf_normal(h);
	return x > 0 ? x : 0;
}

void sf_trial(struct sf_fabric *f, uint64_t seed, enum sf_noise noise, enum sf_fault fault)
{
	uint64_t h = sf_mix(seed ^ 0x7a3c5e1f);
	size_t n = sf_links(f);

	f->seed = seed;
	f->noise = noise;
	f->fault = fault;
	f->victim_host = (unsigned int)(sf_uniform(h) * f->hosts);
	f->victim_peer = (unsigned int)(sf_uniform(sf_mix(h + 1)) * (f->hosts - 1));
	if (f->victim_peer >= f->victim_host)
		f->victim_peer++;
	f->victim_rail = (unsigned int)(sf_uniform(sf_mix(h + 2)) * f->rails);
	f->noisy_host = (unsigned int)(sf_uniform(sf_mix(h + 3)) * f->hosts);
	while (f->noisy_host == f->victim_host || f->noisy_host == f->victim_peer)
		f->noisy_host = (f->noisy_host + 1) % f->hosts;
	memset(f->retests, 0, n);
	/* Only what the plan probes is drawn: every first measurement once. */
	for (size_t l = 0; l < n; l++) {
		unsigned int src, dst, rail;

		ends(f, l, &src, &dst, &rail);
		f->first[l] = measure(f, l, src, dst, rail, 0);
	}
	f->passes = f->retests_done = f->slots = 0;
}

static bool dead(const struct sf_fabric *f, unsigned int src, unsigned int dst)
{
	return f->fault == SF_HOST_DEAD && (src == f->victim_host || dst == f->victim_host);
}

static int analysis(const struct sf_fabric *f, const struct rck_thresholds *th, struct rck_analysis **out)
{
	struct rck_analysis *a = NULL;
	size_t n = sf_links(f), k = 0, nc = 0, nm = 0;
	int rc = rck_analysis_new(th, &a);

	for (unsigned int h = 0; !rc && h < f->hosts; h++)
		rc = sf_add_host_inputs(f, a, h);
	for (size_t i = 0; !rc && i < n; i++) {
		struct rck_link_sample *x = &f->buf[k++];
		unsigned int src, dst, rail;

		ends(f, i, &src, &dst, &rail);
		memset(x, 0, sizeof(*x));
		x->size = sizeof(*x);
		x->test = RCK_LINK_TEST_BW;
		x->src_nic = sf_nic(f, src, rail);
		x->dst_nic = sf_nic(f, dst, rail);
		if (dead(f, src, dst)) {
			x->meas.status = RCK_LINK_UNREACHABLE;
			x->reason = "agent: connection refused";
		} else {
			x->meas.gbps = f->first[i];
			unsigned int nr = f->retests[i];

			x->n_retests = nr < RCK_LINK_RETEST_MAX ? nr : RCK_LINK_RETEST_MAX;
			for (unsigned int r = 0; r < x->n_retests; r++)
				x->retest[r].gbps = measure(f, i, src, dst, rail, r + 1);
			if (nr > RCK_LINK_RETEST_MAX) {
				x->more_retests = f->more + nm;
				x->n_more_retests = nr - RCK_LINK_RETEST_MAX;
				for (unsigned int r = RCK_LINK_RETEST_MAX; r < nr; r++)
					f->more[nm++].gbps = measure(f, i, src, dst, rail, r + 1);
			}
			x->counters = f->ctrs + nc;
			x->n_counters = sf_link_counters(f, i, src, dst, rail, f->first[i], f->ctrs + nc);
			nc += x->n_counters;
		}
		if (k == CHUNK || i + 1 == n || nm + RCK_LINK_RETESTS_MOST > MORE_CAP) {
			rc = rck_analysis_add_links(a, f->buf, k);
			k = nc = nm = 0;
		}
	}
	if (rc) {
		rck_analysis_free(a);
		return rc;
	}
	*out = a;
	return 0;
}

/* Rounds of NIC-disjoint retests of one pass, greedily (at most 64 a
 * NIC are told apart; more than that counts one round each). */
static unsigned int pass_slots(struct sf_fabric *f, const struct rck_report *r)
{
	unsigned int n = rck_report_retest_count(r), slots = 0;

	memset(f->busy, 0, (size_t)f->hosts * f->rails * sizeof(*f->busy));
	for (unsigned int i = 0; i < n; i++) {
		unsigned int src, dst, k = 0;

		rck_report_retest(r, i, NULL, &src, &dst);
		while (k < 64 && ((f->busy[src] | f->busy[dst]) >> k & 1))
			k++;
		if (k < 64) {
			f->busy[src] |= 1ULL << k;
			f->busy[dst] |= 1ULL << k;
		}
		slots = k + 1 > slots ? k + 1 : slots;
	}
	return slots;
}

int sf_run(struct sf_fabric *f, const struct rck_thresholds *th, unsigned int max_passes,
	   struct rck_report **out)
{
	struct rck_report *r = NULL;

	for (unsigned int pass = 0; pass < max_passes; pass++) {
		struct rck_analysis *a = NULL;
		unsigned int n;
		int rc;

		rck_report_free(r);
		r = NULL;
		rc = analysis(f, th, &a);
		if (!rc)
			rc = rck_analysis_run(a, &r);
		rck_analysis_free(a);
		if (rc)
			return rc;
		f->passes = pass + 1;
		n = rck_report_retest_count(r);
		if (!n || pass + 1 == max_passes)
			break;
		f->slots += pass_slots(f, r);
		for (unsigned int i = 0; i < n; i++) {
			unsigned int src, dst;
			size_t idx;

			rck_report_retest(r, i, NULL, &src, &dst);
			idx = sf_link_index(f, src / f->rails, dst / f->rails, src % f->rails);
			if (f->retests[idx] < RCK_LINK_RETESTS_MOST) {
				f->retests[idx]++;
				f->retests_done++;
			}
		}
	}
	*out = r;
	return 0;
}
