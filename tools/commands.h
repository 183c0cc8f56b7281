/* The rocecheck tool's command handlers and their option tables, one file
 * each (cmd_*.c), listed in the command table of rocecheck.c. */
#ifndef RCK_TOOLS_COMMANDS_H
#define RCK_TOOLS_COMMANDS_H

#include "cli.h"

extern const struct cli_opt devices_opts[];
extern const struct cli_opt counters_opts[];
extern const struct cli_opt probe_opts[];
extern const struct cli_opt agent_opts[];
extern const struct cli_opt mesh_opts[];
extern const struct cli_opt preflight_opts[];
extern const struct cli_opt sweep_opts[];
extern const struct cli_opt topology_opts[];
extern const struct cli_opt monitor_opts[];

int cmd_devices(struct cli *cli, int argc, char **argv);
int cmd_counters(struct cli *cli, int argc, char **argv);
int cmd_probe(struct cli *cli, int argc, char **argv);
int cmd_agent(struct cli *cli, int argc, char **argv);
int cmd_mesh(struct cli *cli, int argc, char **argv);
int cmd_preflight(struct cli *cli, int argc, char **argv);
int cmd_sweep(struct cli *cli, int argc, char **argv);
/* A run refused before it started: with --format npd, the NPD line. */
void sweep_refused(struct cli *cli, int argc, char **argv, const char *why);
int cmd_topology(struct cli *cli, int argc, char **argv);
int cmd_monitor(struct cli *cli, int argc, char **argv);

#endif
