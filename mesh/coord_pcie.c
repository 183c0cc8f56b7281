/* The coordinator's PCIe step: whether to ask, and each agent's AG_PCIE
 * reply kept in the sweep result. */
#include <errno.h>

#include "internal.h"
#include "pcie.h"

#include "agent_proto.h"
#include "coord.h"

RCK_EXPORT int rck_mesh_config_set_pcie(struct rck_mesh_config *c, bool collect)
{
	if (!c)
		return -EINVAL;
	c->pcie = collect;
	return 0;
}

int coord_pcie_reply(struct rck_mesh *m, unsigned int h, const uint8_t *p, size_t len)
{
	struct ag_pcie d;
	int rc = ag_pcie_decode(p, len, &d);

	if (rc)
		return rc;
	rc = rck_mesh_host_set_pcie(m, h, d.pcie, d.failed ? (d.error[0] ? d.error : "no reason given") : NULL);
	rck_pcie_free(d.pcie);
	return rc;
}
