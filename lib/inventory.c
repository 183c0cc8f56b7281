/* The RDMA inventory: devices, PCI placement, ports, netdevs and GID tables
 * read from sysfs (live or recorded), with verbs for the active MTU. */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "inventory.h"
#include "sysfs.h"

#define PATH_LEN 4096

/* Read an attribute into a new string; NULL when missing or empty. Values
 * with control characters are garbage from a broken driver: dropped. */
static char *read_attr(const struct rck_ctx *ctx, const char *path)
{
	char buf[256];
	int rc = sysfs_read_str(path, buf, sizeof(buf));

	if (rc) {
		rck_dbg(ctx, "%s: %s", path, strerror(-rc));
		return NULL;
	}
	for (const char *p = buf; *p; p++)
		if (iscntrl((unsigned char)*p)) {
			rck_dbg(ctx, "%s: unprintable value ignored", path);
			return NULL;
		}
	return strdup(buf);
}

void inv_strip_state(char *s)
{
	char *colon = strchr(s, ':');

	if (colon) {
		colon++;
		while (*colon == ' ')
			colon++;
		memmove(s, colon, strlen(colon) + 1);
	}
}

int inv_state_code(const char *s)
{
	int v = 0, n = 0;

	while (s[n] >= '0' && s[n] <= '9' && n < 3)
		v = v * 10 + (s[n++] - '0');
	return n && s[n] == ':' && v <= 255 ? v : -1;
}

/* The kernel's enum ib_port_state and ib_port_phys_state, named as iproute2
 * names them (sysfs spells the physical ones "LinkUp", "Polling", ...). */
const char *inv_state_word(int code)
{
	static const char *const w[] = { "NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER" };

	return code >= 0 && code < (int)RCK_ARRAY_SIZE(w) ? w[code] : NULL;
}

const char *inv_phys_state_word(int code)
{
	static const char *const w[] = {
		"NOP", "SLEEP", "POLLING", "DISABLED", "ARMED", "LINK_UP",
		"LINK_ERROR_RECOVER", "PHY_TEST", "UNKNOWN", "OPA_OFFLINE", "UNKNOWN", "OPA_TEST",
	};

	return code >= 0 && code < (int)RCK_ARRAY_SIZE(w) ? w[code] : NULL;
}

/* "4: ACTIVE" -> "ACTIVE"; "5: LinkUp" -> "LinkUp", its number in @code. */
static char *read_state(const struct rck_ctx *ctx, const char *path, int *code)
{
	char *s = read_attr(ctx, path);

	*code = -1;
	if (!s)
		return NULL;
	*code = inv_state_code(s);
	inv_strip_state(s);
	if (!*s) {
		free(s);
		return NULL;
	}
	return s;
}

/* Leading decimal of "100 Gb/sec (4X EDR)" or "16.0 GT/s PCIe". A value
 * that is not finite ("1e999") is refused with a warning: no rate or speed
 * is infinite, and JSON cannot carry it. */
int inv_parse_number(const struct rck_ctx *ctx, const char *path, const char *s, double *out)
{
	char *end;
	double v;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	v = strtod(s, &end);
	if (end == s || v < 0)
		return -EINVAL;
	if (!isfinite(v)) {
		rck_warn(ctx, "%s: '%s' is not a finite number, ignored", path, s);
		return -ERANGE;
	}
	*out = v;
	return 0;
}

/* An unsigned decimal attribute; text that is there but not one decimal
 * number ("0x20": the kernel writes decimal) is refused with a warning. */
static int read_uint(const struct rck_ctx *ctx, const char *path, unsigned int *out)
{
	uint64_t v;
	int rc = sysfs_read_u64(path, &v, NULL, 0);

	if (rc == -EINVAL || rc == -ERANGE)
		rck_warn(ctx, "%s: not a decimal number, ignored", path);
	if (rc)
		return rc;
	if (v > UINT_MAX) {
		rck_warn(ctx, "%s: %llu is out of range, ignored", path, (unsigned long long)v);
		return -ERANGE;
	}
	*out = (unsigned int)v;
	return 0;
}

