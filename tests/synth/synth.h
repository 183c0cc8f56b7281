/* Synthetic full-mesh fabrics with a seeded noise model: a measurement is a
 * pure function of (seed, link, attempt), so retests draw fresh noise. */
#ifndef RCK_SYNTH_H
#define RCK_SYNTH_H

#include <stdint.h>

#include <rocecheck/analysis.h>

struct synth {
	unsigned int hosts;        /* one NIC each, every ordered pair probed (bw) */
	double mean_gbps;          /* healthy link mean */
	double cv;                 /* coefficient of variation of one measurement */
	double line_rate;          /* NIC line rate, 0 unknown */
	uint64_t seed;
	double *nic_factor;        /* per NIC, applies to its row and column; NULL: 1 */
	double *nic_rate;          /* per NIC line rate (NULL: line_rate); a link's mean
				      scales with the slower end's rate */
	unsigned int bad_src, bad_dst;  /* one slow link (bad_src == bad_dst: none) */
	double bad_factor;
	int fail_all;              /* every probe failed */
	uint8_t *retests;          /* per link: retests done so far */
	unsigned int passes;       /* analyses synth_run() made */
};

/* Standard normal draw for (seed, link, attempt). */
double synth_normal(uint64_t seed, uint64_t link, unsigned int attempt);
/* Number of links (ordered pairs) and the index of (src, dst). */
size_t synth_links(const struct synth *s);
size_t synth_index(const struct synth *s, unsigned int src, unsigned int dst);
/* The measurement of @link at @attempt (0 first, then retests). */
double synth_measure(const struct synth *s, size_t link, unsigned int attempt);
/* Allocate s->retests; 0 or -ENOMEM. */
int synth_init(struct synth *s);
void synth_fini(struct synth *s);
/* A new analysis input holding the fabric with the retests done so far. */
int synth_analysis(const struct synth *s, const struct rck_thresholds *th, struct rck_analysis **out);
/*
 * The coordinator's loop: analyse, retest what the report asks for (fresh
 * noise), analyse again, until nothing is asked or @max_rounds. *out gets
 * the last report; @retests (may be NULL) the retests done; @slots (may be
 * NULL) the probe rounds they take when each pass runs its retests in
 * rounds of disjoint NIC pairs (no NIC in two probes at once; greedy).
 */
int synth_run(struct synth *s, const struct rck_thresholds *th, unsigned int max_rounds,
	      struct rck_report **out, unsigned int *retests, unsigned int *slots);

#endif
