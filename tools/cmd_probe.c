/* `rocecheck probe`: serve probe sessions (--listen) or run one against a
 * server, printing perftest-like text or JSON and an exit code by outcome. */
#include <errno.h>
#include <getopt.h>
#include <float.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"

enum {
	OPT_LISTEN = 256, OPT_BIND, OPT_SESSIONS, OPT_IDLE, OPT_TEST, OPT_BIDIR, OPT_SIZE, OPT_QPS,
	OPT_DEPTH, OPT_DURATION, OPT_ITERS, OPT_WARMUP, OPT_TCLASS, OPT_SL, OPT_MTU, OPT_GID,
	OPT_FLOW, OPT_SPORT, OPT_WINDOW, OPT_CM, OPT_TRANSPORT, OPT_MAX_SIZE, OPT_MAX_QPS,
	OPT_MAX_DURATION, OPT_HELLO,
};

static const struct option probe_opts[] = {
	{ "listen", no_argument, NULL, OPT_LISTEN },
	{ "port", required_argument, NULL, 'P' },
	{ "bind", required_argument, NULL, OPT_BIND },
	{ "sessions", required_argument, NULL, OPT_SESSIONS },
	{ "idle", required_argument, NULL, OPT_IDLE },
	{ "max-size", required_argument, NULL, OPT_MAX_SIZE },
	{ "max-qps", required_argument, NULL, OPT_MAX_QPS },
	{ "max-duration", required_argument, NULL, OPT_MAX_DURATION },
	{ "hello-timeout", required_argument, NULL, OPT_HELLO },
	{ "test", required_argument, NULL, OPT_TEST },
	{ "bidir", no_argument, NULL, OPT_BIDIR },
	{ "size", required_argument, NULL, OPT_SIZE },
	{ "qps", required_argument, NULL, OPT_QPS },
	{ "tx-depth", required_argument, NULL, OPT_DEPTH },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "iters", required_argument, NULL, OPT_ITERS },
	{ "warmup", required_argument, NULL, OPT_WARMUP },
	{ "tclass", required_argument, NULL, OPT_TCLASS },
	{ "sl", required_argument, NULL, OPT_SL },
	{ "mtu", required_argument, NULL, OPT_MTU },
	{ "gid-index", required_argument, NULL, OPT_GID },
	{ "device", required_argument, NULL, 'd' },
	{ "flow-label", required_argument, NULL, OPT_FLOW },
	{ "udp-sport", required_argument, NULL, OPT_SPORT },
	{ "window", required_argument, NULL, OPT_WINDOW },
	{ "cm", no_argument, NULL, OPT_CM },
	{ "transport", required_argument, NULL, OPT_TRANSPORT },
	{ "json", no_argument, NULL, 'j' },
	{ "pretty", no_argument, NULL, 'p' },
	{ "help", no_argument, NULL, 'h' },
	{ 0 }
};

static void probe_usage(FILE *f)
{
	fprintf(f,
		"Usage: rocecheck probe --listen [--port P] [--bind ADDR] [--sessions N] [--idle S]\n"
		"                       [--max-size S] [--max-qps N] [--max-duration S]\n"
		"                       [--hello-timeout S] [-d DEV[/PORT]] [--gid-index I]\n"
		"       rocecheck probe HOST [--port P] [--test bw|lat|send-lat] [--bidir] [--size S]\n"
		"                       [--qps N] [--tx-depth D] [--duration S | --iters N] [--warmup N]\n"
		"                       [--tclass T] [--sl N] [--mtu M] [-d DEV[/PORT]] [--gid-index I]\n"
		"                       [--flow-label L | --udp-sport P] [--window S] [--cm]\n"
		"                       [--transport rdma|tcp] [-j]\n"
		"See rocecheck-probe(8).\n");
}

/* A byte count with an optional binary suffix: 64K, 1M, 2G. */
static int parse_size(const char *arg, unsigned long *out)
{
	char num[32];
	size_t n = strlen(arg);
	unsigned long v, mult = 1;

	if (n == 0 || n >= sizeof(num))
		return -EINVAL;
	memcpy(num, arg, n + 1);
	switch (num[n - 1]) {
	case 'k': case 'K': mult = 1ul << 10; break;
	case 'm': case 'M': mult = 1ul << 20; break;
	case 'g': case 'G': mult = 1ul << 30; break;
	default: break;
	}
	if (mult > 1)
		num[n - 1] = '\0';
	if (cli_parse_uint(num, 1, 1ul << 30, &v) || v > (1ul << 30) / mult)
		return -EINVAL;
	*out = v * mult;
	return 0;
}

