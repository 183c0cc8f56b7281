/* The probe result as the library builds it: both sides' measurements,
 * endpoints and counter deltas, the latency samples and the outcome. */
#ifndef RCK_PROBE_RESULT_H
#define RCK_PROBE_RESULT_H

#include <stdbool.h>
#include <stdint.h>

#include "exchange.h"
#include "perr.h"
#include "rocecheck/probe.h"

#define PRES_CTR_ABSENT 0xff

struct pres_side {
	char addr[64];
	char device[64];        /* "" for TCP or unknown */
	unsigned int port;
	int gid_index;
	char gid[48];
	char gid_why[200];      /* local side: how the GID was chosen */
	int tclass;             /* what the side's QPs carry, -1 unknown */
	unsigned int mtu;       /* the side's path MTU, 0 unknown */
	bool has_ctr;
	uint8_t ctr_state[RCK_CTR_COUNT];   /* enum rck_delta_state or PRES_CTR_ABSENT */
	uint64_t ctr[RCK_CTR_COUNT];
};

/* One direction of traffic, as its sender measured it. */
struct pres_dir {
	bool present;
	uint64_t bytes, msgs, ns;
	bool has_worst;
	double worst_gbps;
};

struct rck_probe_result {
	struct rck_probe_opts opts;     /* as run; its strings are NULL */
	bool server;                    /* the serving side's view */
	enum rck_probe_status status;
	char *error;
	const char *wc_status;
	struct pres_dir tx, rx;         /* what we sent, what the peer sent us */
	bool has_lat;
	double lat[RCK_LAT_STAT_COUNT];
	uint64_t lat_count;
	double *samples;
	size_t n_samples;
	struct pres_side side[2];       /* RCK_PROBE_LOCAL, RCK_PROBE_REMOTE */
};

/* A result for a session with parameters @p; the caller owns *out. */
int pres_new(const struct xq_params *p, bool server, struct rck_probe_result **out);
/* Record the session's error (status, text, completion status). */
int pres_fail(struct rck_probe_result *res, const struct perr *e);
void pres_dir_set(struct pres_dir *d, const struct xq_stats *st);
/* Latency summary from a side's stats message (the server's view). */
void pres_lat_set(struct rck_probe_result *res, const struct xq_stats *st);
void pres_counters_set(struct pres_side *side, const struct xq_counters *c);
void pres_gid_str(const uint8_t *raw, char *buf, size_t len);
/* Wire parameters <-> public options (the result's copy). */
void pparams_to_opts(const struct xq_params *p, struct rck_probe_opts *o);

#endif
