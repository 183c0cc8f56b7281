/* `rocecheck mesh --launcher`: start the agents through a launcher and give
 * the coordinator their ports and tokens (tools/mesh_launch.c). */
#ifndef RCK_TOOLS_MESH_LAUNCH_H
#define RCK_TOOLS_MESH_LAUNCH_H

#include <rocecheck/rocecheck.h>

#include "cli.h"

/* Starts `rocecheck agent --once` on every host of @hl through @launcher
 * (ssh takes -F $ROCECHECK_SSH_CONFIG when set) and adds each host to @c
 * with its port and token. *@out is the launch, to stop after the sweep.
 * Returns 0 or the command's exit code (a message is printed). */
int mesh_launch_hosts(struct cli *cli, struct rck_mesh_config *c, const struct rck_hostlist *hl,
		      const char *launcher, struct rck_launch **out);
/* "bw", "lat" or "bw,lat" (--test of mesh and preflight) as a mask of
 * 1 << enum rck_mesh_test. 0 or -EINVAL. */
int mesh_parse_tests(const char *arg, unsigned int *mask);
/* "coordinator" or "agents": 0 or -EINVAL. */
int mesh_parse_schedule(const char *arg, enum rck_mesh_schedule *out);
/* Hosts the sweep found unreachable get the launcher's reason, if it had one. */
void mesh_launch_mark(const struct rck_launch *l, struct rck_mesh *m);

#endif
