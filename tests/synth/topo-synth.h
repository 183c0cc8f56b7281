/* Synthetic rail-optimised fabrics for the topology tests and bench: every
 * host's cables (changeable, to inject faults) and the sources' texts. */
#ifndef RCK_TEST_TOPO_SYNTH_H
#define RCK_TEST_TOPO_SYNTH_H

#include <stdbool.h>
#include <stddef.h>

#include <rocecheck/topology.h>

/* Hosts "h00000".., NICs "mlx5_R/1" (R the rail), leaves "leaf-rR-gG"
 * (host h in group h / per_leaf, port "swp<slot>", slot from 1), each leaf
 * with one uplink per spine ("swp<per_leaf + 1 + k>" to spine k's port
 * "swp<leaf number + 1>"). */
struct tsyn {
	unsigned int hosts, rails, per_leaf, spines;
	double gbps;                   /* host and uplink port speed */
	int slow_uplink;               /* leaf number whose uplink to spine0 runs at half, -1 none */
};

struct tsyn_cable {
	int rail;                      /* the switch's rail, -1 no switch */
	unsigned int group, slot;
	double gbps;                   /* its switch port's speed */
};

static inline unsigned int tsyn_groups(const struct tsyn *f)
{
	return (f->hosts + f->per_leaf - 1) / f->per_leaf;
}

/* The healthy cabling: cables[host * rails + nic]. Caller frees. */
struct tsyn_cable *tsyn_cables(const struct tsyn *f);
/* The topology file: switches (chassis IDs, tiers, rails, uplinks with
 * speeds) and, with @hosts, every host NIC's cable with its port speed.
 * Caller frees; *len its length. NULL on ENOMEM. */
char *tsyn_json(const struct tsyn *f, const struct tsyn_cable *c, bool hosts, size_t *len);
/* Slurm's topology.conf: every host under its rail-0 leaf, leaves under
 * spine0 (a hostlist of leaves per rail). */
char *tsyn_slurm(const struct tsyn *f, size_t *len);
/* Host @h's LLDP neighbours as lldpd would give them (chassis ID and
 * system name of its leaves, port names); strings in @buf (at least
 * rails * 512 + 32 bytes). Returns the records written (f->rails). */
unsigned int tsyn_neighbours(const struct tsyn *f, const struct tsyn_cable *c, unsigned int h,
			     struct rck_topology_neighbour *out, char *buf);

#endif
