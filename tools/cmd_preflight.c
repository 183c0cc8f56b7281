/* `rocecheck preflight`: the check before a job starts (rocecheck/preflight.h)
 * with a verdict as exit code, a report file and drain commands. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "heatmap_save.h"
#include "probe_shared.h"
#include "progress.h"
#include "topo_file.h"

/* Exit codes of this command: the verdict, or 2 when it could not run; 3
 * when the fabric was too noisy to judge (inconclusive). */
enum { PF_HEALTHY = 0, PF_DEGRADED = 1, PF_ERROR = 2, PF_INCONCLUSIVE = 3 };

/* A drain command gets this long before SIGKILL. */
#define DRAIN_TIMEOUT_MS 30000
#define STR_(x) #x
#define STR(x) STR_(x)

static struct rck_preflight_config *running_cfg;

static void on_signal(int sig)
{
	(void)sig;
	rck_preflight_cancel(running_cfg);
}

enum { OPT_HOSTS = 256, OPT_HOSTFILE, OPT_EXPECT, OPT_CONFIG, OPT_QUICK, OPT_DEADLINE, OPT_REPORT,
       OPT_DRAIN, OPT_FROM_MESH, OPT_RETESTS, OPT_SPARES, OPT_HEATMAP, OPT_DRY_RUN, OPT_TOPOLOGY,
       OPT_LLDP_CAPTURE };

const struct cli_opt preflight_opts[] = {
	{ OPT_HOSTS, 0, "hosts", "LIST", "hosts or a nodelist (node[01-16]); NAME:PORT: an agent on another port" },
	{ OPT_HOSTFILE, 0, "hostfile", "FILE", "one nodelist expression per line" },
	SHARED_PROBE_OPTS,
	{ OPT_EXPECT, 0, "expect-rate", "GBPS", "the port rate every NIC should run at" },
	{ OPT_CONFIG, 0, "config", "FILE", "thresholds file (rocecheck-thresholds(5))" },
	{ OPT_QUICK, 0, "quick", NULL, "n/2 pairs across two halves instead of every pair" },
	{ OPT_DEADLINE, 0, "deadline", "S", "give up probing after S seconds (what did not run fails)" },
	{ OPT_REPORT, 0, "output", "FILE", "also write the JSON report to FILE (atomically)" },
	{ OPT_REPORT, 0, "report", "FILE", "the same as --output" },
	{ OPT_HEATMAP, 0, "heatmap", "FILE", "draw the bandwidth (else latency) matrix, degraded parts marked, to FILE.svg or FILE.png" },
	{ OPT_DRAIN, 0, "drain-cmd", "TEMPLATE",
	  "run once per bad host, no shell, {host} and {reason} substituted" },
	{ OPT_RETESTS, 0, "retest-passes", "N", "most retest passes the analysis may ask for (default " STR(RCK_PREFLIGHT_RETEST_PASSES) ")" },
	{ OPT_SPARES, 0, "spares", "LIST", "hot spares: swept too, a healthy one proposed for each bad host" },
	{ OPT_FROM_MESH, 0, "from", "FILE", "judge a recorded sweep (rocecheck mesh --output) instead" },
	{ OPT_FROM_MESH, 0, "from-mesh", "FILE", "the same as --from" },
	{ OPT_DRY_RUN, 0, "dry-run", NULL, "print the hosts and the sweep's plan; contact no one, start nothing" },
	{ OPT_DRY_RUN, 0, "list-hosts", NULL, "the same as --dry-run" },
	{ OPT_TOPOLOGY, 0, "topology", "FILE|agents",
	  "the switches (topology JSON, Slurm topology.conf, or agents: the agents' LLDP): sweep per leaf then across (topo), name switch faults, drain no host for them" },
	{ OPT_LLDP_CAPTURE, 0, "lldp-capture", "MS",
	  "--topology agents: longest LLDP capture per agent where lldpd has no neighbour (default 31000)" },
	{ 0 }
};

struct pf_args {
	struct rck_preflight_config *c;
	const char *report, *drain, *from_mesh, *config, *heatmap, *topology;
	const char *from_opt; /* --from or --from-mesh, as typed */
	struct rck_topology *topo;
	unsigned long capture_ms;
	bool capture_set;
	unsigned int hosts;
	struct shared_probe probe; /* the options mesh and preflight share */
	bool dry_run;
};

