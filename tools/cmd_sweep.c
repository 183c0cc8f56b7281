/* `rocecheck sweep`: this host's health for cron, timers, Slurm and
 * node-problem-detector, with hysteresis through a state file. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "sweep_probe.h"

/* How long a run waits for another run holding the same state file. */
#define LOCK_WAIT_MS 10000
#define LOCK_SLICE_MS 20

/* Exit codes of this command (rocecheck-sweep(8)): the NPD contract. */
enum { SWEEP_HEALTHY = 0, SWEEP_DEGRADED = 1, SWEEP_UNKNOWN = 2 };

enum sweep_fmt { FMT_TEXT, FMT_JSON, FMT_NPD };

struct sweep_args {
	bool probe;
	const char *state, *prom, *config;
	unsigned long k, n;
	bool have_fmt;
	enum sweep_fmt fmt;
};

enum { OPT_PROBE = 256, OPT_STATE, OPT_HOLD, OPT_PROM, OPT_FORMAT, OPT_CONFIG };

const struct cli_opt sweep_opts[] = {
	{ OPT_PROBE, 0, "probe", "none|quick", "quick: a short loopback probe of each local port" },
	{ OPT_STATE, 0, "state", "FILE", "previous run's state: counters, hysteresis (updated)" },
	{ OPT_HOLD, 0, "hold", "K/N", "a finding counts once held in K of N runs (default 2/3)" },
	{ OPT_PROM, 0, "prom", "FILE", "write a Prometheus textfile (atomically)" },
	{ OPT_FORMAT, 0, "format", "text|json|npd", "output: text, JSON, or one NPD line" },
	{ OPT_CONFIG, 0, "config", "FILE", "thresholds file (rocecheck-thresholds(5))" },
	{ 0 }
};

static int sweep_opt(struct cli *cli, void *data, int id, const char *arg)
{
	struct sweep_args *a = data;
	char *end;

	switch (id) {
	case OPT_PROBE:
		if (strcmp(arg, "none") && strcmp(arg, "quick"))
			return cli_bad_args(cli, "invalid --probe '%s': none or quick", arg);
		a->probe = !strcmp(arg, "quick");
		return 0;
	case OPT_STATE:
		a->state = arg;
		return 0;
	case OPT_PROM:
		a->prom = arg;
		return 0;
	case OPT_CONFIG:
		a->config = arg;
		return 0;
	case OPT_HOLD:
		errno = 0;
		a->k = strtoul(arg, &end, 10);
		if (end == arg || *end != '/' || arg[0] == '-' ||
		    cli_parse_uint(end + 1, 1, RCK_SWEEP_HOLD_MAX, &a->n) || !a->k || a->k > a->n)
			return cli_bad_args(cli, "invalid --hold '%s': K/N with 1 <= K <= N <= %u", arg,
					    RCK_SWEEP_HOLD_MAX);
		return 0;
	case OPT_FORMAT:
		if (!strcmp(arg, "text"))
			a->fmt = FMT_TEXT;
		else if (!strcmp(arg, "json"))
			a->fmt = FMT_JSON;
		else if (!strcmp(arg, "npd"))
			a->fmt = FMT_NPD;
		else
			return cli_bad_args(cli, "invalid --format '%s': text, json or npd", arg);
		a->have_fmt = true;
		return 0;
	default:
		return EXIT_USAGE;
	}
}

/* The kernel's boot id, or, with a recorded tree, the one recorded beside
 * it (rocecheck/boot_id); NULL when there is none. */
static char *read_boot_id(const struct cli *cli)
{
	const char *root = rck_ctx_get_sysfs_root(cli->ctx);
	char path[4096], buf[RCK_SWEEP_BOOT_ID_MAX + 2];
	size_t len;
	FILE *f;

	if (root)
		snprintf(path, sizeof(path), "%s/rocecheck/boot_id", root);
	else
		snprintf(path, sizeof(path), "/proc/sys/kernel/random/boot_id");
	f = fopen(path, "re");
	if (!f)
		return NULL;
	len = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[len] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return *buf && strlen(buf) <= RCK_SWEEP_BOOT_ID_MAX ? strdup(buf) : NULL;
}

