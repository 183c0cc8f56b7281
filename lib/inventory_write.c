/* Inventory writer: the JSON document of rocecheck(8) (nested devices,
 * ports, GIDs) and the text form (three tables, columns sized to fit). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "emit.h"
#include "internal.h"
#include "inventory.h"
#include "rocecheck/analysis.h"

#define DEVICES_SCHEMA "rocecheck.devices/1"
#define LINKS_SCHEMA "rocecheck.links/2"
#define MAX_COLS 10

/* Text column widths: measured over every row before anything is printed. */
struct cols {
	int w[MAX_COLS];
	char fmt[MAX_COLS][16];
};

static void col_fit(struct cols *c, int i, const char *s)
{
	int n = (int)strlen(s ? s : "n/a");

	if (n > c->w[i])
		c->w[i] = n;
}

static void col_fitu(struct cols *c, int i, unsigned long v, bool known)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%lu", v);
	col_fit(c, i, known ? buf : NULL);
}

/* "%-Ns  " for every column but the last, which is "%s\n". */
static void cols_done(struct cols *c, int n)
{
	for (int i = 0; i < n; i++)
		snprintf(c->fmt[i], sizeof(c->fmt[i]), i == n - 1 ? "%%s\n" : "%%-%ds  ", c->w[i]);
}

static void cols_head(struct emit *e, const struct cols *c, const char *const *heads, int n)
{
	for (int i = 0; i < n - 1; i++)
		emit_text(e, "%-*s  ", c->w[i], heads[i]);
	emit_text(e, "%s\n", heads[n - 1]);
}

/* A text-only cell of a column that is never the last one. It holds a
 * device name, which comes from outside: printed escaped, as every value. */
static void text_cell(struct emit *e, const struct cols *c, int i, const char *s)
{
	if (c) {
		emit_label(e, "", s, c->w[i] + 1);
		emit_text(e, " ");
	}
}

static const char *tf(const struct cols *c, int i)
{
	return c ? c->fmt[i] : NULL;
}

static void uint_or_null(struct emit *e, const char *key, const char *tfmt, unsigned int v)
{
	if (v)
		emit_u64(e, key, tfmt, v);
	else
		emit_null(e, key, tfmt);
}

static void rate(struct emit *e, const char *tfmt, const struct rck_port *port)
{
	if (port->has_rate)
		emit_double(e, "rate_gbps", tfmt, port->rate_gbps == floor(port->rate_gbps) ? 0 : 1,
			    port->rate_gbps);
	else
		emit_null(e, "rate_gbps", tfmt);
}

static void dev_port(char *buf, size_t len, const struct rck_port *port)
{
	snprintf(buf, len, "%s/%u", port->dev->name, port->num);
}

