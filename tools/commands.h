/* The rocecheck tool's command handlers, one file each (cmd_*.c), listed
 * in the command table of rocecheck.c. */
#ifndef RCK_TOOLS_COMMANDS_H
#define RCK_TOOLS_COMMANDS_H

#include "cli.h"

int cmd_devices(struct cli *cli, int argc, char **argv);
int cmd_counters(struct cli *cli, int argc, char **argv);
int cmd_probe(struct cli *cli, int argc, char **argv);
int cmd_agent(struct cli *cli, int argc, char **argv);
int cmd_mesh(struct cli *cli, int argc, char **argv);

#endif
