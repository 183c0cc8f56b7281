/* `rocecheck counters`: a snapshot of every port's counters, deltas and
 * rates over intervals, or a saved snapshot and the offline comparison. */
#include <errno.h>
#include <getopt.h>
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
};

static int parse_args(struct cli *cli, int argc, char **argv, struct counters_args *a)
{
	static const struct option opts[] = {
		{ "interval", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'c' },
		{ "save", required_argument, NULL, 's' },
		{ "diff", required_argument, NULL, 'd' },
		{ "all", no_argument, NULL, 'a' },
		{ 0 }
	};
	bool have_count = false;
	const char *pos[2] = { NULL, NULL };
	int npos = 0, c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			if (cli_parse_double(optarg, MIN_INTERVAL, MAX_INTERVAL, &a->interval))
				return cli_bad_args(cli, "counters: invalid --interval '%s': seconds, %.1f to %.0f",
						    optarg, MIN_INTERVAL, MAX_INTERVAL);
			break;
		case 'c':
			if (cli_parse_uint(optarg, 1, MAX_COUNT, &a->count))
				return cli_bad_args(cli, "counters: invalid --count '%s': 1 to %u", optarg,
						    MAX_COUNT);
			have_count = true;
			break;
		case 's':
			a->save = optarg;
			break;
		case 'd':
			a->diff_old = optarg;
			break;
		case 'a':
			a->all = true;
			break;
		case ':':
			return cli_bad_args(cli, "counters: option '%s' needs a value", argv[optind - 1]);
		default:
			return cli_bad_args(cli, "counters: unknown option '%s'", argv[optind - 1]);
		}
	}
	for (; optind < argc; optind++) {
		if (npos == 2)
			return cli_bad_args(cli, "counters: unexpected argument '%s'", argv[optind]);
		pos[npos++] = argv[optind];
	}
	if (have_count && !a->interval)
		return cli_bad_args(cli, "counters: --count needs --interval");
	if (!a->count)
		a->count = 1;
	if (a->diff_old) {
		if (npos != 1)
			return cli_bad_args(cli, "counters: --diff needs two files: --diff OLD NEW");
		if (a->interval || a->save)
			return cli_bad_args(cli, "counters: --diff takes no --interval or --save");
		a->diff_new = pos[0];
		return 0;
	}
	if (npos > 1)
		return cli_bad_args(cli, "counters: unexpected argument '%s'", pos[1]);
	if (a->save && a->interval)
		return cli_bad_args(cli, "counters: --save takes one snapshot, not --interval");
	if (a->save && !*a->save)
		return cli_bad_args(cli, "counters: --save needs a file name");
	a->target = pos[0];
	if (a->target && cli_parse_dev_port(a->target, a->dev, sizeof(a->dev), &a->port))
		return cli_bad_args(cli, "counters: invalid device '%s': DEV or DEV/PORT", a->target);
	return 0;
}

/* The library logs why a file could not be loaded (at LOG_ERR, so always
 * shown): nothing to add but the exit code. */
static int load(struct cli *cli, const char *path, struct rck_snapshot **out)
{
	int rc = rck_snapshot_load(cli->ctx, path, out);

	if (rc == -ENOMEM)
		return cli_fail(cli, rc, "counters: %s", path);
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
			fprintf(stderr, "%s: counters: %s was taken before %s\n", cli->prog,
				a->diff_new, a->diff_old);
			rc = EXIT_FAIL;
		} else if (err) {
			rc = cli_fail(cli, err, "counters: cannot compare");
		} else if (!rck_delta_port_count(d)) {
			fprintf(stderr, "%s: counters: %s and %s have no port in common\n", cli->prog,
				a->diff_old, a->diff_new);
			rc = EXIT_FAIL;
		} else if ((err = rck_delta_write(d, stdout, cli->fmt, a->all))) {
			rc = cli_fail(cli, err, "counters: cannot write");
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
		return cli_fail(cli, rc, "counters: %s", a->target);
	if (rc)
		return cli_fail(cli, rc, "counters: cannot read the counters");
	/* The library reads no host name: the snapshot is told where it was taken. */
	if (!gethostname(host, sizeof(host))) {
		host[sizeof(host) - 1] = '\0';
		rck_snapshot_set_host(*out, host);
	}
	if (rck_snapshot_port_count(*out) == 0 && cli->fmt == RCK_FORMAT_TEXT)
		fprintf(stderr, "%s: no RDMA devices found\n", cli->prog);
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
		return cli_fail(cli, rc, "counters: cannot read the RDMA inventory");
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
			rc = cli_fail(cli, err, "counters: cannot write the deltas");
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
		return err ? cli_fail(cli, err, "counters: cannot write the snapshot") : 0;
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
		fprintf(stderr, "%s: counters: cannot save to %s: a symbolic link (not followed; "
			"give the file it points to)\n", cli->prog, path);
		return EXIT_FAIL;
	}
	if (err)
		return cli_fail(cli, err, "counters: cannot save to %s", path);
	if (cli->verbose)
		fprintf(stderr, "%s: saved %u ports to %s\n", cli->prog, rck_snapshot_port_count(snap),
			path);
	return 0;
}

int cmd_counters(struct cli *cli, int argc, char **argv)
{
	struct counters_args a = { 0 };
	struct rck_snapshot *snap = NULL;
	int rc;

	rc = parse_args(cli, argc, argv, &a);
	if (rc)
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
			rc = cli_fail(cli, err, "counters: cannot write the counters");
	}
	rck_snapshot_free(snap);
	return rc;
}
