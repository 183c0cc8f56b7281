/* The agent's PCIe request: the host's PCIe paths read with libpci under
 * the context's sysfs root (a recorded tree with --sysfs-root). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "rocecheck/pcie.h"

#include "agent_srv.h"

int agent_pcie(struct rck_ctx *ctx, uint32_t id, uint8_t *buf, size_t cap, size_t *len)
{
	struct rck_pcie *p = NULL;
	char why[AG_TEXT_MAX];
	int rc = rck_pcie_new(ctx, &p);

	if (rc) {
		snprintf(why, sizeof(why), "cannot read the PCIe paths: %s", strerror(-rc));
		rck_warn(ctx, "agent: %s", why);
		return ag_pcie_encode(id, NULL, why, buf, cap, len);
	}
	rc = ag_pcie_encode(id, p, NULL, buf, cap, len);
	rck_pcie_free(p);
	if (rc == -ENOBUFS)
		rc = ag_pcie_encode(id, NULL, "the PCIe paths do not fit one reply", buf, cap, len);
	return rc;
}
