/* `rocecheck sweep --probe quick`: a short loopback probe per local RDMA
 * port (rck_probe_loopback()), TCP on 127.0.0.1 without RDMA. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sweep_probe.h"

/* Long enough to see a broken path, short enough for a 30 s NPD interval. */
#define QUICK_ITERS 64
#define QUICK_MSG (64u << 10)

static void probe_one(struct rck_ctx *ctx, struct sweep_probe *sp, const char *addr,
		      enum rck_probe_transport tr)
{
	struct rck_probe_result *res = NULL;
	struct rck_probe_opts o;
	int rc;

	rck_probe_opts_init(&o);
	o.transport = tr;
	o.device = sp->p.device;
	o.ib_port = sp->p.port;
	o.iters = QUICK_ITERS;
	o.msg_size = QUICK_MSG;
	sp->p.size = sizeof(sp->p);
	sp->p.transport = rck_probe_transport_name(tr);
	sp->p.error = sp->error;
	rc = rck_probe_loopback(ctx, addr, &o, &res);
	if (rc) {
		snprintf(sp->error, sizeof(sp->error), "%s", strerror(-rc));
		return;
	}
	if (rck_probe_result_status(res) == RCK_PROBE_OK) {
		sp->p.ok = true;
		sp->p.gbps = rck_probe_result_gbps(res);
		sp->p.error = NULL;
	} else {
		snprintf(sp->error, sizeof(sp->error), "%s", rck_probe_result_error(res) ?
			 rck_probe_result_error(res) : rck_probe_status_name(rck_probe_result_status(res)));
	}
	rck_probe_result_free(res);
}

/* The IPv4 address of an ACTIVE port's RoCE v2 GID, or NULL. */
static const char *port_addr(const struct rck_port *p)
{
	const char *st = rck_port_state(p);

	if (!st || strcmp(st, "ACTIVE"))
		return NULL;
	for (unsigned int g = 0; g < rck_port_gid_count(p); g++) {
		const struct rck_gid *gid = rck_port_gid(p, g);

		if (rck_gid_type(gid) == RCK_GID_TYPE_ROCE_V2 && rck_gid_ipv4(gid))
			return rck_gid_ipv4(gid);
	}
	return NULL;
}

int sweep_probe_quick(struct rck_ctx *ctx, const struct rck_inventory *inv, bool recorded,
		      struct sweep_probe **out, unsigned int *n_out)
{
	unsigned int n = 0, cap = 1;
	struct sweep_probe *v;

	for (unsigned int i = 0; i < rck_inventory_device_count(inv); i++)
		cap += rck_device_port_count(rck_inventory_device(inv, i));
	v = calloc(cap, sizeof(*v));
	if (!v)
		return -ENOMEM;
	/* A recorded tree names devices this machine does not have. */
	for (unsigned int i = 0; !recorded && i < rck_inventory_device_count(inv); i++) {
		const struct rck_device *d = rck_inventory_device(inv, i);

		for (unsigned int j = 0; j < rck_device_port_count(d); j++) {
			const struct rck_port *p = rck_device_port(d, j);
			const char *addr = port_addr(p);

			if (!addr)
				continue;
			v[n].p.device = rck_device_name(d);
			v[n].p.port = rck_port_num(p);
			probe_one(ctx, &v[n++], addr, RCK_PROBE_TRANSPORT_RDMA);
		}
	}
	if (!n)
		probe_one(ctx, &v[n++], "127.0.0.1", RCK_PROBE_TRANSPORT_TCP);
	*out = v;
	*n_out = n;
	return 0;
}
