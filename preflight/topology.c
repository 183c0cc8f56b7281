/* The topology a preflight sweeps and localises by: a borrowed model
 * (rck_preflight_config_set_topology) or the agents' LLDP, each sweep. */
#include <errno.h>

#include "internal.h"
#include "preflight_int.h"

RCK_EXPORT int rck_preflight_config_set_topology(struct rck_preflight_config *c, const struct rck_topology *t)
{
	if (!c)
		return -EINVAL;
	c->topo = t;
	return 0;
}

RCK_EXPORT int rck_preflight_config_set_topology_lldp(struct rck_preflight_config *c, bool on, unsigned int capture_ms)
{
	/* rck_mesh_config_set_lldp()'s limit, checked now rather than per sweep. */
	if (!c || capture_ms > 120000)
		return -EINVAL;
	c->topo_lldp = on;
	c->topo_capture_ms = capture_ms;
	return 0;
}
