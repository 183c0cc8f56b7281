/* Pause tracking of rocecap: per priority (and legacy PAUSE) the runs of
 * XOFF until expiry or XON, their share of each storm window, and the
 * timeline buckets that collect pause time and CE marks. */
#include <string.h>

#include "cap_int.h"

/* One quantum is 512 bit times: 512 / speed_gbps ns. */
double cap_quanta_us(const struct rck_cap *cap, uint64_t quanta)
{
	return (double)quanta * 512.0 / cap->o.speed_gbps / 1000.0;
}

/* Halve the resolution until @idx fits: bucket i takes 2i and 2i+1. */
static void fold(struct rck_cap *cap)
{
	uint32_t n = (cap->nbuckets + 1) / 2;

	for (uint32_t i = 0; i < n; i++) {
		struct cap_bucket *d = &cap->buckets[i], *a = &cap->buckets[2 * i];
		struct cap_bucket *b = 2 * i + 1 < cap->nbuckets ? &cap->buckets[2 * i + 1] : NULL;
		struct cap_bucket m = *a;

		if (b) {
			for (int p = 0; p < CAP_NPAUSE; p++)
				m.pause_us[p] += b->pause_us[p];
			m.ce += b->ce;
			m.roce += b->roce;
			m.retrans += b->retrans;
		}
		*d = m;
	}
	memset(&cap->buckets[n], 0, (size_t)(cap->nbuckets - n) * sizeof(*cap->buckets));
	cap->nbuckets = n;
	cap->interval_ns *= 2;
}

/* The bucket holding time @t (never NULL: the timeline folds to fit). */
struct cap_bucket *cap_bucket_at(struct rck_cap *cap, uint64_t t)
{
	uint64_t t0 = cap->st[RCK_CAP_FIRST_NS];
	uint64_t i = t > t0 ? (t - t0) / cap->interval_ns : 0;

	while (i >= cap->o.max_buckets) {
		fold(cap);
		i = t > t0 ? (t - t0) / cap->interval_ns : 0;
	}
	if (i >= cap->nbuckets)
		cap->nbuckets = (uint32_t)i + 1;
	return &cap->buckets[i];
}

static void close_window(struct rck_cap *cap, struct cap_pause *p)
{
	if (p->win && (double)p->win_paused > cap->o.storm_share * (double)cap->storm_ns)
		p->st[RCK_CAP_PAUSE_STORMS]++;
	p->win_paused = 0;
}

/* Time [a, b) was paused on @prio: into the total, the storm windows and
 * the timeline. */
static void account(struct rck_cap *cap, unsigned int prio, uint64_t a, uint64_t b)
{
	struct cap_pause *p = &cap->pause[prio];
	uint64_t t0 = cap->st[RCK_CAP_FIRST_NS];

	p->effective_us += (double)(b - a) / 1000.0;
	while (a < b) {
		uint64_t w = (a - t0) / cap->storm_ns + 1;
		uint64_t wend = t0 + w * cap->storm_ns;
		uint64_t bend, end;
		struct cap_bucket *bk;

		if (w != p->win) {
			close_window(cap, p);
			p->win = w;
		}
		bk = cap_bucket_at(cap, a);
		bend = t0 + ((a - t0) / cap->interval_ns + 1) * cap->interval_ns;
		end = b < wend ? b : wend;
		if (bend < end)
			end = bend;
		p->win_paused += end - a;
		bk->pause_us[prio] += (double)(end - a) / 1000.0;
		a = end;
	}
}

/* Bring @prio's run up to time @t: account what was paused, end an
 * expired run. */
static void settle(struct rck_cap *cap, unsigned int prio, uint64_t t)
{
	struct cap_pause *p = &cap->pause[prio];
	uint64_t end;

	if (!p->active)
		return;
	end = t < p->until ? t : p->until;
	if (end > p->settled) {
		account(cap, prio, p->settled, end);
		p->settled = end;
	}
	if (p->until <= t) {
		double us = (double)(p->until - p->run_start) / 1000.0;

		if (us > p->longest_us)
			p->longest_us = us;
		p->active = false;
	}
}

void cap_pause_frame(struct rck_cap *cap, unsigned int prio, uint64_t t, uint16_t quanta)
{
	struct cap_pause *p = &cap->pause[prio];

	settle(cap, prio, t);
	p->st[RCK_CAP_PAUSE_FRAMES]++;
	p->st[RCK_CAP_PAUSE_QUANTA] += quanta;
	p->requested_us += cap_quanta_us(cap, quanta);
	if (!quanta) {
		/* XON: the run ends now. */
		p->st[RCK_CAP_PAUSE_XON]++;
		if (p->active) {
			p->until = t;
			settle(cap, prio, t);
		}
		return;
	}
	p->st[RCK_CAP_PAUSE_XOFF]++;
	if (!p->active) {
		p->active = true;
		p->run_start = p->settled = t;
	}
	/* A new XOFF restarts the timer: the run goes on from now. */
	p->until = t + (uint64_t)(cap_quanta_us(cap, quanta) * 1000.0 + 0.5);
}

/* Runs still open end at their expiry; the last storm window is judged. */
void cap_pause_finish(struct rck_cap *cap)
{
	for (unsigned int i = 0; i < CAP_NPAUSE; i++) {
		struct cap_pause *p = &cap->pause[i];

		if (p->active)
			settle(cap, i, p->until);
		close_window(cap, p);
		p->win = 0;
	}
}
