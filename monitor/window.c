/* Per-peer probe windows: probes sent and lost, RTTs kept up to a cap, and
 * the window's loss, p50 and p99 (nearest rank). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "monitor_int.h"

void mw_reset(struct mw_peer *w)
{
	w->sent = w->lost = w->n_rtt = 0;
}

void mw_sent(struct mw_peer *w)
{
	w->sent++;
}

void mw_lost(struct mw_peer *w)
{
	w->lost++;
}

void mw_rtt(struct mw_peer *w, double rtt_us)
{
	if (w->n_rtt < MW_RTT_CAP && isfinite(rtt_us) && rtt_us >= 0)
		w->rtt_us[w->n_rtt++] = (float)rtt_us;
}

static int cmp_float(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;

	return (x > y) - (x < y);
}

/* Nearest rank: the smallest value with at least q of the samples at or below it. */
static double rank(const float *v, unsigned int n, double q)
{
	unsigned int r = (unsigned int)ceil(q * n);

	return v[r ? r - 1 : 0];
}

void mw_stats(const struct mw_peer *w, struct mw_stats *out)
{
	float tmp[MW_RTT_CAP];

	memset(out, 0, sizeof(*out));
	out->sent = w->sent;
	out->lost = w->lost > w->sent ? w->sent : w->lost;
	out->samples = w->n_rtt;
	out->loss = w->sent ? (double)out->lost / w->sent : 0;
	out->p50_us = out->p99_us = NAN;
	if (!w->n_rtt)
		return;
	memcpy(tmp, w->rtt_us, w->n_rtt * sizeof(*tmp));
	qsort(tmp, w->n_rtt, sizeof(*tmp), cmp_float);
	out->p50_us = rank(tmp, w->n_rtt, 0.5);
	out->p99_us = rank(tmp, w->n_rtt, 0.99);
}
