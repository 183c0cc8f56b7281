/* librocecheck topology: the switches between the hosts, which host NIC is
 * cabled to which switch port, merged from Slurm, our JSON file and LLDP. */
#ifndef ROCECHECK_TOPOLOGY_H
#define ROCECHECK_TOPOLOGY_H

#include <stddef.h>
#include <stdio.h>

#include <rocecheck/context.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Thread safety: no handle is locked and nothing global is written. The
 * add and load calls change a model and need the caller's lock when
 * several threads share one; any number of threads may call the const
 * functions (accessors, writers, rck_topology_lint()) on a model no thread
 * is changing.
 *
 * Ownership: rck_topology_new() gives the caller the model, freed by
 * rck_topology_free() (NULL accepted). Every string an accessor returns
 * belongs to the model and lives as long as it does; inputs are copied.
 *
 * Merging: sources are merged in the order given. The first source to say
 * something (a NIC's switch port, a switch's chassis ID, tier, rail, a
 * port's speed, an uplink's ports) is kept; a later source that says
 * otherwise adds a conflict naming both sources (rck_topology_conflict()),
 * never a silent choice. A switch named by Slurm or the topology file is
 * declared; one only heard through LLDP is not.
 */

/** Opaque topology model. */
struct rck_topology;
struct rck_report;
struct rck_lldp;

enum rck_switch_tier {
	RCK_SWITCH_TIER_UNKNOWN = 0,
	RCK_SWITCH_TIER_LEAF = 1,   /**< hosts hang off it */
	RCK_SWITCH_TIER_SPINE = 2,  /**< switches hang off it */
};

/** "unknown", "leaf", "spine"; NULL out of range. Static storage. */
const char *rck_switch_tier_name(enum rck_switch_tier tier);

/** An empty model. The caller owns *out. Returns 0 or -ENOMEM. */
int rck_topology_new(struct rck_topology **out);
void rck_topology_free(struct rck_topology *t);

/**
 * Merge a Slurm topology.conf (topology/tree: `SwitchName=S Nodes=HOSTLIST`
 * or `SwitchName=S Switches=HOSTLIST`, optional `LinkSpeed=N`), @len bytes
 * of @text (no terminator needed), @name naming it in messages and
 * conflicts. Keys are case-insensitive, `#` starts a comment (`\#` is a
 * literal #), a trailing backslash joins the next line, values may be
 * double-quoted; lists use Slurm's hostlist syntax ("tux[0-3,12]"). A
 * switch with Nodes is a leaf whose hosts hang off it (NIC and port
 * unknown); one with Switches is a spine above those. LinkSpeed is kept as
 * Slurm's number (arbitrary units), never compared with port speeds. On
 * error nothing is merged and @err (may be NULL) gets one line
 * "NAME:LINE:COLUMN: what is wrong". Returns 0, -EINVAL (unknown key,
 * missing SwitchName, both or neither of Nodes and Switches, a repeated
 * switch, a child switch never defined, a loop of switches, a bad
 * hostlist), -E2BIG past 16 MiB, -ENOMEM.
 */
int rck_topology_add_slurm(struct rck_topology *t, const char *text, size_t len, const char *name,
			   char *err, size_t errlen);
/** rck_topology_add_slurm() of the file @path (its name in messages); -errno
 * when it cannot be read, -EFBIG past 16 MiB. */
int rck_topology_load_slurm(struct rck_topology *t, const char *path, char *err, size_t errlen);

/**
 * Merge a topology file of ours (JSON, schemas/topology.schema.json,
 * "rocecheck.topology/1": switches with chassis ID, tier, rail, ports and
 * uplinks; hosts with their NICs' switch ports and rails), @len bytes of
 * @text, @name naming it. The "conflicts" and "findings" members that
 * rck_topology_write() adds are ignored, so a written model loads again.
 * Errors as rck_topology_add_slurm() ("NAME: what is wrong", or
 * "NAME:LINE:COLUMN:" for malformed JSON); -EINVAL also for a switch port
 * claimed twice within the file.
 */
