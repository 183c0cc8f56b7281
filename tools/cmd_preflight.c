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
#include "topo_file.h"
#include "mesh_launch.h"

/* Exit codes of this command: the verdict, or 2 when it could not run; 3
 * when the fabric was too noisy to judge (inconclusive). */
enum { PF_HEALTHY = 0, PF_DEGRADED = 1, PF_ERROR = 2, PF_INCONCLUSIVE = 3 };

/* A drain command gets this long before SIGKILL. */
#define DRAIN_TIMEOUT_MS 30000

static struct rck_preflight_config *running_cfg;

static void on_signal(int sig)
{
	(void)sig;
	rck_preflight_cancel(running_cfg);
}

enum { OPT_HOSTS = 256, OPT_HOSTFILE, OPT_LAUNCHER, OPT_KEY, OPT_TEST, OPT_RAILS, OPT_TRANSPORT,
       OPT_EXPECT, OPT_CONFIG, OPT_QUICK, OPT_DEADLINE, OPT_REPORT, OPT_DRAIN, OPT_FROM_MESH,
       OPT_SIZE, OPT_ITERS, OPT_DURATION, OPT_RETESTS, OPT_SPARES, OPT_HEATMAP, OPT_SCHEDULE, OPT_DRY_RUN,
       OPT_TOPOLOGY };

const struct cli_opt preflight_opts[] = {
	{ OPT_HOSTS, 0, "hosts", "LIST", "hosts or a nodelist (node[01-16]); NAME:PORT: an agent on another port" },
	{ OPT_HOSTFILE, 0, "hostfile", "FILE", "one nodelist expression per line" },
	{ OPT_LAUNCHER, 0, "launcher", "L",
	  "start the agents through none (default: running agents), ssh, srun, pdsh, mpirun or 'TEMPLATE {host}'" },
	{ OPT_KEY, 0, "key-file", "FILE", "the agents' shared key (default $ROCECHECK_KEY_FILE)" },
	{ OPT_TEST, 0, "test", "bw,lat", "tests on every pair (default bw)" },
	{ OPT_RAILS, 0, "rails", "same|all", "NIC i with NIC i (default), or every NIC with every NIC" },
	{ 'd', 'd', "device", "DEV", "only NICs of device DEV" },
	{ OPT_TRANSPORT, 0, "transport", "rdma|tcp", "probe transport (default rdma)" },
	{ OPT_EXPECT, 0, "expect-rate", "GBPS", "the port rate every NIC should run at" },
	{ OPT_CONFIG, 0, "config", "FILE", "thresholds file (rocecheck-thresholds(5))" },
	{ OPT_QUICK, 0, "quick", NULL, "n/2 pairs across two halves instead of every pair" },
	{ OPT_DEADLINE, 0, "deadline", "S", "give up probing after S seconds (what did not run fails)" },
	{ OPT_REPORT, 0, "report", "FILE", "also write the JSON report to FILE (atomically)" },
	{ OPT_HEATMAP, 0, "heatmap", "FILE", "draw the bandwidth (else latency) matrix, degraded parts marked, to FILE.svg or FILE.png" },
	{ OPT_DRAIN, 0, "drain-cmd", "TEMPLATE",
	  "run once per bad host, no shell, {host} and {reason} substituted" },
	{ OPT_SIZE, 0, "size", "BYTES", "probe message size (default per test)" },
	{ OPT_ITERS, 0, "iters", "N", "messages per probe (default 1000)" },
	{ OPT_DURATION, 0, "duration", "S", "measure each probe for S seconds instead" },
	{ OPT_RETESTS, 0, "retest-passes", "N", "most retest passes the analysis may ask for (default 3)" },
	{ OPT_SCHEDULE, 0, "schedule", "coordinator|agents",
	  "ignored (kept for one release): the agents run every probe from their task lists" },
	{ OPT_SPARES, 0, "spares", "LIST", "hot spares: swept too, a healthy one proposed for each bad host" },
	{ OPT_FROM_MESH, 0, "from-mesh", "FILE", "judge a recorded sweep (rocecheck mesh --output) instead" },
	{ OPT_DRY_RUN, 0, "dry-run", NULL, "print the hosts and the sweep's plan; contact no one, start nothing" },
	{ OPT_DRY_RUN, 0, "list-hosts", NULL, "the same as --dry-run" },
	{ OPT_TOPOLOGY, 0, "topology", "FILE",
	  "the switches (topology JSON or Slurm topology.conf): sweep per leaf then across (topo), name switch faults, drain no host for them" },
	{ 0 }
};

struct pf_args {
	struct rck_preflight_config *c;
	const char *key_file, *report, *drain, *from_mesh, *launcher, *config, *heatmap, *topology;
	struct rck_topology *topo;
	unsigned int hosts;
	enum rck_probe_transport transport;
	unsigned long size, iters;
	double duration;
	bool dry_run;
};

static void show_progress(void *data, const struct rck_preflight_progress *p)
{
	(void)data;
	fprintf(stderr, "\rpreflight: %s, %u/%u probes, %.1f s", rck_preflight_phase_name(p->phase), p->done,
		p->total, p->elapsed_s);
	if (p->hosts_down)
		fprintf(stderr, ", %u hosts down", p->hosts_down);
	fprintf(stderr, "   ");
	if (p->phase == RCK_PREFLIGHT_DONE)
		fputc('\n', stderr);
}

