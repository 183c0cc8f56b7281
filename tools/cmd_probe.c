/* `rocecheck probe`: serve probe sessions (--listen) or run one against a
 * server, printing perftest-like text or JSON and an exit code by outcome. */
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
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

/* Value checks beyond the syntax are the library's (rck_probe_opts_validate). */
const struct cli_opt probe_opts[] = {
	{ OPT_LISTEN, 0, "listen", NULL, "serve probe sessions instead of running one" },
	{ 'P', 'P', "port", "P", "control channel TCP port (default 18520; listener: 0 picks one)" },
	{ OPT_BIND, 0, "bind", "ADDR", "listener: the address to listen on" },
	{ OPT_SESSIONS, 0, "sessions", "N", "listener: exit after N sessions" },
	{ OPT_IDLE, 0, "idle", "S", "listener: exit when no client came within S seconds" },
	{ OPT_MAX_SIZE, 0, "max-size", "S", "listener: buffer bytes one session may allocate (K, M, G, T)" },
	{ OPT_MAX_QPS, 0, "max-qps", "N", "listener: QPs (TCP: streams) one session may open" },
	{ OPT_MAX_DURATION, 0, "max-duration", "S", "listener: seconds one session may run" },
	{ OPT_HELLO, 0, "hello-timeout", "S", "listener: seconds a new connection has to say HELLO" },
	{ OPT_TEST, 0, "test", "bw|lat|send-lat", "RDMA WRITE bandwidth, WRITE or SEND latency" },
	{ OPT_BIDIR, 0, "bidir", NULL, "bandwidth both ways at once" },
	{ OPT_SIZE, 0, "size", "S", "bytes per message (K, M, G suffixes)" },
	{ OPT_QPS, 0, "qps", "N", "number of QPs (TCP: streams)" },
	{ OPT_DEPTH, 0, "tx-depth", "D", "outstanding writes per QP" },
	{ OPT_DURATION, 0, "duration", "S", "measure for S seconds" },
	{ OPT_ITERS, 0, "iters", "N", "measure N messages (default 1000)" },
	{ OPT_WARMUP, 0, "warmup", "N", "messages before the measurement" },
	{ OPT_TCLASS, 0, "tclass", "T", "traffic class / IP TOS (default 106)" },
	{ OPT_SL, 0, "sl", "N", "service level" },
	{ OPT_MTU, 0, "mtu", "M", "path MTU: 256, 512, 1024, 2048 or 4096" },
	{ OPT_GID, 0, "gid-index", "I", "GID index (default: the RoCE v2 GID of the route)" },
	{ 'd', 'd', "device", "DEV[/PORT]", "RDMA device and port" },
	{ OPT_FLOW, 0, "flow-label", "L", "GRH flow label of QP 0 (QP i: L + i)" },
	{ OPT_SPORT, 0, "udp-sport", "P", "RoCE v2 UDP source port of QP 0 (QP i: P + i)" },
	{ OPT_WINDOW, 0, "window", "S", "window of the worst-window bandwidth (default 0.1)" },
	{ OPT_CM, 0, "cm", NULL, "connect the QPs through rdma_cm" },
	{ OPT_TRANSPORT, 0, "transport", "rdma|tcp", "RC QPs, or TCP where there is no RDMA" },
	{ 0 }
};

/* A byte count with an optional binary suffix: 64K, 1M, 2G. Only the
 * syntax is checked here; the library says which sizes it takes. */
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
	if (cli_parse_uint(num, 1, UINT32_MAX, &v) || v > UINT32_MAX / mult)
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

/* A value whose syntax is wrong; the ranges are the library's to tell. */
static int bad_value(struct cli *cli, const char *opt, const char *arg)
{
	const char *what = "a whole number";

	for (const struct cli_opt *o = probe_opts; o->id; o++)
		if (!strcmp(o->name, opt + 2) && strchr(o->arg, '|'))
			what = o->arg;
	if (!strcmp(opt, "--device"))
		what = "DEV or DEV/PORT";
	else if (!strcmp(opt, "--size"))
		what = "a byte count below 4G (K, M, G suffixes)";
	else if (!strcmp(opt, "--duration") || !strcmp(opt, "--idle") || !strcmp(opt, "--window"))
		what = "seconds, more than 0";
	return cli_bad_args(cli, "invalid %s '%s': %s", opt, arg, what);
}

