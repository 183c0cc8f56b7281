/* Internal structures of the analysis module: the input it was given, the
 * report under construction, and the helpers its checks share. */
#ifndef RCK_ANALYSIS_INT_H
#define RCK_ANALYSIS_INT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../dcb/dcb_set.h"
#include "../mesh/strset.h"
#include "internal.h"
#include "rocecheck/analysis.h"

/* ---- thresholds (thresholds.c) ---- */
enum th_key {
	TH_LINK_ABS_FLOOR = 0,
	TH_LINK_REL_FLOOR,
	TH_LINK_LATENCY_FACTOR,
	TH_LINK_SCREEN_Z,
	TH_LINK_FALSE_ALARM,
	TH_LINK_MISS,
	TH_LINK_RETESTS_MAX,
	TH_LINK_NOISE_MIN,
	TH_LINK_MIN_GAP,
	TH_ATTRIBUTION_FRACTION,
	TH_ATTRIBUTION_MIN_LINKS,
	TH_FABRIC_SLOW_FRACTION,
	TH_FABRIC_CENTRE_FLOOR,
	TH_EXPECT_RATE_GBPS,
	TH_EXPECT_MTU,
	TH_EXPECT_ACTIVE_MTU,
	TH_ROCE_PRIORITY,
	TH_ERROR_COUNTER_MIN,
	TH_SYMBOL_ERROR_RATE,
	TH_LINK_ERROR_RECOVERY_RATE,
	TH_PAUSE_STORM_FRACTION,
	TH_LOSS_MIN,
	TH_ECN_MIN,
	TH_CNP_MIN,
	TH_PFC_OTHER_MIN,
	TH_DUPLICATE_MIN,
	TH_PCIE_MIN_READ_REQ,            /* lint_pci.c */
	TH_PCIE_AER_MIN,
	TH_PCIE_GPU_NIC_MAX,
	TH_DRAIN_MAX_FRACTION,
	TH_NOISE_MAX,
	TH_NIC_RETEST_LINKS,
	TH_LINK_SWEEP_FALSE_ALARM,
	TH_NOISE_BUDGET_S,     /* the preflight's, not the analysis's */
	TH_LINK_RETESTS_UNDECIDED,
	/* the monitor's (monitor/rules.c) */
	TH_MONITOR_LOSS_FRACTION,
	TH_MONITOR_LOSS_MIN,
	TH_MONITOR_RTT_FACTOR,
	TH_MONITOR_TX_DISCARD_RATE,
	TH_MONITOR_SLOW_RESTART_RATE,
	TH_MONITOR_PROBE_TIMEOUT,
	TH_COUNT
};

struct rck_thresholds {
	double v[TH_COUNT];
};

/* ---- input (input.c) ---- */
struct an_host {
	char *name;                      /* owned by rck_analysis.host_names */
	char *unreachable;               /* reason, NULL when reachable */
	bool spare;                      /* judged, never drained */
	const struct rck_inventory *inv; /* borrowed */
	const struct rck_delta *delta;   /* borrowed */
	/* Its NICs in the order added: a chain through an_nic.next_on_host
	 * (AN_NO_NIC ends it), so per-host work costs its own NICs, not all. */
	unsigned int first_nic, last_nic;
	struct dcb_set dcb;              /* DCB state given (lint_dcb.c) */
	const struct rck_pcie *pcie, *pcie_before; /* borrowed (lint_pci.c) */
};

struct rck_mesh;
/* Give hosts base_host + h the DCB state mesh host h kept (from_mesh_dcb.c,
 * for rck_analysis_add_mesh()): 0, -EINVAL, -ENOMEM. */
int an_add_mesh_dcb(struct rck_analysis *a, unsigned int base_host, const struct rck_mesh *m);
/* Likewise the PCIe paths its agent reported (from_mesh_pcie.c), borrowed
 * from @m, which must outlive the analysis. */
int an_add_mesh_pcie(struct rck_analysis *a, unsigned int base_host, const struct rck_mesh *m);