int rck_topology_add_json(struct rck_topology *t, const char *text, size_t len, const char *name,
			  char *err, size_t errlen);
int rck_topology_load_json(struct rck_topology *t, const char *path, char *err, size_t errlen);

/**
 * One host NIC's LLDP neighbour: what an agent hands over (decoded by
 * rck_lldp_decode(), or read from lldpd). Set @size to sizeof(struct
 * rck_topology_neighbour). @host and @nic (a netdev or "device/port") are
 * required; every other string may be NULL; all NULL means no neighbour
 * was heard (the NIC is then on no known switch). @port_id_subtype is
 * LLDP's (5 interface name, 7 locally assigned, 3 MAC address...; 0
 * unknown): a MAC port ID names the port by its description when there is
 * one. The switch is the one with this chassis ID, else the one with this
 * system name, else a new undeclared one named by the system name (or the
 * chassis ID). @speed_gbps is the port's speed, 0 unknown.
 */
struct rck_topology_neighbour {
	size_t size;
	const char *host;
	const char *nic;
	const char *chassis_id;
	const char *port_id;
	unsigned int port_id_subtype;
	const char *system_name;
	const char *port_description;
	double speed_gbps;
};

/**
 * Merge @n neighbour records, @source naming them in conflicts ("lldp",
 * "lldp:host1"; calls with the same name are one source). Returns 0, -EINVAL (NULL source, a record without host or
 * NIC, @size too small), -ENOMEM.
 */
int rck_topology_add_neighbours(struct rck_topology *t, const char *source,
				const struct rck_topology_neighbour *recs, size_t n);
/**
 * A host NIC and the LLDP frame its agent heard there, decoded by
 * rck_lldp_decode() or read from lldpad (rocecheck/dcb.h); @frame NULL:
 * nothing heard. Set @size to sizeof(struct rck_topology_lldp).
 */
struct rck_topology_lldp {
	size_t size;
	const char *host;
	const char *nic;
	const struct rck_lldp *frame;
};
/** Merge @n such records as neighbours (chassis ID, port ID and its
 * subtype, system name, port description). Returns as
 * rck_topology_add_neighbours(). */
int rck_topology_add_lldp(struct rck_topology *t, const char *source,
			  const struct rck_topology_lldp *recs, size_t n);
/**
 * This host's neighbours from the local lldpd (liblldpctl), every
 * interface lldpd watches, named @host; the source is "lldpd:HOST". An
 * interface with no neighbour is a NIC on no known switch. @socket_path:
 * lldpd's control socket (NULL: lldpd's default, /run/lldpd.socket).
 * Waits at most @timeout_ms for lldpd in all. Returns 0, -ENOTSUP (built without liblldpctl), -ECONNREFUSED or
 * -ENOENT (lldpd not running), -ETIMEDOUT, -EPROTO (an answer lldpctl
 * could not read), -ENOMEM; @err (may be NULL) gets one line but for
 * -ENOMEM.
 */
int rck_topology_add_lldpd(struct rck_topology *t, struct rck_ctx *ctx, const char *host,
			   const char *socket_path, unsigned int timeout_ms, char *err, size_t errlen);

/** A sweep result or agents' facts (rocecheck/mesh.h). */
struct rck_mesh;
/**
 * Merge the LLDP neighbours every host's agent reported in @m
 * (rck_mesh_config_set_lldp(), rck_mesh_collect()), @source naming them
 * (NULL: "agents"); each netdev is a host NIC. Hosts whose neighbours were
 * not collected add nothing. Returns as rck_topology_add_neighbours().
 */
int rck_topology_add_mesh_lldp(struct rck_topology *t, const struct rck_mesh *m, const char *source);

/**
 * The tier host-side LLDP cannot see: every leaf (a switch with host NICs
 * cabled to it, none above it nor under it) that no source gave an uplink
 * hangs off one implied spine named @name (NULL: "spine"), so that probes
 * between two leaves cross the two leaves' uplinks. The spine is made
 * (undeclared, tier spine) when new; the leaves get tier leaf where no
 * source said a tier; the uplinks' ports are unknown; the source is
 * "implied". Call it after the last source; nothing to imply adds nothing.
 * Returns 0, -EINVAL, -EEXIST (a switch @name with hosts of its own),
 * -ENOMEM.
 */
