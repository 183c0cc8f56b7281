/* The topology a preflight sweeps and localises by (borrowed; see
 * rck_preflight_config_set_topology). */
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
