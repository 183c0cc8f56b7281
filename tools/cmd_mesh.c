/* `rocecheck mesh`: sweep probes between every pair of hosts through their
 * agents (or load a saved sweep), and print, save or draw the result. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "heatmap_save.h"
#include "probe_shared.h"
#include "progress.h"
#include "topo_file.h"

static struct rck_mesh_config *running_cfg;

static void on_signal(int sig)
{
	(void)sig;
	rck_mesh_cancel(running_cfg);
}

enum { OPT_HOSTS = 256, OPT_HOSTFILE, OPT_PATTERN, OPT_PAIRS, OPT_DEADLINE, OPT_OUTPUT,
       OPT_HEATMAP, OPT_FROM, OPT_DCB, OPT_DRY_RUN, OPT_BIDIR, OPT_PCIE, OPT_TOPOLOGY,
       OPT_LLDP_CAPTURE };

const struct cli_opt mesh_opts[] = {
	{ OPT_HOSTS, 0, "hosts", "LIST", "hosts or a nodelist (node[01-16]); NAME:PORT: an agent on another port" },
	{ OPT_HOSTFILE, 0, "hostfile", "FILE", "one nodelist expression per line" },
	{ OPT_PATTERN, 0, "pattern", "P", "full (default; topo with --topology), quick, incast:K, topo (with --topology), or pairs (with --pairs)" },
	{ OPT_PAIRS, 0, "pairs", "FILE", "explicit \"SRC DST\" pairs, one a line" },
	SHARED_PROBE_OPTS,
	{ OPT_DEADLINE, 0, "deadline", "S", "record what has not run after S seconds as skipped" },
	{ OPT_OUTPUT, 0, "output", "FILE", "also write the JSON result to FILE" },
	{ OPT_OUTPUT, 0, "report", "FILE", "the same as --output" },
	{ OPT_HEATMAP, 0, "heatmap", "FILE", "draw the bandwidth (else latency) matrix to FILE.svg or FILE.png" },
	{ OPT_FROM, 0, "from", "FILE", "no sweep: load a result saved with --output" },
	{ OPT_FROM, 0, "from-mesh", "FILE", "the same as --from" },
	{ OPT_DCB, 0, "dcb", NULL, "also keep each host's DCB state (PFC, trust, DSCP map...) as its agent reads it" },
	{ OPT_PCIE, 0, "pcie", NULL, "also keep each host's PCIe paths (GPU-NIC pairing, ACS, links...) as its agent reads them" },
	{ OPT_BIDIR, 0, "bidir", NULL,
	  "full pattern: both directions of a pair at once (n-1 steps; each end's counters see both)" },
	{ OPT_DRY_RUN, 0, "dry-run", NULL, "print the hosts and the plan; contact no one, start nothing" },
	{ OPT_DRY_RUN, 0, "list-hosts", NULL, "the same as --dry-run" },
	{ OPT_TOPOLOGY, 0, "topology", "FILE|agents",
	  "the switches (topology JSON, Slurm topology.conf, or agents: the agents' LLDP): --pattern topo plans by it, --heatmap groups by leaf" },
	{ OPT_LLDP_CAPTURE, 0, "lldp-capture", "MS",
	  "--topology agents: longest LLDP capture per agent where lldpd has no neighbour (default 31000)" },
	{ 0 }
};

static void show_progress(void *data, const struct rck_mesh_progress *p)
{
	struct progress_state s = {.who = "mesh", .done = p->done, .total = p->total,
				   .hosts_down = p->hosts_down, .elapsed_s = p->elapsed_s, .eta_s = p->eta_s};

	(void)data;
	progress_show(stderr, &s, p->done == p->total);
}

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t cap = 0;

	if (!f)
		return NULL;
	*len = 0;
	for (;;) {
		char *n;

		if (*len + 4096 > cap && (cap = cap * 2 + 4096) > (16u << 20))
			break;
		if (!(n = realloc(buf, cap)))
			break;
		buf = n;
		size_t got = fread(buf + *len, 1, cap - *len, f);

		*len += got;
		if (got == 0) {
			fclose(f);
			return buf;
		}
	}
	fclose(f);
	free(buf);
	return NULL;
}

struct save_arg {
	const struct rck_mesh *m;
	enum rck_format json; /* --output */
};

