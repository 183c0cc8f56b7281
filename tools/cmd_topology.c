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
	const char *agents, *key_file;
	unsigned long capture_ms;
};

enum { OPT_SLURM = 256, OPT_FILE, OPT_LLDP, OPT_SOCKET, OPT_HOST, OPT_AGENTS, OPT_KEY, OPT_CAPTURE };

/* Real switches send LLDP every 30 s: a capture one interval long hears one. */
#define CAPTURE_MS_DEFAULT 31000

const struct cli_opt topology_opts[] = {
	{ OPT_FILE, 0, "topology", "FILE", "our topology file (JSON, rocecheck-topology(8)); merged first" },
	{ OPT_SLURM, 0, "slurm-topology", "FILE", "Slurm's topology.conf (topology/tree); merged next" },
	{ OPT_LLDP, 0, "lldp", NULL, "this host's LLDP neighbours from lldpd; merged last" },
	{ OPT_SOCKET, 0, "lldp-socket", "PATH", "lldpd's control socket (default lldpd's own)" },
	{ OPT_HOST, 0, "host", "NAME", "this host's name for --lldp (default the hostname)" },
	{ OPT_AGENTS, 0, "from-agents", "HOSTS", "the LLDP neighbours the agents on HOSTS hear (HOST[:PORT] nodelist); merged last" },
	{ OPT_KEY, 0, "key-file", "FILE", "the agents' shared key (default $ROCECHECK_KEY_FILE)" },
	{ OPT_CAPTURE, 0, "lldp-capture", "MS", "longest LLDP capture per agent where lldpd has no neighbour (default 31000)" },
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
	case OPT_AGENTS:
		a->agents = arg;
		return 0;
	case OPT_KEY:
		a->key_file = arg;
		return 0;
	case OPT_CAPTURE:
		if (cli_parse_uint(arg, 0, 120000, &a->capture_ms))
			return cli_bad_args(cli, "--lldp-capture takes milliseconds, 0..120000");
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

/* The agents' config: hosts ("NAME:PORT" names an agent on another port), key, LLDP asked. */
static int agents_config(struct cli *cli, const struct topo_args *a, struct rck_mesh_config *c)
{
	struct rck_hostlist *hl = NULL;
	uint8_t key[RCK_KEY_MAX];
	char err[512];
	size_t len;
	int rc = rck_hostlist_new(&hl);

	if (!rc && (rc = rck_hostlist_add(hl, a->agents, err, sizeof(err)))) {
		cli_msg(cli, "invalid --from-agents '%s': %s", a->agents, err);
		rck_hostlist_free(hl);
		return rc;
	}
	for (unsigned int i = 0; !rc && i < rck_hostlist_count(hl); i++) {
		const char *name = rck_hostlist_get(hl, i), *colon = strchr(name, ':');
		unsigned long port = 0;
		char addr[RCK_HOST_NAME_MAX + 1];

		if (colon && !strchr(colon + 1, ':') && !cli_parse_uint(colon + 1, 1, 65535, &port)) {
			snprintf(addr, sizeof(addr), "%.*s", (int)(colon - name), name);
			rc = rck_mesh_config_add_host(c, name, addr, (unsigned int)port, NULL, 0);
		} else {
			rc = rck_mesh_config_add_host(c, name, NULL, 0, NULL, 0);
		}
	}
	rck_hostlist_free(hl);
	if (!rc && a->key_file) {
		rc = rck_key_load(a->key_file, key, sizeof(key), &len, err, sizeof(err));
		if (rc) {
			cli_msg(cli, "%s", err);
			return rc;
		}
		rc = rck_mesh_config_set_key(c, key, len);
		memset(key, 0, sizeof(key));
	}
	return rc ?: rck_mesh_config_set_lldp(c, true, (unsigned int)a->capture_ms);
}

/* Meet the agents, keep what they heard; unreachable hosts and agents that
 * could not read their neighbours are warnings, not the topology's fault. */
static int from_agents(struct cli *cli, struct rck_topology *t, const struct topo_args *a)
{
	struct rck_mesh_config *c = NULL;
	struct rck_mesh *m = NULL;
	unsigned int answered = 0;
	int rc = rck_mesh_config_new(&c);

	if (!rc)
		rc = agents_config(cli, a, c);
	if (!rc)
		rc = rck_mesh_collect(cli->ctx, c, &m);
	for (unsigned int h = 0; !rc && h < rck_mesh_host_count(m); h++) {
		const char *why = rck_mesh_host_unreachable(m, h);
		size_t n;

		if (why)
			cli_msg(cli, "%s: unreachable: %s", rck_mesh_host_name(m, h), why);
		else if (!rck_mesh_host_lldp_count(m, h, &n, &why) && (answered++, why))
			cli_msg(cli, "%s: LLDP: %s", rck_mesh_host_name(m, h), why);
	}
	if (!rc && !answered) {
		cli_msg(cli, "--from-agents: no agent answered");
		rc = -EHOSTUNREACH;
	}
	if (!rc)
		rc = rck_topology_add_mesh_lldp(t, m, "agents");
	rck_mesh_free(m);
	rck_mesh_config_free(c);
	return rc;
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
	if (!rc && a->agents && (rc = from_agents(cli, t, a)) && rc != -ENOMEM)
		return TOPO_CANNOT;
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
	struct topo_args a = { .capture_ms = CAPTURE_MS_DEFAULT };
	struct rck_topology *t = NULL;
	struct rck_report *lint = NULL;
	int rc;

	rc = cli_parse(cli, argc, argv, topo_opt, &a);
	if (rc != CLI_CONTINUE)
		return rc;
	if (cli->nargs)
		return cli_usage_err(cli, "unexpected argument '%s'", cli->args[0]);
	if (!a.n_files && !a.n_slurm && !a.lldp && !a.agents)
		return cli_usage_err(cli, "give --topology, --slurm-topology, --lldp or --from-agents");
	if (a.key_file && !a.agents)
		return cli_bad_args(cli, "--key-file goes with --from-agents");
	/* The tool, never the library, reads the environment. */
	if (a.agents && !a.key_file)
		a.key_file = getenv("ROCECHECK_KEY_FILE");
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
