/* The coordinator's sweep state, shared by the coordinator-driven loop
 * (coord.c) and the agents' schedule (delegate_coord.c). Internal. */
#ifndef RCK_MESH_COORD_SWEEP_H
#define RCK_MESH_COORD_SWEEP_H

#include <stdbool.h>
#include <stdint.h>

#include "rocecheck/mesh.h"

#include "agent_proto.h"
#include "coord.h"
#include "plan.h"
#include "sched.h"

#define SLICE_MS 50
#define CLOSE_NS 200000000ull
#define INBUF 65536

enum hstate { H_CONNECTING, H_CHALLENGE, H_AUTH_OK, H_DESCRIBE, H_DCB, H_READY, H_DEAD };

struct host {
	const struct coord_host *cfg;
	const uint8_t *key;
	size_t key_len;
	int fd;
	enum hstate st;
	struct wire_frame fr;
	uint8_t *out;
	size_t out_len, out_off, out_cap;
	uint8_t sn[WIRE_NONCE_LEN], cn[WIRE_NONCE_LEN];
	unsigned int first_nic, n_nics;
	char (*nic_addr)[64];
	uint32_t armed;        /* epoll events registered */
	bool dirty;            /* on the flush list */
};

/* A running task: one directed probe, test after test. */
struct rtask {
	uint32_t run_pos;      /* index in run_list while running */
	bool running, retest;
	uint8_t test_i;        /* index into the sweep's tests */
	bool got_serving, got_result, got_served;
	uint64_t deadline;
	uint64_t started;
	/* The source's RESULT (or ERROR) when it came before the SERVED, from
	 * the sweep's pool; when it comes last it is recorded without a copy. */
	struct ag_msg *res;
};

struct sweep {
	struct rck_ctx *ctx;
	struct rck_mesh_config *c;
	struct rck_mesh *m;
	struct host *h;
	size_t n_h;
	struct mesh_plan *plan;
	struct mesh_sched *sched;
	struct rtask *rt;
	uint32_t *unit_left;   /* tasks of a unit not finished */
	uint32_t *task_unit;
	uint32_t *run_list;    /* running tasks, in no order */
	uint32_t n_run;
	uint64_t next_check;
	enum rck_mesh_test tests[RCK_MESH_TEST_COUNT];
	unsigned int n_tests;
	unsigned int done, total, down;
	uint64_t t0;
	unsigned int timeout_ms;
	size_t settled;        /* hosts READY or DEAD, while meeting them */
	struct ag_msg **pool;  /* stashed results free for reuse */
	size_t n_pool;
	struct ag_msg *msg;    /* scratch */
	uint8_t *buf;          /* scratch, AG_MAX_PAYLOAD */
	int ep;                /* epoll: every connection, events by host index */
	uint8_t *in;           /* INBUF bytes read at once from one connection */
	uint32_t *dirty;       /* hosts with output queued since the last flush */
	size_t n_dirty;
	bool in_rounds;        /* retest rounds: tasks run outside the scheduler */
	uint32_t round_left;   /* tasks of the current round not finished */
	struct delegate *dg;   /* the agents' schedule (delegate_coord.c) while it runs */
};

struct delegate;

/* coord.c */
int coord_queue(struct sweep *s, struct host *h, uint16_t type, const uint8_t *p, size_t len);
void coord_record(struct sweep *s, uint32_t t, enum rck_mesh_status st, const char *reason,
		  const struct ag_msg *res);
void coord_host_dead(struct sweep *s, struct host *h, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void coord_poll_round(struct sweep *s, int wait_ms);
bool coord_stopping(struct sweep *s, uint64_t deadline);
bool coord_suspect(struct sweep *s, uint32_t t);
/* Record every cell not recorded yet as skipped, for @why. */
void coord_skip_rest(struct sweep *s, const char *why);
/* Run @nt tasks as retests in rounds of disjoint NIC pairs (retest.c). */
void coord_run_rounds(struct sweep *s, const uint32_t *tasks, long nt, uint32_t *round,
		      uint64_t deadline);
uint32_t coord_host_of(const struct sweep *s, uint32_t nic);

/* delegate_coord.c: the main pass run by the agents. 0, or -EOPNOTSUPP
 * (a plan with incast groups, logged), -ENOMEM. */
int delegate_run(struct sweep *s, uint64_t deadline);
/* A frame of a READY host while the delegated pass runs. */
void delegate_frame(struct sweep *s, struct host *h, const struct wire_frame *f);
/* Host @hi died: its tasks not yet recorded become unreachable. */
void delegate_host_dead(struct sweep *s, uint32_t hi, const char *reason);
/* Why a READY host's agent closed the session, when the PLAN explains it; NULL else. */
const char *delegate_close_reason(const struct sweep *s, const struct host *h);

#endif