static int write_json(FILE *f, const void *arg)
{
	const struct save_arg *s = arg;

	return rck_mesh_write(s->m, f, s->json);
}

/* The JSON result to --output and the picture to --heatmap, each written
 * whole or not at all. */
static int save(struct cli *cli, const struct rck_mesh *m, const char *output, const char *heatmap)
{
	struct save_arg sa = {.m = m,
			      .json = cli->fmt == RCK_FORMAT_JSON_PRETTY ? RCK_FORMAT_JSON_PRETTY
									 : RCK_FORMAT_JSON};
	int rc;

	if (output && (rc = rck_write_file_atomic(output, write_json, &sa)))
		return cli_fail(cli, rc, "cannot write %s", output);
	/* --topology agents: the model the sweep built from their LLDP. */
	if (rck_mesh_topology(m))
		heatmap_set_topology(rck_mesh_topology(m));
	return heatmap && heatmap_save(cli, m, NULL, heatmap) ? EXIT_FAIL : 0;
}

struct mesh_args {
	struct rck_hostlist *hl;
	struct rck_mesh_config *c;
	const char *output, *pairs, *pattern, *heatmap, *from, *topology;
	struct rck_topology *topo;
	unsigned long capture_ms;
	bool capture_set;
	struct rck_launch *launch; /* agents started by --launcher, stopped at the end */
	struct shared_probe probe; /* the options mesh and preflight share */
	double deadline;
	bool dcb, dry_run, bidir, pcie;
};

static int mesh_opt(struct cli *cli, void *data, int c, const char *arg)
{
	struct mesh_args *a = data;
	char err[300];
	int rc = shared_probe_opt(cli, &a->probe, c, arg);

	if (rc != CLI_CONTINUE)
		return rc;
	switch (c) {
	case OPT_HOSTS:
	case OPT_HOSTFILE:
		rc = c == OPT_HOSTS ? rck_hostlist_add(a->hl, arg, err, sizeof(err))
			      : rck_hostlist_add_file(a->hl, arg, err, sizeof(err));
		if (rc)
			return cli_bad_args(cli, "invalid %s '%s': %s",
					    c == OPT_HOSTS ? "--hosts" : "--hostfile", arg,
					    rc == -EINVAL || rc == -E2BIG ? err : strerror(-rc));
		return 0;
	case OPT_PATTERN:
		a->pattern = arg;
		return 0;
	case OPT_DEADLINE:
		if (cli_parse_double(arg, rck_mesh_limits()->deadline_min_s, rck_mesh_limits()->deadline_max_s,
				     &a->deadline))
			return cli_bad_args(cli, "invalid --deadline '%s': seconds", arg);
		return 0;
	case OPT_OUTPUT:
		a->output = arg;
		return 0;
	case OPT_HEATMAP: {
		enum rck_heatmap_format fmt;

		if (rck_heatmap_format_from_path(arg, &fmt))
			return cli_bad_args(cli, "invalid --heatmap '%s': a file name ending in .svg or .png",
					    arg);
		a->heatmap = arg;
		return 0;
	}
	case OPT_TOPOLOGY:
		a->topology = arg;
		return 0;
	case OPT_LLDP_CAPTURE:
		a->capture_set = true;
		return cli_lldp_capture_opt(cli, arg, &a->capture_ms);
	case OPT_FROM:
		a->from = arg;
		return 0;
	case OPT_DCB:
		a->dcb = true;
		return 0;
	case OPT_PCIE:
		a->pcie = true;
		return 0;
	case OPT_BIDIR:
		a->bidir = true;
		return 0;
	case OPT_PAIRS:
		a->pairs = arg;
		return 0;
	case OPT_DRY_RUN:
		a->dry_run = true;
		return 0;
	default:
		return EXIT_USAGE;
	}
}

/* --launcher: the library's one launch path of sweeps (launch/sweep.c),
 * as the preflight's: a host the launcher could not start is unreachable
 * with its reason, never resolved nor dialled. */
