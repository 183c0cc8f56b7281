/* Internal knobs of host lists, for tests and fuzzing only. */
#ifndef RCK_MESH_HOSTLIST_H
#define RCK_MESH_HOSTLIST_H

#include "rocecheck/mesh.h"

/* Lower the cap of @hl (kept between its size and RCK_HOSTLIST_MAX), so a
 * fuzzer spends its time parsing rather than expanding. */
void hostlist_set_max(struct rck_hostlist *hl, unsigned int max);

#endif