int rck_topology_imply_spine(struct rck_topology *t, const char *name);

/* ---- switches ---- */
unsigned int rck_topology_switch_count(const struct rck_topology *t);
/** Switch @i's name; NULL past the end. */
const char *rck_topology_switch_name(const struct rck_topology *t, unsigned int i);
/** Chassis ID; NULL unknown or past the end. */
const char *rck_topology_switch_chassis(const struct rck_topology *t, unsigned int i);
enum rck_switch_tier rck_topology_switch_tier(const struct rck_topology *t, unsigned int i);
/** The rail a rail-optimised fabric gives the switch; -1 unknown. */
int rck_topology_switch_rail(const struct rck_topology *t, unsigned int i);
/** Index of the switch @name. Returns 0 or -ENOENT. */
int rck_topology_switch_find(const struct rck_topology *t, const char *name, unsigned int *i);

/* ---- switch ports ---- */
unsigned int rck_topology_port_count(const struct rck_topology *t);
/** Port @i: its switch, name and speed (0 unknown); each out may be NULL.
 * Returns 0 or -EINVAL past the end. */
int rck_topology_port(const struct rck_topology *t, unsigned int i, unsigned int *sw,
		      const char **name, double *speed_gbps);

/* ---- host NICs and their cables ---- */

/** A host NIC and the switch port it is cabled to. Set @size. */
struct rck_topology_cable {
	size_t size;
	const char *host;
	const char *nic;          /**< "device/port" or netdev; NULL: the host as a whole (Slurm) */
	const char *netdev;       /**< NULL unknown */
	int sw;                   /**< switch index, -1 none known */
	int port;                 /**< port index, -1 unknown */
	int rail;                 /**< the rail the NIC is on by its source, -1 unknown */
	const char *source;       /**< the source that cabled it */
};
unsigned int rck_topology_cable_count(const struct rck_topology *t);
/** Returns 0, -EINVAL (past the end, @out->size too small). */
int rck_topology_cable(const struct rck_topology *t, unsigned int i, struct rck_topology_cable *out);

/* ---- uplinks: which switch is above which ---- */
struct rck_topology_uplink {
	size_t size;
	unsigned int lower, upper; /**< switch indexes */
	int lower_port, upper_port;/**< port indexes, -1 unknown */
	const char *source;
};
unsigned int rck_topology_uplink_count(const struct rck_topology *t);
int rck_topology_uplink(const struct rck_topology *t, unsigned int i, struct rck_topology_uplink *out);

/* ---- conflicts between sources ---- */
unsigned int rck_topology_conflict_count(const struct rck_topology *t);
/** Conflict @i: one line saying what each source said, and the two
 * sources' names; each out may be NULL. 0 or -EINVAL past the end. */
int rck_topology_conflict(const struct rck_topology *t, unsigned int i, const char **what,
			  const char **source_a, const char **source_b);

/**
 * Cabling lint (rocecheck-topology(8)): on a rail-optimised fabric (switch
 * rails known) NIC r of every host must reach a rail-r switch
 * (rail_crossed), a host NIC must sit in the leaf group its other rails
 * say (cable_swapped, one finding per swapped pair), every NIC on a known
 * switch (nic_no_switch), every port as fast as its peers
 * (switch_port_speed); every conflict is a topology_conflict finding. The
 * caller owns *out (rck_report_free()). Returns 0 or -ENOMEM.
 */
int rck_topology_lint(const struct rck_topology *t, struct rck_report **out);

/**
 * Write the model: JSON (schemas/topology.schema.json, the input form plus
 * "conflicts" and, with @lint, "findings" as in analysis reports), or text
 * (switches, hosts, uplinks, conflicts, findings). Returns 0 or -errno.
 */
int rck_topology_write(const struct rck_topology *t, const struct rck_report *lint, FILE *out,
		       enum rck_format fmt);

#ifdef __cplusplus
}
#endif

#endif