static int launch(struct cli *cli, struct mesh_args *a)
{
	unsigned int n = rck_hostlist_count(a->hl);
	const char **hosts = calloc(n ? n : 1, sizeof(*hosts));
	struct rck_launch_opts o;
	int rc;

	if (!hosts)
		return cli_fail(cli, -ENOMEM, "--launcher");
	for (unsigned int i = 0; i < n; i++)
		hosts[i] = rck_hostlist_get(a->hl, i);
	shared_probe_launch_opts(&a->probe, &o);
	rc = rck_launch_sweep_hosts(cli->ctx, &o, hosts, n, a->c, &a->launch);
	free(hosts);
	if (rc == -EINVAL)
		return cli_bad_args(cli, "invalid --launcher '%s' or host names for it", a->probe.launcher);
	return rc ? cli_fail(cli, rc, "--launcher %s", a->probe.launcher) : 0;
}

/* Pattern, key and probe settings once all options are in. */
static int finish_config(struct cli *cli, struct mesh_args *a)
{
	const char *pattern = a->pattern ? a->pattern : a->pairs ? "pairs" : a->topology ? "topo" : "full";
	uint8_t key[RCK_KEY_MAX];
	char err[300];
	size_t len = 0;
	char *text = NULL;
	int rc;

	if (!strcmp(pattern, "pairs") != !!a->pairs)
		return cli_bad_args(cli, "--pattern pairs and --pairs FILE go together");
	if (a->pairs && !(text = read_file(a->pairs, &len)))
		return cli_fail(cli, -errno, "cannot read --pairs '%s'", a->pairs);
	rc = rck_mesh_config_set_pattern(a->c, pattern, text, len, a->pairs);
	free(text);
	if (rc)
		return cli_bad_args(cli, "invalid --pattern '%s': full, quick, incast:K, topo or pairs",
				    pattern);
	rc = shared_probe_apply_mesh(cli, &a->probe, a->c);
	if (rc)
		return rc;
	if (rck_mesh_config_set_deadline(a->c, a->deadline) || rck_mesh_config_set_dcb(a->c, a->dcb) ||
	    rck_mesh_config_set_bidir(a->c, a->bidir) || rck_mesh_config_set_pcie(a->c, a->pcie))
		return cli_bad_args(cli, "invalid probe settings");
	if (shared_probe_key_file(&a->probe) && !a->dry_run) {
		rc = rck_key_load(shared_probe_key_file(&a->probe), key, sizeof(key), &len, err, sizeof(err));
		if (rc) {
			cli_msg(cli, "%s", err);
			return EXIT_FAIL;
		}
		rck_mesh_config_set_key(a->c, key, len);
		memset(key, 0, sizeof(key));
	}
	/* Agents started now, each with its own port and token. */
	if (a->probe.launcher && strcmp(a->probe.launcher, "none") && !a->dry_run)
		return launch(cli, a);
	for (unsigned int i = 0; i < rck_hostlist_count(a->hl); i++)
		if (rck_mesh_config_add_agent(a->c, rck_hostlist_get(a->hl, i)))
			return cli_bad_args(cli, "invalid host '%s'", rck_hostlist_get(a->hl, i));
	return 0;
}

static int finish(struct cli *cli, const struct mesh_args *a, struct rck_mesh *m);

static int run(struct cli *cli, struct mesh_args *a)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct rck_mesh *m = NULL;
	int rc;

	if (isatty(STDERR_FILENO))
		rck_mesh_config_set_progress(a->c, show_progress, NULL);
	running_cfg = a->c;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	rc = rck_mesh_run(cli->ctx, a->c, &m);
	if (rc == -EINVAL)
		return EXIT_USAGE;
	if (rc)
		return cli_fail(cli, rc, "sweep");
	rck_launch_sweep_reasons(a->launch, m);
	return finish(cli, a, m);
}

/* --dry-run: the hosts and the plan, nothing contacted. */
static int dry_run(struct cli *cli, const struct mesh_args *a)
{
	char err[300] = "";
	int rc = rck_mesh_config_write_plan(a->c, stdout, cli->fmt, err, sizeof(err));

	if ((rc == -EINVAL || rc == -E2BIG) && *err)
		return cli_bad_args(cli, "%s", err);
	return rc ? cli_fail(cli, rc, "cannot write the plan") : 0;
}