static void show_progress(void *data, const struct rck_preflight_progress *p)
{
	struct progress_state s = {.who = "preflight", .phase = rck_preflight_phase_name(p->phase),
				   .done = p->done, .total = p->total, .hosts_down = p->hosts_down,
				   .elapsed_s = p->elapsed_s, .eta_s = p->eta_s};

	(void)data;
	progress_show(stderr, &s, p->phase == RCK_PREFLIGHT_DONE);
}

static int pf_opt(struct cli *cli, void *data, int c, const char *arg)
{
	struct pf_args *a = data;
	const struct rck_mesh_limits *lim = rck_mesh_limits();
	char err[300];
	unsigned long n;
	double v;
	int rc = shared_probe_opt(cli, &a->probe, c, arg);

	if (rc != CLI_CONTINUE)
		return rc;
	switch (c) {
	case OPT_TOPOLOGY:
		a->topology = arg;
		return 0;
	case OPT_LLDP_CAPTURE:
		a->capture_set = true;
		return cli_lldp_capture_opt(cli, arg, &a->capture_ms);
	case OPT_HOSTS:
	case OPT_HOSTFILE:
		rc = c == OPT_HOSTS ? rck_preflight_config_add_hosts(a->c, arg, err, sizeof(err))
			      : rck_preflight_config_add_hostfile(a->c, arg, err, sizeof(err));
		if (rc)
			return cli_bad_args(cli, "invalid %s '%s': %s", c == OPT_HOSTS ? "--hosts" : "--hostfile",
					    arg, rc == -EINVAL || rc == -E2BIG ? err : strerror(-rc));
		a->hosts++;
		return 0;
	case OPT_DRY_RUN:
		a->dry_run = true;
		return 0;
	case OPT_EXPECT:
		if (cli_parse_double(arg, 0.001, 1e6, &v) || rck_preflight_config_set_expect_rate(a->c, v))
			return cli_bad_args(cli, "invalid --expect-rate '%s': Gb/s", arg);
		return 0;
	case OPT_CONFIG:
		a->config = arg;
		return 0;
	case OPT_QUICK:
		rck_preflight_config_set_quick(a->c, true);
		return 0;
	case OPT_DEADLINE:
		if (cli_parse_double(arg, lim->deadline_min_s, lim->deadline_max_s, &v) ||
		    rck_preflight_config_set_deadline(a->c, v))
			return cli_bad_args(cli, "invalid --deadline '%s': seconds", arg);
		return 0;
	case OPT_REPORT:
		a->report = arg;
		return 0;
	case OPT_DRAIN:
		a->drain = arg;
		return 0;
	case OPT_HEATMAP: {
		enum rck_heatmap_format fmt;

		if (rck_heatmap_format_from_path(arg, &fmt))
			return cli_bad_args(cli, "invalid --heatmap '%s': a file name ending in .svg or .png", arg);
		a->heatmap = arg;
		return 0;
	}
	case OPT_RETESTS:
		if (cli_parse_uint(arg, 0, lim->retest_passes_max, &n) ||
		    rck_preflight_config_set_retest_passes(a->c, (unsigned int)n))
			return cli_bad_args(cli, "invalid --retest-passes '%s': 0 to %u", arg, lim->retest_passes_max);
		return 0;
	case OPT_FROM_MESH:
		a->from_mesh = arg;
		a->from_opt = strcmp(cli->opt, "from-mesh") ? "--from" : "--from-mesh";
		return 0;
	case OPT_SPARES:
		rc = rck_preflight_config_add_spares(a->c, arg, err, sizeof(err));
		if (rc)
			return cli_bad_args(cli, "invalid --spares '%s': %s", arg, rc == -EINVAL ? err : strerror(-rc));
		return 0;
	default:
		return EXIT_USAGE;
	}
}