static int is_pci_bdf(const char *s)
{
	unsigned int d, b, s2, f;
	char tail;

	return sscanf(s, "%4x:%2x:%2x.%1x%c", &d, &b, &s2, &f, &tail) == 4 && strlen(s) == 12;
}

/* From the RDMA device's parent device, walk up to the PCI function: on
 * 5.x+ kernels mlx5, bnxt_re and irdma hang off an auxiliary device
 * (mlx5_core.rdma.0, bnxt_en.rdma.0, ice.roce.0) below the PCI function. */
static void read_pci(const struct rck_ctx *ctx, const char *devdir, struct rck_pci *pci, int *numa,
		     bool *has_numa)
{
	char path[PATH_LEN], real[PATH_LEN], buf[64];
	char *p;
	uint64_t v;

	sysfs_at(path, sizeof(path), devdir, "device");
	if (!realpath(path, real))
		return;
	for (int up = 0; up < 3; up++) {
		p = strrchr(real, '/');
		if (!p)
			return;
		if (is_pci_bdf(p + 1))
			break;
		*p = '\0';
	}
	p = strrchr(real, '/');
	if (!p || !is_pci_bdf(p + 1))
		return;
	snprintf(pci->address, sizeof(pci->address), "%s", p + 1);

#define PCI_ATTR(name) sysfs_at(path, sizeof(path), real, name)
	if (!sysfs_read_str(PCI_ATTR("current_link_speed"), buf, sizeof(buf)))
		inv_parse_number(ctx, path, buf, &pci->speed_gts);
	if (!sysfs_read_str(PCI_ATTR("max_link_speed"), buf, sizeof(buf)))
		inv_parse_number(ctx, path, buf, &pci->max_speed_gts);
	read_uint(ctx, PCI_ATTR("current_link_width"), &pci->width);
	read_uint(ctx, PCI_ATTR("max_link_width"), &pci->max_width);
	/* sysfs writes -1 for "no NUMA affinity"; that is unknown, not node 0. */
	if (!sysfs_read_str(PCI_ATTR("numa_node"), buf, sizeof(buf)) && buf[0] != '-' &&
	    !sysfs_parse_u64(buf, &v) && v < 4096) {
		*numa = (int)v;
		*has_numa = true;
	}
#undef PCI_ATTR
	rck_dbg(ctx, "%s: PCI function %s", devdir, pci->address);
}

/* The RDMA driver's name: the device's driver link when there is one,
 * reduced to the module part ("mlx5_ib.rdma" -> "mlx5_ib"). Software
 * devices have no parent device and no sysfs attribute naming the driver;
 * for those the name prefix the kernel gives them is all there is. */
static char *read_driver(const char *devdir, const char *name)
{
	static const struct { const char *prefix, *driver; } soft[] = {
		{ "rxe", "rdma_rxe" },
		{ "siw", "siw" },
	};
	char path[PATH_LEN], buf[256];

	sysfs_at(path, sizeof(path), devdir, "device/driver");
	if (!sysfs_link_name(path, buf, sizeof(buf))) {
		buf[strcspn(buf, ".")] = '\0';
		return strdup(buf);
	}
	for (size_t i = 0; i < RCK_ARRAY_SIZE(soft); i++)
		if (!strncmp(name, soft[i].prefix, strlen(soft[i].prefix)))
			return strdup(soft[i].driver);
	return NULL;
}

enum rck_vendor rck_device_vendor(const struct rck_device *dev)
{
	static const struct { const char *key; enum rck_vendor v; } map[] = {
		{ "mlx5", RCK_VENDOR_MLX5 },
		{ "bnxt", RCK_VENDOR_BNXT },
		{ "irdma", RCK_VENDOR_IRDMA },
		{ "ice", RCK_VENDOR_IRDMA },
		{ "i40e", RCK_VENDOR_IRDMA },
		{ "rdma_rxe", RCK_VENDOR_RXE },
		{ "rxe", RCK_VENDOR_RXE },
	};

	/* Driver first, then the device name (drivers name devices mlx5_N,
	 * bnxt_reN, irdmaN, rxeN) for trees without a driver link. */
	for (int pass = 0; pass < 2; pass++) {
		const char *s = pass == 0 ? dev->driver : dev->name;

		if (!s)
			continue;
		for (size_t i = 0; i < RCK_ARRAY_SIZE(map); i++)
			if (!strncmp(s, map[i].key, strlen(map[i].key)))
				return map[i].v;
	}
	return RCK_VENDOR_UNKNOWN;
}