static bool wanted(const struct rck_device *dev, const char *filter)
{
	return !filter || !strcmp(dev->name, filter);
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

/* ---------------------------------------------------------------- devices */

enum { D_NAME, D_DRIVER, D_HCA, D_GUID, D_FW, D_BOARD, D_NUMA, D_PCI, D_LINK, D_NCOLS };
static const char *const dev_heads[D_NCOLS] = {
	"DEVICE", "DRIVER", "HCA_TYPE", "NODE_GUID", "FW", "BOARD", "NUMA", "PCI", "PCIE LINK",
};

static void write_pci(struct emit *e, const struct rck_device *dev, const struct cols *c)
{
	const struct rck_pci *pci = &dev->pci;
	char cur[48], max[48];
	bool degraded;

	if (!pci->address[0]) {
		emit_null(e, "pci", tf(c, D_PCI));
		emit_text(e, "n/a\n");
		return;
	}
	emit_obj_open(e, "pci");
	emit_str(e, "address", tf(c, D_PCI), pci->address);
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
	/* The analysis's verdict, so the text mark, the JSON flag and a
	 * pcie_degraded finding always agree. */
	degraded = rck_analysis_pci_degraded(dev);
	emit_bool(e, "degraded", NULL, degraded);
	link_text(cur, sizeof(cur), pci->speed_gts, pci->width);
	link_text(max, sizeof(max), pci->max_speed_gts, pci->max_width);
	emit_text(e, "%s (max %s)", cur, max);
	if (degraded)
		emit_text(e, " DEGRADED");
	emit_text(e, "\n");
	emit_obj_close(e);
}

static void dev_fields(struct emit *e, const struct rck_device *dev, const struct cols *c)
{
	emit_str(e, "name", tf(c, D_NAME), dev->name);
	emit_str(e, "driver", tf(c, D_DRIVER), dev->driver);
	emit_str(e, "hca_type", tf(c, D_HCA), dev->hca_type);
	emit_str(e, "node_guid", tf(c, D_GUID), dev->node_guid);
	emit_str(e, "fw_ver", tf(c, D_FW), dev->fw_ver);
	emit_str(e, "board_id", tf(c, D_BOARD), dev->board_id);
	if (dev->has_numa)
		emit_i64(e, "numa_node", tf(c, D_NUMA), dev->numa_node);
	else
		emit_null(e, "numa_node", tf(c, D_NUMA));
	write_pci(e, dev, c);
}

static void dev_measure(struct cols *c, const struct rck_device *dev)
{
	char buf[16];

	col_fit(c, D_NAME, dev->name);
	col_fit(c, D_DRIVER, dev->driver);
	col_fit(c, D_HCA, dev->hca_type);
	col_fit(c, D_GUID, dev->node_guid);
	col_fit(c, D_FW, dev->fw_ver);
	col_fit(c, D_BOARD, dev->board_id);
	snprintf(buf, sizeof(buf), "%d", dev->numa_node);
	col_fit(c, D_NUMA, dev->has_numa ? buf : NULL);
	col_fit(c, D_PCI, dev->pci.address[0] ? dev->pci.address : NULL);
}

/* ---------------------------------------------------------------- ports */

enum { P_PORT, P_STATE, P_PHYS, P_LL, P_RATE, P_MTU, P_NETDEV, P_NDMTU, P_OPER, P_NCOLS };
static const char *const port_heads[P_NCOLS] = {
	"PORT", "STATE", "PHYS", "LINK_LAYER", "GB/S", "MTU", "NETDEV", "ND_MTU", "OPER",
};

static void rate_text(char *buf, size_t len, const struct rck_port *port)
{
	if (!port->has_rate)
		snprintf(buf, len, "n/a");
	else
		snprintf(buf, len, "%.*f", port->rate_gbps == floor(port->rate_gbps) ? 0 : 1, port->rate_gbps);
}

static void port_fields(struct emit *e, const struct rck_port *port, const struct cols *c)
{
	char dp[96];

	dev_port(dp, sizeof(dp), port);
	text_cell(e, c, P_PORT, dp);
	emit_u64(e, "port", NULL, port->num);
	emit_str(e, "state", tf(c, P_STATE), port->state);
	emit_str(e, "phys_state", tf(c, P_PHYS), port->phys_state);
	emit_str(e, "link_layer", tf(c, P_LL), port->link_layer);
	rate(e, tf(c, P_RATE), port);
	uint_or_null(e, "active_mtu", tf(c, P_MTU), port->active_mtu);
	emit_str(e, "netdev", tf(c, P_NETDEV), port->netdev);
	uint_or_null(e, "netdev_mtu", tf(c, P_NDMTU), port->netdev_mtu);
	emit_str(e, "netdev_operstate", tf(c, P_OPER), port->netdev_operstate);
}

static void port_measure(struct cols *c, const struct rck_port *port)
{
	char buf[96];

	dev_port(buf, sizeof(buf), port);
	col_fit(c, P_PORT, buf);
	col_fit(c, P_STATE, port->state);
	col_fit(c, P_PHYS, port->phys_state);
	col_fit(c, P_LL, port->link_layer);
	rate_text(buf, sizeof(buf), port);
	col_fit(c, P_RATE, buf);
	col_fitu(c, P_MTU, port->active_mtu, port->active_mtu);
	col_fit(c, P_NETDEV, port->netdev);
	col_fitu(c, P_NDMTU, port->netdev_mtu, port->netdev_mtu);
}

/* ---------------------------------------------------------------- GIDs */

enum { G_PORT, G_INDEX, G_GID, G_TYPE, G_NETDEV, G_IPV4, G_NCOLS };
static const char *const gid_heads[G_NCOLS] = { "PORT", "INDEX", "GID", "TYPE", "NETDEV", "IPV4" };

static void gid_fields(struct emit *e, const struct rck_port *port, const struct rck_gid *gid,
		       const struct cols *c)
{
	char dp[96];

	dev_port(dp, sizeof(dp), port);
	text_cell(e, c, G_PORT, dp);
	emit_u64(e, "index", tf(c, G_INDEX), gid->index);
	emit_str(e, "gid", tf(c, G_GID), gid->str);
	emit_str(e, "type", tf(c, G_TYPE), rck_gid_type_str(gid));
	emit_str(e, "netdev", tf(c, G_NETDEV), gid->netdev);
	emit_str(e, "ipv4", tf(c, G_IPV4), gid->ipv4[0] ? gid->ipv4 : NULL);
}

static void gid_measure(struct cols *c, const struct rck_port *port, const struct rck_gid *gid)
{
	char buf[96];

	dev_port(buf, sizeof(buf), port);
	col_fit(c, G_PORT, buf);
	col_fitu(c, G_INDEX, gid->index, true);
	col_fit(c, G_GID, gid->str);
	col_fit(c, G_TYPE, rck_gid_type_str(gid));
	col_fit(c, G_NETDEV, gid->netdev);
}

/* ---------------------------------------------------------------- forms */

static void write_json(struct emit *e, const struct rck_inventory *inv, const char *filter)
{
	emit_str(e, "schema", NULL, DEVICES_SCHEMA);
	emit_arr_open(e, "devices");
	for (unsigned int d = 0; d < inv->n_devs; d++) {
		const struct rck_device *dev = &inv->devs[d];

		if (!wanted(dev, filter))
			continue;
		emit_obj_open(e, NULL);
		dev_fields(e, dev, NULL);
		emit_arr_open(e, "ports");
		for (unsigned int p = 0; p < dev->n_ports; p++) {
			const struct rck_port *port = &dev->ports[p];

			emit_obj_open(e, NULL);
			port_fields(e, port, NULL);
			emit_arr_open(e, "gids");
			for (unsigned int g = 0; g < port->n_gids; g++) {
				emit_obj_open(e, NULL);
				gid_fields(e, port, &port->gids[g], NULL);
				emit_obj_close(e);
			}
			emit_arr_close(e);
			emit_obj_close(e);
		}
		emit_arr_close(e);
		emit_obj_close(e);
	}
	emit_arr_close(e);
}

static void init_cols(struct cols *c, const char *const *heads, int n)
{
	memset(c, 0, sizeof(*c));
	for (int i = 0; i < n; i++)
		c->w[i] = (int)strlen(heads[i]);
}

/* Three tables, each with its header once: devices, ports, GIDs. */
static void write_text(struct emit *e, const struct rck_inventory *inv, const char *filter)
{
	struct cols dc, pc, gc;
	unsigned int ndevs = 0, nports = 0, ngids = 0;

	init_cols(&dc, dev_heads, D_NCOLS);
	init_cols(&pc, port_heads, P_NCOLS);
	init_cols(&gc, gid_heads, G_NCOLS);
	for (unsigned int d = 0; d < inv->n_devs; d++) {
		const struct rck_device *dev = &inv->devs[d];

		if (!wanted(dev, filter))
			continue;
		ndevs++;
		dev_measure(&dc, dev);
		for (unsigned int p = 0; p < dev->n_ports; p++, nports++) {
			port_measure(&pc, &dev->ports[p]);
			for (unsigned int g = 0; g < dev->ports[p].n_gids; g++, ngids++)
				gid_measure(&gc, &dev->ports[p], &dev->ports[p].gids[g]);
		}
	}
	cols_done(&dc, D_NCOLS);
	cols_done(&pc, P_NCOLS);
	cols_done(&gc, G_NCOLS);
	if (!ndevs)
		return;
	cols_head(e, &dc, dev_heads, D_NCOLS);
	for (unsigned int d = 0; d < inv->n_devs; d++)
		if (wanted(&inv->devs[d], filter))
			dev_fields(e, &inv->devs[d], &dc);
	if (nports) {
		emit_text(e, "\n");
		cols_head(e, &pc, port_heads, P_NCOLS);
	}
	for (unsigned int d = 0; d < inv->n_devs; d++)
		for (unsigned int p = 0; wanted(&inv->devs[d], filter) && p < inv->devs[d].n_ports; p++)
			port_fields(e, &inv->devs[d].ports[p], &pc);
	if (ngids) {
		emit_text(e, "\n");
		cols_head(e, &gc, gid_heads, G_NCOLS);
	}
	for (unsigned int d = 0; d < inv->n_devs; d++) {
		for (unsigned int p = 0; wanted(&inv->devs[d], filter) && p < inv->devs[d].n_ports; p++) {
			const struct rck_port *port = &inv->devs[d].ports[p];

			for (unsigned int g = 0; g < port->n_gids; g++)
				gid_fields(e, port, &port->gids[g], &gc);
		}
	}
}

/* ---------------------------------------------------------------- brief */

enum { B_PORT, B_STATE, B_PHYS, B_NETDEV, B_RATE, B_NCOLS };
static const char *const brief_heads[B_NCOLS] = { "PORT", "STATE", "PHYSICAL_STATE", "NETDEV", "GB/S" };

/* `rdma link`'s words from the state numbers; sysfs's own text where the
 * number is missing or past iproute2's table. */
static const char *state_word(const struct rck_port *port)
{
	const char *w = inv_state_word(port->state_code);

	return w ? w : port->state;
}

static const char *phys_word(const struct rck_port *port)
{
	const char *w = inv_phys_state_word(port->phys_code);

	return w ? w : port->phys_state;
}

static void brief_fields(struct emit *e, const struct rck_port *port, const struct cols *c)
{
	char dp[96];

	dev_port(dp, sizeof(dp), port);
	text_cell(e, c, B_PORT, dp);
	emit_str(e, "device", NULL, port->dev->name);
	emit_u64(e, "port", NULL, port->num);
	emit_str(e, "state", tf(c, B_STATE), state_word(port));
	emit_str(e, "physical_state", tf(c, B_PHYS), phys_word(port));
	emit_str(e, "netdev", tf(c, B_NETDEV), port->netdev);
	rate(e, tf(c, B_RATE), port);
}

static void write_brief(struct emit *e, const struct rck_inventory *inv, const char *filter)
{
	struct cols c;
	bool any = false;

	init_cols(&c, brief_heads, B_NCOLS);
	for (unsigned int d = 0; d < inv->n_devs; d++) {
		for (unsigned int p = 0; wanted(&inv->devs[d], filter) && p < inv->devs[d].n_ports; p++) {
			const struct rck_port *port = &inv->devs[d].ports[p];
			char dp[96];

			dev_port(dp, sizeof(dp), port);
			col_fit(&c, B_PORT, dp);
			col_fit(&c, B_STATE, state_word(port));
			col_fit(&c, B_PHYS, phys_word(port));
			col_fit(&c, B_NETDEV, port->netdev);
			any = true;
		}
	}
	cols_done(&c, B_NCOLS);
	emit_str(e, "schema", NULL, LINKS_SCHEMA);
	if (any)
		cols_head(e, &c, brief_heads, B_NCOLS);
	emit_arr_open(e, "ports");
	for (unsigned int d = 0; d < inv->n_devs; d++) {
		for (unsigned int p = 0; wanted(&inv->devs[d], filter) && p < inv->devs[d].n_ports; p++) {
			emit_obj_open(e, NULL);
			brief_fields(e, &inv->devs[d].ports[p], emit_is_json(e) ? NULL : &c);
			emit_obj_close(e);
		}
	}
	emit_arr_close(e);
}

RCK_EXPORT int rck_inventory_write_view(const struct rck_inventory *inv, FILE *out, enum rck_format fmt,
					const char *device, unsigned int flags)
{
	struct emit *e;
	int rc;

	if (!inv || !out || (flags & ~RCK_INVENTORY_BRIEF))
		return -EINVAL;
	if (device && !rck_inventory_find(inv, device))
		return -ENODEV;
	rc = emit_new(fmt, out, &e);
	if (rc)
		return rc;
	emit_obj_open(e, NULL);
	if (flags & RCK_INVENTORY_BRIEF)
		write_brief(e, inv, device);
	else if (emit_is_json(e))
		write_json(e, inv, device);
	else
		write_text(e, inv, device);
	emit_obj_close(e);
	rc = emit_finish(e);
	emit_free(e);
	return rc;
}

RCK_EXPORT int rck_inventory_write(const struct rck_inventory *inv, FILE *out, enum rck_format fmt)
{
	return rck_inventory_write_view(inv, out, fmt, NULL, 0);
}