/* Save, draw and print a result (swept or loaded); frees @m. */
static int finish(struct cli *cli, const struct mesh_args *a, struct rck_mesh *m)
{
	unsigned int down = 0;
	int rc;

	for (unsigned int h = 0; h < rck_mesh_host_count(m); h++)
		down += rck_mesh_host_unreachable(m, h) != NULL;
	rc = save(cli, m, a->output, a->heatmap);
	if (!rc && (rc = rck_mesh_write(m, stdout, cli->fmt)))
		rc = cli_fail(cli, rc, "cannot write the result");
	rck_mesh_free(m);
	return rc ? rc : down ? EXIT_UNREACHABLE : 0;
}

/* --from: a result saved before, drawn or printed again; no sweep. */
static int load(struct cli *cli, const struct mesh_args *a)
{
	struct rck_mesh *m = NULL;
	int rc = rck_mesh_load(cli->ctx, a->from, &m);

	if (rc == -EINVAL)
		return EXIT_USAGE; /* the library named the problem */
	if (rc)
		return cli_fail(cli, rc, "cannot read --from '%s'", a->from);
	return finish(cli, a, m);
}

int cmd_mesh(struct cli *cli, int argc, char **argv)
{
	struct mesh_args a = { .capture_ms = CLI_LLDP_CAPTURE_MS };
	int rc;

	shared_probe_init(&a.probe);
	if (rck_hostlist_new(&a.hl) || rck_mesh_config_new(&a.c)) {
		rck_hostlist_free(a.hl);
		return cli_fail(cli, -ENOMEM, "out of memory");
	}
	rc = cli_parse(cli, argc, argv, mesh_opt, &a);
	if (rc != CLI_CONTINUE)
		goto out;
	rc = 0;
	if (cli->nargs)
		rc = cli_usage_err(cli, "unexpected argument '%s'", cli->args[0]);
	if (!rc)
		rc = cli_topology_load(cli, a.topology, &a.topo);
	if (!rc && !a.topology && a.pattern && !strcmp(a.pattern, "topo"))
		rc = cli_bad_args(cli, "--pattern topo needs --topology FILE or --topology agents");
	if (!rc && a.capture_set && !cli_topology_agents(a.topology))
		rc = cli_usage_err(cli, "--lldp-capture goes with --topology agents");
	if (!rc && cli_topology_agents(a.topology) && (a.from || a.dry_run))
		rc = cli_usage_err(cli, "--topology agents asks the agents: not with --from or --dry-run");
	if (!rc && cli_topology_agents(a.topology) &&
	    rck_mesh_config_set_topology_lldp(a.c, true, (unsigned int)a.capture_ms))
		rc = cli_bad_args(cli, "invalid --lldp-capture");
	if (!rc) {
		rck_mesh_config_set_topology(a.c, a.topo);
		heatmap_set_topology(a.topo);
	}
	if (!rc && a.from) {
		if (rck_hostlist_count(a.hl) || a.probe.launcher || a.pairs || a.pattern || a.dcb || a.probe.schedule_set ||
		    a.dry_run || a.bidir || a.pcie)
			rc = cli_usage_err(cli, "--from loads a result: no --hosts, --hostfile, "
						"--launcher, --pattern, --pairs, --dcb, --pcie, --bidir, --schedule or --dry-run with it");
		else
			rc = load(cli, &a);
		goto out;
	}
	if (!rc && rck_hostlist_count(a.hl) < 2)
		rc = cli_usage_err(cli, "give at least 2 hosts (--hosts or --hostfile)");
	if (!rc)
		rc = finish_config(cli, &a);
	if (!rc)
		rc = a.dry_run ? dry_run(cli, &a) : run(cli, &a);
out:
	rck_launch_free(a.launch);
	rck_mesh_config_free(a.c);
	rck_hostlist_free(a.hl);
	rck_topology_free(a.topo);
	return rc;
}