/* Could not run: one line on stderr, and the NPD line on stdout. */
static int unknown(const struct cli *cli, const struct sweep_args *a, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int unknown(const struct cli *cli, const struct sweep_args *a, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	cli_msg(cli, "%s", msg);
	if (a->fmt == FMT_NPD)
		printf("rocecheck: unknown: %.60s\n", msg);
	return SWEEP_UNKNOWN;
}

/* The same when the library already said why on stderr: the NPD line only. */
static int unknown_quiet(const struct sweep_args *a, const char *what)
{
	if (a->fmt == FMT_NPD)
		printf("rocecheck: unknown: %.60s\n", what);
	return SWEEP_UNKNOWN;
}

void sweep_refused(struct cli *cli, int argc, char **argv, const char *why)
{
	(void)cli;
	/* The options were not parsed: look for --format npd the way they
	 * may be written. */
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--format=npd") ||
		    (!strcmp(argv[i], "--format") && i + 1 < argc && !strcmp(argv[i + 1], "npd"))) {
			printf("rocecheck: unknown: %.60s\n", why);
			fflush(stdout);
			return;
		}
}

/* Runs that share a state file take turns: FILE.lock, flock()ed, held from
 * reading the state to replacing it. 0, or -errno (-ETIMEDOUT: still
 * held by another run after LOCK_WAIT_MS). */
static int lock_state(const char *state, int *fd)
{
	char *path = malloc(strlen(state) + sizeof(".lock"));
	struct timespec slice = { 0, LOCK_SLICE_MS * 1000000L }, now;
	long long end;
	int rc = 0;

	if (!path)
		return -ENOMEM;
	sprintf(path, "%s.lock", state);
	*fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0600);
	free(path);
	if (*fd < 0)
		return -errno;
	/* A deadline on the clock, not a count of slices: each slice runs
	 * past LOCK_SLICE_MS on a loaded host (or under valgrind). */
	clock_gettime(CLOCK_MONOTONIC, &now);
	end = now.tv_sec * 1000LL + now.tv_nsec / 1000000 + LOCK_WAIT_MS;
	while (flock(*fd, LOCK_EX | LOCK_NB)) {
		if (errno != EWOULDBLOCK && errno != EINTR) {
			rc = -errno;
			break;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec * 1000LL + now.tv_nsec / 1000000 >= end) {
			rc = -ETIMEDOUT;
			break;
		}
		nanosleep(&slice, NULL);
	}
	if (rc) {
		close(*fd);
		*fd = -1;
	}
	return rc;
}

static int load_state(struct cli *cli, const struct sweep_args *a, struct rck_sweep_state **st,
		      int *lock_fd)
{
	int rc;

	if (!a->state)
		return 0;
	rc = lock_state(a->state, lock_fd);
	if (rc == -ETIMEDOUT)
		return unknown(cli, a, "state file %s: another run held %s.lock for %d s; not run", a->state,
			       a->state, LOCK_WAIT_MS / 1000);
	if (rc)
		return unknown(cli, a, "state file %s: cannot lock %s.lock: %s", a->state, a->state,
			       strerror(-rc));
	rc = rck_sweep_state_load(cli->ctx, a->state, st);
	if (rc == -ENOENT)
		rc = rck_sweep_state_new(st);
	if (rc == -ENOMEM)
		return unknown(cli, a, "cannot use state file %s: %s", a->state, strerror(-rc));
	/* The library said why a state file was refused, in one line. */
	return rc ? unknown_quiet(a, "state file refused") : 0;
}

static int output(struct cli *cli, const struct sweep_args *a, const struct rck_sweep *s)
{
	char line[RCK_SWEEP_NPD_MAX + 1];
	int rc;

	if (a->fmt == FMT_NPD) {
		rck_sweep_npd_line(s, line, sizeof(line));
		printf("%s\n", line);
		return fflush(stdout) ? -EIO : 0;
	}
	rc = rck_sweep_write(s, stdout, a->fmt == FMT_JSON ?
			     (cli->fmt == RCK_FORMAT_TEXT ? RCK_FORMAT_JSON : cli->fmt) : RCK_FORMAT_TEXT);
	return rc ? rc : fflush(stdout) ? -EIO : 0;
}

struct sweep_run {
	struct rck_thresholds *th;
	struct rck_inventory *inv;
	struct rck_snapshot *snap;
	struct rck_sweep_state *st;
	struct rck_sweep *s;
	struct rck_pcie *pcie;
	struct sweep_probe *probes;
	unsigned int n_probes;
	char *boot_id;
	int lock_fd;      /* the state's lock, held to the end; -1: none */
};

