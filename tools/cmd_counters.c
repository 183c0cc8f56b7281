/* `rocecheck counters`: a snapshot of every port's counters, deltas and
 * rates over intervals, or a saved snapshot and the offline comparison. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"

#define MAX_COUNT 100000u
#define MIN_INTERVAL 0.1
#define MAX_INTERVAL 3600.0

struct counters_args {
	const char *target;   /* DEV or DEV/PORT */
	char dev[64];
	unsigned int port;
	double interval;      /* 0: one snapshot */
	unsigned long count;
	const char *save;
	const char *diff_old, *diff_new;
	bool all;
	bool have_count;
};

enum { OPT_INTERVAL = 'i', OPT_COUNT = 'c', OPT_SAVE = 256, OPT_DIFF, OPT_ALL };

const struct cli_opt counters_opts[] = {
	{ OPT_ALL, 0, "all", NULL, "every counter, not only those with a value" },
	{ OPT_INTERVAL, 0, "interval", "S", "deltas and rates every S seconds (0.1 to 3600)" },
	{ OPT_COUNT, 0, "count", "N", "with --interval: N intervals (default 1)" },
	{ OPT_SAVE, 0, "save", "FILE", "save the snapshot to FILE (- for stdout) for a later --diff" },
	{ OPT_DIFF, 0, "diff", "OLD", "compare saved snapshot OLD with the NEW one" },
	{ 0 }
};

static int counters_opt(struct cli *cli, void *data, int id, const char *arg)
{
	struct counters_args *a = data;

	switch (id) {
	case OPT_INTERVAL:
		if (cli_parse_double(arg, MIN_INTERVAL, MAX_INTERVAL, &a->interval))
			return cli_bad_args(cli, "invalid --interval '%s': seconds, %.1f to %.0f", arg,
					    MIN_INTERVAL, MAX_INTERVAL);
		return 0;
	case OPT_COUNT:
		if (cli_parse_uint(arg, 1, MAX_COUNT, &a->count))
			return cli_bad_args(cli, "invalid --count '%s': 1 to %u", arg, MAX_COUNT);
		a->have_count = true;
		return 0;
	case OPT_SAVE:
		a->save = arg;
		return 0;
	case OPT_DIFF:
		a->diff_old = arg;
		return 0;
	case OPT_ALL:
		a->all = true;
		return 0;
	default:
		return EXIT_USAGE;
	}
}

static int parse_args(struct cli *cli, int argc, char **argv, struct counters_args *a)
{
	int rc = cli_parse(cli, argc, argv, counters_opt, a);
	char **pos = cli->args;
	int npos = cli->nargs;

	if (rc != CLI_CONTINUE)
		return rc;
	if (npos > 2)
		return cli_usage_err(cli, "unexpected argument '%s'", pos[2]);
	if (a->have_count && !a->interval)
		return cli_bad_args(cli, "--count needs --interval");
	if (!a->count)
		a->count = 1;
	if (a->diff_old) {
		if (npos != 1)
			return cli_bad_args(cli, "--diff needs two files: --diff OLD NEW");
		if (a->interval || a->save)
			return cli_bad_args(cli, "--diff takes no --interval or --save");
		a->diff_new = pos[0];
		return CLI_CONTINUE;
	}
	if (npos > 1)
		return cli_usage_err(cli, "unexpected argument '%s'", pos[1]);
	if (a->save && a->interval)
		return cli_bad_args(cli, "--save takes one snapshot, not --interval");
	if (a->save && !*a->save)
		return cli_bad_args(cli, "--save needs a file name");
	a->target = npos ? pos[0] : NULL;
	if (a->target && cli_parse_dev_port(a->target, a->dev, sizeof(a->dev), &a->port))
		return cli_bad_args(cli, "invalid device '%s': DEV or DEV/PORT", a->target);
	return CLI_CONTINUE;
}

/* The library logs why a file could not be loaded (at LOG_ERR, so always
 * shown): nothing to add but the exit code. */
static int load(struct cli *cli, const char *path, struct rck_snapshot **out)
{
	int rc = rck_snapshot_load(cli->ctx, path, out);

	if (rc == -ENOMEM)
		return cli_fail(cli, rc, "%s", path);
	return rc ? EXIT_FAIL : 0;
}

static int run_diff(struct cli *cli, const struct counters_args *a)
{
	struct rck_snapshot *old = NULL, *new_ = NULL;
	struct rck_delta *d = NULL;
	int rc;

	rc = load(cli, a->diff_old, &old);
	if (!rc)
		rc = load(cli, a->diff_new, &new_);
	if (!rc) {
		int err = rck_delta_new(old, new_, &d);

		if (err == -EINVAL) {
			cli_msg(cli, "%s was taken before %s", a->diff_new, a->diff_old);
			rc = EXIT_FAIL;
		} else if (err) {
			rc = cli_fail(cli, err, "cannot compare");
		} else if (!rck_delta_port_count(d)) {
			cli_msg(cli, "%s and %s have no port in common", a->diff_old, a->diff_new);
			rc = EXIT_FAIL;
		} else if ((err = rck_delta_write(d, stdout, cli->fmt, a->all))) {
			rc = cli_fail(cli, err, "cannot write");
		}
	}
	rck_delta_free(d);
	rck_snapshot_free(old);
	rck_snapshot_free(new_);
	return rc;
}

