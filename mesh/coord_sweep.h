/* The coordinator's sweep state, shared by its connections (coord.c) and
 * its schedule (coord_sched.c). Internal. */
#ifndef RCK_MESH_COORD_SWEEP_H
#define RCK_MESH_COORD_SWEEP_H

#include <stdbool.h>
#include <stdint.h>

#include "rocecheck/mesh.h"

#include "agent_proto.h"
#include "coord.h"
#include "plan.h"

#define SLICE_MS 50
#define CLOSE_NS 200000000ull
#define INBUF 65536
#define KEEP_BYTES 4096 /* a host's buffers past this are freed once used */

enum hstate { H_CONNECTING, H_CHALLENGE, H_AUTH_OK, H_DESCRIBE, H_DCB, H_READY, H_DEAD, H_PCIE, H_LLDP };

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
	uint64_t sent;         /* the last frame queued */
	uint64_t moved;        /* output queued: when it last moved (or was queued) */
	uint32_t keep_ms;      /* keepalive interval while the sweep is open; 0: none */
};

/* The test of a plan task being recorded (coord_record()). */
struct rtask {
	bool retest;
	uint8_t test_i;        /* index into the sweep's tests */
	uint64_t started;      /* 0: not known */
	uint64_t ended;        /* 0: now */
};

struct sweep {
	struct rck_ctx *ctx;
	struct rck_mesh_config *c;
	struct rck_mesh *m;
	struct host *h;
	size_t n_h;
	struct mesh_plan *plan;
	struct rtask *rt;
	enum rck_mesh_test tests[RCK_MESH_TEST_COUNT];
	unsigned int n_tests;
	unsigned int done, total, down;
	uint64_t t0;
	unsigned int timeout_ms;
	size_t settled;        /* hosts READY or DEAD, while meeting them */
	struct ag_msg *msg;    /* scratch */
	uint8_t *buf;          /* scratch, AG_MAX_PAYLOAD */
	int ep;                /* epoll: every connection, events by host index */
	uint8_t *in;           /* INBUF bytes read at once from one connection */
	uint32_t *dirty;       /* hosts with output queued since the last flush */
	size_t n_dirty;
	uint64_t keep_next;    /* the next keepalive round (coord_keep.c) */
	struct delegate *dg;   /* the schedule (coord_sched.c) while it runs */
	const struct coord_ops *ops; /* its hooks for the connections, while it runs */
};

/* What the connections (coord.c) hand the schedule, without calling it. */
struct coord_ops {
	/* A frame of a READY host. */
	void (*frame)(struct sweep *s, struct host *h, const struct wire_frame *f);
	/* Host @hi was declared dead (its tasks of the pass become unreachable). */
	void (*host_dead)(struct sweep *s, uint32_t hi, const char *reason);
	/* Why a READY host's agent closed the session, when the schedule explains it; NULL else. */
	const char *(*close_reason)(const struct sweep *s, const struct host *h);
};

/* One pass: its ids in the order the agents run them. An id is one test
 * of one plan task; an incast group's members have consecutive ids. */
struct pass {
	uint32_t n_ids;
	uint32_t *task;        /* plan task */
	uint8_t *test;         /* index into the sweep's tests */
	uint32_t *group;       /* first id of its group; NULL: every id alone */
	uint8_t *lane;
	uint32_t *pos;         /* per end (id * 2 + role): its place in its NIC's queue */
	bool retest;
};

struct delegate;

/* coord.c: connections. */
int coord_setup(struct sweep *s);
void coord_teardown(struct sweep *s);
/* Connect, authenticate and describe every host within the timeout. */
void coord_meet_hosts(struct sweep *s, uint64_t deadline);
void coord_goodbye(struct sweep *s);
int coord_queue(struct sweep *s, struct host *h, uint16_t type, const uint8_t *p, size_t len);
/* The one place a host is declared dead: closed, marked unreachable in the
 * result, the schedule told (ops->host_dead). */
void coord_host_dead(struct sweep *s, struct host *h, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void coord_poll_round(struct sweep *s, int wait_ms);
bool coord_stopping(struct sweep *s, uint64_t deadline);
/* How long an agent gets for an exchange of several messages (meeting it,
 * its PLAN): 3 x the message timeout, never under 2 s. */
uint64_t coord_answer_wait_ms(const struct sweep *s);
uint32_t coord_host_of(const struct sweep *s, uint32_t nic);

/* coord_keep.c: while the sweep is open, a session that heard nothing from
 * us for a third of its agent's idle time gets a keepalive, and one whose
 * output has not moved for longer than that idle time and the timeout is
 * dead. coord_keep_start(): from @h's PLANNED on (@idle_ms 0: not said);
 * coord_keepalive(): from every poll round. */
void coord_keep_start(struct host *h, uint32_t idle_ms);
void coord_keepalive(struct sweep *s);

/* coord_record.c: results into the sweep result. */
void coord_record(struct sweep *s, uint32_t t, enum rck_mesh_status st, const char *reason,
		  const struct ag_msg *res);
bool coord_suspect(struct sweep *s, uint32_t t);
/* Record every cell not recorded yet as skipped, for @why. */
void coord_skip_rest(struct sweep *s, const char *why);

/* coord_sched.c: the schedule. sched_begin() sends every agent its PLAN
 * (0, -EINVAL logged, -ENOMEM, -EIO); sched_run_pass() runs one pass on
 * the live agents until each sent its last batch (0, -E2BIG, -ENOMEM);
 * sched_end() frees it all (also after a failed begin). */
int sched_begin(struct sweep *s, uint64_t deadline);
int sched_run_pass(struct sweep *s, struct pass *p, uint64_t deadline);
/* A cancel or the deadline stopped the agents: no further pass. */
bool sched_stopped(const struct sweep *s);
/* The plan has incast groups: a pass of it needs struct pass's group and lane. */
bool sched_groups(const struct sweep *s);
void sched_end(struct sweep *s);

#endif
