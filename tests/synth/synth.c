/* Synthetic fabrics for the analysis tests and benchmark: a seeded,
 * stateless Gaussian noise model (splitmix64 + Box-Muller). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "synth.h"

#define CHUNK 4096
#define MORE_CAP 4096

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

double synth_normal(uint64_t seed, uint64_t link, unsigned int attempt)
{
	uint64_t h = mix(mix(seed) ^ mix(link * 8 + attempt + 0x51ed270b));
	double u1 = ((double)(h >> 11) + 0.5) / 9007199254740992.0;
	double u2 = ((double)(mix(h) >> 11) + 0.5) / 9007199254740992.0;

	return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

size_t synth_links(const struct synth *s)
{
	return (size_t)s->hosts * (s->hosts - 1);
}

size_t synth_index(const struct synth *s, unsigned int src, unsigned int dst)
{
	return (size_t)src * (s->hosts - 1) + (dst < src ? dst : dst - 1);
}

static void ends(const struct synth *s, size_t link, unsigned int *src, unsigned int *dst)
{
	*src = (unsigned int)(link / (s->hosts - 1));
	*dst = (unsigned int)(link % (s->hosts - 1));
	if (*dst >= *src)
		(*dst)++;
}

double synth_measure(const struct synth *s, size_t link, unsigned int attempt)
{
	unsigned int src, dst;
	double mu = s->mean_gbps, x;

	ends(s, link, &src, &dst);
	if (s->nic_rate)
		mu *= (s->nic_rate[src] < s->nic_rate[dst] ? s->nic_rate[src] : s->nic_rate[dst]) /
		      s->line_rate;
	if (s->nic_factor)
		mu *= s->nic_factor[src] * s->nic_factor[dst];
	if (s->bad_src != s->bad_dst && src == s->bad_src && dst == s->bad_dst)
		mu *= s->bad_factor;
	x = mu * (1 + s->cv * synth_normal(s->seed, link, attempt));
	return x > 0 ? x : 0;
}

int synth_init(struct synth *s)
{
	s->retests = calloc(synth_links(s), 1);
	return s->retests ? 0 : -ENOMEM;
}

void synth_fini(struct synth *s)
{
	free(s->retests);
	s->retests = NULL;
}

int synth_analysis(const struct synth *s, const struct rck_thresholds *th, struct rck_analysis **out)
{
	struct rck_link_sample *buf = calloc(CHUNK, sizeof(*buf));
	/* Retests past the sample's own array, per chunk. */
	struct rck_link_meas *more = calloc(MORE_CAP, sizeof(*more));
	struct rck_analysis *a = NULL;
	size_t n = synth_links(s), k = 0, nm = 0;
	int rc = buf && more ? rck_analysis_new(th, &a) : -ENOMEM;

	for (unsigned int h = 0; !rc && h < s->hosts; h++) {
		struct rck_analysis_nic nic = {.size = sizeof(nic), .device = "mlx5_0", .port = 1,
					       .line_rate_gbps = s->nic_rate ? s->nic_rate[h] : s->line_rate};
		char name[32];

		snprintf(name, sizeof(name), "n%04u", h);
		rc = rck_analysis_add_host(a, name, NULL, NULL, NULL);
		if (!rc)
			rc = rck_analysis_add_nic(a, h, &nic, NULL);
	}
	for (size_t i = 0; !rc && i < n; i++) {
		struct rck_link_sample *x = &buf[k++];
		unsigned int nr;

		memset(x, 0, sizeof(*x));
		x->size = sizeof(*x);
		x->test = RCK_LINK_TEST_BW;
		ends(s, i, &x->src_nic, &x->dst_nic);
		if (s->fail_all) {
			x->meas.status = RCK_LINK_FAILED;
			x->reason = "rdma_cm: connection refused";
		} else {
			x->meas.gbps = synth_measure(s, i, 0);
		}
		nr = s->retests ? s->retests[i] : 0;
		x->n_retests = nr < RCK_LINK_RETEST_MAX ? nr : RCK_LINK_RETEST_MAX;
		for (unsigned int r = 0; r < x->n_retests; r++)
			x->retest[r].gbps = synth_measure(s, i, r + 1);
		if (nr > RCK_LINK_RETEST_MAX) {
			x->more_retests = more + nm;
			x->n_more_retests = nr - RCK_LINK_RETEST_MAX;
			for (unsigned int r = RCK_LINK_RETEST_MAX; r < nr; r++)
				more[nm++].gbps = synth_measure(s, i, r + 1);
		}
		if (k == CHUNK || i + 1 == n || nm + RCK_LINK_RETESTS_MOST > MORE_CAP) {
			rc = rck_analysis_add_links(a, buf, k);
			k = nm = 0;
		}
	}
	free(buf);
	free(more);
	if (rc) {
		rck_analysis_free(a);
		return rc;
	}
	*out = a;
	return 0;
}

/* Rounds of disjoint NIC pairs for the retests of one pass, greedily:
 * each retest takes the first round where neither of its NICs is busy. */
static unsigned int pass_slots(const struct synth *s, const struct rck_report *r)
{
	unsigned int n = rck_report_retest_count(r), words = (n + 63) / 64, slots = 0;
	uint64_t *busy = calloc((size_t)s->hosts * (words ? words : 1), sizeof(uint64_t));

	if (!busy)
		return n;
	for (unsigned int i = 0; i < n; i++) {
		unsigned int src, dst, k = 0;
		uint64_t *a, *b;

		rck_report_retest(r, i, NULL, &src, &dst);
		a = busy + (size_t)src * words;
		b = busy + (size_t)dst * words;
		while ((a[k / 64] | b[k / 64]) >> (k % 64) & 1)
			k++;
		a[k / 64] |= 1ULL << (k % 64);
		b[k / 64] |= 1ULL << (k % 64);
		slots = k + 1 > slots ? k + 1 : slots;
	}
	free(busy);
	return slots;
}

int synth_run(struct synth *s, const struct rck_thresholds *th, unsigned int max_rounds,
	      struct rck_report **out, unsigned int *retests, unsigned int *slots)
{
	struct rck_report *r = NULL;
	unsigned int done = 0, nslots = 0;
	int rc = 0;

	for (unsigned int round = 0; round < max_rounds; round++) {
		struct rck_analysis *a;
		unsigned int n;

		rck_report_free(r);
		r = NULL;
		rc = synth_analysis(s, th, &a);
		if (!rc)
			rc = rck_analysis_run(a, &r);
		rck_analysis_free(a);
		if (rc)
			return rc;
		s->passes = round + 1;
		n = rck_report_retest_count(r);
		if (!n || !s->retests)
			break;
		if (slots)
			nslots += pass_slots(s, r);
		for (unsigned int i = 0; i < n; i++) {
			unsigned int src, dst;
			size_t idx;

			rck_report_retest(r, i, NULL, &src, &dst);
			idx = synth_index(s, src, dst);
			if (s->retests[idx] < RCK_LINK_RETESTS_MOST) {
				s->retests[idx]++;
				done++;
			}
		}
	}
	if (retests)
		*retests = done;
	if (slots)
		*slots = nslots;
	*out = r;
	return 0;
}
