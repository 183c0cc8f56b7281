/* `rocecheck monitor`: one daemon per host that probes its peers at a low
 * rate and watches its ports every second while jobs run. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"

struct monitor_args {
	const char *pinglist, *hosts, *self, *listen, *textfile, *npd, *config, *metrics;
	enum rck_monitor_transport transport;
	unsigned long port, window, k, n, sample, round;
	double duration;
	bool no_counters, print_pinglist, collect;
};

enum {
	OPT_PINGLIST = 256, OPT_HOSTS, OPT_SELF, OPT_SAMPLE, OPT_ROUND, OPT_LISTEN, OPT_PORT,
	OPT_WINDOW, OPT_HOLD, OPT_TEXTFILE, OPT_NPD, OPT_CONFIG, OPT_DURATION, OPT_NO_COUNTERS,
	OPT_METRICS, OPT_PRINT_PINGLIST, OPT_COLLECT, OPT_TRANSPORT,
};

const struct cli_opt monitor_opts[] = {
	{ OPT_PINGLIST, 0, "pinglist", "FILE", "peers to probe (NAME ADDRESS [rate=HZ] [leaf=LEAF] lines)" },
	{ OPT_HOSTS, 0, "hosts", "FILE", "every peer of the job, same format: build this host's pinglist" },
	{ OPT_SELF, 0, "self", "NAME", "this host's name in --hosts (default: the host name)" },
	{ OPT_SAMPLE, 0, "sample", "N", "peers under other leaves probed at once (default 8)" },
	{ OPT_ROUND, 0, "round", "N", "which sample of the other leaves' peers (default 0)" },
	{ OPT_LISTEN, 0, "listen", "ADDR", "address the probe responder binds (default 0.0.0.0)" },
	{ OPT_TRANSPORT, 0, "transport", "T", "probes over auto (RDMA UD where a NIC serves the peer, else UDP), rdma or udp" },
	{ OPT_PORT, 0, "port", "N", "UDP port of the responder and default peer port (default 18515)" },
	{ OPT_WINDOW, 0, "window", "S", "probe statistics window in seconds (default 10)" },
	{ OPT_HOLD, 0, "hold", "K/N", "a finding counts once held in K of N windows (default 2/3)" },
	{ OPT_TEXTFILE, 0, "textfile", "FILE", "node_exporter textfile rewritten each window (atomically)" },
	{ OPT_NPD, 0, "npd", "FILE", "node-problem-detector condition line (atomically)" },
	{ OPT_CONFIG, 0, "config", "FILE", "thresholds file (rocecheck-thresholds(5))" },
	{ OPT_DURATION, 0, "duration", "S", "stop after S seconds (default: until SIGTERM)" },
	{ OPT_NO_COUNTERS, 0, "no-counters", NULL, "probe only; do not poll the ports' counters" },
	{ OPT_METRICS, 0, "metrics", "ADDR:PORT", "serve /metrics over HTTP (needs the exporter)" },
	{ OPT_PRINT_PINGLIST, 0, "print-pinglist", NULL, "print the pinglist and exit" },
	{ OPT_COLLECT, 0, "collect", NULL, "group the bad pairs in monitors' event files (arguments)" },
	{ 0 }
};

static int monitor_opt(struct cli *cli, void *data, int id, const char *arg)
{
	struct monitor_args *a = data;
	char *end;

	switch (id) {
	case OPT_PINGLIST: a->pinglist = arg; return 0;
	case OPT_HOSTS: a->hosts = arg; return 0;
	case OPT_SELF: a->self = arg; return 0;
	case OPT_LISTEN: a->listen = arg; return 0;
	case OPT_TEXTFILE: a->textfile = arg; return 0;
	case OPT_NPD: a->npd = arg; return 0;
	case OPT_CONFIG: a->config = arg; return 0;
	case OPT_METRICS: a->metrics = arg; return 0;
	case OPT_NO_COUNTERS: a->no_counters = true; return 0;
	case OPT_PRINT_PINGLIST: a->print_pinglist = true; return 0;
	case OPT_COLLECT: a->collect = true; return 0;
	case OPT_TRANSPORT:
		if (!strcmp(arg, "auto"))
			a->transport = RCK_MONITOR_TRANSPORT_AUTO;
		else if (!strcmp(arg, "rdma"))
			a->transport = RCK_MONITOR_TRANSPORT_RDMA;
		else if (!strcmp(arg, "udp"))
			a->transport = RCK_MONITOR_TRANSPORT_UDP;
		else
			return cli_bad_args(cli, "invalid --transport '%s': auto, rdma or udp", arg);
		return 0;
	case OPT_SAMPLE:
		if (cli_parse_uint(arg, 0, RCK_PINGLIST_MAX, &a->sample))
			return cli_bad_args(cli, "invalid --sample '%s': 0 to %u", arg, RCK_PINGLIST_MAX);
		return 0;
	case OPT_ROUND:
		if (cli_parse_uint(arg, 0, 1000000000, &a->round))
			return cli_bad_args(cli, "invalid --round '%s'", arg);
		return 0;
	case OPT_PORT:
		if (cli_parse_uint(arg, 0, 65535, &a->port))
			return cli_bad_args(cli, "invalid --port '%s': 0 to 65535", arg);
		return 0;
	case OPT_WINDOW:
		if (cli_parse_uint(arg, 1, 3600, &a->window))
			return cli_bad_args(cli, "invalid --window '%s': 1 to 3600 s", arg);
		return 0;
	case OPT_DURATION:
		if (cli_parse_double(arg, 0, 1e9, &a->duration))
			return cli_bad_args(cli, "invalid --duration '%s'", arg);
		return 0;
	case OPT_HOLD:
		errno = 0;
		a->k = strtoul(arg, &end, 10);
		if (end == arg || *end != '/' || arg[0] == '-' || cli_parse_uint(end + 1, 1, 32, &a->n) ||
		    !a->k || a->k > a->n)
			return cli_bad_args(cli, "invalid --hold '%s': K/N with 1 <= K <= N <= 32", arg);
		return 0;
	default:
		return EXIT_USAGE;
	}
}

/* --metrics ADDR:PORT ("[v6]:PORT" for IPv6, ":PORT" for loopback): the
 * library serves the monitor's last snapshot on its own thread. */
