/* rocecheck: RDMA fabric health from the command line. This file holds only
 * the command table; each command lives in its own cmd_*.c. */
#include "commands.h"

static const struct cli_cmd commands[] = {
	{ "devices", cmd_devices, "[DEV]", "RDMA devices, ports, netdevs and GIDs",
	  devices_opts, .json = true },
	{ "counters", cmd_counters, "[DEV[/PORT]] | --diff OLD NEW",
	  "counter snapshot, rates, or a saved comparison", counters_opts, .json = true },
	{ "probe", cmd_probe, "--listen | HOST",
	  "RDMA bandwidth and latency probe (server or client)", probe_opts, .json = true },
	{ "agent", cmd_agent, "", "serve sweep coordinators on this host", agent_opts, .json = false },
	{ "mesh", cmd_mesh, "--hosts LIST | --hostfile FILE | --from FILE",
	  "probe every pair of hosts through their agents", mesh_opts, .json = true },
	{ "preflight", cmd_preflight, "--hosts LIST | --hostfile FILE | --from FILE",
	  "judge a fabric before a job: sweep, retests, verdict (exit 0/1/2/3)", preflight_opts, .json = true },
	{ "sweep", cmd_sweep, "", "this host's health for cron, Slurm and node-problem-detector",
	  sweep_opts, .json = true, .refused = sweep_refused },
	{ "topology", cmd_topology, "--topology FILE | --slurm-topology FILE | --lldp",
	  "switches, cables and uplinks from the sources, and the cabling lint (exit 0/1/2)",
	  topology_opts, .json = true },
	{ "monitor", cmd_monitor, "--pinglist FILE | --hosts FILE | --collect EVENTS...",
	  "watch this host's paths and ports while jobs run (JSON events)", monitor_opts, .json = false },
	{ "help", cli_cmd_help, "[COMMAND]", "the usage, or a command's usage", NULL, .no_ctx = true },
	{ 0 }
};

static const struct cli_tool rocecheck = {
	.prog = "rocecheck",
	.summary = "RDMA (RoCEv2) fabric health: inventory, counters, probes, sweeps.",
	.man = "rocecheck(8)",
	.globals = cli_std_globals,
	.cmds = commands,
};

int main(int argc, char **argv)
{
	return cli_main(&rocecheck, argc, argv);
}
