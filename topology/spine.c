/* The spine tier host-side LLDP cannot see: every leaf without a known
 * uplink hangs off one implied spine, so cross-leaf paths have uplinks. */
#include <errno.h>
#include <stdlib.h>

#include "topo_int.h"

RCK_EXPORT int rck_topology_imply_spine(struct rck_topology *t, const char *name)
{
	uint8_t *role; /* bit 0: hosts hang off it, bit 1: has an uplink, bit 2: is above one */
	unsigned int n_leaves = 0;
	unsigned int found;
	uint32_t spine;
	uint16_t src;
	int rc = 0;

	if (!t)
		return -EINVAL;
	if (!name || !*name)
		name = "spine";
	role = calloc(t->n_sw ? t->n_sw : 1, 1);
	if (!role)
		return -ENOMEM;
	for (size_t i = 0; i < t->n_cables; i++)
		if (t->cables[i].sw >= 0)
			role[t->cables[i].sw] |= 1;
	for (size_t i = 0; i < t->n_uplinks; i++) {
		role[t->uplinks[i].lower] |= 2;
		role[t->uplinks[i].upper] |= 4;
	}
	for (size_t s = 0; s < t->n_sw; s++)
		n_leaves += role[s] == 1;
	/* A switch of that name with hosts of its own is no spine. */
	if (!rck_topology_switch_find(t, name, &found) && (role[found] & 1))
		rc = -EEXIST;
	if (!rc && n_leaves) {
		size_t n_sw = t->n_sw;

		rc = tp_source(t, "implied", &src);
		if (!rc)
			rc = tp_switch(t, name, false, &spine);
		if (!rc)
			rc = tp_set_tier(t, spine, RCK_SWITCH_TIER_SPINE, src);
		for (size_t s = 0; !rc && s < n_sw; s++) {
			if (role[s] != 1)
				continue;
			if (t->sw[s].tier == RCK_SWITCH_TIER_UNKNOWN)
				rc = tp_set_tier(t, (uint32_t)s, RCK_SWITCH_TIER_LEAF, src);
			if (!rc)
				rc = tp_uplink(t, (uint32_t)s, spine, TP_NONE, TP_NONE, src);
		}
	}
	free(role);
	return rc;
}
