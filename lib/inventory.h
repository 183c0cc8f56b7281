/* Inventory structures as the library sees them; counters and probes walk
 * them directly. Public code uses the accessors in rocecheck/inventory.h. */
#ifndef RCK_INVENTORY_INTERNAL_H
#define RCK_INVENTORY_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "rocecheck/inventory.h"

struct rck_gid {
	unsigned int index;
	uint8_t raw[16];
	char str[40];
	enum rck_gid_type type;
	char *netdev;
	char ipv4[16];          /* "" unless IPv4-mapped */
};

struct rck_port {
	const struct rck_device *dev;
	unsigned int num;
	char *state;
	char *phys_state;
	char *link_layer;
	double rate_gbps;
	bool has_rate;
	unsigned int active_mtu;  /* 0: unknown */
	char *netdev;
	unsigned int netdev_mtu;  /* 0: unknown */
	char *netdev_operstate;
	struct rck_gid *gids;
	unsigned int n_gids;
};

struct rck_pci {
	char address[16];         /* "" when not on PCI */
	double speed_gts, max_speed_gts;  /* 0: unknown */
	unsigned int width, max_width;    /* 0: unknown */
};

struct rck_device {
	char *name;
	char *driver;
	char *node_guid;
	char *fw_ver;
	char *board_id;
	int numa_node;
	bool has_numa;
	struct rck_pci pci;
	struct rck_port *ports;
	unsigned int n_ports;
};

struct rck_inventory {
	struct rck_device *devs;
	unsigned int n_devs;
};

/* Which family of counter names a driver speaks (vendor maps select on it). */
enum rck_vendor {
	RCK_VENDOR_UNKNOWN = 0,
	RCK_VENDOR_MLX5,
	RCK_VENDOR_BNXT,
	RCK_VENDOR_IRDMA,
	RCK_VENDOR_RXE,
};
enum rck_vendor rck_device_vendor(const struct rck_device *dev);

#endif
