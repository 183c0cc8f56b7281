/* Counter deltas of a probe's RDMA port over the measurement, taken with
 * the counters API and carried in the protocol's RESULT message. */
#ifndef RCK_PROBE_PCTR_H
#define RCK_PROBE_PCTR_H

#include "exchange.h"
#include "rocecheck/counters.h"

struct pctr {
	struct rck_snapshot *before;
	char device[64];
	unsigned int port;
};

/* Snapshot @device/@port now, from the session's inventory @inv (NULL: read
 * one). A port without counters is logged and the probe goes on without
 * them. */
void pctr_begin(struct rck_ctx *ctx, struct pctr *c, const struct rck_inventory *inv,
		const char *device, unsigned int port);
/* Snapshot again (from @inv, the same one) and fill @out with every counter
 * the port has. */
void pctr_end(struct rck_ctx *ctx, struct pctr *c, const struct rck_inventory *inv,
	      struct xq_counters *out);
void pctr_free(struct pctr *c);

#endif