static int snapshot(struct cli *cli, const struct rck_inventory *inv, const struct counters_args *a,
		    struct rck_snapshot **out)
{
	int rc = rck_snapshot_new(cli->ctx, inv, a->target ? a->dev : NULL, a->port, out);
	char host[256];

	if (rc == -ENODEV)
		return cli_fail(cli, rc, "%s", a->target);
	if (rc)
		return cli_fail(cli, rc, "cannot read the counters");
	/* The library reads no host name: the snapshot is told where it was taken. */
	if (!gethostname(host, sizeof(host))) {
		host[sizeof(host) - 1] = '\0';
		rck_snapshot_set_host(*out, host);
	}
	if (rck_snapshot_port_count(*out) == 0 && cli->fmt == RCK_FORMAT_TEXT)
		cli_msg(cli, "no RDMA devices found");
	return 0;
}

static void sleep_seconds(double s)
{
	struct timespec ts = { .tv_sec = (time_t)s, .tv_nsec = (long)((s - floor(s)) * 1e9) };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* N deltas @interval apart, each written as it is measured: text blocks,
 * or one JSON document per interval (JSON lines with -j). */
static int run_interval(struct cli *cli, const struct counters_args *a)
{
	struct rck_snapshot *prev = NULL, *cur = NULL;
	struct rck_inventory *inv = NULL;
	int rc;

	rc = rck_inventory_new(cli->ctx, &inv);
	if (rc)
		return cli_fail(cli, rc, "cannot read the RDMA inventory");
	rc = snapshot(cli, inv, a, &prev);
	for (unsigned long i = 0; !rc && i < a->count; i++) {
		struct rck_delta *d = NULL;
		int err;

		sleep_seconds(a->interval);
		rc = snapshot(cli, inv, a, &cur);
		if (rc)
			break;
		err = rck_delta_new(prev, cur, &d);
		if (!err) {
			if (i && cli->fmt == RCK_FORMAT_TEXT)
				fputc('\n', stdout);
			err = rck_delta_write(d, stdout, cli->fmt, a->all);
		}
		rck_delta_free(d);
		if (err)
			rc = cli_fail(cli, err, "cannot write the deltas");
		rck_snapshot_free(prev);
		prev = cur;
		cur = NULL;
	}
	rck_snapshot_free(prev);
	rck_inventory_free(inv);
	return rc;
}

static volatile sig_atomic_t save_signal;

static void on_signal(int sig)
{
	save_signal = sig;
}

/* --save FILE: the library writes a temporary file and renames it; a
 * signal sets a flag it checks, so it removes the temporary file and
 * stops, and the process then dies of that signal as it would have. */
static int save(struct cli *cli, const struct rck_snapshot *snap, const char *path)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa = { .sa_handler = on_signal }, old[3];
	int err;

	if (!strcmp(path, "-")) {
		err = rck_snapshot_write_all(snap, stdout, cli->fmt == RCK_FORMAT_JSON ? cli->fmt
							: RCK_FORMAT_JSON_PRETTY, true);
		return err ? cli_fail(cli, err, "cannot write the snapshot") : 0;
	}
	sigemptyset(&sa.sa_mask);
	/* A signal ignored by whoever started us (nohup, a background job)
	 * stays ignored. */
	for (int i = 0; i < 3; i++)
		if (!sigaction(sigs[i], NULL, &old[i]) && old[i].sa_handler != SIG_IGN)
			sigaction(sigs[i], &sa, NULL);
	err = rck_snapshot_save_cancellable(snap, path, &save_signal);
	for (int i = 0; i < 3; i++)
		sigaction(sigs[i], &old[i], NULL);
	if (save_signal)
		raise(save_signal);
	if (err == -ELOOP) {
		cli_msg(cli, "cannot save to %s: a symbolic link (not followed; give the file it "
			"points to)", path);
		return EXIT_FAIL;
	}
	if (err)
		return cli_fail(cli, err, "cannot save to %s", path);
	if (cli->verbose)
		cli_msg(cli, "saved %u ports to %s", rck_snapshot_port_count(snap), path);
	return 0;
}

int cmd_counters(struct cli *cli, int argc, char **argv)
{
	struct counters_args a = { 0 };
	struct rck_snapshot *snap = NULL;
	int rc;

	rc = parse_args(cli, argc, argv, &a);
	if (rc != CLI_CONTINUE)
		return rc;
	if (a.diff_old)
		return run_diff(cli, &a);
	if (a.interval)
		return run_interval(cli, &a);
	rc = snapshot(cli, NULL, &a, &snap);
	if (rc)
		return rc;
	if (a.save) {
		rc = save(cli, snap, a.save);
	} else {
		int err = rck_snapshot_write_all(snap, stdout, cli->fmt, a.all);

		if (err)
			rc = cli_fail(cli, err, "cannot write the counters");
	}
	rck_snapshot_free(snap);
	return rc;
}
