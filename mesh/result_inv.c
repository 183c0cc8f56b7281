/* A host's NICs from its own inventory (and, for which counters exist, a
 * counter snapshot): what an agent reports, turned into sweep NICs. */
#include <errno.h>
#include <string.h>

#include "../probes/gid_select.h"
#include "internal.h"
#include "rocecheck/mesh.h"

/* Bit id set when @snap has neutral counter id for @dev/@port. */
static uint64_t counters_of(const struct rck_snapshot *snap, const char *dev, unsigned int port)
{
	uint64_t mask = 0;

	for (unsigned int i = 0; snap && i < rck_snapshot_port_count(snap); i++) {
		const char *d;
		unsigned int p;
		uint64_t v;

		if (!rck_snapshot_port(snap, i, &d, &p) || p != port || strcmp(d, dev))
			continue;
		for (unsigned int id = 0; id < RCK_CTR_COUNT; id++)
			if (!rck_snapshot_get(snap, i, (enum rck_counter)id, &v))
				mask |= 1ULL << id;
	}
	return mask;
}

RCK_EXPORT int rck_mesh_add_inventory(struct rck_mesh *m, unsigned int h, const struct rck_inventory *inv,
				      const struct rck_snapshot *snap)
{
	if (!m || !inv || h >= rck_mesh_host_count(m))
		return -EINVAL;
	for (unsigned int d = 0; d < rck_inventory_device_count(inv); d++) {
		const struct rck_device *dev = rck_inventory_device(inv, d);

		for (unsigned int i = 0; i < rck_device_port_count(dev); i++) {
			const struct rck_port *port = rck_device_port(dev, i);
			const char *ll = rck_port_link_layer(port);
			struct rck_mesh_nic nic = {.size = sizeof(nic), .rail = -1, .gid_index = -1};
			struct gsel g;
			char why[64];
			int rc;

			/* RoCE lives on Ethernet ports; InfiniBand ports are not swept. */
			if (!ll || strcmp(ll, "Ethernet"))
				continue;
			nic.device = rck_device_name(dev);
			nic.port = rck_port_num(port);
			nic.netdev = rck_port_netdev(port);
			nic.state = rck_port_state(port);
			nic.fw_ver = rck_device_fw_ver(dev);
			if (!rck_port_rate_gbps(port, &nic.rate_gbps))
				nic.rate_gbps = 0;
			if (!rck_port_active_mtu(port, &nic.active_mtu))
				nic.active_mtu = 0;
			if (!rck_port_netdev_mtu(port, &nic.netdev_mtu))
				nic.netdev_mtu = 0;
			/* The GID probes would use without a route to go by: the
			 * port's first RoCE v2 IPv4 GID. */
			if (!gsel_pick(inv, nic.device, nic.port, -1, NULL, &g, why, sizeof(why)))
				nic.gid_index = g.gid_index;
			nic.counters = counters_of(snap, nic.device, nic.port);
			rc = rck_mesh_add_nic(m, h, &nic, NULL);
			if (rc)
				return rc;
		}
	}
	return 0;
}
