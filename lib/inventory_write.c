/* Inventory writer: the JSON document of rocecheck(8) and the text table,
 * both through the one print layer. */
#include <errno.h>
#include <stdio.h>

#include "emit.h"
#include "internal.h"
#include "inventory.h"

static void uint_or_null(struct emit *e, const char *key, const char *tfmt, unsigned int v)
{
	if (v)
		emit_u64(e, key, tfmt, v);
	else
		emit_null(e, key, tfmt);
}

static void link_text(char *buf, size_t len, double gts, unsigned int width)
{
	if (gts > 0 && width)
		snprintf(buf, len, "%.1f GT/s x%u", gts, width);
	else if (gts > 0)
		snprintf(buf, len, "%.1f GT/s", gts);
	else if (width)
		snprintf(buf, len, "x%u", width);
	else
		snprintf(buf, len, "n/a");
}

static void write_pci(struct emit *e, const struct rck_device *dev)
{
	const struct rck_pci *pci = &dev->pci;
	char cur[48], max[48];

	if (!pci->address[0]) {
		emit_null(e, "pci", "%s");
		return;
	}
	emit_obj_open(e, "pci");
	emit_str(e, "address", "%-13s", pci->address);
	if (pci->speed_gts > 0)
		emit_double(e, "link_speed_gts", NULL, 1, pci->speed_gts);
	else
		emit_null(e, "link_speed_gts", NULL);
	uint_or_null(e, "link_width", NULL, pci->width);
	if (pci->max_speed_gts > 0)
		emit_double(e, "max_link_speed_gts", NULL, 1, pci->max_speed_gts);
	else
		emit_null(e, "max_link_speed_gts", NULL);
	uint_or_null(e, "max_link_width", NULL, pci->max_width);
	link_text(cur, sizeof(cur), pci->speed_gts, pci->width);
	link_text(max, sizeof(max), pci->max_speed_gts, pci->max_width);
	emit_text(e, " %s (max %s)", cur, max);
	/* The classic half-bandwidth cause: a narrower or slower link than the slot allows. */
	if ((pci->width && pci->max_width && pci->width < pci->max_width) ||
	    (pci->speed_gts > 0 && pci->max_speed_gts > 0 && pci->speed_gts < pci->max_speed_gts))
		emit_text(e, " DEGRADED");
	emit_obj_close(e);
}

static void write_gid(struct emit *e, const struct rck_gid *gid)
{
	emit_obj_open(e, NULL);
	emit_text(e, "    ");
	emit_u64(e, "index", "%-5s ", gid->index);
	emit_str(e, "gid", "%-39s ", gid->str);
	emit_str(e, "type", "%-8s ", rck_gid_type_str(gid));
	emit_str(e, "netdev", "%-12s ", gid->netdev);
	emit_str(e, "ipv4", "%s", gid->ipv4[0] ? gid->ipv4 : NULL);
	emit_text(e, "\n");
	emit_obj_close(e);
}

static void write_port(struct emit *e, const struct rck_port *port)
{
	emit_obj_open(e, NULL);
	emit_text(e, "  ");
	emit_u64(e, "port", "%-5s ", port->num);
	emit_str(e, "state", "%-7s ", port->state);
	emit_str(e, "phys_state", "%-9s ", port->phys_state);
	emit_str(e, "link_layer", "%-11s ", port->link_layer);
	if (port->has_rate)
		emit_double(e, "rate_gbps", "%-7s ", 0, port->rate_gbps);
	else
		emit_null(e, "rate_gbps", "%-7s ");
	uint_or_null(e, "active_mtu", "%-6s ", port->active_mtu);
	emit_str(e, "netdev", "%-12s ", port->netdev);
	uint_or_null(e, "netdev_mtu", "%-7s ", port->netdev_mtu);
	emit_str(e, "netdev_operstate", "%s\n", port->netdev_operstate);
	emit_text(e, "    %-5s %-39s %-8s %-12s %s\n", "GID", "ADDRESS", "TYPE", "NETDEV", "IPV4");
	emit_arr_open(e, "gids");
	for (unsigned int g = 0; g < port->n_gids; g++)
		write_gid(e, &port->gids[g]);
	emit_arr_close(e);
	emit_obj_close(e);
}

static void write_device(struct emit *e, const struct rck_device *dev)
{
	emit_obj_open(e, NULL);
	emit_text(e, "%-10s %-9s %-20s %-12s %-8s %-5s %s\n", "DEVICE", "DRIVER", "NODE_GUID",
		  "FW", "BOARD", "NUMA", "PCI / PCIE LINK");
	emit_str(e, "name", "%-10s ", dev->name);
	emit_str(e, "driver", "%-9s ", dev->driver);
	emit_str(e, "node_guid", "%-20s ", dev->node_guid);
	emit_str(e, "fw_ver", "%-12s ", dev->fw_ver);
	emit_str(e, "board_id", "%-8s ", dev->board_id);
	if (dev->has_numa)
		emit_i64(e, "numa_node", "%-5s ", dev->numa_node);
	else
		emit_null(e, "numa_node", "%-5s ");
	write_pci(e, dev);
	emit_text(e, "\n  %-5s %-7s %-9s %-11s %-7s %-6s %-12s %-7s %s\n", "PORT", "STATE", "PHYS",
		  "LINK_LAYER", "GB/S", "MTU", "NETDEV", "ND_MTU", "OPER");
	emit_arr_open(e, "ports");
	for (unsigned int p = 0; p < dev->n_ports; p++)
		write_port(e, &dev->ports[p]);
	emit_arr_close(e);
	emit_obj_close(e);
}

RCK_EXPORT int rck_inventory_write(const struct rck_inventory *inv, FILE *out, enum rck_format fmt)
{
	struct emit *e;
	int rc = emit_new(fmt, out, &e);

	if (rc)
		return rc;
	emit_obj_open(e, NULL);
	emit_arr_open(e, "devices");
	for (unsigned int d = 0; d < inv->n_devs; d++) {
		if (d)
			emit_text(e, "\n");
		write_device(e, &inv->devs[d]);
	}
	emit_arr_close(e);
	emit_obj_close(e);
	rc = emit_finish(e);
	emit_free(e);
	return rc;
}
