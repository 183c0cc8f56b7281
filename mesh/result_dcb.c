/* Each host's DCB state in the sweep result: the ports its agent read,
 * or why it could not, kept as copies of the dcb/ library's state. */
#include <errno.h>

#include "../dcb/dcb_internal.h"
#include "result.h"

RCK_EXPORT int rck_mesh_host_set_dcb(struct rck_mesh *m, unsigned int h,
				     const struct rck_dcb *const *ports, size_t n, const char *error)
{
	if (!m || h >= m->names.n)
		return -EINVAL;
	return dcb_set_assign(&m->hosts[h].dcb, ports, n, error);
}

RCK_EXPORT int rck_mesh_host_dcb_count(const struct rck_mesh *m, unsigned int h, size_t *n,
				       const char **error)
{
	if (!m || h >= m->names.n || !n)
		return -EINVAL;
	*n = m->hosts[h].dcb.n;
	if (error)
		*error = m->hosts[h].dcb.error;
	return m->hosts[h].dcb.has ? 0 : -ENOENT;
}

RCK_EXPORT const struct rck_dcb *rck_mesh_host_dcb(const struct rck_mesh *m, unsigned int h, size_t i)
{
	return m && h < m->names.n && i < m->hosts[h].dcb.n ? m->hosts[h].dcb.ports[i] : NULL;
}
