/* The topology model's accessors: switches, ports, cables, uplinks and
 * conflicts by index; strings stay the model's. */
#include <errno.h>

#include "topo_int.h"

RCK_EXPORT unsigned int rck_topology_switch_count(const struct rck_topology *t)
{
	return t ? (unsigned int)t->n_sw : 0;
}

RCK_EXPORT const char *rck_topology_switch_name(const struct rck_topology *t, unsigned int i)
{
	return t && i < t->n_sw ? t->sw[i].name : NULL;
}

RCK_EXPORT const char *rck_topology_switch_chassis(const struct rck_topology *t, unsigned int i)
{
	return t && i < t->n_sw ? t->sw[i].chassis : NULL;
}

RCK_EXPORT enum rck_switch_tier rck_topology_switch_tier(const struct rck_topology *t, unsigned int i)
{
	return t && i < t->n_sw ? (enum rck_switch_tier)t->sw[i].tier : RCK_SWITCH_TIER_UNKNOWN;
}

RCK_EXPORT int rck_topology_switch_rail(const struct rck_topology *t, unsigned int i)
{
	return t && i < t->n_sw ? t->sw[i].rail : TP_NONE;
}

RCK_EXPORT int rck_topology_switch_find(const struct rck_topology *t, const char *name, unsigned int *i)
{
	if (!t || !name)
		return -ENOENT;
	return strset_find(&t->sw_names, name, i);
}

RCK_EXPORT unsigned int rck_topology_port_count(const struct rck_topology *t)
{
	return t ? (unsigned int)t->n_ports : 0;
}

RCK_EXPORT int rck_topology_port(const struct rck_topology *t, unsigned int i, unsigned int *sw,
				 const char **name, double *speed_gbps)
{
	if (!t || i >= t->n_ports)
		return -EINVAL;
	if (sw)
		*sw = t->ports[i].sw;
	if (name)
		*name = t->ports[i].name;
	if (speed_gbps)
		*speed_gbps = t->ports[i].gbps;
	return 0;
}

RCK_EXPORT unsigned int rck_topology_cable_count(const struct rck_topology *t)
{
	return t ? (unsigned int)t->n_cables : 0;
}

RCK_EXPORT int rck_topology_cable(const struct rck_topology *t, unsigned int i,
				  struct rck_topology_cable *out)
{
	const struct tp_cable *c;

	if (!t || !out || i >= t->n_cables || out->size < sizeof(*out))
		return -EINVAL;
	c = &t->cables[i];
	*out = (struct rck_topology_cable){
		.size = out->size, .host = tp_host_name(t, c->host), .nic = c->nic, .netdev = c->netdev,
		.sw = c->sw, .port = c->port, .rail = c->rail, .source = t->srcs[c->src],
	};
	return 0;
}

RCK_EXPORT unsigned int rck_topology_uplink_count(const struct rck_topology *t)
{
	return t ? (unsigned int)t->n_uplinks : 0;
}

RCK_EXPORT int rck_topology_uplink(const struct rck_topology *t, unsigned int i,
				   struct rck_topology_uplink *out)
{
	const struct tp_uplink *u;

	if (!t || !out || i >= t->n_uplinks || out->size < sizeof(*out))
		return -EINVAL;
	u = &t->uplinks[i];
	*out = (struct rck_topology_uplink){
		.size = out->size, .lower = u->lower, .upper = u->upper, .lower_port = u->lport,
		.upper_port = u->uport, .source = t->srcs[u->src],
	};
	return 0;
}

RCK_EXPORT unsigned int rck_topology_conflict_count(const struct rck_topology *t)
{
	return t ? (unsigned int)t->n_conflicts : 0;
}

RCK_EXPORT int rck_topology_conflict(const struct rck_topology *t, unsigned int i, const char **what,
				     const char **source_a, const char **source_b)
{
	if (!t || i >= t->n_conflicts)
		return -EINVAL;
	if (what)
		*what = t->conflicts[i].what;
	if (source_a)
		*source_a = t->srcs[t->conflicts[i].a];
	if (source_b)
		*source_b = t->srcs[t->conflicts[i].b];
	return 0;
}