/* Settings that need every option: thresholds, key, launcher, probes. */
static int finish_config(struct cli *cli, struct pf_args *a)
{
	const char *key_file = shared_probe_key_file(&a->probe);
	struct rck_launch_opts lo;
	struct rck_thresholds *th = NULL;
	uint8_t key[RCK_KEY_MAX];
	char err[300];
	size_t len = 0;
	int rc;

	a->config = cli_config_file(a->config);
	if (a->config) {
		if (rck_thresholds_new(&th))
			return cli_bad_args(cli, "out of memory");
		rc = rck_thresholds_load(th, a->config, err, sizeof(err));
		if (!rc)
			rc = rck_preflight_config_set_thresholds(a->c, th);
		rck_thresholds_free(th);
		if (rc)
			return cli_bad_args(cli, "invalid --config: %s", rc == -ENOMEM ? "out of memory" : err);
	}
	rc = shared_probe_apply_preflight(cli, &a->probe, a->c);
	if (rc)
		return rc;
	if (key_file && !a->from_mesh && !a->dry_run) {
		rc = rck_key_load(key_file, key, sizeof(key), &len, err, sizeof(err));
		if (rc)
			return cli_bad_args(cli, "%s", err);
		rck_preflight_config_set_key(a->c, key, len);
		memset(key, 0, sizeof(key));
	}
	/* The same launch options as mesh's (ssh's config included). */
	shared_probe_launch_opts(&a->probe, &lo);
	if (a->probe.launcher && (rck_preflight_config_set_launcher(a->c, a->probe.launcher, NULL) ||
				  rck_preflight_config_set_ssh_config(a->c, lo.ssh_config)))
		return cli_bad_args(cli, "invalid --launcher '%s'", a->probe.launcher);
	if (a->drain) {
		char **argv = NULL;

		/* Checked now, with a sample host: a typo fails before probing. */
		rc = rck_preflight_drain_argv(a->drain, "host", "rocecheck: x", &argv);
		rck_launch_argv_free(argv);
		if (rc)
			return cli_bad_args(cli, "invalid --drain-cmd '%s': unbalanced quote or empty", a->drain);
	}
	return 0;
}

static double mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Run one drain command, no shell, stdin from /dev/null, killed at the
 * deadline. Returns 0 when it exited 0. */