static int monitor_serve_metrics(struct rck_monitor *m, const char *addr_port)
{
	const char *colon = strrchr(addr_port, ':');
	char addr[128];
	unsigned long port;
	size_t n;

	if (!colon || cli_parse_uint(colon + 1, 0, 65535, &port))
		return -EINVAL;
	n = (size_t)(colon - addr_port);
	if (n >= sizeof(addr))
		return -EINVAL;
	memcpy(addr, addr_port, n);
	addr[n] = 0;
	return rck_monitor_serve_metrics(m, n ? addr : NULL, (unsigned int)port);
}

static struct rck_monitor *volatile running;

static void on_signal(int sig)
{
	struct rck_monitor *m = running;

	(void)sig;
	if (m)
		rck_monitor_stop(m);
}

static int load_pinglist(struct cli *cli, const struct monitor_args *a, struct rck_pinglist **pl)
{
	char err[512] = "", host[256] = "";
	struct rck_pinglist *hosts = NULL;
	const char *self = a->self;
	int rc;

	if (a->pinglist) {
		rc = rck_pinglist_load(a->pinglist, pl, err, sizeof(err));
		if (rc)
			return cli_msg(cli, "%s", *err ? err : strerror(-rc)), EXIT_USAGE;
		return 0;
	}
	if (!a->hosts) {
		return rck_pinglist_new(pl) ? cli_fail(cli, -ENOMEM, "pinglist") : 0;
	}
	rc = rck_pinglist_load(a->hosts, &hosts, err, sizeof(err));
	if (rc)
		return cli_msg(cli, "%s", *err ? err : strerror(-rc)), EXIT_USAGE;
	if (!self) {
		gethostname(host, sizeof(host) - 1);
		self = host;
	}
	rc = rck_pinglist_build(hosts, self, RCK_PINGLIST_LEAF_HZ, RCK_PINGLIST_OTHER_HZ,
				a->sample, a->round, pl);
	rck_pinglist_free(hosts);
	if (rc == -ENOENT)
		return cli_bad_args(cli, "%s: this host '%s' is not listed (--self NAME)", a->hosts, self);
	return rc ? cli_fail(cli, rc, "building the pinglist") : 0;
}

static int run(struct cli *cli, const struct monitor_args *a, struct rck_monitor_config *cfg,
	       struct rck_pinglist *pl)
{
	struct rck_thresholds *th = NULL;
	struct rck_monitor *m = NULL;
	struct sigaction sa = { .sa_handler = on_signal };
	char host[256] = "", err[512] = "";
	const char *config = cli_config_file(a->config);
	int rc;

