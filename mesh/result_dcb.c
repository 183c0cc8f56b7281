/* Each host's DCB state in the sweep result: the ports its agent read,
 * or why it could not, kept as copies of the dcb/ library's state. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../dcb/dcb_internal.h"
#include "result.h"

void mesh_host_dcb_clear(struct mesh_host *h)
{
	for (size_t i = 0; i < h->n_dcb; i++)
		rck_dcb_free(h->dcb[i]);
	free(h->dcb);
	free(h->dcb_error);
	h->dcb = NULL;
	h->dcb_error = NULL;
	h->n_dcb = 0;
	h->has_dcb = false;
}

RCK_EXPORT int rck_mesh_host_set_dcb(struct rck_mesh *m, unsigned int h,
				     const struct rck_dcb *const *ports, size_t n, const char *error)
{
	struct mesh_host nh = { .has_dcb = true };

	if (!m || h >= m->names.n || (n && (!ports || error)))
		return -EINVAL;
	if ((error && !(nh.dcb_error = strdup(error))) || (n && !(nh.dcb = calloc(n, sizeof(*nh.dcb)))))
		goto nomem;
	for (; nh.n_dcb < n; nh.n_dcb++) {
		if (!ports[nh.n_dcb]) {
			mesh_host_dcb_clear(&nh);
			return -EINVAL;
		}
		if (!(nh.dcb[nh.n_dcb] = dcb_dup(ports[nh.n_dcb])))
			goto nomem;
	}
	mesh_host_dcb_clear(&m->hosts[h]);
	m->hosts[h].has_dcb = true;
	m->hosts[h].dcb_error = nh.dcb_error;
	m->hosts[h].dcb = nh.dcb;
	m->hosts[h].n_dcb = nh.n_dcb;
	return 0;
nomem:
	mesh_host_dcb_clear(&nh);
	return -ENOMEM;
}

RCK_EXPORT int rck_mesh_host_dcb_count(const struct rck_mesh *m, unsigned int h, size_t *n,
				       const char **error)
{
	if (!m || h >= m->names.n || !n)
		return -EINVAL;
	*n = m->hosts[h].n_dcb;
	if (error)
		*error = m->hosts[h].dcb_error;
	return m->hosts[h].has_dcb ? 0 : -ENOENT;
}

RCK_EXPORT const struct rck_dcb *rck_mesh_host_dcb(const struct rck_mesh *m, unsigned int h, size_t i)
{
	return m && h < m->names.n && i < m->hosts[h].n_dcb ? m->hosts[h].dcb[i] : NULL;
}
