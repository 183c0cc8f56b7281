/* Latency summaries and windowed bandwidth: the arithmetic behind every
 * probe figure, kept free of I/O so it is tested on plain numbers. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Nearest rank: the smallest sample with at least p% of samples at or below it. */
static double rank(const double *sorted, size_t n, double p)
{
	double r = ceil(p / 100.0 * (double)n);
	size_t i = r < 1 ? 0 : (size_t)r - 1;

	return sorted[i < n ? i : n - 1];
}

int pstats_latency(const double *samples, size_t n, double *out)
{
	double *s, sum = 0, sq = 0, mean;

	if (n == 0)
		return -ENOENT;
	s = malloc(n * sizeof(*s));
	if (!s)
		return -ENOMEM;
	memcpy(s, samples, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	for (size_t i = 0; i < n; i++)
		sum += s[i];
	mean = sum / (double)n;
	for (size_t i = 0; i < n; i++)
		sq += (s[i] - mean) * (s[i] - mean);
	out[RCK_LAT_MIN] = s[0];
	out[RCK_LAT_P50] = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	out[RCK_LAT_P90] = rank(s, n, 90);
	out[RCK_LAT_P99] = rank(s, n, 99);
	out[RCK_LAT_P999] = rank(s, n, 99.9);
	out[RCK_LAT_MAX] = s[n - 1];
	out[RCK_LAT_MEAN] = mean;
	out[RCK_LAT_STDEV] = sqrt(sq / (double)n);
	free(s);
	return 0;
}

int psamples_init(struct psamples *s, size_t expect, size_t limit)
{
	memset(s, 0, sizeof(*s));
	s->limit = limit;
	if (expect > limit)
		expect = limit;
	if (expect) {
		s->v = malloc(expect * sizeof(*s->v));
		if (!s->v)
			return -ENOMEM;
		s->cap = expect;
	}
	return 0;
}

int psamples_add(struct psamples *s, double usec)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 4096;
		double *v;

		if (s->n >= s->limit)
			return 0;
		if (cap > s->limit)
			cap = s->limit;
		v = realloc(s->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = usec;
	return 0;
}

void psamples_free(struct psamples *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}

void prounds_init(struct prounds *r, struct psamples *smp, uint64_t warmup, uint64_t iters,
		  uint32_t duration_ms)
{
	memset(r, 0, sizeof(*r));
	r->smp = smp;
	r->warmup = warmup;
	r->iters = iters;
	r->dur_ns = iters ? 0 : (uint64_t)duration_ms * 1000000u;
}

uint64_t prounds_total(const struct prounds *r)
{
	return r->iters ? r->warmup + r->iters : UINT64_MAX;
}

int prounds_add(struct prounds *r, uint64_t i, uint64_t t0, uint64_t t1)
{
	int rc;

	if (i < r->warmup)
		return 0;
	if (!r->measured)
		r->start = t0;
	r->measured++;
	r->end = t1;
	rc = psamples_add(r->smp, (double)(t1 - t0) / 2000.0);
	if (rc)
		return rc;
	return r->dur_ns && t1 - r->start >= r->dur_ns;
}

void pwin_init(struct pwin *w, uint64_t start_ns, uint64_t window_ns)
{
	memset(w, 0, sizeof(*w));
	w->window_ns = window_ns ? window_ns : 1;
	w->last_ns = start_ns;
	w->win_end = start_ns + w->window_ns;
}

void pwin_add(struct pwin *w, uint64_t t_ns, uint64_t bytes)
{
	double rate;

	if (t_ns <= w->last_ns) {
		w->win_bytes += (double)bytes;
		return;
	}
	rate = (double)bytes / (double)(t_ns - w->last_ns);
	while (w->last_ns < t_ns) {
		uint64_t seg = t_ns < w->win_end ? t_ns : w->win_end;

		w->win_bytes += rate * (double)(seg - w->last_ns);
		w->last_ns = seg;
		if (seg == w->win_end) {
			double bps = w->win_bytes * 8e9 / (double)w->window_ns;

			if (!w->has_worst || bps < w->worst_bps)
				w->worst_bps = bps;
			w->has_worst = true;
			w->win_bytes = 0;
			w->win_end += w->window_ns;
		}
	}
}

bool pwin_worst_gbps(const struct pwin *w, double *gbps)
{
	if (!w->has_worst)
		return false;
	*gbps = w->worst_bps / 1e9;
	return true;
}

double pstats_gbps(uint64_t bytes, uint64_t ns)
{
	return ns ? (double)bytes * 8.0 / (double)ns : 0.0;
}
