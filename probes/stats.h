/* Probe statistics: latency percentiles over the samples, and the worst
 * bandwidth over fixed windows of a run. */
#ifndef RCK_PROBE_STATS_H
#define RCK_PROBE_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rocecheck/probe.h"

/*
 * Summary of @n samples (µs) into out[RCK_LAT_STAT_COUNT]. All samples are
 * kept (nothing is dropped, unlike perftest's top two); p50 is the median
 * (the mean of the middle two for an even count), the other percentiles are
 * nearest-rank, stdev is the population standard deviation.
 * Returns 0, -ENOENT for no samples, -ENOMEM.
 */
int pstats_latency(const double *samples, size_t n, double *out);

/* Growing array of latency samples. */
struct psamples {
	double *v;
	size_t n, cap, limit;
};
/* Room for @expect samples up front (0: grow as needed), never above @limit. */
int psamples_init(struct psamples *s, size_t expect, size_t limit);
/* Returns 0, -ENOMEM (at the limit the sample is dropped and 0 returned). */
int psamples_add(struct psamples *s, double usec);
void psamples_free(struct psamples *s);

/* The rounds of a ping-pong: which are warm-up, which are kept as samples
 * (half the round trip, µs), and the span the kept ones cover. */
struct prounds {
	struct psamples *smp;
	uint64_t warmup, iters, dur_ns;
	uint64_t measured, start, end;
};
/* @iters 0: run for @duration_ms after the warm-up. */
void prounds_init(struct prounds *r, struct psamples *smp, uint64_t warmup, uint64_t iters,
		  uint32_t duration_ms);
/* How many rounds to run at most (UINT64_MAX with a duration). */
uint64_t prounds_total(const struct prounds *r);
/* Record round @i, from @t0 to @t1: 1 when the duration is over, 0 to go
 * on, -ENOMEM. */
int prounds_add(struct prounds *r, uint64_t i, uint64_t t0, uint64_t t1);

/*
 * Fixed windows from the run's start. Completions come in batches (one
 * signalled completion stands for many writes), so each batch's bytes are
 * spread evenly over the time since the previous batch; a window's rate is
 * what fell into it. Only whole windows count.
 */
struct pwin {
	uint64_t window_ns;
	uint64_t last_ns;        /* time of the previous batch (start at first) */
	uint64_t win_end;        /* end of the open window */
	double win_bytes;
	double worst_bps;
	bool has_worst;
};
void pwin_init(struct pwin *w, uint64_t start_ns, uint64_t window_ns);
void pwin_add(struct pwin *w, uint64_t t_ns, uint64_t bytes);
/* Worst whole window in Gb/s; false when the run was shorter than a window. */
bool pwin_worst_gbps(const struct pwin *w, double *gbps);

/* Gb/s (1e9 bits per second) of @bytes in @ns; 0 when @ns is 0. */
double pstats_gbps(uint64_t bytes, uint64_t ns);

#endif