static int probe_opt(struct cli *cli, void *data, int c, const char *arg)
{
	struct probe_args *a = data;
	unsigned long v;
	double d;

	switch (c) {
	case OPT_LISTEN:
		a->listen = true;
		return 0;
	case 'P':
		if (cli_parse_uint(arg, 0, UINT_MAX, &v))
			return bad_value(cli, "--port", arg);
		a->o.port = (unsigned int)v;
		return 0;
	case OPT_BIND:
		a->o.bind_addr = arg;
		return 0;
	case OPT_SESSIONS:
		if (cli_parse_uint(arg, 1, UINT_MAX, &v))
			return bad_value(cli, "--sessions", arg);
		a->sessions = v;
		return 0;
	case OPT_IDLE:
		if (cli_parse_double(arg, 0.001, 2000000, &d))
			return bad_value(cli, "--idle", arg);
		a->idle_s = d;
		return 0;
	/* The server's caps: syntax here, ranges in the library. */
	case OPT_MAX_SIZE:
		if (parse_bytes(arg, &a->o.max_size))
			return cli_bad_args(cli, "invalid --max-size '%s': bytes (K, M, G, T suffixes)", arg);
		a->server_opts = true;
		return 0;
	case OPT_MAX_QPS:
		if (cli_parse_uint(arg, 0, UINT_MAX, &v))
			return cli_bad_args(cli, "invalid --max-qps '%s': a count", arg);
		a->o.max_qps = (unsigned int)v;
		a->server_opts = true;
		return 0;
	case OPT_MAX_DURATION:
		if (cli_parse_double(arg, -DBL_MAX, DBL_MAX, &d))
			return cli_bad_args(cli, "invalid --max-duration '%s': seconds", arg);
		a->o.max_duration_s = d;
		a->server_opts = true;
		return 0;
	case OPT_HELLO:
		if (cli_parse_double(arg, -DBL_MAX, DBL_MAX, &d))
			return cli_bad_args(cli, "invalid --hello-timeout '%s': seconds", arg);
		a->o.hello_s = d;
		a->server_opts = true;
		return 0;
	case OPT_TEST:
		/* The library's names, so a new test needs no change here. */
		for (int t = 0; rck_probe_test_name(t); t++) {
			if (!strcmp(arg, rck_probe_test_name(t))) {
				a->o.test = t;
				return 0;
			}
		}
		return bad_value(cli, "--test", arg);
	case OPT_BIDIR:
		a->o.bidirectional = true;
		return 0;
	case OPT_SIZE:
		if (parse_size(arg, &v))
			return bad_value(cli, "--size", arg);
		a->o.msg_size = (uint32_t)v;
		return 0;
	case OPT_QPS:
		if (cli_parse_uint(arg, 0, UINT_MAX, &v))
			return bad_value(cli, "--qps", arg);
		a->o.qps = (unsigned int)v;
		return 0;
	case OPT_DEPTH:
		if (cli_parse_uint(arg, 0, UINT_MAX, &v))
			return bad_value(cli, "--tx-depth", arg);
		a->o.tx_depth = (unsigned int)v;
		return 0;
	case OPT_DURATION:
		if (cli_parse_double(arg, 0.000001, HUGE_VAL, &d))
			return bad_value(cli, "--duration", arg);
		a->o.duration_s = d;
		return 0;
	case OPT_ITERS:
		if (cli_parse_uint(arg, 1, ULONG_MAX, &v))
			return bad_value(cli, "--iters", arg);
		a->o.iters = v;
		return 0;
	case OPT_WARMUP:
		if (cli_parse_uint(arg, 0, UINT_MAX, &v))
			return bad_value(cli, "--warmup", arg);
		a->o.warmup = (unsigned int)v;
		return 0;
	case OPT_TCLASS:
		if (cli_parse_uint(arg, 0, INT_MAX, &v))
			return bad_value(cli, "--tclass", arg);
		a->o.tclass = (int)v;
		return 0;
	case OPT_SL:
		if (cli_parse_uint(arg, 0, UINT_MAX, &v))
			return bad_value(cli, "--sl", arg);
		a->o.sl = (unsigned int)v;
		return 0;
	case OPT_MTU:
		if (cli_parse_uint(arg, 1, UINT_MAX, &v))
			return bad_value(cli, "--mtu", arg);
		a->o.mtu = (unsigned int)v;
		return 0;
	case OPT_GID:
		if (cli_parse_uint(arg, 0, INT_MAX, &v))
			return bad_value(cli, "--gid-index", arg);
		a->o.gid_index = (int)v;
		return 0;
	case 'd':
		if (cli_parse_dev_port(arg, a->device, sizeof(a->device), &a->o.ib_port))
			return bad_value(cli, "--device", arg);
		a->o.device = a->device;
		return 0;
	case OPT_FLOW:
		if (cli_parse_uint(arg, 1, UINT32_MAX, &v))
			return bad_value(cli, "--flow-label", arg);
		a->o.flow_label = (uint32_t)v;
		return 0;
	case OPT_SPORT:
		if (cli_parse_uint(arg, 1, UINT16_MAX, &v))
			return bad_value(cli, "--udp-sport", arg);
		a->o.udp_sport = (uint16_t)v;
		return 0;
	case OPT_WINDOW:
		if (cli_parse_double(arg, 0.000001, HUGE_VAL, &d))
			return bad_value(cli, "--window", arg);
		a->o.window_s = d;
		return 0;
	case OPT_CM:
		a->o.cm = true;
		return 0;
	case OPT_TRANSPORT:
		for (int t = 0; rck_probe_transport_name(t); t++) {
			if (!strcmp(arg, rck_probe_transport_name(t))) {
				a->o.transport = t;
				return 0;
			}
		}
		return bad_value(cli, "--transport", arg);
	default:
		return EXIT_USAGE;
	}
}

