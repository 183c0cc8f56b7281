/* The coordinator's DCB step: whether to ask, and each agent's AG_DCB reply
 * kept in the sweep result. */
#include <errno.h>

#include "internal.h"

#include "agent_proto.h"
#include "coord.h"

RCK_EXPORT int rck_mesh_config_set_dcb(struct rck_mesh_config *c, bool collect)
{
	if (!c)
		return -EINVAL;
	c->dcb = collect;
	return 0;
}

int coord_dcb_reply(struct rck_mesh *m, unsigned int h, const uint8_t *p, size_t len)
{
	struct ag_dcb d;
	int rc = ag_dcb_decode(p, len, &d);

	if (rc)
		return rc;
	rc = rck_mesh_host_set_dcb(m, h, (const struct rck_dcb *const *)d.ports, d.n,
				   d.failed ? (d.error[0] ? d.error : "no reason given") : NULL);
	ag_dcb_clear(&d);
	return rc;
}