static int pf_opt(struct cli *cli, void *data, int c, const char *arg)
{
	struct pf_args *a = data;
	char err[300];
	enum rck_mesh_schedule sched;
	unsigned long n;
	unsigned int mask;
	double v;
	int rc;

	switch (c) {
	case OPT_TOPOLOGY:
		a->topology = arg;
		return 0;
	case OPT_HOSTS:
	case OPT_HOSTFILE:
		rc = c == OPT_HOSTS ? rck_preflight_config_add_hosts(a->c, arg, err, sizeof(err))
			      : rck_preflight_config_add_hostfile(a->c, arg, err, sizeof(err));
		if (rc)
			return cli_bad_args(cli, "invalid %s '%s': %s", c == OPT_HOSTS ? "--hosts" : "--hostfile",
					    arg, rc == -EINVAL || rc == -E2BIG ? err : strerror(-rc));
		a->hosts++;
		return 0;
	case OPT_LAUNCHER:
		a->launcher = arg;
		return 0;
	case OPT_KEY:
		a->key_file = arg;
		return 0;
	case OPT_DRY_RUN:
		a->dry_run = true;
		return 0;
	case OPT_TEST:
		if (mesh_parse_tests(arg, &mask) || rck_preflight_config_set_tests(a->c, mask))
			return cli_bad_args(cli, "invalid --test '%s': bw, lat or bw,lat", arg);
		return 0;
	case OPT_RAILS:
		if ((strcmp(arg, "same") && strcmp(arg, "all")) || rck_preflight_config_set_rails(a->c, arg))
			return cli_bad_args(cli, "invalid --rails '%s': same or all", arg);
		return 0;
	case 'd':
		snprintf(err, sizeof(err), "device:%s", arg);
		if (!*arg || rck_preflight_config_set_rails(a->c, err))
			return cli_bad_args(cli, "invalid --device '%s'", arg);
		return 0;
	case OPT_SCHEDULE:
		if (mesh_parse_schedule(arg, &sched) || rck_preflight_config_set_schedule(a->c, sched))
			return cli_bad_args(cli, "invalid --schedule '%s': coordinator or agents", arg);
		return 0;
	case OPT_TRANSPORT:
		if (strcmp(arg, "rdma") && strcmp(arg, "tcp"))
			return cli_bad_args(cli, "invalid --transport '%s': rdma or tcp", arg);
		a->transport = strcmp(arg, "tcp") ? RCK_PROBE_TRANSPORT_RDMA : RCK_PROBE_TRANSPORT_TCP;
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
		if (cli_parse_double(arg, 0.001, 1e6, &v) || rck_preflight_config_set_deadline(a->c, v))
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
	case OPT_RETESTS:
		if (cli_parse_uint(arg, 0, 16, &n) || rck_preflight_config_set_retest_passes(a->c, (unsigned int)n))
			return cli_bad_args(cli, "invalid --retest-passes '%s': 0 to 16", arg);
		return 0;
	case OPT_FROM_MESH:
		a->from_mesh = arg;
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
	const char *cfg = getenv("ROCECHECK_SSH_CONFIG");
	const char *ssh_extra[] = { "-F", cfg, NULL };
	struct rck_thresholds *th = NULL;
	uint8_t key[RCK_KEY_MAX];
	char err[300];
	size_t len = 0;
	int rc;

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
	if (rck_preflight_config_set_probe(a->c, a->transport, (uint32_t)a->size, a->iters ? a->iters : 1000,
					   a->duration))
		return cli_bad_args(cli, "invalid probe settings");
	if (a->key_file && !a->from_mesh && !a->dry_run) {
		rc = rck_key_load(a->key_file, key, sizeof(key), &len, err, sizeof(err));
		if (rc)
			return cli_bad_args(cli, "%s", err);
		rck_preflight_config_set_key(a->c, key, len);
		memset(key, 0, sizeof(key));
	}
	/* The environment names an ssh config (rocelab host sets it): ssh -F. */
	if (a->launcher &&
	    rck_preflight_config_set_launcher(a->c, a->launcher,
					      !strcmp(a->launcher, "ssh") && cfg && *cfg ? ssh_extra : NULL))
		return cli_bad_args(cli, "invalid --launcher '%s'", a->launcher);
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
			cli_msg(cli, "cannot use --from-mesh '%s': %s", a->from_mesh, strerror(-rc));
		return PF_ERROR;
	}
	rc = rck_preflight_from_mesh(a->c, m, out);
	if (rc) {
		rck_mesh_free(m);
		cli_msg(cli, "--from-mesh '%s': %s", a->from_mesh, strerror(-rc));
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
	struct pf_args a = { .transport = RCK_PROBE_TRANSPORT_RDMA };
	int rc;

	if (rck_preflight_config_new(&a.c))
		return cli_bad_args(cli, "out of memory");
	rc = cli_parse(cli, argc, argv, pf_opt, &a);
	if (rc != CLI_CONTINUE)
		goto out;
	rc = 0;
	if (cli->nargs)
		rc = cli_usage_err(cli, "unexpected argument '%s'", cli->args[0]);
	if (!rc && !a.from_mesh && !a.hosts)
		rc = cli_usage_err(cli, "give the hosts (--hosts or --hostfile), or --from-mesh FILE");
	if (!rc && a.from_mesh && a.hosts)
		rc = cli_usage_err(cli, "--from-mesh judges a recorded sweep: no --hosts with it");
	if (!rc && a.from_mesh && a.dry_run)
		rc = cli_usage_err(cli, "--from-mesh judges a recorded sweep: no --dry-run with it");
	/* The tool, never the library, reads the environment. */
	if (!rc && !a.key_file)
		a.key_file = getenv("ROCECHECK_KEY_FILE");
	if (!rc)
		rc = finish_config(cli, &a);
	if (!rc)
		rc = cli_topology_load(cli, a.topology, &a.topo);
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
