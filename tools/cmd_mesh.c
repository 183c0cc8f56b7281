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
#include "internal.h" /* rck_write_atomic(), lib/atomic_file.c built in */
#include "heatmap_save.h"
#include "topo_file.h"
#include "mesh_launch.h"

static struct rck_mesh_config *running_cfg;

static void on_signal(int sig)
{
	(void)sig;
	rck_mesh_cancel(running_cfg);
}

enum { OPT_HOSTS = 256, OPT_HOSTFILE, OPT_TEST, OPT_PATTERN, OPT_PAIRS, OPT_RAILS, OPT_TRANSPORT,
       OPT_SIZE, OPT_ITERS, OPT_DURATION, OPT_DEADLINE, OPT_KEY, OPT_OUTPUT, OPT_LAUNCHER,
       OPT_HEATMAP, OPT_FROM, OPT_DCB, OPT_SCHEDULE, OPT_DRY_RUN, OPT_BIDIR, OPT_TOPOLOGY };

const struct cli_opt mesh_opts[] = {
	{ OPT_HOSTS, 0, "hosts", "LIST", "hosts or a nodelist (node[01-16]); NAME:PORT: an agent on another port" },
	{ OPT_HOSTFILE, 0, "hostfile", "FILE", "one nodelist expression per line" },
	{ OPT_TEST, 0, "test", "bw,lat", "tests on every pair (default bw)" },
	{ OPT_PATTERN, 0, "pattern", "P", "full (default), quick, incast:K, topo (with --topology), or pairs (with --pairs)" },
	{ OPT_PAIRS, 0, "pairs", "FILE", "explicit \"SRC DST\" pairs, one a line" },
	{ OPT_RAILS, 0, "rails", "same|all", "NIC i with NIC i (default), or every NIC with every NIC" },
	{ 'd', 'd', "device", "DEV", "only NICs of device DEV" },
	{ OPT_TRANSPORT, 0, "transport", "rdma|tcp", "probe transport (default rdma)" },
	{ OPT_SIZE, 0, "size", "BYTES", "message size (default per test)" },
	{ OPT_ITERS, 0, "iters", "N", "messages per probe (default 1000)" },
	{ OPT_DURATION, 0, "duration", "S", "measure each probe for S seconds instead" },
	{ OPT_DEADLINE, 0, "deadline", "S", "record what has not run after S seconds as skipped" },
	{ OPT_KEY, 0, "key-file", "FILE", "the agents' shared key (default $ROCECHECK_KEY_FILE)" },
	{ OPT_OUTPUT, 0, "output", "FILE", "also write the JSON result to FILE" },
	{ OPT_HEATMAP, 0, "heatmap", "FILE", "draw the bandwidth (else latency) matrix to FILE.svg or FILE.png" },
	{ OPT_FROM, 0, "from", "FILE", "no sweep: load a result saved with --output" },
	{ OPT_DCB, 0, "dcb", NULL, "also keep each host's DCB state (PFC, trust, DSCP map...) as its agent reads it" },
	{ OPT_BIDIR, 0, "bidir", NULL,
	  "full pattern: both directions of a pair at once (n-1 steps; each end's counters see both)" },
	{ OPT_SCHEDULE, 0, "schedule", "coordinator|agents",
	  "ignored (kept for one release): the agents run every probe from their task lists" },
	{ OPT_LAUNCHER, 0, "launcher", "L",
	  "start the agents (--once) through none (default: running agents), ssh, srun, pdsh, mpirun or 'TEMPLATE {host}'" },
	{ OPT_DRY_RUN, 0, "dry-run", NULL, "print the hosts and the plan; contact no one, start nothing" },
	{ OPT_DRY_RUN, 0, "list-hosts", NULL, "the same as --dry-run" },
	{ OPT_TOPOLOGY, 0, "topology", "FILE",
	  "the switches (topology JSON or Slurm topology.conf): --pattern topo plans by it, --heatmap groups by leaf" },
	{ 0 }
};

static void show_progress(void *data, const struct rck_mesh_progress *p)
{
	(void)data;
	fprintf(stderr, "\rmesh: %u/%u probes, %.1f s elapsed", p->done, p->total, p->elapsed_s);
	if (!isnan(p->eta_s))
		fprintf(stderr, ", ETA %.1f s", p->eta_s);
	if (p->hosts_down)
		fprintf(stderr, ", %u hosts down", p->hosts_down);
	fprintf(stderr, "   ");
	if (p->done == p->total)
		fputc('\n', stderr);
}

/* "NAME:PORT" (one colon, digits after it) names an agent on another port. */
static int add_host(struct rck_mesh_config *c, const char *name)
{
	const char *colon = strchr(name, ':');
	unsigned long port = 0;
	char addr[RCK_HOST_NAME_MAX + 1];

	if (colon && !strchr(colon + 1, ':') && !cli_parse_uint(colon + 1, 1, 65535, &port)) {
		snprintf(addr, sizeof(addr), "%.*s", (int)(colon - name), name);
		return rck_mesh_config_add_host(c, name, addr, (unsigned int)port, NULL, 0);
	}
	return rck_mesh_config_add_host(c, name, NULL, 0, NULL, 0);
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

	if (output && (rc = rck_write_atomic(output, write_json, &sa)))
		return cli_fail(cli, rc, "cannot write %s", output);
	return heatmap && heatmap_save(cli, m, NULL, heatmap) ? EXIT_FAIL : 0;
}

struct mesh_args {
	struct rck_hostlist *hl;
	struct rck_mesh_config *c;
	const char *key_file, *output, *pairs, *pattern, *launcher, *heatmap, *from, *topology;
	struct rck_topology *topo;
	struct rck_launch *launch; /* agents started by --launcher, stopped at the end */
	enum rck_probe_transport transport;
	unsigned long size, iters;
	double duration, deadline;
	bool dcb, schedule, dry_run, bidir;
};