static int print_result(struct cli *cli, const struct rck_probe_result *res, const char *who)
{
	int rc;

	if (rck_probe_result_status(res) != RCK_PROBE_OK)
		cli_msg(cli, "%s: %s", who, rck_probe_result_error(res));
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
		return cli_fail(cli, rc, "cannot listen on port %u", a->o.port);
	if (cli->verbose)
		cli_msg(cli, "listening on port %u", rck_probe_server_port(srv));
	for (unsigned long n = 0; !a->sessions || n < a->sessions; n++) {
		struct rck_probe_result *res;
		const char *peer;
		int code;

		rc = rck_probe_server_serve(srv, wait_ms, &res);
		if (rc == -ETIMEDOUT) {
			cli_msg(cli, "no client within %g s", a->idle_s);
			worst = worst ? worst : EXIT_UNREACHABLE;
			break;
		}
		if (rc) {
			worst = cli_fail(cli, rc, "serving");
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
	char why[256];
	int rc;

	/* A reader of our output that went away is an error to report, not
	 * a signal to die of (the listener serves on). */
	signal(SIGPIPE, SIG_IGN);
	rck_probe_opts_init(&a.o);
	rc = cli_parse(cli, argc, argv, probe_opt, &a);
	if (rc != CLI_CONTINUE)
		return rc;
	if (a.listen) {
		if (cli->nargs)
			return cli_usage_err(cli, "--listen takes no host ('%s')", cli->args[0]);
		if (rck_probe_opts_validate(&a.o, RCK_PROBE_ROLE_SERVER, why, sizeof(why)))
			return cli_bad_args(cli, "%s", why);
		return listen_loop(cli, &a);
	}
	if (!cli->nargs)
		return cli_usage_err(cli, "give a HOST to probe, or --listen");
	if (cli->nargs > 1)
		return cli_usage_err(cli, "unexpected argument '%s'", cli->args[1]);
	if (a.sessions || a.idle_s || a.o.bind_addr || a.server_opts)
		return cli_bad_args(cli, "--sessions, --idle, --bind, --max-size, --max-qps, "
				    "--max-duration and --hello-timeout go with --listen");
	if (rck_probe_opts_validate(&a.o, RCK_PROBE_ROLE_CLIENT, why, sizeof(why)))
		return cli_bad_args(cli, "%s", why);
	a.host = cli->args[0];
	rc = rck_probe_run(cli->ctx, a.host, &a.o, &res);
	if (rc == -EINVAL)
		return EXIT_USAGE;
	if (rc)
		return cli_fail(cli, rc, "%s", a.host);
	rc = print_result(cli, res, a.host);
	rck_probe_result_free(res);
	return rc;
}