#define AN_NO_NIC UINT_MAX
/* Each NIC @n of host @h, in the order added. */
#define AN_FOR_HOST_NIC(a, h, n) \
	for (unsigned int n = (a)->hosts[h].first_nic; n != AN_NO_NIC; n = (a)->nics[n].next_on_host)

struct an_nic {
	unsigned int host;
	unsigned int next_on_host;       /* AN_NO_NIC: the host's last */
	char *device;
	unsigned int port;
	char *label;                     /* "device/port" */
	char *netdev;                    /* NULL unknown */
	double line_rate;
	uint64_t counters;
	char *state, *fw_ver;             /* described by its host; state NULL: not */
	unsigned int active_mtu, netdev_mtu;
	int gid_index;
};

/* A sample as kept: compact, retests and counters in side arrays. */
struct an_link {
	uint32_t src, dst;
	uint8_t test, status, n_retests, pad;
	uint32_t retest;                 /* first index in rck_analysis.retests */
	uint32_t ctr;                    /* first index in rck_analysis.ctrs */
	uint32_t n_ctr;
	uint32_t reason;                 /* index + 1 in rck_analysis.reasons, 0 none */
	double value;                    /* gbps (bw) or p50 (lat) */
	double p99;
	double line_rate;                /* 0 unknown */
};

struct rck_analysis {
	struct rck_thresholds th;
	char *pattern;
	unsigned int incast;             /* K of incast:K, 0 otherwise */
	struct an_host *hosts;
	unsigned int n_hosts, cap_hosts;
	struct strset host_names;        /* owns hosts[].name: duplicates found in O(1) */
	struct an_nic *nics;
	unsigned int n_nics, cap_nics;
	struct an_link *links;
	size_t n_links, cap_links;
	struct rck_link_meas *retests;
	size_t n_retests, cap_retests;
	struct rck_link_counter *ctrs;
	size_t n_ctrs, cap_ctrs;
	char **reasons;
	size_t n_reasons, cap_reasons;
	const struct rck_topology *topo; /* borrowed (localise.c), NULL none */
};

/* ---- report (report.c) ---- */
#define AN_VALUES_MAX 10

struct rck_finding {
	enum rck_finding_code code;
	enum rck_severity sev;
	enum rck_entity entity;
	char *host, *nic, *peer_host, *peer_nic;
	char *reason;
	bool suspect;                     /* unconfirmed NIC/host: never drained */
	unsigned int n_values;
	const char *keys[AN_VALUES_MAX];  /* static strings */
	double values[AN_VALUES_MAX];
};

struct an_retest {
	enum rck_link_test test;
	unsigned int src, dst;
};

struct an_drain {
	char *host, *reason;
};

struct rck_report {
	enum rck_verdict verdict;
	char *error;
	char *noisy;                      /* why inconclusive, NULL: decided */
	char *unsure;                     /* why inconclusive when nothing else is found */
	unsigned int unretested;          /* failed probes left unconfirmed (link_failures.c) */
	struct an_drain *drains, *held;
	unsigned int n_drains, n_held;
	struct rck_finding *findings;
	unsigned int n_findings, cap_findings;
	struct an_retest *retests;
	unsigned int n_retests, cap_retests;
	struct rck_report_links links;
	int err;                          /* first allocation failure while building */
};

/* Add a finding; the reason is printf-formatted. Subject strings are copied
 * (NULL allowed). Returns the finding (for values) or NULL after ENOMEM,
 * which is kept in r->err. */
struct rck_finding *an_add(struct rck_report *r, enum rck_finding_code code, enum rck_severity sev,
			   enum rck_entity ent, const char *host, const char *nic,
			   const char *peer_host, const char *peer_nic, const char *fmt, ...)
	RCK_PRINTF(9, 10);
void an_value(struct rck_finding *f, const char *key, double v);
void an_retest_add(struct rck_report *r, enum rck_link_test test, unsigned int src, unsigned int dst);
/* Sort findings (severity, code, host, nic, peer) and set the verdict. */
void an_finish(struct rck_report *r);
/* verdict.c: after an_finish(), the hosts to drain with the circuit
 * breaker over @n_hosts hosts (its finding added, verdict set again). */
