/* rocecheck: RDMA fabric health from the command line. This file holds only
 * the command table; each command lives in its own cmd_*.c. */
#include "commands.h"

static int cmd_help(struct cli *cli, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	cli_usage(cli, stdout);
	return 0;
}

static const struct cli_cmd commands[] = {
	{ "devices", cmd_devices, "", "RDMA devices, ports, netdevs and GIDs", true },
	{ "counters", cmd_counters,
	  "[DEV[/PORT]] [--interval S --count N] [--save FILE] [--all] | --diff OLD NEW",
	  "counter snapshot, rates, or a saved comparison", true },
	{ "probe", cmd_probe,
	  "--listen [--port P] | HOST [--test bw|lat|send-lat] [--size S] [--qps N] [--duration S | --iters N] [--cm]",
	  "RDMA bandwidth and latency probe (server or client)", true },
	{ "agent", cmd_agent, "[--listen [ADDR:]PORT] [--key-file F] [--once] [--idle S]",
	  "serve sweep coordinators on this host", false },
	{ "mesh", cmd_mesh,
	  "--hosts LIST | --hostfile F [--test bw,lat] [--pattern P] [--rails same|all] [-d DEV]",
	  "sweep probes between every pair of hosts through their agents", true },
	{ "help", cmd_help, "", "this help", false },
	{ 0 }
};

int main(int argc, char **argv)
{
	return cli_main("rocecheck", commands, argc, argv);
}
