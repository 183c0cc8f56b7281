/* --topology FILE for the commands that sweep or judge (mesh, preflight):
 * our JSON topology file or Slurm's topology.conf, told apart by content. */
#ifndef RCK_TOOLS_TOPO_FILE_H
#define RCK_TOOLS_TOPO_FILE_H

#include "cli.h"
#include "rocecheck/topology.h"

/* Load @path into a new *@out (NULL @path: *@out NULL, nothing read). A file
 * whose first non-blank byte is '{' is JSON, anything else topology.conf.
 * Returns 0, or EXIT_USAGE after one line naming the file. */
int cli_topology_load(struct cli *cli, const char *path, struct rck_topology **out);

#endif
