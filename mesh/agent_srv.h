/* What an agent does for each request (agent_probe.c), apart from the
 * session handling of agent.c: inventory, counters and probes. */
#ifndef RCK_MESH_AGENT_SRV_H
#define RCK_MESH_AGENT_SRV_H

#include <stdatomic.h>

#include "rocecheck/agent.h"
#include "rocecheck/context.h"

#include "agent_proto.h"

typedef int (*agent_send_fn)(void *arg, const struct ag_msg *m);

/* Fill @out (an AG_HOST) with the host name and its RoCE ports. 0 or -errno. */
int agent_describe(struct rck_ctx *ctx, struct ag_msg *out);
/* Fill @out (an AG_COUNTERS) with the neutral counters of req's device/port. */
void agent_snapshot(struct rck_ctx *ctx, const struct ag_msg *req, struct ag_msg *out);
/* What a probe asks for, however it is asked (SERVE, RUN, a PLAN). */
struct agent_probe_ask {
	uint32_t test, transport;
	uint64_t size, iters;
	uint32_t duration_ms, timeout_ms;
};

/* The one check of a probe against the agent's limits: 0, or
 * -E2BIG/-EINVAL with one line in @why. */
int agent_check_limits(const struct agent_probe_ask *q, const struct rck_agent_opts *o, char *why,
		       size_t len);
/* Check a SERVE or RUN: agent_check_limits() and a RUN's peer. */
int agent_check_probe(const struct ag_msg *req, const struct rck_agent_opts *o, char *why,
		      size_t len);
/* Encode the AG_DCB reply to request @id into @buf: the state of every
 * netdev with an RDMA port (or of @o->dcb_file), or why it cannot be read.
 * 0, or -errno when no reply could be encoded. */
int agent_dcb(struct rck_ctx *ctx, const struct rck_agent_opts *o, uint32_t id, uint8_t *buf,
	      size_t cap, size_t *len);
/* Encode the AG_PCIE reply to request @id into @buf: the host's PCIe paths
 * (under the context's sysfs root), or why they cannot be read. 0, or
 * -errno when no reply could be encoded. */
int agent_pcie(struct rck_ctx *ctx, uint32_t id, uint8_t *buf, size_t cap, size_t *len);
/* Run the probe of an AG_RUN and send its AG_RESULT. */
void agent_run_probe(struct rck_ctx *ctx, const struct ag_msg *req, struct ag_msg *scratch,
		     agent_send_fn send, void *arg);
/* Serve one probe session of an AG_SERVE: AG_SERVING with the port, then
 * AG_SERVED when it ended (or AG_SERVED alone when no listener could be
 * made). The wait for the probe's client ends within 100 ms of *cancel
 * (the coordinator went away, the agent stops). */
void agent_serve_probe(struct rck_ctx *ctx, const struct ag_msg *req,
		       const struct rck_agent_opts *o, struct ag_msg *scratch, agent_send_fn send,
		       void *arg, const atomic_bool *cancel);

#endif