int inv_parse_gid(const char *s, uint8_t raw[16])
{
	unsigned int w[8];
	char tail;

	if (strlen(s) != 39 ||
	    sscanf(s, "%4x:%4x:%4x:%4x:%4x:%4x:%4x:%4x%c", &w[0], &w[1], &w[2], &w[3], &w[4],
		   &w[5], &w[6], &w[7], &tail) != 8)
		return -EINVAL;
	for (int i = 0; i < 8; i++) {
		raw[2 * i] = (uint8_t)(w[i] >> 8);
		raw[2 * i + 1] = (uint8_t)w[i];
	}
	return 0;
}

static int is_zero(const uint8_t raw[16])
{
	for (int i = 0; i < 16; i++)
		if (raw[i])
			return 0;
	return 1;
}

/* Fill @gid from entry @idx; -ENOENT for an empty or invalid slot. */
static int read_gid(const struct rck_ctx *ctx, const char *portdir, const char *link_layer,
		    unsigned int idx, struct rck_gid *gid)
{
	static const uint8_t v4map[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	char path[PATH_LEN], buf[64];

	sysfs_at(path, sizeof(path), portdir, "gids/%u", idx);
	if (sysfs_read_str(path, buf, sizeof(buf)) || inv_parse_gid(buf, gid->raw)) {
		rck_dbg(ctx, "%s: not a GID", path);
		return -ENOENT;
	}
	if (is_zero(gid->raw))
		return -ENOENT;
	gid->index = idx;
	memcpy(gid->str, buf, sizeof(gid->str) - 1); /* parse_gid checked: 39 chars */

	/* Reading the type of an unused slot fails with EINVAL on live sysfs. */
	sysfs_at(path, sizeof(path), portdir, "gid_attrs/types/%u", idx);
	if (!sysfs_read_str(path, buf, sizeof(buf))) {
		if (!strcmp(buf, "RoCE v2"))
			gid->type = RCK_GID_TYPE_ROCE_V2;
		else if (!strcmp(buf, "IB/RoCE v1"))
			gid->type = link_layer && !strcmp(link_layer, "InfiniBand") ? RCK_GID_TYPE_IB
										     : RCK_GID_TYPE_ROCE_V1;
	}
	sysfs_at(path, sizeof(path), portdir, "gid_attrs/ndevs/%u", idx);
	gid->netdev = read_attr(ctx, path);
	if (!memcmp(gid->raw, v4map, sizeof(v4map)))
		inet_ntop(AF_INET, gid->raw + 12, gid->ipv4, sizeof(gid->ipv4));
	return 0;
}

static int read_gids(const struct rck_ctx *ctx, const char *portdir, struct rck_port *port)
{
	char path[PATH_LEN];
	char **names;
	int n;

	sysfs_at(path, sizeof(path), portdir, "gids");
	n = sysfs_list(path, &names);
	if (n == -ENOMEM)
		return n;
	if (n <= 0)
		return 0;
	port->gids = calloc((size_t)n, sizeof(*port->gids));
	if (!port->gids) {
		sysfs_names_free(names);
		return -ENOMEM;
	}
	for (int i = 0; i < n; i++) {
		uint64_t idx;

		if (sysfs_parse_u64(names[i], &idx) || idx > UINT_MAX)
			continue;
		if (!read_gid(ctx, portdir, port->link_layer, (unsigned int)idx, &port->gids[port->n_gids]))
			port->n_gids++;
	}
	sysfs_names_free(names);
	return 0;
}

/* The netdev a RoCE port is bound to: the netdev of its first valid GID
 * (what the kernel's GID cache uses), else the parent attribute of
 * software devices, else a single netdev under the parent device. */
static char *port_netdev(const struct rck_ctx *ctx, const char *devdir, const struct rck_port *port)
{
	char path[PATH_LEN];
	char **names;
	char *nd = NULL;
	int n;

	for (unsigned int i = 0; i < port->n_gids; i++)
		if (port->gids[i].netdev)
			return strdup(port->gids[i].netdev);
	sysfs_at(path, sizeof(path), devdir, "parent");
	nd = read_attr(ctx, path);
	if (nd)
		return nd;
	sysfs_at(path, sizeof(path), devdir, "device/net");
	n = sysfs_list(path, &names);
	if (n == 1)
		nd = strdup(names[0]);
	if (n >= 0)
		sysfs_names_free(names);
	return nd;
}

static void read_netdev(const struct rck_ctx *ctx, struct rck_port *port)
{
	char path[PATH_LEN];

	if (!port->netdev)
		return;
	if (!sysfs_path(ctx, path, sizeof(path), "class/net/%s/mtu", port->netdev))
		read_uint(ctx, path, &port->netdev_mtu);
	if (!sysfs_path(ctx, path, sizeof(path), "class/net/%s/operstate", port->netdev))
		port->netdev_operstate = read_attr(ctx, path);
}

static int read_port(const struct rck_ctx *ctx, const char *devdir, unsigned int num,
		     struct rck_port *port)
{
	char path[PATH_LEN], portdir[PATH_LEN], buf[64];
	int rc;

	port->num = num;
	sysfs_at(portdir, sizeof(portdir), devdir, "ports/%u", num);
#define PORT_ATTR(name) sysfs_at(path, sizeof(path), portdir, name)
	port->state = read_state(ctx, PORT_ATTR("state"), &port->state_code);
	port->phys_state = read_state(ctx, PORT_ATTR("phys_state"), &port->phys_code);
	port->link_layer = read_attr(ctx, PORT_ATTR("link_layer"));
	if (!sysfs_read_str(PORT_ATTR("rate"), buf, sizeof(buf)) &&
	    !inv_parse_number(ctx, path, buf, &port->rate_gbps))
		port->has_rate = true;
#undef PORT_ATTR
	rc = read_gids(ctx, portdir, port);
	if (rc)
		return rc;
	port->netdev = port_netdev(ctx, devdir, port);
	read_netdev(ctx, port);
	return 0;
}

static int read_ports(const struct rck_ctx *ctx, const char *devdir, struct rck_device *dev)
{
	char path[PATH_LEN];
	char **names;
	int n, rc = 0;

	sysfs_at(path, sizeof(path), devdir, "ports");
	n = sysfs_list(path, &names);
	if (n == -ENOMEM)
		return n;
	if (n <= 0)
		return 0;
	dev->ports = calloc((size_t)n, sizeof(*dev->ports));
	if (!dev->ports) {
		sysfs_names_free(names);
		return -ENOMEM;
	}
	for (int i = 0; i < n && !rc; i++) {
		uint64_t num;

		if (sysfs_parse_u64(names[i], &num) || num == 0 || num > 255)
			continue;
		dev->ports[dev->n_ports].dev = dev;
		rc = read_port(ctx, devdir, (unsigned int)num, &dev->ports[dev->n_ports]);
		dev->n_ports++;
	}
	sysfs_names_free(names);
	return rc;
}

static int read_device(const struct rck_ctx *ctx, const char *name, struct rck_device *dev)
{
	char devdir[PATH_LEN], path[PATH_LEN];
	int rc;

	rc = sysfs_path(ctx, devdir, sizeof(devdir), "class/infiniband/%s", name);
	if (rc)
		return rc;
	dev->name = strdup(name);
	if (!dev->name)
		return -ENOMEM;
#define DEV_ATTR(attr) sysfs_at(path, sizeof(path), devdir, attr)
	dev->node_guid = read_attr(ctx, DEV_ATTR("node_guid"));
	dev->fw_ver = read_attr(ctx, DEV_ATTR("fw_ver"));
	dev->board_id = read_attr(ctx, DEV_ATTR("board_id"));
	dev->hca_type = read_attr(ctx, DEV_ATTR("hca_type"));
	if (dev->hca_type && !dev->hca_type[0]) {
		free(dev->hca_type);
		dev->hca_type = NULL;
	}
#undef DEV_ATTR
	dev->driver = read_driver(devdir, name);
	read_pci(ctx, devdir, &dev->pci, &dev->numa_node, &dev->has_numa);
	return read_ports(ctx, devdir, dev);
}

static unsigned int mtu_bytes(enum ibv_mtu mtu)
{
	switch (mtu) {
	case IBV_MTU_256: return 256;
	case IBV_MTU_512: return 512;
	case IBV_MTU_1024: return 1024;
	case IBV_MTU_2048: return 2048;
	case IBV_MTU_4096: return 4096;
	default: return 0;
	}
}

/* Only verbs knows the active MTU. A device without a userspace provider
 * (or a kernel without uverbs) simply leaves it unknown. */
static void read_verbs(const struct rck_ctx *ctx, struct rck_inventory *inv)
{
	struct ibv_device **list;
	int n = 0;

	list = ibv_get_device_list(&n);
	if (!list) {
		rck_dbg(ctx, "verbs: no device list (%s)", strerror(errno));
		return;
	}
	for (int i = 0; i < n; i++) {
		struct rck_device *dev = NULL;
		struct ibv_context *vctx;

		for (unsigned int d = 0; d < inv->n_devs; d++)
			if (!strcmp(inv->devs[d].name, ibv_get_device_name(list[i])))
				dev = &inv->devs[d];
		if (!dev || !(vctx = ibv_open_device(list[i])))
			continue;
		for (unsigned int p = 0; p < dev->n_ports; p++) {
			struct ibv_port_attr attr;

			if (!ibv_query_port(vctx, (uint8_t)dev->ports[p].num, &attr))
				dev->ports[p].active_mtu = mtu_bytes(attr.active_mtu);
		}
		ibv_close_device(vctx);
	}
	ibv_free_device_list(list);
}

RCK_EXPORT int rck_inventory_new(struct rck_ctx *ctx, struct rck_inventory **out)
{
	struct rck_inventory *inv;
	char path[PATH_LEN];
	char **names = NULL;
	int n, rc;

	rc = sysfs_path(ctx, path, sizeof(path), "class/infiniband");
	if (rc)
		return rc;
	inv = calloc(1, sizeof(*inv));
	if (!inv)
		return -ENOMEM;
	n = sysfs_list(path, &names);
	if (n == -ENOENT) {
		rck_info(ctx, "%s: no RDMA devices (no such directory)", path);
		*out = inv;
		return 0;
	}
	if (n < 0) {
		free(inv);
		return n;
	}
	inv->devs = calloc((size_t)n + 1, sizeof(*inv->devs));
	if (!inv->devs)
		rc = -ENOMEM;
	for (int i = 0; i < n && !rc; i++) {
		char devdir[PATH_LEN];

		/* A class link whose target is gone is a device mid-removal. */
		if (sysfs_path(ctx, devdir, sizeof(devdir), "class/infiniband/%s/.", names[i]) ||
		    access(devdir, F_OK)) {
			rck_warn(ctx, "%s/%s: dangling device link, skipped", path, names[i]);
			continue;
		}
		rc = read_device(ctx, names[i], &inv->devs[inv->n_devs]);
		inv->n_devs++;
	}
	sysfs_names_free(names);
	if (rc) {
		rck_inventory_free(inv);
		return rc;
	}
	if (!rck_ctx_is_recorded(ctx))
		read_verbs(ctx, inv);
	*out = inv;
	return 0;
}

RCK_EXPORT void rck_inventory_free(struct rck_inventory *inv)
{
	if (!inv)
		return;
	for (unsigned int d = 0; d < inv->n_devs; d++) {
		struct rck_device *dev = &inv->devs[d];

		for (unsigned int p = 0; p < dev->n_ports; p++) {
			struct rck_port *port = &dev->ports[p];

			for (unsigned int g = 0; g < port->n_gids; g++)
				free(port->gids[g].netdev);
			free(port->gids);
			free(port->state);
			free(port->phys_state);
			free(port->link_layer);
			free(port->netdev);
			free(port->netdev_operstate);
		}
		free(dev->ports);
		free(dev->name);
		free(dev->driver);
		free(dev->node_guid);
		free(dev->fw_ver);
		free(dev->board_id);
		free(dev->hca_type);
	}
	free(inv->devs);
	free(inv);
}