/* A byte count with an optional binary suffix (K, M, G, T), any size: the
 * library says what it accepts. */
static int parse_bytes(const char *arg, uint64_t *out)
{
	static const char suffix[] = "kmgt";
	char num[32];
	size_t n = strlen(arg);
	const char *s;
	unsigned long v;
	unsigned int shift = 0;

	if (n == 0 || n >= sizeof(num))
		return -EINVAL;
	memcpy(num, arg, n + 1);
	s = strchr(suffix, num[n - 1] | 0x20);
	if (num[n - 1] && s) {
		shift = 10 * (unsigned int)(s - suffix + 1);
		num[n - 1] = '\0';
	}
	if (cli_parse_uint(num, 0, ULONG_MAX, &v) || (shift && v > (UINT64_MAX >> shift)))
		return -EINVAL;
	*out = (uint64_t)v << shift;
	return 0;
}

static int exit_code(enum rck_probe_status st)
{
	switch (st) {
	case RCK_PROBE_OK:
		return EXIT_MEASURED;
	case RCK_PROBE_INVALID:
		return EXIT_USAGE;
	case RCK_PROBE_UNREACHABLE:
	case RCK_PROBE_TIMEOUT:
	case RCK_PROBE_PROTOCOL:
		return EXIT_UNREACHABLE;
	case RCK_PROBE_RDMA:
		return EXIT_RDMA;
	default:
		return EXIT_FAIL;
	}
}

struct probe_args {
	struct rck_probe_opts o;
	char device[64];
	bool listen, server_opts;
	unsigned long sessions;
	double idle_s;
	const char *host;
};

