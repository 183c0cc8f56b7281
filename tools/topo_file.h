/* --topology FILE for the commands that sweep or judge (mesh, preflight):
 * our JSON topology file or Slurm's topology.conf, told apart by content. */
#ifndef RCK_TOOLS_TOPO_FILE_H
#define RCK_TOOLS_TOPO_FILE_H

#include <stdbool.h>
#include <string.h>

#include "cli.h"
#include "rocecheck/topology.h"

/* Load @path into a new *@out (NULL @path: *@out NULL, nothing read). A file
 * whose first non-blank byte is '{' is JSON, anything else topology.conf.
 * Returns 0, or EXIT_USAGE after one line naming the file. */
int cli_topology_load(struct cli *cli, const char *path, struct rck_topology **out);

/* --topology agents: the model from the agents' LLDP, built by the sweep
 * (a file of that name is ./agents). */
#define CLI_TOPOLOGY_AGENTS "agents"
static inline bool cli_topology_agents(const char *arg)
{
	return arg && !strcmp(arg, CLI_TOPOLOGY_AGENTS);
}
/* --lldp-capture MS with --topology agents: real switches send LLDP every
 * 30 s, a capture one interval long hears one. */
#define CLI_LLDP_CAPTURE_MS 31000
/* Parse --lldp-capture into *@ms: 0 or EXIT_USAGE after one line. */
int cli_lldp_capture_opt(struct cli *cli, const char *arg, unsigned long *ms);

#endif