	if (config) {
		if ((rc = rck_thresholds_new(&th)))
			return cli_fail(cli, rc, "thresholds");
		if ((rc = rck_thresholds_load(th, config, err, sizeof(err)))) {
			rck_thresholds_free(th);
			return cli_msg(cli, "%s", *err ? err : strerror(-rc)), EXIT_USAGE;
		}
		rck_monitor_config_set_thresholds(cfg, th);
		rck_thresholds_free(th);
	}
	gethostname(host, sizeof(host) - 1);
	rc = rck_monitor_config_set_host(cfg, a->self ? a->self : *host ? host : "localhost");
	if (!rc)
		rc = rck_monitor_config_set_pinglist(cfg, pl);
	if (!rc)
		rc = rck_monitor_config_set_listen(cfg, a->listen, a->port);
	if (!rc && a->window)
		rc = rck_monitor_config_set_window(cfg, (unsigned int)a->window, a->k ? (unsigned int)a->k : RCK_MONITOR_HOLD_K,
						   a->n ? (unsigned int)a->n : RCK_MONITOR_HOLD_N);
	else if (!rc && a->k)
		rc = rck_monitor_config_set_window(cfg, RCK_MONITOR_WINDOW_S, (unsigned int)a->k, (unsigned int)a->n);
	if (!rc)
		rc = rck_monitor_config_set_textfile(cfg, a->textfile);
	if (!rc)
		rc = rck_monitor_config_set_npd(cfg, a->npd);
	if (!rc)
		rc = rck_monitor_config_set_events(cfg, stdout);
	if (!rc)
		rc = rck_monitor_config_set_duration(cfg, a->duration);
	if (!rc)
		rc = rck_monitor_config_set_counters(cfg, !a->no_counters);
	if (!rc)
		rc = rck_monitor_config_set_transport(cfg, a->transport);
	if (rc)
		return cli_bad_args(cli, "invalid monitor settings: %s", strerror(-rc));
	if ((rc = rck_monitor_new(cli->ctx, cfg, &m)))
		return cli_fail(cli, rc, "starting the monitor on %s port %lu%s",
				a->listen ? a->listen : "0.0.0.0", a->port,
				rc == -ENODEV ? " (--transport rdma: a peer has no RDMA device with a RoCE v2 GID for its route)" : ""), EXIT_FAIL;
	if (a->metrics && (rc = monitor_serve_metrics(m, a->metrics))) {
		rck_monitor_free(m);
		return cli_fail(cli, rc, "--metrics %s: cannot serve /metrics there", a->metrics), EXIT_FAIL;
	}
	running = m;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	/* the transport asked for; each peer's own (and its timestamps) is its probe_path event */
	printf("{\"schema\":\"%s\",\"event\":\"started\",\"port\":%u,\"peers\":%u,"
	       "\"transport\":\"%s\",\"timestamping\":\"sw\",\"metrics_port\":%u}\n",
	       RCK_MONITOR_EVENT_SCHEMA, rck_monitor_port(m), rck_pinglist_count(pl),
	       a->transport == RCK_MONITOR_TRANSPORT_UDP ? "udp" :
	       a->transport == RCK_MONITOR_TRANSPORT_RDMA ? "rdma-ud" : "auto", rck_monitor_metrics_port(m));
	fflush(stdout);
	rc = rck_monitor_run(m);
	/* The handler stays until exit: timeout(1) sends SIGTERM to the
	 * process and again to its group, and a second one during the
	 * shutdown killed a loaded ASan run before it was done (exit 143). */
	running = NULL;
	printf("{\"schema\":\"%s\",\"event\":\"stopped\"}\n", RCK_MONITOR_EVENT_SCHEMA);
	fflush(stdout);
	rck_monitor_free(m);
	return rc ? cli_fail(cli, rc, "monitor"), EXIT_FAIL : EXIT_MEASURED;
}

int cmd_monitor(struct cli *cli, int argc, char **argv)
{
	struct monitor_args a = { .port = 18515, .sample = 8 };
	struct rck_monitor_config *cfg = NULL;
	struct rck_pinglist *pl = NULL;
	int rc = cli_parse(cli, argc, argv, monitor_opt, &a);

	if (rc != CLI_CONTINUE)
		return rc;
	if (a.collect) {
		char err[512] = "";

		if (!cli->nargs)
			return cli_usage_err(cli, "--collect needs the monitors' event files");
		rc = rck_monitor_collect((const char *const *)cli->args, (unsigned int)cli->nargs, stdout,
					 err, sizeof(err));
		if (rc == -EINVAL || rc == -E2BIG || rc == -ENOENT)
			return cli_msg(cli, "%s", err), EXIT_USAGE;
		return rc ? cli_fail(cli, rc, "%s", *err ? err : "collect") : EXIT_MEASURED;
	}
	if (cli->nargs)
		return cli_usage_err(cli, "unexpected argument '%s'", cli->args[0]);
	if (a.pinglist && a.hosts)
		return cli_bad_args(cli, "--pinglist and --hosts exclude each other");
	if ((rc = load_pinglist(cli, &a, &pl)))
		return rc;
	if (a.print_pinglist) {
		rc = rck_pinglist_write(pl, stdout) ? EXIT_FAIL : EXIT_MEASURED;
		rck_pinglist_free(pl);
		return rc;
	}
	if ((rc = rck_monitor_config_new(&cfg))) {
		rck_pinglist_free(pl);
		return cli_fail(cli, rc, "monitor");
	}
	rc = run(cli, &a, cfg, pl);
	rck_monitor_config_free(cfg);
	rck_pinglist_free(pl);
	return rc;
}