static int parse_arg(struct cli *cli, struct probe_args *a, int c, const char *arg)
{
	unsigned long v;
	double d;

	switch (c) {
	case OPT_LISTEN:
		a->listen = true;
		return 0;
	case 'P':
		if (cli_parse_uint(arg, 0, 65535, &v))
			return cli_bad_args(cli, "probe: invalid --port '%s': 0 to 65535", arg);
		a->o.port = (unsigned int)v;
		return 0;
	case OPT_BIND:
		a->o.bind_addr = arg;
		return 0;
	case OPT_SESSIONS:
		if (cli_parse_uint(arg, 1, UINT_MAX, &v))
			return cli_bad_args(cli, "probe: invalid --sessions '%s': 1 or more", arg);
		a->sessions = v;
		return 0;
	case OPT_IDLE:
		if (cli_parse_double(arg, 0.001, 2000000, &d))
			return cli_bad_args(cli, "probe: invalid --idle '%s': seconds", arg);
		a->idle_s = d;
		return 0;
	/* The server's caps: syntax here, ranges in the library. */
	case OPT_MAX_SIZE:
		if (parse_bytes(arg, &a->o.max_size))
			return cli_bad_args(cli, "probe: invalid --max-size '%s': bytes (K, M, G, T suffixes)", arg);
		a->server_opts = true;
		return 0;
	case OPT_MAX_QPS:
		if (cli_parse_uint(arg, 0, UINT_MAX, &v))
			return cli_bad_args(cli, "probe: invalid --max-qps '%s': a count", arg);
		a->o.max_qps = (unsigned int)v;
		a->server_opts = true;
		return 0;
	case OPT_MAX_DURATION:
		if (cli_parse_double(arg, -DBL_MAX, DBL_MAX, &d))
			return cli_bad_args(cli, "probe: invalid --max-duration '%s': seconds", arg);
		a->o.max_duration_s = d;
		a->server_opts = true;
		return 0;
	case OPT_HELLO:
		if (cli_parse_double(arg, -DBL_MAX, DBL_MAX, &d))
			return cli_bad_args(cli, "probe: invalid --hello-timeout '%s': seconds", arg);
		a->o.hello_s = d;
		a->server_opts = true;
		return 0;
	case OPT_TEST:
		if (!strcmp(arg, "bw"))
			a->o.test = RCK_PROBE_TEST_BW;
		else if (!strcmp(arg, "lat"))
			a->o.test = RCK_PROBE_TEST_LAT;
		else if (!strcmp(arg, "send-lat"))
			a->o.test = RCK_PROBE_TEST_SEND_LAT;
		else
			return cli_bad_args(cli, "probe: invalid --test '%s': bw, lat or send-lat", arg);
		return 0;
	case OPT_BIDIR:
		a->o.bidirectional = true;
		return 0;
	case OPT_SIZE:
		if (parse_size(arg, &v))
			return cli_bad_args(cli, "probe: invalid --size '%s': 1 byte to 1G (K, M, G suffixes)", arg);
		a->o.msg_size = (uint32_t)v;
		return 0;
	case OPT_QPS:
		if (cli_parse_uint(arg, 1, 256, &v))
			return cli_bad_args(cli, "probe: invalid --qps '%s': 1 to 256", arg);
		a->o.qps = (unsigned int)v;
		return 0;
	case OPT_DEPTH:
		if (cli_parse_uint(arg, 1, 8192, &v))
			return cli_bad_args(cli, "probe: invalid --tx-depth '%s': 1 to 8192", arg);
		a->o.tx_depth = (unsigned int)v;
		return 0;
	case OPT_DURATION:
		if (cli_parse_double(arg, 0.001, 86400, &d))
			return cli_bad_args(cli, "probe: invalid --duration '%s': seconds, 0.001 to 86400", arg);
		a->o.duration_s = d;
		return 0;
	case OPT_ITERS:
		if (cli_parse_uint(arg, 1, 1000000000000ul, &v))
			return cli_bad_args(cli, "probe: invalid --iters '%s': 1 or more", arg);
		a->o.iters = v;
		return 0;
	case OPT_WARMUP:
		if (cli_parse_uint(arg, 0, 1000000, &v))
			return cli_bad_args(cli, "probe: invalid --warmup '%s': 0 to 1000000", arg);
		a->o.warmup = (unsigned int)v;
		return 0;
	case OPT_TCLASS:
		if (cli_parse_uint(arg, 0, 255, &v))
			return cli_bad_args(cli, "probe: invalid --tclass '%s': 0 to 255", arg);
		a->o.tclass = (int)v;
		return 0;
	case OPT_SL:
		if (cli_parse_uint(arg, 0, 15, &v))
			return cli_bad_args(cli, "probe: invalid --sl '%s': 0 to 15", arg);
		a->o.sl = (unsigned int)v;
		return 0;
	case OPT_MTU:
		if (cli_parse_uint(arg, 256, 4096, &v) || (v & (v - 1)))
			return cli_bad_args(cli, "probe: invalid --mtu '%s': 256, 512, 1024, 2048 or 4096", arg);
		a->o.mtu = (unsigned int)v;
		return 0;
	case OPT_GID:
		if (cli_parse_uint(arg, 0, 255, &v))
			return cli_bad_args(cli, "probe: invalid --gid-index '%s': 0 to 255", arg);
		a->o.gid_index = (int)v;
		return 0;
	case 'd':
		if (cli_parse_dev_port(arg, a->device, sizeof(a->device), &a->o.ib_port))
			return cli_bad_args(cli, "probe: invalid --device '%s': DEV or DEV/PORT", arg);
		a->o.device = a->device;
		return 0;
	case OPT_FLOW:
		if (cli_parse_uint(arg, 1, 0xfffff, &v))
			return cli_bad_args(cli, "probe: invalid --flow-label '%s': 1 to 1048575", arg);
		a->o.flow_label = (uint32_t)v;
		return 0;
	case OPT_SPORT:
		if (cli_parse_uint(arg, 49152, 65535, &v))
			return cli_bad_args(cli, "probe: invalid --udp-sport '%s': 49152 to 65535", arg);
		a->o.udp_sport = (uint16_t)v;
		return 0;
	case OPT_WINDOW:
		if (cli_parse_double(arg, 0.001, 3600, &d))
			return cli_bad_args(cli, "probe: invalid --window '%s': seconds, 0.001 to 3600", arg);
		a->o.window_s = d;
		return 0;
	case OPT_CM:
		a->o.cm = true;
		return 0;
	case OPT_TRANSPORT:
		if (!strcmp(arg, "rdma"))
			a->o.transport = RCK_PROBE_TRANSPORT_RDMA;
		else if (!strcmp(arg, "tcp"))
			a->o.transport = RCK_PROBE_TRANSPORT_TCP;
		else
			return cli_bad_args(cli, "probe: invalid --transport '%s': rdma or tcp", arg);
		return 0;
	case 'j':
		if (cli->fmt == RCK_FORMAT_TEXT)
			cli->fmt = RCK_FORMAT_JSON;
		return 0;
	case 'p':
		cli->fmt = RCK_FORMAT_JSON_PRETTY;
		return 0;
	default:
		probe_usage(stderr);
		return EXIT_USAGE;
	}
}

