/* The delegated schedule's messages (agents run the plan): the sweep's
 * probe setup, task lists and batched results, encoded without I/O. */
#ifndef RCK_MESH_AGENT_TASKS_PROTO_H
#define RCK_MESH_AGENT_TASKS_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agent_proto.h"

/* Message types after agent_proto.h's: an agent older than the delegated
 * schedule closes the session on AG_PLAN (unknown type). */
enum ag_task_type {
	AG_PLAN = 14,    /* probe key, the sweep's probe parameters, the NICs to listen on */
	AG_PLANNED = 15, /* status, text; one standing probe port per NIC, in order */
	AG_TASKS = 16,   /* part of the agent's task list, in plan order; after the
			  * last batch of a pass, the first TASKS starts the next pass */
	AG_GO = 17,      /* the list is whole: run it */
	AG_TRES = 18,    /* a batch of task results; status 1: the last */
	AG_STOP = 19,    /* cancel: the agent fails what is left and sends its last batch */
	AG_DROP = 20,    /* these peers' listeners are gone: fail their tasks without waiting;
			  * one naming no peer is the coordinator's keepalive while the
			  * sweep is open (every agent that takes PLAN takes it) */
	AG_TASK_TYPE_MAX = AG_DROP
};

#define AG_PROBE_KEY_LEN 32
#define AG_TASKS_PER_FRAME 1024 /* about 120 bytes each: well under AG_MAX_PAYLOAD */
#define AG_TRES_PER_FRAME 64
#define AG_MAX_TASKS (1u << 22) /* per agent and pass */
#define AG_MAX_LANES 32         /* listeners per NIC: the largest incast group */

enum ag_role { AG_ROLE_SERVE = 0, AG_ROLE_RUN = 1 };

struct ag_plan {
	uint8_t key[AG_PROBE_KEY_LEN];   /* authenticates the agents' probe connections */
	uint32_t transport, size, duration_ms, timeout_ms;
	uint64_t iters;
	uint32_t lanes;                  /* standing listeners per NIC (1..AG_MAX_LANES) */
	uint32_t n_nics;
	struct ag_plan_nic {
		char device[AG_NAME_MAX];    /* "" with TCP */
		uint32_t port;
	} nics[AG_MAX_NICS];
};

struct ag_planned {
	uint32_t status;                 /* 0, or why the listeners could not be made */
	char text[AG_TEXT_MAX];
	uint32_t n;                      /* NICs x lanes, NIC-major */
	uint32_t idle_ms;                /* the agent closes a session silent this long;
					  * 0: not said (an agent older than the keepalive) */
	uint32_t probe_port[AG_MAX_NICS * AG_MAX_LANES];
};

/* One probe end to run: task ids are the positions in the pass's global
 * order, so every agent's list and every NIC's queue is in one order. The
 * members of an incast group have consecutive ids and one group id (the
 * first member's); a task alone is its own group. */
struct ag_task {
	uint32_t id;
	uint32_t group;                  /* the group's first id (<= id) */
	uint8_t lane;                    /* which of the serving NIC's listeners */
	uint32_t ahead;                  /* ends the peer's NIC queue runs before this
					  * one beyond ours: a wait per end more */
	uint8_t role;                    /* enum ag_role */
	uint8_t test;                    /* enum rck_probe_test */
	uint8_t nic;                     /* index into AG_PLAN's NICs */
	char peer[64];                   /* run: where the peer's listener is */
	uint32_t peer_port;              /* run: the peer's standing probe port */
	char peer_device[AG_NAME_MAX];   /* the peer's NIC, for logs */
	uint32_t peer_ib_port;
};

/* One end's report of a task: its own counters only. */
struct ag_tres {
	uint32_t id;
	uint8_t role;
	uint32_t status;                 /* enum rck_probe_status */
	char text[AG_TEXT_MAX];
	double gbps, lat_p50_us, lat_p99_us, seconds;
	double ago;                      /* seconds from the probe's end to the batch leaving */
	double start_ago;                /* serve end: from its measured start (after its
					  * group's) to the batch leaving; 0: not known */
	uint64_t end_ns, start_ns;       /* the agent's own clock (the coordinator's once
					  * received), not sent */
	uint32_t n_ctr;
	struct ag_ctr ctr[AG_MAX_CTRS];
};

/* A peer's standing listener, as tasks name it. */
struct ag_peer {
	char addr[64];
	uint32_t port;
};

const char *ag_task_type_name(uint16_t type);

/* Encoders: 0, -ENOBUFS, -EINVAL (a count out of range). */
int ag_plan_encode(const struct ag_plan *p, uint8_t *buf, size_t cap, size_t *len);
int ag_planned_encode(const struct ag_planned *p, uint8_t *buf, size_t cap, size_t *len);
int ag_tasks_encode(const struct ag_task *t, size_t n, uint8_t *buf, size_t cap, size_t *len);
int ag_tres_encode(const struct ag_tres *r, size_t n, bool last, uint8_t *buf, size_t cap,
		   size_t *len);
int ag_drop_encode(const struct ag_peer *p, size_t n, uint8_t *buf, size_t cap, size_t *len);

/* Decoders: 0 or -EBADMSG (malformed, a value out of range, more entries
 * than @cap). Unknown attributes are skipped. */
int ag_plan_decode(const uint8_t *p, size_t len, struct ag_plan *out);
int ag_planned_decode(const uint8_t *p, size_t len, struct ag_planned *out);
int ag_tasks_decode(const uint8_t *p, size_t len, struct ag_task *out, size_t cap, size_t *n);
int ag_tres_decode(const uint8_t *p, size_t len, struct ag_tres *out, size_t cap, size_t *n,
		   bool *last);
int ag_drop_decode(const uint8_t *p, size_t len, struct ag_peer *out, size_t cap, size_t *n);

#endif
