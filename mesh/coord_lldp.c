/* The coordinator's LLDP step (whether to ask, each agent's AG_LLDP reply
 * kept in the result) and rck_mesh_collect(): meeting hosts for their facts. */
#include <errno.h>
#include <stdlib.h>

#include "internal.h"
#include "rocecheck/topology.h"

#include "agent_lldp.h"
#include "coord.h"
#include "coord_sweep.h"

RCK_EXPORT int rck_mesh_config_set_lldp(struct rck_mesh_config *c, bool collect, unsigned int capture_ms)
{
	if (!c || capture_ms > AG_LLDP_CAPTURE_MAX)
		return -EINVAL;
	c->lldp = collect;
	c->lldp_capture_ms = capture_ms;
	return 0;
}

int coord_lldp_request(const struct rck_mesh_config *c, uint8_t *buf, size_t cap, size_t *len)
{
	return ag_lldp_get_encode(0, c->lldp_capture_ms, buf, cap, len);
}

int coord_lldp_reply(struct rck_mesh *m, unsigned int h, const uint8_t *p, size_t len)
{
	struct ag_lldp d;
	struct rck_topology_neighbour *nb;
	int rc = ag_lldp_decode(p, len, &d);

	if (rc)
		return rc;
	nb = calloc(d.n ? d.n : 1, sizeof(*nb));
	if (!nb) {
		ag_lldp_clear(&d);
		return -ENOMEM;
	}
	for (size_t i = 0; i < d.n; i++)
		nb[i] = (struct rck_topology_neighbour){
			.size = sizeof(nb[i]), .nic = d.nb[i].netdev, .chassis_id = d.nb[i].chassis_id,
			.port_id = d.nb[i].port_id, .port_id_subtype = d.nb[i].port_id_subtype,
			.system_name = d.nb[i].system_name, .port_description = d.nb[i].port_description };
	rc = rck_mesh_host_set_lldp(m, h, nb, d.n,
				    d.failed ? (d.error[0] ? d.error : "no reason given") : d.error[0] ? d.error : NULL);
	free(nb);
	ag_lldp_clear(&d);
	return rc;
}

RCK_EXPORT int rck_mesh_collect(struct rck_ctx *ctx, struct rck_mesh_config *c, struct rck_mesh **out)
{
	struct sweep s = { .ctx = ctx, .c = c, .ep = -1, .n_h = c ? c->n_hosts : 0, .t0 = wire_now_ns() };
	int rc = ctx && out && s.n_h ? rck_mesh_new(&s.m) : -EINVAL;

	if (rc == -EINVAL && ctx)
		rck_err(ctx, "mesh: no hosts to meet");
	if (rc)
		return rc;
	s.timeout_ms = rck_ctx_get_timeout_ms(ctx);
	atomic_store(&c->cancel, 0);
	rc = coord_setup(&s);
	/* The hosts' wait is the context's timeout (and the LLDP capture). */
	if (!rc)
		coord_meet_hosts(&s, UINT64_MAX);
	if (!rc)
		coord_goodbye(&s);
	coord_teardown(&s);
	if (rc)
		rck_mesh_free(s.m);
	else
		*out = s.m;
	return rc;
}
