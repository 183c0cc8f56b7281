/* rocecheck: RDMA fabric health from the command line. This file holds only
 * the command table; each command lives in its own cmd_*.c. */
#include <string.h>

#include "commands.h"

static int cmd_help(struct cli *cli, int argc, char **argv);

static const struct cli_cmd commands[] = {
	{ "devices", cmd_devices, "[DEV]", "RDMA devices, ports, netdevs and GIDs",
	  devices_opts, .json = true },
	{ "counters", cmd_counters, "[DEV[/PORT]] | --diff OLD NEW",
	  "counter snapshot, rates, or a saved comparison", counters_opts, .json = true },
	{ "probe", cmd_probe, "--listen | HOST",
	  "RDMA bandwidth and latency probe (server or client)", probe_opts, .json = true },
	{ "help", cmd_help, "[COMMAND]", "the usage, or a command's usage", NULL, .no_ctx = true },
	{ 0 }
};

static const struct cli_tool rocecheck = {
	.prog = "rocecheck",
	.summary = "RDMA (RoCEv2) fabric health: inventory, counters, probes.",
	.man = "rocecheck(8)",
	.globals = cli_std_globals,
	.cmds = commands,
};

static int no_opts(struct cli *cli, void *data, int id, const char *arg)
{
	return EXIT_USAGE;
}

/* `rocecheck help [COMMAND]`: the tool's usage, or that command's. */
static int cmd_help(struct cli *cli, int argc, char **argv)
{
	int rc = cli_parse(cli, argc, argv, no_opts, NULL);

	if (rc != CLI_CONTINUE)
		return rc;
	if (cli->nargs > 1)
		return cli_usage_err(cli, "unexpected argument '%s'", cli->args[1]);
	if (cli->nargs == 1) {
		for (const struct cli_cmd *c = commands; c->name; c++) {
			if (!strcmp(c->name, cli->args[0])) {
				cli_cmd_usage(cli, c, stdout);
				return 0;
			}
		}
		return cli_usage_err(cli, "unknown command '%s'", cli->args[0]);
	}
	cli->cmd = NULL;
	cli_usage(cli, stdout);
	return 0;
}

int main(int argc, char **argv)
{
	return cli_main(&rocecheck, argc, argv);
}