static int run_drain(struct cli *cli, char **argv)
{
	double until = mono_ms() + DRAIN_TIMEOUT_MS;
	int status = 0;
	pid_t pid = fork(), w;

	if (pid < 0) {
		cli_msg(cli, "--drain-cmd %s: %s", argv[0], strerror(errno));
		return -1;
	}
	if (pid == 0) {
		freopen("/dev/null", "r", stdin);
		/* Its output is not ours: -j keeps stdout one JSON document. */
		dup2(STDERR_FILENO, STDOUT_FILENO);
		execvp(argv[0], argv);
		fprintf(stderr, "rocecheck: preflight: --drain-cmd %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	while ((w = waitpid(pid, &status, WNOHANG)) == 0 && mono_ms() < until)
		usleep(20000);
	if (w == 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		cli_msg(cli, "--drain-cmd %s: killed after %d s", argv[0], DRAIN_TIMEOUT_MS / 1000);
		return -1;
	}
	if (w < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		cli_msg(cli, "--drain-cmd %s: exit status %d", argv[0],
			WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
		return -1;
	}
	return 0;
}

static void drain_hosts(struct cli *cli, const struct pf_args *a, const struct rck_preflight *p)
{
	for (unsigned int i = 0; i < rck_preflight_bad_host_count(p); i++) {
		const char *host, *reason;
		char **argv = NULL;

		rck_preflight_bad_host(p, i, &host, &reason);
		if (rck_preflight_drain_argv(a->drain, host, reason, &argv)) {
			cli_msg(cli, "--drain-cmd: cannot build the command for host '%s'", host);
			continue;
		}
		run_drain(cli, argv);
		rck_launch_argv_free(argv);
	}
}

static int judge_recorded(struct cli *cli, struct pf_args *a, struct rck_preflight **out)
{
	struct rck_mesh *m = NULL;
	int rc = rck_mesh_load(cli->ctx, a->from_mesh, &m);

	if (rc) {
		/* A malformed file: the loader logged one line naming it. */
		if (rc != -EINVAL)
			cli_msg(cli, "cannot use %s '%s': %s", a->from_opt, a->from_mesh, strerror(-rc));
		return PF_ERROR;
	}
	rc = rck_preflight_from_mesh(a->c, m, out);
	if (rc) {
		rck_mesh_free(m);
		cli_msg(cli, "%s '%s': %s", a->from_opt, a->from_mesh, strerror(-rc));
		return PF_ERROR;
	}
	return 0;
}

/* --dry-run: the hosts and the sweep's plan, nothing contacted (exit 0,
 * or 2 as for any error before probing). */
static int dry_run(struct cli *cli, const struct pf_args *a)
{
	char err[300] = "";
	int rc = rck_preflight_config_write_plan(a->c, stdout, cli->fmt, err, sizeof(err));

	if (rc)
		cli_msg(cli, "%s", (rc == -EINVAL || rc == -E2BIG) && *err ? err : "cannot write the plan");
	return rc ? PF_ERROR : PF_HEALTHY;
}

static int run(struct cli *cli, struct pf_args *a)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct rck_preflight *p = NULL;
	enum rck_verdict v;
	int rc;

	if (a->from_mesh) {
		rc = judge_recorded(cli, a, &p);
		if (rc)
			return rc;
	} else {
		if (isatty(STDERR_FILENO))
			rck_preflight_config_set_progress(a->c, show_progress, NULL);
		running_cfg = a->c;
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		rc = rck_preflight_run(cli->ctx, a->c, &p);
		running_cfg = NULL;
		if (rc) {
			cli_msg(cli, "could not run: %s", rc == -EINVAL ? "bad hosts or plan (see above)"
								 : strerror(-rc));
			return PF_ERROR;
		}
	}
	v = rck_preflight_verdict(p);
	/* The verdict stands whatever becomes of the report file. */
	if (a->report && (rc = rck_preflight_save(p, a->report)))
		cli_msg(cli, "cannot write --report '%s': %s (the verdict is printed all the same)", a->report,
			strerror(-rc));
	/* --topology agents: the model the sweep built from their LLDP. */
	if (cli_topology_agents(a->topology))
		heatmap_set_topology(rck_mesh_topology(rck_preflight_mesh(p)));
	if (a->heatmap && heatmap_save(cli, rck_preflight_mesh(p), rck_preflight_report(p), a->heatmap)) {
		rck_preflight_free(p);
		return PF_ERROR;
	}
	if (rck_preflight_write(p, stdout, cli->fmt) || fflush(stdout)) {
		cli_msg(cli, "cannot write the report: %s", strerror(errno));
		rck_preflight_free(p);
		return PF_ERROR;
	}
	/* Only a degraded verdict acts; the library's list is already empty
	 * otherwise, this keeps an error from ever running a command. */
	if (a->drain && v == RCK_VERDICT_DEGRADED)
		drain_hosts(cli, a, p);
	rck_preflight_free(p);
	return v == RCK_VERDICT_HEALTHY ? PF_HEALTHY : v == RCK_VERDICT_DEGRADED ? PF_DEGRADED
		: v == RCK_VERDICT_INCONCLUSIVE ? PF_INCONCLUSIVE : PF_ERROR;
}

int cmd_preflight(struct cli *cli, int argc, char **argv)
{
	struct pf_args a = { .capture_ms = CLI_LLDP_CAPTURE_MS };
	int rc;

	shared_probe_init(&a.probe);
	if (rck_preflight_config_new(&a.c))
		return cli_bad_args(cli, "out of memory");
	rc = cli_parse(cli, argc, argv, pf_opt, &a);
	if (rc != CLI_CONTINUE)
		goto out;
	rc = 0;
	if (cli->nargs)
		rc = cli_usage_err(cli, "unexpected argument '%s'", cli->args[0]);
	if (!rc && !a.from_mesh && !a.hosts)
		rc = cli_usage_err(cli, "give the hosts (--hosts or --hostfile), or --from FILE");
	if (!rc && a.from_mesh && a.hosts)
		rc = cli_usage_err(cli, "%s judges a recorded sweep: no --hosts with it", a.from_opt);
	if (!rc && a.from_mesh && a.dry_run)
		rc = cli_usage_err(cli, "%s judges a recorded sweep: no --dry-run with it", a.from_opt);
	if (!rc && cli_topology_agents(a.topology) && (a.from_mesh || a.dry_run))
		rc = cli_usage_err(cli, "--topology agents asks the agents: not with --from or --dry-run "
					"(give a topology file, e.g. one written by rocecheck topology --from-agents)");
	if (!rc && a.capture_set && !cli_topology_agents(a.topology))
		rc = cli_usage_err(cli, "--lldp-capture goes with --topology agents");
	if (!rc)
		rc = finish_config(cli, &a);
	if (!rc)
		rc = cli_topology_load(cli, a.topology, &a.topo);
	if (!rc && cli_topology_agents(a.topology) &&
	    rck_preflight_config_set_topology_lldp(a.c, true, (unsigned int)a.capture_ms))
		rc = cli_bad_args(cli, "invalid --lldp-capture");
	if (!rc) {
		rck_preflight_config_set_topology(a.c, a.topo);
		heatmap_set_topology(a.topo);
	}
	if (!rc)
		rc = a.dry_run ? dry_run(cli, &a) : run(cli, &a);
out:
	rck_preflight_config_free(a.c);
	rck_topology_free(a.topo);
	return rc;
}
