/* Each host's LLDP neighbours in the sweep result: the records its agent
 * sent, copied, or why it could not read them. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "rocecheck/topology.h"

#include "result.h"

static void rec_free(struct rck_topology_neighbour *r)
{
	free((char *)r->host);
	free((char *)r->nic);
	free((char *)r->chassis_id);
	free((char *)r->port_id);
	free((char *)r->system_name);
	free((char *)r->port_description);
}

void mesh_lldp_clear(struct mesh_lldp *l)
{
	for (size_t i = 0; i < l->n; i++)
		rec_free(&l->nb[i]);
	free(l->nb);
	free(l->error);
	memset(l, 0, sizeof(*l));
}

static int copy_str(const char *s, const char **out)
{
	*out = s ? strdup(s) : NULL;
	return s && !*out ? -ENOMEM : 0;
}

RCK_EXPORT int rck_mesh_host_set_lldp(struct rck_mesh *m, unsigned int h, const struct rck_topology_neighbour *nb,
				      size_t n, const char *error)
{
	struct mesh_lldp l = { .has = true };
	int rc = 0;

	if (!m || h >= m->names.n || (n && !nb))
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (nb[i].size < sizeof(*nb) || !nb[i].nic || !*nb[i].nic)
			return -EINVAL;
	l.nb = calloc(n ? n : 1, sizeof(*l.nb));
	if (!l.nb || (error && !(l.error = strdup(error))))
		rc = -ENOMEM;
	for (size_t i = 0; !rc && i < n; i++, l.n++) {
		struct rck_topology_neighbour *r = &l.nb[i];

		*r = (struct rck_topology_neighbour){ .size = sizeof(*r), .port_id_subtype = nb[i].port_id_subtype,
						      .speed_gbps = nb[i].speed_gbps };
		rc = copy_str(m->names.names[h], &r->host) ?: copy_str(nb[i].nic, &r->nic) ?:
		     copy_str(nb[i].chassis_id, &r->chassis_id) ?: copy_str(nb[i].port_id, &r->port_id) ?:
		     copy_str(nb[i].system_name, &r->system_name) ?: copy_str(nb[i].port_description, &r->port_description);
	}
	if (rc) {
		mesh_lldp_clear(&l);
		return rc;
	}
	mesh_lldp_clear(&m->hosts[h].lldp);
	m->hosts[h].lldp = l;
	return 0;
}

RCK_EXPORT int rck_mesh_host_lldp_count(const struct rck_mesh *m, unsigned int h, size_t *n, const char **error)
{
	if (!m || !n || h >= m->names.n)
		return -EINVAL;
	*n = m->hosts[h].lldp.n;
	if (error)
		*error = m->hosts[h].lldp.error;
	return m->hosts[h].lldp.has ? 0 : -ENOENT;
}

RCK_EXPORT const struct rck_topology_neighbour *rck_mesh_host_lldp(const struct rck_mesh *m, unsigned int h, size_t i)
{
	return m && h < m->names.n && i < m->hosts[h].lldp.n ? &m->hosts[h].lldp.nb[i] : NULL;
}
