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
	int state_code, phys_code;  /* the number before the colon; -1: unknown */
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
	char *hca_type;           /* NULL when sysfs has none or it is empty */
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

/* The text parsers of sysfs attributes, apart from the reads (fuzzed).
 * Leading decimal of "100 Gb/sec (4X EDR)" or "16.0 GT/s PCIe": 0,
 * -EINVAL, or -ERANGE (warned, naming @path) when not finite. */
struct rck_ctx;
int inv_parse_number(const struct rck_ctx *ctx, const char *path, const char *s, double *out);
/* A GID table entry "fe80:0000:...:0001" (39 characters): 0 or -EINVAL. */
int inv_parse_gid(const char *s, uint8_t raw[16]);
/* "4: ACTIVE" -> "ACTIVE" in place. */
void inv_strip_state(char *s);
/* The number of "5: LinkUp" (0-255), or -1 when there is none. */
int inv_state_code(const char *s);
/* `rdma link`'s words (iproute2 rdma/link.c) for a port state and a
 * physical state number: "ACTIVE", "LINK_UP"; NULL when out of range. */
const char *inv_state_word(int code);
const char *inv_phys_state_word(int code);

#endif
