/* The topology a sweep's topo pattern plans by: borrowed by the configuration
 * (rck_mesh_config_set_topology), or built from the agents' LLDP once met. */
#include <errno.h>

#include "coord.h"
#include "internal.h"
#include "result.h"
#include "rocecheck/topology.h"

RCK_EXPORT int rck_mesh_config_set_topology(struct rck_mesh_config *c, const struct rck_topology *t)
{
	if (!c)
		return -EINVAL;
	c->plan.topo = t;
	return 0;
}

RCK_EXPORT int rck_mesh_config_set_topology_lldp(struct rck_mesh_config *c, bool on, unsigned int capture_ms)
{
	int rc;

	if (!c)
		return -EINVAL;
	if (on) {
		rc = rck_mesh_config_set_lldp(c, true, capture_ms);
		if (rc)
			return rc;
	}
	c->topo_lldp = on;
	return 0;
}

RCK_EXPORT const struct rck_topology *rck_mesh_topology(const struct rck_mesh *m)
{
	return m ? m->topo : NULL;
}

int coord_topo_build(const struct rck_mesh_config *c, struct rck_mesh *m)
{
	struct rck_topology *t = NULL;
	int rc;

	if (!c->topo_lldp || c->plan.topo)
		return 0;
	rc = rck_topology_new(&t);
	if (!rc)
		rc = rck_topology_add_mesh_lldp(t, m, "agents");
	if (!rc)
		rc = rck_topology_imply_spine(t, NULL);
	if (rc) {
		rck_topology_free(t);
		return rc;
	}
	rck_topology_free(m->topo);
	m->topo = t;
	return 0;
}
