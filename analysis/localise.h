/* Localisation (localise.c, localise_find.c): the switch-side components on
 * each probe's path, and the fewest of them that explain its bad probes. */
#ifndef RCK_ANALYSIS_LOCALISE_H
#define RCK_ANALYSIS_LOCALISE_H

#include <stdbool.h>
#include <stdint.h>

#include "analysis_int.h"

/* Components: NIC n (with its cable and leaf port) is n; then per switch s
 * the switch itself, its uplinks both ways, up (out of s) and down (into s). */
enum lc_kind { LC_NIC = 0, LC_SWITCH, LC_UP_BOTH, LC_UP_OUT, LC_UP_IN, LC_KINDS };

/* Why a probe is bad. */
enum lc_why { LC_FAIL = 0, LC_SLOW, LC_LOSS, LC_LAT, LC_WHYS };

#define LC_PATH_MAX 10

struct lc_comp {
	uint32_t bad, tot;              /* unexplained bad probes, probes not yet explained */
	uint32_t all_bad, all;          /* before any choice */
	uint32_t why[LC_WHYS];          /* bad probes by first reason */
	uint8_t state;                  /* 0 open, 1 chosen, 2 ruled out */
	double ratio_sum;               /* slow probes' measured / centre, summed */
	uint32_t n_ratio;
};

struct nic_key {
	const char *host, *label;
	uint32_t nic;
};

struct lc {
	const struct rck_analysis *a;
	const struct rck_topology *t;
	unsigned int n_nics, n_sw;
	int32_t *nic_sw, *nic_port;     /* the NIC's leaf and port, -1 unknown */
	int32_t *sw_spine;              /* the one switch above, -1 none or several */
	int32_t *sw_uplink;             /* an uplink of the switch (its first), -1 none */
	uint32_t *sw_n_up;              /* its uplinks */
	struct lc_comp *c;
	uint32_t n_comp;
	uint8_t *why;                   /* per link: LC_WHYS none, else the reason */
	uint8_t *done;                  /* per link: explained */
	uint32_t *bstart, *bidx;        /* per component: its bad links */
	uint32_t *picked;               /* chosen components, in order */
	uint32_t n_picked;
	struct nic_key *keys;           /* NICs by host name and label */
};

static inline uint32_t lc_comp(const struct lc *l, enum lc_kind k, uint32_t i)
{
	return k == LC_NIC ? i : l->n_nics + (uint32_t)(k - 1) * l->n_sw + i;
}
static inline enum lc_kind lc_kind_of(const struct lc *l, uint32_t c)
{
	return c < l->n_nics ? LC_NIC : (enum lc_kind)(1 + (c - l->n_nics) / l->n_sw);
}
static inline uint32_t lc_index(const struct lc *l, uint32_t c)
{
	return c < l->n_nics ? c : (c - l->n_nics) % l->n_sw;
}

/* The components on link @k's path; returns how many (<= LC_PATH_MAX). */
unsigned int lc_path(const struct lc *l, size_t k, uint32_t *out);
unsigned int lc_path_nics(const struct lc *l, uint32_t src, uint32_t dst, uint32_t *out);
/* The NIC labelled @label of host @host: 0 or -ENOENT. */
int lc_find_nic(const struct lc *l, const char *host, const char *label, uint32_t *nic);
/* Build, classify and choose: 0 or -ENOMEM. */
int lc_run(struct lc *l, const struct rck_analysis *a);
void lc_free(struct lc *l);
/* Findings for the chosen components, and the host findings they explain
 * demoted (localise_find.c). */
void lc_report(const struct lc *l, struct rck_report *r);

/* run.c: localise when a topology is attached. */
void an_localise(const struct rck_analysis *a, struct rck_report *r);

#endif
