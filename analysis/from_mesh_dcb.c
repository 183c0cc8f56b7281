/* The DCB part of the mesh -> analysis adapter: each host's DCB state as
 * the sweep kept it, for the lint. Called by rck_analysis_add_mesh(). */
#include <errno.h>
#include <stdlib.h>

#include "analysis_int.h"
#include "rocecheck/mesh.h"

int an_add_mesh_dcb(struct rck_analysis *a, unsigned int base_host, const struct rck_mesh *m)
{
	int rc = 0;

	for (unsigned int h = 0; !rc && h < rck_mesh_host_count(m); h++) {
		const struct rck_dcb **p;
		const char *err;
		size_t n;

		if (rck_mesh_host_dcb_count(m, h, &n, &err))
			continue; /* not collected */
		p = calloc(n ? n : 1, sizeof(*p));
		if (!p)
			return -ENOMEM;
		for (size_t k = 0; k < n; k++)
			p[k] = rck_mesh_host_dcb(m, h, k);
		rc = rck_analysis_set_host_dcb(a, base_host + h, p, n, err);
		free(p);
	}
	return rc;
}