static int mesh_opt(struct cli *cli, void *data, int c, const char *arg)
{
	struct mesh_args *a = data;
	char err[300];
	enum rck_mesh_schedule sched;
	unsigned int mask;
	int rc;

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
	case OPT_TEST:
		if (mesh_parse_tests(arg, &mask) || rck_mesh_config_set_tests(a->c, mask))
			return cli_bad_args(cli, "invalid --test '%s': bw, lat or bw,lat", arg);
		return 0;
	case OPT_PATTERN:
		a->pattern = arg;
		return 0;
	case OPT_RAILS:
		if (strcmp(arg, "same") && strcmp(arg, "all"))
			return cli_bad_args(cli, "invalid --rails '%s': same or all", arg);
		rck_mesh_config_set_rails(a->c, arg);
		return 0;
	case 'd':
		snprintf(err, sizeof(err), "device:%s", arg);
		if (!*arg || rck_mesh_config_set_rails(a->c, err))
			return cli_bad_args(cli, "invalid --device '%s'", arg);
		return 0;
	case OPT_TRANSPORT:
		if (strcmp(arg, "rdma") && strcmp(arg, "tcp"))
			return cli_bad_args(cli, "invalid --transport '%s': rdma or tcp", arg);
		a->transport = strcmp(arg, "tcp") ? RCK_PROBE_TRANSPORT_RDMA : RCK_PROBE_TRANSPORT_TCP;
		return 0;
	case OPT_SIZE:
		if (cli_parse_uint(arg, 1, 1u << 30, &a->size))
			return cli_bad_args(cli, "invalid --size '%s': bytes, 1 to 2^30", arg);
		return 0;
	case OPT_ITERS:
		if (cli_parse_uint(arg, 1, 100000000, &a->iters))
			return cli_bad_args(cli, "invalid --iters '%s': 1 to 100000000", arg);
		return 0;
	case OPT_DURATION:
		if (cli_parse_double(arg, 0.001, 3600, &a->duration))
			return cli_bad_args(cli, "invalid --duration '%s': seconds, up to 3600", arg);
		return 0;
	case OPT_DEADLINE:
		if (cli_parse_double(arg, 0.001, 1e6, &a->deadline))
			return cli_bad_args(cli, "invalid --deadline '%s': seconds", arg);
		return 0;
	case OPT_KEY:
		a->key_file = arg;
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
	case OPT_FROM:
		a->from = arg;
		return 0;
	case OPT_DCB:
		a->dcb = true;
		return 0;
	case OPT_BIDIR:
		a->bidir = true;
		return 0;
	case OPT_SCHEDULE:
		if (mesh_parse_schedule(arg, &sched) || rck_mesh_config_set_schedule(a->c, sched))
			return cli_bad_args(cli, "invalid --schedule '%s': coordinator or agents", arg);
		a->schedule = true;
		return 0;
	case OPT_LAUNCHER:
		a->launcher = arg;
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

/* Pattern, key and probe settings once all options are in. */
static int finish_config(struct cli *cli, struct mesh_args *a)
{
	const char *pattern = a->pattern ? a->pattern : a->pairs ? "pairs" : "full";
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
	if (rck_mesh_config_set_probe(a->c, a->transport, (uint32_t)a->size,
				      a->iters ? a->iters : 1000, a->duration) ||
	    rck_mesh_config_set_deadline(a->c, a->deadline) || rck_mesh_config_set_dcb(a->c, a->dcb) ||
	    rck_mesh_config_set_bidir(a->c, a->bidir))
		return cli_bad_args(cli, "invalid probe settings");
	if (a->key_file && !a->dry_run) {
		rc = rck_key_load(a->key_file, key, sizeof(key), &len, err, sizeof(err));
		if (rc) {
			cli_msg(cli, "%s", err);
			return EXIT_FAIL;
		}
		rck_mesh_config_set_key(a->c, key, len);
		memset(key, 0, sizeof(key));
	}
	/* Agents started now, each with its own port and token. */
	if (a->launcher && strcmp(a->launcher, "none") && !a->dry_run)
		return mesh_launch_hosts(cli, a->c, a->hl, a->launcher, &a->launch);
	for (unsigned int i = 0; i < rck_hostlist_count(a->hl); i++)
		if (add_host(a->c, rck_hostlist_get(a->hl, i)))
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
	mesh_launch_mark(a->launch, m);
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
	struct mesh_args a = { .transport = RCK_PROBE_TRANSPORT_RDMA };
	int rc;

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
	if (!rc && !a.topo && a.pattern && !strcmp(a.pattern, "topo"))
		rc = cli_bad_args(cli, "--pattern topo needs --topology FILE");
	if (!rc) {
		rck_mesh_config_set_topology(a.c, a.topo);
		heatmap_set_topology(a.topo);
	}
	if (!rc && a.from) {
		if (rck_hostlist_count(a.hl) || a.launcher || a.pairs || a.pattern || a.dcb || a.schedule ||
		    a.dry_run || a.bidir)
			rc = cli_usage_err(cli, "--from loads a result: no --hosts, --hostfile, "
						"--launcher, --pattern, --pairs, --dcb, --bidir, --schedule or --dry-run with it");
		else
			rc = load(cli, &a);
		goto out;
	}
	if (!rc && rck_hostlist_count(a.hl) < 2)
		rc = cli_usage_err(cli, "give at least 2 hosts (--hosts or --hostfile)");
	/* The tool, never the library, reads the environment. */
	if (!rc && !a.key_file)
		a.key_file = getenv("ROCECHECK_KEY_FILE");
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
