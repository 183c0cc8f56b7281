/* Index of a plan's two-NIC units by their NIC pair, so the scheduler can
 * ask "which units join NIC u and NIC v" in O(1) instead of scanning. */
#ifndef RCK_MESH_PAIRIDX_H
#define RCK_MESH_PAIRIDX_H

#include <stdint.h>

#include "plan.h"

struct pairidx {
	uint64_t *keys;   /* (min << 32 | max) + 1, 0 empty */
	uint32_t *first;  /* per slot: its units are units[first .. first + count) */
	uint32_t *count;
	uint32_t mask;
	uint32_t *units;  /* ascending (plan order) within a pair */
};

/* Index every unit of @p with exactly two NICs. 0 or -ENOMEM. */
int pairidx_build(struct pairidx *x, const struct mesh_plan *p);
/* The units joining NICs @a and @b (either order); *@n = 0 for none. */
const uint32_t *pairidx_get(const struct pairidx *x, uint32_t a, uint32_t b, uint32_t *n);
void pairidx_free(struct pairidx *x);

#endif