void an_plan_drains(const struct rck_analysis *a, struct rck_report *r);
/* Free the drain lists. */
void an_drains_free(struct rck_report *r);

/* An empty report, and a finding copied into one (strings and values), for
 * the host sweeps that combine reports. NULL on ENOMEM (kept in r->err). */
struct rck_report *sw_report_new(void);
struct rck_finding *sw_report_copy(struct rck_report *r, const struct rck_finding *f);

/* report_write.c: one finding as a JSON object / text line; @hold (NULL:
 * left out) is a sweep's hold state. */
struct emit;
void an_write_finding(struct emit *e, const struct rck_finding *f, const char *hold);

/* Subject helpers for NIC and link findings. */
struct rck_finding *an_add_nic(struct rck_report *r, const struct rck_analysis *a, unsigned int nic,
			       enum rck_finding_code code, enum rck_severity sev, const char *fmt, ...)
	RCK_PRINTF(6, 7);
struct rck_finding *an_add_link(struct rck_report *r, const struct rck_analysis *a,
				const struct an_link *l, enum rck_finding_code code,
				enum rck_severity sev, const char *fmt, ...) RCK_PRINTF(6, 7);
/* A suspect link with a retest asked for, its mean of @m measurements
 * or their retests' median @rmed below the floor @fl: a suspect warning,
 * never drained, left if the caller has no pass left (links_undecided.c). */
void an_link_undecided(struct rck_report *r, const struct rck_analysis *a, const struct an_link *l,
		       double mean, double rmed, unsigned int m, double fl, double c);

/* ---- checks ---- */
void an_check_hosts(const struct rck_analysis *a, struct rck_report *r);  /* hosts.c */
/* A described NIC's MTU or GID index unlike most peers' (hosts_odd.c). */
void an_check_odd_config(const struct rck_analysis *a, struct rck_report *r);
void an_check_lint(const struct rck_analysis *a, struct rck_report *r);   /* lint.c */
void an_check_dcb(const struct rck_analysis *a, struct rck_report *r);    /* lint_dcb.c */
void an_check_pcie(const struct rck_analysis *a, struct rck_report *r);   /* lint_pci.c */
/* links.c: speed, latency, attribution, fabric; @dead[nic] marks NICs whose
 * links are not judged (unreachable hosts); @bad[nic] gets NICs judged
 * degraded or failing, whose links are then not listed by later checks. */
void an_check_links(const struct rck_analysis *a, struct rck_report *r, uint8_t *bad);
/* link_failures.c: NICs most of whose probes failed (before the speed
 * checks, setting @bad), then each failed probe left (after them); a
 * failure is a suspect until a retest fails too. */
void an_check_link_failures(const struct rck_analysis *a, struct rck_report *r, uint8_t *bad);
void an_list_failed_links(const struct rck_analysis *a, struct rck_report *r, const uint8_t *bad);
/* A NIC whose link_downed rose during its probes (link_flaps.c). */
void an_check_link_flaps(const struct rck_analysis *a, struct rck_report *r);
void an_check_link_counters(const struct rck_analysis *a, struct rck_report *r,
			    const uint8_t *bad);                          /* link_counters.c */
/* Retransmission counters of measured link @l rose past loss_min. */
bool an_link_lossy(const struct rck_analysis *a, const struct an_link *l);

struct an_groups;
/* ---- confirmation of NICs (confirm.c) ---- */
/* Bandwidth references of each link (indexed by link number): centre,
 * spread (Gb/s) and floor; the sequential test's bounds. */
