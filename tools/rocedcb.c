/* rocedcb: read, check and tune DCB for lossless RoCE. This file holds the
 * command table, the option tables and the parsing the commands share. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rdcb.h"

const struct cli_opt rdcb_check_opts[] = {
	{ RDCB_OPT_PEER, 0, "peer", NULL, "also compare with the switch's LLDP" },
	{ RDCB_OPT_WAIT, 0, "wait", "S", "with --peer: wait up to S seconds for LLDP (1-3600, default 35)" },
	{ 0 }
};

const struct cli_opt rdcb_apply_opts[] = {
	{ RDCB_OPT_DRY_RUN, 0, "dry-run", NULL, "print the whole plan (unreadable parts as unknown), write nothing" },
	{ RDCB_OPT_STATE_DIR, 0, "state-dir", "DIR", "where the previous state is saved (default /run/rocedcb)" },
	{ 0 }
};

const struct cli_opt rdcb_restore_opts[] = {
	{ RDCB_OPT_STATE_DIR, 0, "state-dir", "DIR", "where apply saved the state (default /run/rocedcb)" },
	{ 0 }
};

const struct cli_opt rdcb_peer_opts[] = {
	{ RDCB_OPT_WAIT, 0, "wait", "S", "wait up to S seconds for LLDP (1-3600, default 35)" },
	{ RDCB_OPT_LLDPAD, 0, "lldpad", NULL, "ask lldpad (running here) what it heard instead of capturing" },
	{ 0 }
};

static const struct cli_cmd commands[] = {
	{ "show", rdcb_show, "[IF|DEV]...", "DCB state of ports (all RDMA ports by default)", NULL,
	  .json = true },
	{ "check", rdcb_check, "PROFILE [IF...]",
	  "compare ports with a profile: exit 0 match, 1 drift, 2 error", rdcb_check_opts, .json = true },
	{ "apply", rdcb_apply, "PROFILE [IF...]", "bring ports to a profile, undone on any failure",
	  rdcb_apply_opts, .json = false },
	{ "restore", rdcb_restore, "[IF...]", "return ports to the state saved by apply",
	  rdcb_restore_opts, .json = false },
	{ "peer", rdcb_peer, "IF", "the switch's DCBX settings from its LLDP (chassis, port, ETS, PFC, APP)",
	  rdcb_peer_opts, .json = true },
	{ "help", cli_cmd_help, "[COMMAND]", "the usage, or a command's usage", NULL, .no_ctx = true },
	{ 0 }
};

static const struct cli_tool rocedcb = {
	.prog = "rocedcb",
	.summary = "Read, check and tune DCB (PFC, ETS, APP, rdma_cm ToS) for lossless RoCE.",
	.man = "rocedcb(8)",
	.globals = cli_std_globals,
	.cmds = commands,
};

static int rdcb_opt(struct cli *cli, void *data, int id, const char *arg)
{
	struct rdcb_opts *o = data;

	switch (id) {
	case RDCB_OPT_DRY_RUN:
		o->dry_run = true;
		return 0;
	case RDCB_OPT_PEER:
		o->peer = true;
		return 0;
	case RDCB_OPT_LLDPAD:
		o->lldpad = true;
		return 0;
	case RDCB_OPT_STATE_DIR:
		if (!*arg)
			return cli_bad_args(cli, "invalid --state-dir '': a directory");
		o->state_dir = arg;
		return 0;
	case RDCB_OPT_WAIT:
		if (cli_parse_uint(arg, 1, 3600, &o->wait_s))
			return cli_bad_args(cli, "invalid --wait '%s': seconds, 1 to 3600", arg);
		o->wait_given = true;
		return 0;
	default:
		return EXIT_USAGE;
	}
}

int rdcb_parse(struct cli *cli, int argc, char **argv, struct rdcb_opts *o)
{
	bool lldp;
	int rc;

	memset(o, 0, sizeof(*o));
	o->state_dir = RDCB_STATE_DIR;
	o->wait_s = RDCB_WAIT_S;
	rc = cli_parse(cli, argc, argv, rdcb_opt, o);
	if (rc != CLI_CONTINUE)
		return rc;
	lldp = o->peer || !strcmp(cli->cmd->name, "peer");
	if (o->wait_given && !lldp)
		return cli_bad_args(cli, "--wait is the LLDP wait of --peer: give --peer too");
	if (o->wait_given && o->lldpad)
		return cli_bad_args(cli, "--wait is for capturing; lldpad answers within -t/--timeout MS");
	if (o->lldpad)
		return CLI_CONTINUE;
	/* `-t 30` meant as 30 s would make every step a 30 ms deadline; the
	 * wait for LLDP is --wait in seconds. */
	if (lldp && cli->ctx && rck_ctx_get_timeout_ms(cli->ctx) < 1000)
		return cli_bad_args(cli, "-t/--timeout %u is milliseconds for each step (1000 or more here); "
				    "the wait for LLDP is --wait S, in seconds",
				    rck_ctx_get_timeout_ms(cli->ctx));
	return CLI_CONTINUE;
}

int rdcb_profile(struct cli *cli, struct rck_dcb_profile **out)
{
	char err[512];
	int rc;

	if (cli->nargs < 1)
		return cli_usage_err(cli, "a PROFILE is needed");
	rc = rck_dcb_profile_load(cli->args[0], err, sizeof(err), out);
	if (rc) {
		cli_msg(cli, "%s", err[0] ? err : strerror(-rc));
		return EXIT_USAGE;
	}
	return CLI_CONTINUE;
}

void rdcb_ifnames_free(char **names)
{
	for (size_t i = 0; names && names[i]; i++)
		free(names[i]);
	free(names);
}

static int add_name(char ***v, size_t *n, const char *name)
{
	char **nv;

	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*v)[i], name))
			return 0;
	nv = realloc(*v, (*n + 2) * sizeof(char *));
	if (!nv)
		return -ENOMEM;
	*v = nv;
	nv[*n] = strdup(name);
	if (!nv[*n])
		return -ENOMEM;
	nv[++*n] = NULL;
	return 0;
}

int rdcb_ifnames(struct cli *cli, char **names, int count, char ***out, size_t *n)
{
	struct rck_inventory *inv;
	char **v = NULL;
	int rc = 0;

	*n = 0;
	for (int i = 0; i < count && !rc; i++)
		rc = add_name(&v, n, names[i]);
	if (!rc && !count) {
		rc = rck_inventory_new(cli->ctx, &inv);
		if (rc) {
			cli_msg(cli, "no RDMA device found; name an interface");
			return rc == -ENOMEM ? rc : -ENOENT;
		}
		for (unsigned int i = 0; i < rck_inventory_device_count(inv) && !rc; i++) {
			const struct rck_device *d = rck_inventory_device(inv, i);

			for (unsigned int j = 0; j < rck_device_port_count(d) && !rc; j++) {
				const char *nd = rck_port_netdev(rck_device_port(d, j));

				if (nd)
					rc = add_name(&v, n, nd);
			}
		}
		rck_inventory_free(inv);
	}
	if (!rc && !*n)
		rc = -ENOENT;
	if (rc) {
		if (rc == -ENOENT)
			cli_msg(cli, "no RDMA device found; name an interface");
		else
			cli_fail(cli, rc, "cannot list the RDMA devices");
		rdcb_ifnames_free(v);
		return rc;
	}
	*out = v;
	return 0;
}

int main(int argc, char **argv)
{
	return cli_main(&rocedcb, argc, argv);
}
