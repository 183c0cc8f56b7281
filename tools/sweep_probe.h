/* The quick loopback probes of `rocecheck sweep --probe quick`, as
 * rck_sweep_probe entries for the sweep library. */
#ifndef RCK_TOOLS_SWEEP_PROBE_H
#define RCK_TOOLS_SWEEP_PROBE_H

#include <stdbool.h>

#include <rocecheck/rocecheck.h>

struct sweep_probe {
	struct rck_sweep_probe p;
	char error[256];
};

/* One probe per ACTIVE local RDMA port with a RoCE v2 IPv4 GID (server on
 * its address, client to it, both here); one TCP probe on 127.0.0.1 when
 * there is none or the tree is @recorded. *out (free()) holds *n_out
 * entries whose device strings belong to @inv. 0 or -ENOMEM. */
int sweep_probe_quick(struct rck_ctx *ctx, const struct rck_inventory *inv, bool recorded,
		      struct sweep_probe **out, unsigned int *n_out);

#endif
