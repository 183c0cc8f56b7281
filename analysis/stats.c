/* Statistics the checks share: a linear-time median, links grouped by NIC
 * (rows: the NIC sends, columns: it receives) and majority attribution. */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_int.h"

/* Wirth's selection of the k-th smallest (Hoare partitions around the
 * current k-th element); reorders @v. Linear on average, also for sorted
 * or constant input. */
static double select_k(double *v, size_t n, size_t k)
{
	ptrdiff_t l = 0, r = (ptrdiff_t)n - 1, kk = (ptrdiff_t)k;

	while (l < r) {
		double x = v[kk];
		ptrdiff_t i = l, j = r;

		do {
			while (v[i] < x)
				i++;
			while (x < v[j])
				j--;
			if (i <= j) {
				double t = v[i];

				v[i] = v[j];
				v[j] = t;
				i++;
				j--;
			}
		} while (i <= j);
		if (j < kk)
			l = i;
		if (kk < i)
			r = j;
	}
	return v[kk];
}

static void swap_d(double *v, ptrdiff_t i, ptrdiff_t j)
{
	double t = v[i];

	v[i] = v[j];
	v[j] = t;
}

/* Floyd and Rivest's selection (CACM 1975, algorithm 489): on large input
 * it first selects within a sample around k, so the partition that
 * follows is nearly final: about n + min(k, n - k) comparisons against
 * Wirth's 2 to 3 n. Leaves v[k] the k-th smallest, smaller ones before. */
static void select_fr(double *v, ptrdiff_t l, ptrdiff_t r, ptrdiff_t k)
{
	while (r > l) {
		double t;
		ptrdiff_t i, j;

		if (r - l > 600) {
			double n = (double)(r - l + 1), m = (double)(k - l + 1), z = log(n);
			double s = 0.5 * exp(2 * z / 3);
			double sd = 0.5 * sqrt(z * s * (n - s) / n) * (m - n / 2 < 0 ? -1 : 1);
			ptrdiff_t nl = (ptrdiff_t)((double)k - m * s / n + sd);
			ptrdiff_t nr = (ptrdiff_t)((double)k + (n - m) * s / n + sd);

			select_fr(v, nl > l ? nl : l, nr < r ? nr : r, k);
		}
		t = v[k];
		i = l;
		j = r;
		swap_d(v, l, k);
		if (v[r] > t)
			swap_d(v, r, l);
		while (i < j) {
			swap_d(v, i, j);
			i++;
			j--;
			while (v[i] < t)
				i++;
			while (v[j] > t)
				j--;
		}
		if (v[l] == t) {
			swap_d(v, l, j);
		} else {
			j++;
			swap_d(v, j, r);
		}
		if (j <= k)
			l = j + 1;
		if (k <= j)
			r = j - 1;
	}
}

double an_median(double *v, size_t n)
{
	double hi, lo;

	if (!n)
		return 0;
	if (n > 600) {
		select_fr(v, 0, (ptrdiff_t)n - 1, (ptrdiff_t)(n / 2));
		hi = v[n / 2];
	} else {
		hi = select_k(v, n, n / 2);
	}
	if (n % 2)
		return hi;
	/* The lower middle is the largest of the lower half. */
	lo = v[0];
	for (size_t i = 1; i < n / 2; i++)
		if (v[i] > lo)
			lo = v[i];
	return (lo + hi) / 2;
}

void an_groups_free(struct an_groups *g)
{
	free(g->row_start);
	free(g->row_idx);
	free(g->col_start);
	free(g->col_idx);
	memset(g, 0, sizeof(*g));
}

/* Counting sort of the taken links by one end. */
static int group(const struct rck_analysis *a, const uint8_t *take, bool by_dst, uint32_t **startp,
		 uint32_t **idxp)
{
	uint32_t *start = calloc(a->n_nics + 1, sizeof(*start));
	uint32_t *idx = malloc((a->n_links ? a->n_links : 1) * sizeof(*idx));
	uint32_t *pos;

	if (!start || !idx) {
		free(start);
		free(idx);
		return -ENOMEM;
	}
	for (size_t i = 0; i < a->n_links; i++)
		if (take[i])
			start[(by_dst ? a->links[i].dst : a->links[i].src) + 1]++;
	for (unsigned int n = 0; n < a->n_nics; n++)
		start[n + 1] += start[n];
	pos = malloc((a->n_nics ? a->n_nics : 1) * sizeof(*pos));
	if (!pos) {
		free(start);
		free(idx);
		return -ENOMEM;
	}
	memcpy(pos, start, a->n_nics * sizeof(*pos));
	for (size_t i = 0; i < a->n_links; i++)
		if (take[i])
			idx[pos[by_dst ? a->links[i].dst : a->links[i].src]++] = (uint32_t)i;
	free(pos);
	*startp = start;
	*idxp = idx;
	return 0;
}

int an_groups_build(const struct rck_analysis *a, const uint8_t *take, struct an_groups *g)
{
	memset(g, 0, sizeof(*g));
	if (group(a, take, false, &g->row_start, &g->row_idx) ||
	    group(a, take, true, &g->col_start, &g->col_idx)) {
		an_groups_free(g);
		return -ENOMEM;
	}
	return 0;
}

unsigned int an_attribute(const struct rck_analysis *a, const struct an_groups *g,
			  const uint8_t *flag, uint8_t *nic_hit, unsigned int *row_hits,
			  unsigned int *col_hits)
{
	double frac = an_th(a, TH_ATTRIBUTION_FRACTION);
	double min = an_th(a, TH_ATTRIBUTION_MIN_LINKS);
	unsigned int hits = 0;

	for (unsigned int n = 0; n < a->n_nics; n++) {
		uint32_t rn = g->row_start[n + 1] - g->row_start[n];
		uint32_t cn = g->col_start[n + 1] - g->col_start[n];
		unsigned int rh = 0, ch = 0;

		for (uint32_t i = g->row_start[n]; i < g->row_start[n + 1]; i++)
			rh += flag[g->row_idx[i]] != 0;
		for (uint32_t i = g->col_start[n]; i < g->col_start[n + 1]; i++)
			ch += flag[g->col_idx[i]] != 0;
		if (row_hits)
			row_hits[n] = rh;
		if (col_hits)
			col_hits[n] = ch;
		if ((rn >= min && rh > frac * rn) || (cn >= min && ch > frac * cn)) {
			nic_hit[n] = 1;
			hits++;
		}
	}
	return hits;
}

double an_binom_tail(size_t n, size_t k, double p)
{
	double lp, lq, sum = 0;

	if (k == 0)
		return 1;
	if (k > n || !(p > 0))
		return 0;
	if (!(p < 1))
		return 1;
	lp = log(p);
	lq = log1p(-p);
	/* Past the mode (k >= np) the terms only fall: stop once negligible. */
	for (size_t i = k; i <= n; i++) {
		double t = exp(lgamma((double)n + 1) - lgamma((double)i + 1) - lgamma((double)(n - i) + 1) +
			       (double)i * lp + (double)(n - i) * lq);

		sum += t;
		if ((double)i >= (double)n * p && t < 1e-17 * sum)
			break;
	}
	return sum < 1 ? sum : 1;
}
