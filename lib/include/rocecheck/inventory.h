/* librocecheck inventory: RDMA devices, their PCI placement, ports, bound
 * netdevs and GID tables, read from sysfs with verbs for what sysfs lacks. */
#ifndef ROCECHECK_INVENTORY_H
#define ROCECHECK_INVENTORY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rocecheck/context.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Opaque snapshot of every RDMA device on the system. */
struct rck_inventory;
/** One device of an inventory; owned by the inventory. */
struct rck_device;
/** One port of a device; owned by the inventory. */
struct rck_port;
/** One GID table entry of a port; owned by the inventory. */
struct rck_gid;

/** GID types as the kernel names them in gid_attrs/types. */
enum rck_gid_type {
	RCK_GID_TYPE_UNKNOWN = 0,
	RCK_GID_TYPE_IB = 1,      /**< "IB/RoCE v1" on an InfiniBand port */
	RCK_GID_TYPE_ROCE_V1 = 2, /**< "IB/RoCE v1" on an Ethernet port */
	RCK_GID_TYPE_ROCE_V2 = 3, /**< "RoCE v2" */
};

/**
 * Read the inventory of all RDMA devices. No device at all is not an error:
 * the inventory is then empty. Unreadable attributes are absent (logged at
 * LOG_DEBUG), never fatal. The caller owns *out (rck_inventory_free()).
 * Returns 0, -ENOMEM, or -errno when the class directory exists but cannot
 * be read.
 */
int rck_inventory_new(struct rck_ctx *ctx, struct rck_inventory **out);
void rck_inventory_free(struct rck_inventory *inv);

/** Write the inventory as text or JSON (see rocecheck(8) for the schema). */
int rck_inventory_write(const struct rck_inventory *inv, FILE *out, enum rck_format fmt);

/** rck_inventory_write_view() flags. */
enum {
	RCK_INVENTORY_BRIEF = 1 << 0, /**< one line per port (schema "rocecheck.links/1") */
};

/**
 * Write the inventory, or only device @device (NULL: all), as text tables
 * sized to their content or as JSON with its "schema" member
 * ("rocecheck.devices/1", or "rocecheck.links/1" with RCK_INVENTORY_BRIEF).
 * Returns 0, -ENODEV when @device is not in @inv, -EINVAL for unknown
 * @flags, -ENOMEM, or -errno of the write.
 */
int rck_inventory_write_view(const struct rck_inventory *inv, FILE *out, enum rck_format fmt,
			     const char *device, unsigned int flags);

unsigned int rck_inventory_device_count(const struct rck_inventory *inv);
/** Device @i (0-based), or NULL past the end. */
const struct rck_device *rck_inventory_device(const struct rck_inventory *inv, unsigned int i);
/** Device by name, or NULL. */
const struct rck_device *rck_inventory_find(const struct rck_inventory *inv, const char *name);

/* Device attributes. Strings are NULL when the kernel does not expose them. */
const char *rck_device_name(const struct rck_device *dev);
const char *rck_device_driver(const struct rck_device *dev);
const char *rck_device_node_guid(const struct rck_device *dev);
const char *rck_device_fw_ver(const struct rck_device *dev);
const char *rck_device_board_id(const struct rck_device *dev);
/** NUMA node; false when unknown (virtual devices, or -1 in sysfs). */
bool rck_device_numa_node(const struct rck_device *dev, int *node);
/** PCI address "dddd:bb:dd.f", or NULL for a device not on PCI. */
const char *rck_device_pci_address(const struct rck_device *dev);
/** Current and maximum PCIe link: GT/s and lane count; false when unknown. */
bool rck_device_pci_link(const struct rck_device *dev, double *speed_gts, unsigned int *width);
bool rck_device_pci_max_link(const struct rck_device *dev, double *speed_gts, unsigned int *width);
unsigned int rck_device_port_count(const struct rck_device *dev);
/** Port @i (0-based index, not the port number), or NULL. */
const struct rck_port *rck_device_port(const struct rck_device *dev, unsigned int i);
/** Port by its number (1-based as the kernel numbers them), or NULL. */
const struct rck_port *rck_device_find_port(const struct rck_device *dev, unsigned int num);

/* Port attributes. */
unsigned int rck_port_num(const struct rck_port *port);
const struct rck_device *rck_port_device(const struct rck_port *port);
/** Logical state as the kernel words it: "ACTIVE", "DOWN", "INIT", ... */
const char *rck_port_state(const struct rck_port *port);
/** Physical state: "LinkUp", "Disabled", "Polling", ... */
const char *rck_port_phys_state(const struct rck_port *port);
/** "Ethernet" or "InfiniBand". */
const char *rck_port_link_layer(const struct rck_port *port);
/** Rate in Gb/s; false when unknown. */
bool rck_port_rate_gbps(const struct rck_port *port, double *gbps);
/** Active MTU in bytes from verbs; false when unknown (always with a recorded tree). */
bool rck_port_active_mtu(const struct rck_port *port, unsigned int *mtu);
/** The bound netdev's name, or NULL. */
const char *rck_port_netdev(const struct rck_port *port);
/** The bound netdev's MTU; false when unknown. */
bool rck_port_netdev_mtu(const struct rck_port *port, unsigned int *mtu);
/** The bound netdev's operstate ("up", "down", ...), or NULL. */
const char *rck_port_netdev_operstate(const struct rck_port *port);
unsigned int rck_port_gid_count(const struct rck_port *port);
/** GID entry @i (0-based over the valid entries), or NULL. */
const struct rck_gid *rck_port_gid(const struct rck_port *port, unsigned int i);

/* GID entry attributes. */
unsigned int rck_gid_index(const struct rck_gid *gid);
/** The GID in the kernel's form "fe80:0000:...". */
const char *rck_gid_str(const struct rck_gid *gid);
/** The 16 raw bytes. */
const uint8_t *rck_gid_raw(const struct rck_gid *gid);
enum rck_gid_type rck_gid_type(const struct rck_gid *gid);
/** The type as the kernel writes it: "IB", "RoCE v1", "RoCE v2". */
const char *rck_gid_type_str(const struct rck_gid *gid);
/** The netdev the entry belongs to, or NULL. */
const char *rck_gid_netdev(const struct rck_gid *gid);
/** Dotted IPv4 address for an IPv4-mapped GID, else NULL. */
const char *rck_gid_ipv4(const struct rck_gid *gid);

#ifdef __cplusplus
}
#endif

#endif
