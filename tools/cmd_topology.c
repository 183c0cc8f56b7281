/* `rocecheck topology`: the switches between the hosts from a topology
 * file, Slurm's topology.conf and lldpd, and the cabling lint on them. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"

/* Exit codes of this command (rocecheck-topology(8)). */
enum { TOPO_CLEAN = 0, TOPO_FINDINGS = 1, TOPO_CANNOT = 2 };

#define TOPO_FILES_MAX 16

struct topo_args {
	const char *files[TOPO_FILES_MAX], *slurm[TOPO_FILES_MAX];
	unsigned int n_files, n_slurm;
	bool lldp;
	const char *socket, *host;
};

enum { OPT_SLURM = 256, OPT_FILE, OPT_LLDP, OPT_SOCKET, OPT_HOST };

const struct cli_opt topology_opts[] = {
	{ OPT_FILE, 0, "topology", "FILE", "our topology file (JSON, rocecheck-topology(8)); merged first" },
	{ OPT_SLURM, 0, "slurm-topology", "FILE", "Slurm's topology.conf (topology/tree); merged next" },
	{ OPT_LLDP, 0, "lldp", NULL, "this host's LLDP neighbours from lldpd; merged last" },
	{ OPT_SOCKET, 0, "lldp-socket", "PATH", "lldpd's control socket (default lldpd's own)" },
	{ OPT_HOST, 0, "host", "NAME", "this host's name for --lldp (default the hostname)" },
	{ 0 }
};

static int topo_opt(struct cli *cli, void *data, int id, const char *arg)
{
	struct topo_args *a = data;

	switch (id) {
	case OPT_FILE:
	case OPT_SLURM: {
		const char **list = id == OPT_FILE ? a->files : a->slurm;
		unsigned int *n = id == OPT_FILE ? &a->n_files : &a->n_slurm;

		if (*n == TOPO_FILES_MAX)
			return cli_bad_args(cli, "at most %d files per option", TOPO_FILES_MAX);
		list[(*n)++] = arg;
		return 0;
	}
	case OPT_LLDP:
		a->lldp = true;
		return 0;
	case OPT_SOCKET:
		a->socket = arg;
		return 0;
	case OPT_HOST:
		if (!*arg)
			return cli_bad_args(cli, "--host needs a name");
		a->host = arg;
		return 0;
	default:
		return EXIT_USAGE;
	}
}

static int load(struct cli *cli, struct rck_topology *t, const struct topo_args *a)
{
	char err[512], host[256];
	int rc = 0;

	for (unsigned int i = 0; !rc && i < a->n_files; i++)
		rc = rck_topology_load_json(t, a->files[i], err, sizeof(err));
	for (unsigned int i = 0; !rc && i < a->n_slurm; i++)
		rc = rck_topology_load_slurm(t, a->slurm[i], err, sizeof(err));
	if (!rc && a->lldp) {
		const char *me = a->host;

		if (!me) {
			if (gethostname(host, sizeof(host) - 1)) {
				cli_msg(cli, "cannot read the host name: %s", strerror(errno));
				return TOPO_CANNOT;
			}
			host[sizeof(host) - 1] = 0;
			me = host;
		}
		rc = rck_topology_add_lldpd(t, cli->ctx, me, a->socket, rck_ctx_get_timeout_ms(cli->ctx), err,
					    sizeof(err));
	}
	if (rc == -ENOMEM) {
		cli_fail(cli, rc, "cannot build the topology");
		return TOPO_CANNOT;
	}
	if (rc) {
		cli_msg(cli, "%s", err);
		return TOPO_CANNOT;
	}
	return 0;
}

int cmd_topology(struct cli *cli, int argc, char **argv)
{
	struct topo_args a = { 0 };
	struct rck_topology *t = NULL;
	struct rck_report *lint = NULL;
	int rc;

	rc = cli_parse(cli, argc, argv, topo_opt, &a);
	if (rc != CLI_CONTINUE)
		return rc;
	if (cli->nargs)
		return cli_usage_err(cli, "unexpected argument '%s'", cli->args[0]);
	if (!a.n_files && !a.n_slurm && !a.lldp)
		return cli_usage_err(cli, "give --topology, --slurm-topology or --lldp");
	if ((a.socket || a.host) && !a.lldp)
		return cli_bad_args(cli, "--lldp-socket and --host go with --lldp");
	if (rck_topology_new(&t)) {
		cli_fail(cli, -ENOMEM, "cannot build the topology");
		return TOPO_CANNOT;
	}
	rc = load(cli, t, &a);
	if (!rc && rck_topology_lint(t, &lint)) {
		cli_fail(cli, -ENOMEM, "cannot lint the topology");
		rc = TOPO_CANNOT;
	}
	if (!rc) {
		int w = rck_topology_write(t, lint, stdout, cli->fmt);

		if (w || fflush(stdout)) {
			cli_fail(cli, w ? w : -EIO, "cannot write the topology");
			rc = TOPO_CANNOT;
		} else {
			rc = rck_report_finding_count(lint) ? TOPO_FINDINGS : TOPO_CLEAN;
		}
	}
	rck_report_free(lint);
	rck_topology_free(t);
	return rc;
}