struct an_bw_ref {
	const double *c, *sig, *fl;
	double lnA, lnB;
	double cap;                      /* one retest's evidence at most (spread.c) */
};
enum an_conf { AN_CLEARED = 0, AN_SUSPECT, AN_CONFIRMED };
/* What a NIC's decision rests on. */
struct an_evidence {
	unsigned int links, retests;   /* links judged, retests of them measured */
	double llr, bound;             /* the test's sum and confirmation bound (bw) */
	double retest_ratio;           /* median retest over its floor/limit; NaN none */
	bool undecided;                /* suspect with no retest left to ask */
};
/* The SPRT of one link: midpoint and slope of its log likelihood ratio
 * (centre @c, spread @sig and floor @fl in Gb/s). */
void an_sprt_link(const struct rck_analysis *a, double c, double sig, double fl, double *mid,
		  double *k);
/* Decide NIC @nic on its row (@row: as sender) and/or column links of @g:
 * bandwidth with @ref, latency (@ref NULL) against @lat_limit. A suspect
 * gets retests of its links asked in @r. */
enum an_conf an_confirm_nic(const struct rck_analysis *a, struct rck_report *r,
			    const struct an_groups *g, unsigned int nic, bool row, bool col,
			    const struct an_bw_ref *ref, double lat_limit, struct an_evidence *ev);

/* The NIC finding of @n (links.c's attribution): confirmed (degraded) or
 * suspect (warning, not drained), its medians, ratios and evidence. */
void an_nic_finding(const struct rck_analysis *a, struct rck_report *r, unsigned int n, bool lat,
		    double rmed, double cmed, double rq, double cq, double centre, uint32_t rn,
		    uint32_t cn, enum an_conf conf, const struct an_evidence *ev);

/* ---- shared helpers (stats.c) ---- */
/* Median of @n doubles; reorders @v. 0 for n == 0. O(n). */
double an_median(double *v, size_t n);
/* P(X >= @k) for X binomial(@n, @p). */
double an_binom_tail(size_t n, size_t k, double p);
/* Links of each NIC grouped by source (rows) and destination (columns):
 * row_start[nic]..row_start[nic+1] index row_idx (link numbers). */
struct an_groups {
	uint32_t *row_start, *row_idx, *col_start, *col_idx;
};
int an_groups_build(const struct rck_analysis *a, const uint8_t *take, struct an_groups *g);
/* ---- the links a bandwidth centre is taken over (aside.c) ---- */
/* @rest marks the links of @take not touching a NIC far below the others
 * (in a fabric of 16 hosts or fewer), or below them for a known cause (its
 * PCIe link capped: a pcie_degraded finding in @r; retransmissions on most
 * of its links), or all of @take when that leaves less than half. Returns
 * how many @rest marks, or -ENOMEM. */
ssize_t an_bw_rest(const struct rck_analysis *a, const struct rck_report *r, const uint8_t *take,
		   uint8_t *rest);
/* ---- spreads (spread.c) ---- */
int an_link_spreads(const struct rck_analysis *a, const uint8_t *take, const double *cen, double *sg);
/* NIC @n's own spread (relative, NaN with too few links) for its
 * confirmation, without the zero an odd side's median gives: a noisy host
 * of a small fabric is not underestimated. 0 or -ENOMEM. */
int an_nic_own_spread(const struct rck_analysis *a, const struct an_groups *g, const double *cen,
		      unsigned int n, double *out);
int an_dips(const struct rck_analysis *a, const uint8_t *take, const uint8_t *skip,
	    const double *alt, size_t *n, size_t *deep);
void an_groups_free(struct an_groups *g);
/* Count of links of a NIC in row/column flagged in @flag, against all in
 * the group; one NIC-level finding when more than attribution_fraction of
 * its row or its column is flagged. Sets @nic_hit[nic]. */
unsigned int an_attribute(const struct rck_analysis *a, const struct an_groups *g,
			  const uint8_t *flag, uint8_t *nic_hit, unsigned int *row_hits,
			  unsigned int *col_hits);

static inline double an_th(const struct rck_analysis *a, enum th_key k)
{
	return a->th.v[k];
}

static inline bool an_has_ctr(const struct an_nic *n, enum rck_counter id)
{
	return id < 64 && (n->counters >> id) & 1;
}

#endif
