/* LLDP neighbours of host NICs (an agent's decoded frames, lldpd's table)
 * into the model: the switch by chassis ID or system name, its port. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rocecheck/dcb.h"
#include "rocecheck/mesh.h"
#include "topo_int.h"

/* LLDP port ID subtypes (IEEE 802.1AB 8.5.3.2) that are a MAC or network
 * address: no name a person would recognise; the description is better. */
#define PORT_ID_MAC 3
#define PORT_ID_ADDR 4

static int neighbour(struct rck_topology *t, const struct rck_topology_neighbour *r, uint16_t src)
{
	struct tp_cabling c = { .host = r->host, .nic = r->nic, .sw = TP_NONE, .port = TP_NONE,
				.rail = TP_NONE, .src = src };
	const char *swname = r->system_name && *r->system_name ? r->system_name : r->chassis_id;
	const char *pname = r->port_id;
	uint32_t sw = 0, port = 0;
	int rc;

	if ((r->port_id_subtype == PORT_ID_MAC || r->port_id_subtype == PORT_ID_ADDR || !pname || !*pname) &&
	    r->port_description && *r->port_description)
		pname = r->port_description;
	if (!swname || !*swname)
		return tp_cable(t, &c);
	/* The switch another source knows by this chassis, else by name. */
	if (!r->chassis_id || !*r->chassis_id || tp_switch_by_chassis(t, r->chassis_id, &sw)) {
		rc = tp_switch(t, swname, false, &sw);
		if (rc)
			return rc;
	}
	if (r->chassis_id && *r->chassis_id) {
		rc = tp_set_chassis(t, sw, r->chassis_id, src);
		if (rc)
			return rc;
	}
	c.sw = (int32_t)sw;
	if (pname && *pname) {
		rc = tp_port(t, sw, pname, &port);
		if (!rc)
			rc = tp_set_speed(t, port, r->speed_gbps, src);
		if (rc)
			return rc;
		c.port = (int32_t)port;
	}
	return tp_cable(t, &c);
}

RCK_EXPORT int rck_topology_add_neighbours(struct rck_topology *t, const char *source,
					   const struct rck_topology_neighbour *recs, size_t n)
{
	uint16_t src;
	int rc;

	if (!t || !source || (!recs && n))
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (recs[i].size < sizeof(struct rck_topology_neighbour) || !recs[i].host || !*recs[i].host ||
		    !recs[i].nic || !*recs[i].nic)
			return -EINVAL;
	rc = tp_source(t, source, &src);
	for (size_t i = 0; !rc && i < n; i++)
		rc = neighbour(t, &recs[i], src);
	return rc ? rc : tp_check_hosts(t);
}

RCK_EXPORT int rck_topology_add_lldp(struct rck_topology *t, const char *source,
				     const struct rck_topology_lldp *recs, size_t n)
{
	struct rck_topology_neighbour *nb;
	int rc;

	if (!t || !source || (!recs && n))
		return -EINVAL;
	nb = calloc(n ? n : 1, sizeof(*nb));
	if (!nb)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct rck_lldp *f = recs[i].frame;

		if (recs[i].size < sizeof(*recs)) {
			free(nb);
			return -EINVAL;
		}
		nb[i] = (struct rck_topology_neighbour){ .size = sizeof(*nb), .host = recs[i].host,
							 .nic = recs[i].nic };
		if (f) {
			nb[i].chassis_id = rck_lldp_chassis_id(f, NULL);
			nb[i].port_id = rck_lldp_port_id(f, &nb[i].port_id_subtype);
			nb[i].system_name = rck_lldp_system_name(f);
			nb[i].port_description = rck_lldp_port_description(f);
		}
	}
	rc = rck_topology_add_neighbours(t, source, nb, n);
	free(nb);
	return rc;
}

RCK_EXPORT int rck_topology_add_mesh_lldp(struct rck_topology *t, const struct rck_mesh *m, const char *source)
{
	int rc = 0;

	if (!t || !m)
		return -EINVAL;
	for (unsigned int h = 0; !rc && h < rck_mesh_host_count(m); h++) {
		struct rck_topology_neighbour *nb;
		size_t n;

		if (rck_mesh_host_lldp_count(m, h, &n, NULL) || !n)
			continue;
		nb = malloc(n * sizeof(*nb));
		if (!nb)
			return -ENOMEM;
		for (size_t i = 0; i < n; i++)
			nb[i] = *rck_mesh_host_lldp(m, h, i);
		rc = rck_topology_add_neighbours(t, source ? source : "agents", nb, n);
		free(nb);
	}
	return rc;
}
