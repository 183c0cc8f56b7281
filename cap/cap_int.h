/* Internal state of a packet analysis (rck_cap): flow table, pause
 * trackers and timeline, shared by the files of cap/. */
#ifndef RCK_CAP_INT_H
#define RCK_CAP_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "internal.h"
#include "rocecheck/cap.h"
#include "decode.h"

#define CAP_NPAUSE (RCK_CAP_PAUSE_LEGACY + 1)

struct cap_key {
	uint8_t family;
	uint8_t pad[3];
	uint32_t dest_qp;       /* 0 in a pair key */
	uint16_t sport;         /* 0 in a pair key */
	uint8_t pad2[6];        /* 48 bytes, hashed 8 at a time */
	uint8_t src[16], dst[16];
};

struct rck_cap_flow {
	struct cap_key key;
	uint64_t st[RCK_CAP_FLOW_STAT_COUNT];
	uint64_t last_ce_ns;
	uint32_t max_psn;
	uint32_t slack;         /* PSNs past max_psn a READ request may have reserved */
	uint32_t pmtu;          /* path MTU learnt from First/Middle payloads, 0: unknown */
	uint32_t resp_psn;      /* READ responses: the latest PSN */
	bool have_psn, have_resp;
};

/* Flows of one (source, destination) address pair, to give CNPs a home. */
struct cap_pair {
	struct cap_key key;
	uint32_t last_flow;     /* flow index + 1, 0: none */
	uint32_t last_ce_flow;
};

/* Open addressing over indices (+1; 0 is empty) into an array. */
struct cap_hash {
	uint32_t *slot;
	uint32_t mask;          /* slots - 1 */
};

struct cap_pause {
	uint64_t st[RCK_CAP_PAUSE_STAT_COUNT];
	double requested_us, effective_us, longest_us;
	bool active;
	uint64_t run_start, until, settled;   /* ns */
	uint64_t win;                         /* storm window index + 1, 0: none */
	uint64_t win_paused;                  /* ns paused in it */
};

struct cap_bucket {
	double pause_us[CAP_NPAUSE];
	uint64_t ce, roce, retrans;
};

struct rck_cap {
	struct rck_cap_opts o;
	bool finished;
	uint64_t st[RCK_CAP_STAT_COUNT];
	uint64_t ops[256];
	uint64_t now;                         /* latest frame time, ns */

	struct rck_cap_flow *flows;
	uint32_t nflows, flows_alloc;
	struct cap_hash fh;
	uint32_t *order;                      /* sorted view after finish */
	struct cap_pair *pairs;
	uint32_t npairs, pairs_alloc;
	struct cap_hash ph;

	struct cap_pause pause[CAP_NPAUSE];
	uint64_t storm_ns;

	struct cap_bucket *buckets;
	uint32_t nbuckets;
	uint64_t interval_ns;
};

/* flows.c */
int cap_flow_get(struct rck_cap *cap, const struct cap_key *k, uint32_t *idx);
int cap_pair_get(struct rck_cap *cap, const struct cap_key *k, struct cap_pair **out);
struct cap_pair *cap_pair_find(const struct rck_cap *cap, const struct cap_key *k);
int cap_flows_sort(struct rck_cap *cap);
void cap_flows_free(struct rck_cap *cap);

/* pause.c */
void cap_pause_frame(struct rck_cap *cap, unsigned int prio, uint64_t t, uint16_t quanta);
void cap_pause_finish(struct rck_cap *cap);
struct cap_bucket *cap_bucket_at(struct rck_cap *cap, uint64_t t);
double cap_quanta_us(const struct rck_cap *cap, uint64_t quanta);

#endif
