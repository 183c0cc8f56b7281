/* The topology model's insides (model.c) and the merge primitives every
 * source (slurm.c, file.c, neigh.c, lldpd.c) and the cabling lint share. */
#ifndef RCK_TOPOLOGY_TOPO_INT_H
#define RCK_TOPOLOGY_TOPO_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "internal.h"
#include "rocecheck/topology.h"
#include "../mesh/strset.h"

#define TP_NONE (-1)
/* Largest input file and most rails a model holds. */
#define TP_FILE_MAX (16u << 20)
#define TP_RAIL_MAX 64

struct tp_switch {
	char *name;                /* also in rck_topology.sw_names */
	char *chassis;             /* NULL unknown */
	uint8_t tier;
	bool declared;             /* named by Slurm or a file, not only heard */
	int16_t rail;              /* TP_NONE unknown */
	uint16_t chassis_src, tier_src, rail_src;
	double slurm_speed;        /* Slurm's LinkSpeed, arbitrary units, 0 none */
};

struct tp_port {
	uint32_t sw;
	char *name;
	double gbps;               /* 0 unknown */
	uint16_t gbps_src;
	int32_t cable;             /* the host NIC cabled here, TP_NONE none */
};

struct tp_cable {
	uint32_t host;
	char *nic;                 /* NULL: the host as a whole (Slurm's Nodes=) */
	char *netdev;
	int32_t sw, port;
	int16_t rail;
	uint16_t src, rail_src;
	bool reported;             /* a host-level cable's conflict is recorded */
};

struct tp_uplink {
	uint32_t lower, upper;
	int32_t lport, uport;
	uint16_t src;
};

struct tp_conflict {
	char *what;
	uint16_t a, b;
};

struct tp_host {
	uint32_t *cables;
	uint32_t n, cap;
	bool dirty;                /* cabled since tp_check_hosts() last ran */
};

struct rck_topology {
	struct strset src_names;   /* source names, index = source number */
	char **srcs;               /* src_names.names: one name, one source */
	size_t n_srcs;
	struct strset sw_names, chassis;   /* chassis: "id", parallel chassis_sw */
	uint32_t *chassis_sw;
	size_t cap_chassis_sw;
	struct tp_switch *sw;
	size_t n_sw, cap_sw;
	struct strset port_keys;   /* "switch\x1fport" */
	struct tp_port *ports;
	size_t n_ports, cap_ports;
	struct strset host_names;
	struct tp_host *hosts;
	size_t cap_hosts;
	struct strset cable_keys;  /* "host\x1fnic", "host\x1f\x1enetdev", "host\x1f\x1dswitch" */
	uint32_t *cable_idx;       /* parallel to cable_keys */
	size_t cap_cable_idx;
	struct tp_cable *cables;
	size_t n_cables, cap_cables;
	struct strset uplink_keys; /* "lower\x1fupper", parallel uplink_idx */
	uint32_t *uplink_idx;
	size_t cap_uplink_idx;
	struct tp_uplink *uplinks;
	size_t n_uplinks, cap_uplinks;
	struct tp_conflict *conflicts;
	size_t n_conflicts, cap_conflicts;
	uint32_t *dirty;           /* hosts for tp_check_hosts() */
	size_t n_dirty, cap_dirty;
};

/* The source named @name (copied when new; one name is one source); its
 * number in *src. 0 or -ENOMEM. */
int tp_source(struct rck_topology *t, const char *name, uint16_t *src);
/* Record a conflict between sources @a and @b. 0 or -ENOMEM. */
int tp_conflict(struct rck_topology *t, uint16_t a, uint16_t b, const char *fmt, ...) RCK_PRINTF(4, 5);

/* The switch @name, made (undeclared, tier unknown) when new; @declared
 * marks it declared. 0 or -ENOMEM. */
int tp_switch(struct rck_topology *t, const char *name, bool declared, uint32_t *idx);
/* The switch with chassis ID @id, or -ENOENT. */
int tp_switch_by_chassis(const struct rck_topology *t, const char *id, uint32_t *idx);
/* Set a switch attribute from @src; a different value already set is a
 * conflict (the first kept). 0 or -ENOMEM. */
int tp_set_chassis(struct rck_topology *t, uint32_t sw, const char *id, uint16_t src);
int tp_set_tier(struct rck_topology *t, uint32_t sw, enum rck_switch_tier tier, uint16_t src);
int tp_set_rail(struct rck_topology *t, uint32_t sw, int rail, uint16_t src);
/* The port @name of switch @sw, made when new. 0 or -ENOMEM. */
int tp_port(struct rck_topology *t, uint32_t sw, const char *name, uint32_t *idx);
int tp_set_speed(struct rck_topology *t, uint32_t port, double gbps, uint16_t src);

/* What a source says of one host NIC. */
struct tp_cabling {
	const char *host;
	const char *nic;           /* NULL: the host as a whole */
	const char *netdev;        /* NULL unknown */
	int32_t sw, port;          /* TP_NONE unknown */
	int rail;                  /* TP_NONE unknown */
	uint16_t src;
};
/* Merge @c: the NIC (found by nic, else netdev) gets its switch port when
 * it had none; a different one already known, or a port already holding
 * another NIC, is a conflict. 0 or -ENOMEM. */
int tp_cable(struct rck_topology *t, const struct tp_cabling *c);
/* @lower hangs off @upper (ports TP_NONE unknown). 0 or -ENOMEM. */
int tp_uplink(struct rck_topology *t, uint32_t lower, uint32_t upper, int32_t lport, int32_t uport,
	      uint16_t src);
/* Hosts named as a whole by one source (Slurm) but none of whose NICs
 * another source put on that switch: conflicts. Run after each source
 * (only hosts cabled since the last run are looked at). 0 or -ENOMEM. */
int tp_check_hosts(struct rck_topology *t);

const char *tp_host_name(const struct rck_topology *t, uint32_t host);
/* "switch port P" text for messages ("leaf1 port swp3", "leaf1"). */
void tp_port_label(const struct rck_topology *t, int32_t sw, int32_t port, char *buf, size_t len);

/* slurm.c: rck_topology_add_slurm() with hostlists capped at @max names
 * (fuzzing lowers it); tp_load() reads an input file (16 MiB at most),
 * its errors as one line in @err. */
int tp_slurm_parse(struct rck_topology *t, const char *text, size_t len, const char *name,
		   unsigned int max, char *err, size_t errlen);
int tp_load(const char *path, char **buf, size_t *len, char *err, size_t errlen);
/* tp_load() of @path, then @add on its text (the public *_load_* calls). */
typedef int (*tp_add_fn)(struct rck_topology *t, const char *text, size_t len, const char *name,
			 char *err, size_t errlen);
int tp_load_add(struct rck_topology *t, const char *path, tp_add_fn add, char *err, size_t errlen);

/* lldpd's neighbour table (lldpd.c) as records named @host, for the
 * agent's LLDP request as for rck_topology_add_lldpd(): every string the
 * records hold is owned by them (tp_neighbours_free(), @host excepted).
 * Returns as rck_topology_add_lldpd(). */
int tp_lldpd_read(const char *host, const char *socket_path, unsigned int timeout_ms,
		  struct rck_topology_neighbour **recs, size_t *n, char *err, size_t errlen);
void tp_neighbours_free(struct rck_topology_neighbour *recs, size_t n);

/* Write "NAME:" + the message into @err (may be NULL); returns @rc. */
int tp_fail(char *err, size_t errlen, int rc, const char *fmt, ...) RCK_PRINTF(4, 5);

#endif