static int print_result(struct cli *cli, const struct rck_probe_result *res, const char *who)
{
	int rc;

	if (rck_probe_result_status(res) != RCK_PROBE_OK)
		fprintf(stderr, "%s: probe %s: %s\n", cli->prog, who, rck_probe_result_error(res));
	if (rck_probe_result_status(res) != RCK_PROBE_OK && cli->fmt == RCK_FORMAT_TEXT)
		return exit_code(rck_probe_result_status(res));
	rc = rck_probe_result_write(res, stdout, cli->fmt);
	if (rc)
		return cli_fail(cli, rc, "cannot write the probe result");
	return exit_code(rck_probe_result_status(res));
}

/* The listener outlives its reader: with SIGPIPE ignored, a stdout that
 * went away is a write error, said once, and the sessions go on. */
static bool output_lost(struct cli *cli, bool *lost)
{
	if (*lost)
		return true;
	if (fflush(stdout) == 0 && !ferror(stdout))
		return false;
	fprintf(stderr, "%s: probe: cannot write results to stdout: %s; serving on without printing them\n",
		cli->prog, strerror(errno));
	clearerr(stdout);
	*lost = true;
	return true;
}

static int listen_loop(struct cli *cli, struct probe_args *a)
{
	struct rck_probe_server *srv;
	int wait_ms = a->idle_s ? (int)(a->idle_s * 1000 + 0.5) : -1;
	int worst = EXIT_MEASURED, rc;
	bool lost = false;

	rc = rck_probe_server_new(cli->ctx, &a->o, &srv);
	if (rc == -EINVAL)
		return EXIT_USAGE;
	if (rc)
		return cli_fail(cli, rc, "probe: cannot listen on port %u", a->o.port);
	if (cli->verbose)
		fprintf(stderr, "%s: probe: listening on port %u\n", cli->prog, rck_probe_server_port(srv));
	for (unsigned long n = 0; !a->sessions || n < a->sessions; n++) {
		struct rck_probe_result *res;
		const char *peer;
		int code;

		rc = rck_probe_server_serve(srv, wait_ms, &res);
		if (rc == -ETIMEDOUT) {
			fprintf(stderr, "%s: probe: no client within %g s\n", cli->prog, a->idle_s);
			worst = worst ? worst : EXIT_UNREACHABLE;
			break;
		}
		if (rc) {
			worst = cli_fail(cli, rc, "probe: serving");
			break;
		}
		peer = rck_probe_result_address(res, RCK_PROBE_REMOTE);
		peer = peer ? peer : "session";
		if (lost) {
			code = exit_code(rck_probe_result_status(res));
			if (code)
				fprintf(stderr, "%s: probe %s: %s\n", cli->prog, peer, rck_probe_result_error(res));
		} else {
			code = print_result(cli, res, peer);
			if (output_lost(cli, &lost))
				code = exit_code(rck_probe_result_status(res));
		}
		if (code && !worst)
			worst = code;
		rck_probe_result_free(res);
	}
	rck_probe_server_free(srv);
	return worst ? worst : lost ? EXIT_FAIL : EXIT_MEASURED;
}

int cmd_probe(struct cli *cli, int argc, char **argv)
{
	struct probe_args a = { 0 };
	struct rck_probe_result *res;
	int c, rc;

	/* A reader of our output that went away is an error to report, not
	 * a signal to die of (the listener serves on). */
	signal(SIGPIPE, SIG_IGN);
	rck_probe_opts_init(&a.o);
	while ((c = getopt_long(argc, argv, "P:d:jph", probe_opts, NULL)) != -1) {
		if (c == 'h') {
			probe_usage(stdout);
			return 0;
		}
		if ((rc = parse_arg(cli, &a, c, optarg)))
			return rc;
	}
	if (a.listen) {
		if (optind < argc)
			return cli_bad_args(cli, "probe: --listen takes no host ('%s')", argv[optind]);
		return listen_loop(cli, &a);
	}
	if (optind >= argc)
		return cli_bad_args(cli, "probe: give a HOST to probe, or --listen");
	if (optind + 1 < argc)
		return cli_bad_args(cli, "probe: unexpected argument '%s'", argv[optind + 1]);
	if (a.sessions || a.idle_s || a.o.bind_addr || a.server_opts)
		return cli_bad_args(cli, "probe: --sessions, --idle, --bind, --max-size, --max-qps, "
				    "--max-duration and --hello-timeout go with --listen");
	if (a.o.port == 0)
		return cli_bad_args(cli, "probe: invalid --port '0': 1 to 65535");
	a.host = argv[optind];
	rc = rck_probe_run(cli->ctx, a.host, &a.o, &res);
	if (rc == -EINVAL)
		return EXIT_USAGE;
	if (rc)
		return cli_fail(cli, rc, "probe %s", a.host);
	rc = print_result(cli, res, a.host);
	rck_probe_result_free(res);
	return rc;
}
