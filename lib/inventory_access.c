/* Accessors of the public inventory API: thin reads of the structures in
 * inventory.h, so their layout can change without breaking the ABI. */
#include <string.h>

#include "internal.h"
#include "inventory.h"

static const char *nonempty(const char *s)
{
	return s && *s ? s : NULL;
}

RCK_EXPORT unsigned int rck_inventory_device_count(const struct rck_inventory *inv)
{
	return inv->n_devs;
}

RCK_EXPORT const struct rck_device *rck_inventory_device(const struct rck_inventory *inv, unsigned int i)
{
	return i < inv->n_devs ? &inv->devs[i] : NULL;
}

RCK_EXPORT const struct rck_device *rck_inventory_find(const struct rck_inventory *inv, const char *name)
{
	for (unsigned int i = 0; i < inv->n_devs; i++)
		if (!strcmp(inv->devs[i].name, name))
			return &inv->devs[i];
	return NULL;
}

RCK_EXPORT const char *rck_device_name(const struct rck_device *dev) { return dev->name; }
RCK_EXPORT const char *rck_device_driver(const struct rck_device *dev) { return dev->driver; }
RCK_EXPORT const char *rck_device_node_guid(const struct rck_device *dev) { return dev->node_guid; }
RCK_EXPORT const char *rck_device_fw_ver(const struct rck_device *dev) { return dev->fw_ver; }
RCK_EXPORT const char *rck_device_board_id(const struct rck_device *dev) { return dev->board_id; }

RCK_EXPORT bool rck_device_numa_node(const struct rck_device *dev, int *node)
{
	if (dev->has_numa)
		*node = dev->numa_node;
	return dev->has_numa;
}

RCK_EXPORT const char *rck_device_pci_address(const struct rck_device *dev)
{
	return nonempty(dev->pci.address);
}

RCK_EXPORT bool rck_device_pci_link(const struct rck_device *dev, double *speed_gts, unsigned int *width)
{
	if (!dev->pci.speed_gts && !dev->pci.width)
		return false;
	*speed_gts = dev->pci.speed_gts;
	*width = dev->pci.width;
	return true;
}

RCK_EXPORT bool rck_device_pci_max_link(const struct rck_device *dev, double *speed_gts, unsigned int *width)
{
	if (!dev->pci.max_speed_gts && !dev->pci.max_width)
		return false;
	*speed_gts = dev->pci.max_speed_gts;
	*width = dev->pci.max_width;
	return true;
}

RCK_EXPORT unsigned int rck_device_port_count(const struct rck_device *dev) { return dev->n_ports; }

RCK_EXPORT const struct rck_port *rck_device_port(const struct rck_device *dev, unsigned int i)
{
	return i < dev->n_ports ? &dev->ports[i] : NULL;
}

RCK_EXPORT const struct rck_port *rck_device_find_port(const struct rck_device *dev, unsigned int num)
{
	for (unsigned int i = 0; i < dev->n_ports; i++)
		if (dev->ports[i].num == num)
			return &dev->ports[i];
	return NULL;
}

RCK_EXPORT unsigned int rck_port_num(const struct rck_port *port) { return port->num; }
RCK_EXPORT const struct rck_device *rck_port_device(const struct rck_port *port) { return port->dev; }
RCK_EXPORT const char *rck_port_state(const struct rck_port *port) { return port->state; }
RCK_EXPORT const char *rck_port_phys_state(const struct rck_port *port) { return port->phys_state; }
RCK_EXPORT const char *rck_port_link_layer(const struct rck_port *port) { return port->link_layer; }
RCK_EXPORT const char *rck_port_netdev(const struct rck_port *port) { return port->netdev; }

RCK_EXPORT bool rck_port_rate_gbps(const struct rck_port *port, double *gbps)
{
	if (port->has_rate)
		*gbps = port->rate_gbps;
	return port->has_rate;
}

RCK_EXPORT bool rck_port_active_mtu(const struct rck_port *port, unsigned int *mtu)
{
	if (port->active_mtu)
		*mtu = port->active_mtu;
	return port->active_mtu != 0;
}

RCK_EXPORT bool rck_port_netdev_mtu(const struct rck_port *port, unsigned int *mtu)
{
	if (port->netdev_mtu)
		*mtu = port->netdev_mtu;
	return port->netdev_mtu != 0;
}

RCK_EXPORT const char *rck_port_netdev_operstate(const struct rck_port *port)
{
	return port->netdev_operstate;
}

RCK_EXPORT unsigned int rck_port_gid_count(const struct rck_port *port) { return port->n_gids; }

RCK_EXPORT const struct rck_gid *rck_port_gid(const struct rck_port *port, unsigned int i)
{
	return i < port->n_gids ? &port->gids[i] : NULL;
}

RCK_EXPORT unsigned int rck_gid_index(const struct rck_gid *gid) { return gid->index; }
RCK_EXPORT const char *rck_gid_str(const struct rck_gid *gid) { return gid->str; }
RCK_EXPORT const uint8_t *rck_gid_raw(const struct rck_gid *gid) { return gid->raw; }
RCK_EXPORT enum rck_gid_type rck_gid_type(const struct rck_gid *gid) { return gid->type; }
RCK_EXPORT const char *rck_gid_netdev(const struct rck_gid *gid) { return gid->netdev; }
RCK_EXPORT const char *rck_gid_ipv4(const struct rck_gid *gid) { return nonempty(gid->ipv4); }

RCK_EXPORT const char *rck_gid_type_str(const struct rck_gid *gid)
{
	switch (gid->type) {
	case RCK_GID_TYPE_IB: return "IB";
	case RCK_GID_TYPE_ROCE_V1: return "RoCE v1";
	case RCK_GID_TYPE_ROCE_V2: return "RoCE v2";
	default: return NULL;
	}
}
