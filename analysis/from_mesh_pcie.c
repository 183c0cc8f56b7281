/* The PCIe part of the mesh -> analysis adapter: each host's PCIe paths as
 * its agent reported them, for the per-host and cross-host PCIe lint.
 * Called by rck_analysis_add_mesh(); the snapshots stay the mesh's. */
#include "analysis_int.h"
#include "rocecheck/mesh.h"

int an_add_mesh_pcie(struct rck_analysis *a, unsigned int base_host, const struct rck_mesh *m)
{
	int rc = 0;

	for (unsigned int h = 0; !rc && h < rck_mesh_host_count(m); h++) {
		const struct rck_pcie *p = NULL;

		/* Not collected, or not read (the agent's reason is in the
		 * result): nothing to judge, never a finding of its own. */
		if (rck_mesh_host_pcie(m, h, &p, NULL) || !p)
			continue;
		rc = rck_analysis_set_host_pcie(a, base_host + h, p, NULL);
	}
	return rc;
}