static int sweep(struct cli *cli, const struct sweep_args *a, struct sweep_run *r)
{
	struct rck_sweep_probe *pv = NULL;
	struct rck_sweep_input in = { .size = sizeof(in) };
	char err[512] = "", host[256] = "localhost";
	int rc;

	if ((rc = rck_thresholds_new(&r->th)))
		return unknown(cli, a, "%s", strerror(-rc));
	if (a->config && rck_thresholds_load(r->th, a->config, err, sizeof(err)))
		return unknown(cli, a, "%s", *err ? err : a->config);
	if ((rc = rck_inventory_new(cli->ctx, &r->inv)))
		return unknown(cli, a, "cannot read the RDMA inventory: %s", strerror(-rc));
	if ((rc = rck_snapshot_new(cli->ctx, r->inv, NULL, 0, &r->snap)))
		return unknown(cli, a, "cannot read the counters: %s", strerror(-rc));
	if ((rc = load_state(cli, a, &r->st, &r->lock_fd)))
		return rc;
	/* GPU and NIC paths where there is a PCI bus to read (not in every
	 * container or recorded tree): their checks are skipped otherwise. */
	if (rck_pcie_new(cli->ctx, &r->pcie))
		r->pcie = NULL;
	if (!gethostname(host, sizeof(host)))
		host[sizeof(host) - 1] = '\0';
	rck_snapshot_set_host(r->snap, host);
	r->boot_id = read_boot_id(cli);
	if (a->probe) {
		rc = sweep_probe_quick(cli->ctx, r->inv, rck_ctx_get_sysfs_root(cli->ctx) != NULL,
				       &r->probes, &r->n_probes);
		if (rc || !(pv = calloc(r->n_probes, sizeof(*pv))))
			return unknown(cli, a, "%s", strerror(ENOMEM));
		for (unsigned int i = 0; i < r->n_probes; i++)
			pv[i] = r->probes[i].p;
	}
	in.host = host;
	in.inv = r->inv;
	in.snap = r->snap;
	in.boot_id = r->boot_id;
	in.th = r->th;
	in.hold_k = (unsigned int)a->k;
	in.hold_n = (unsigned int)a->n;
	in.probes = pv;
	in.n_probes = r->n_probes;
	in.pcie = r->pcie;
	rc = rck_sweep_run(&in, r->st, &r->s);
	free(pv);
	if (rc)
		return unknown(cli, a, "sweep failed: %s", strerror(-rc));
	if (a->state && (rc = rck_sweep_state_save(r->st, a->state)))
		return unknown(cli, a, "cannot save state file %s: %s", a->state, strerror(-rc));
	if (a->prom && (rc = rck_sweep_save_prom(r->s, a->prom)))
		return unknown(cli, a, "cannot write %s: %s", a->prom, strerror(-rc));
	if ((rc = output(cli, a, r->s)))
		return cli_fail(cli, rc, "writing the report"), SWEEP_UNKNOWN;
	return rck_sweep_verdict(r->s) == RCK_VERDICT_HEALTHY ? SWEEP_HEALTHY : SWEEP_DEGRADED;
}

int cmd_sweep(struct cli *cli, int argc, char **argv)
{
	struct sweep_args a = { 0 };
	struct sweep_run r = { .lock_fd = -1 };
	int rc = cli_parse(cli, argc, argv, sweep_opt, &a);

	if (rc != CLI_CONTINUE)
		return rc;
	if (cli->nargs)
		return cli_usage_err(cli, "unexpected argument '%s'", cli->args[0]);
	if (cli->fmt != RCK_FORMAT_TEXT) {
		if (a.have_fmt && a.fmt != FMT_JSON)
			return cli_bad_args(cli, "-j goes with --format json only");
		a.fmt = FMT_JSON;
	}
	if ((a.state && !*a.state) || (a.prom && !*a.prom) || (a.config && !*a.config))
		return cli_bad_args(cli, "--state, --prom and --config need a file name");
	a.config = cli_config_file(a.config);
	rc = sweep(cli, &a, &r);
	rck_sweep_free(r.s);
	rck_pcie_free(r.pcie);
	rck_sweep_state_free(r.st);
	free(r.probes);
	free(r.boot_id);
	rck_snapshot_free(r.snap);
	rck_inventory_free(r.inv);
	rck_thresholds_free(r.th);
	if (r.lock_fd >= 0)
		close(r.lock_fd);
	return rc;
}
