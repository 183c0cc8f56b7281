/* The topology a sweep's topo pattern plans by (rck_mesh_config_set_topology):
 * borrowed by the configuration, read when the plan is built. */
#include <errno.h>

#include "coord.h"
#include "internal.h"

RCK_EXPORT int rck_mesh_config_set_topology(struct rck_mesh_config *c, const struct rck_topology *t)
{
	if (!c)
		return -EINVAL;
	c->plan.topo = t;
	return 0;
}
