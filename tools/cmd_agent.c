/* `rocecheck agent`: serve sweep coordinators on this host, with a shared
 * key file or, with --once, a fresh token printed for a launcher. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "commands.h"

static struct rck_agent *running_agent;

static void on_signal(int sig)
{
	(void)sig;
	rck_agent_stop(running_agent);
}

static void agent_usage(FILE *f)
{
	fprintf(f,
		"Usage: rocecheck agent [--listen [ADDR:]PORT] [--key-file FILE] [--once] [--idle S]\n"
		"  --listen [ADDR:]PORT  listen there (default port %u on every address)\n"
		"  --key-file FILE       shared key coordinators must prove (mode 600, ours)\n"
		"  --once                a free port and a fresh token: print \"PORT TOKEN\",\n"
		"                        serve one session, exit (for launchers)\n"
		"  --idle S              end a session (with --once: exit) after S seconds\n"
		"                        without a request (default 60)\n",
		RCK_AGENT_DEFAULT_PORT);
}

/* "PORT", "ADDR:PORT", "[V6]:PORT". */
static int parse_listen(const char *arg, char *addr, size_t len, unsigned long *port)
{
	const char *colon = strrchr(arg, ':');
	const char *p = colon ? colon + 1 : arg;
	size_t n = colon ? (size_t)(colon - arg) : 0;

	if (colon && n > 1 && arg[0] == '[' && arg[n - 1] == ']') {
		arg++;
		n -= 2;
	}
	if (n >= len || (colon && n == 0) || cli_parse_uint(p, 0, 65535, port))
		return -EINVAL;
	memcpy(addr, arg, n);
	addr[n] = '\0';
	return 0;
}

int cmd_agent(struct cli *cli, int argc, char **argv)
{
	enum { OPT_LISTEN = 256, OPT_KEY, OPT_ONCE, OPT_IDLE };
	static const struct option opts[] = {
		{ "listen", required_argument, NULL, OPT_LISTEN },
		{ "key-file", required_argument, NULL, OPT_KEY },
		{ "once", no_argument, NULL, OPT_ONCE },
		{ "idle", required_argument, NULL, OPT_IDLE },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct rck_agent_opts o;
	struct rck_agent *a = NULL;
	const char *key_file = NULL;
	uint8_t key[RCK_KEY_MAX];
	char addr[256] = "", err[300], token[2 * 16 + 1];
	unsigned long port = RCK_AGENT_DEFAULT_PORT;
	bool once = false;
	struct sigaction sa = { .sa_handler = on_signal };
	int c, rc;

	rck_agent_opts_init(&o);
	opterr = 0;
	if (argc > 1 && !strcmp(argv[1], "help")) {
		agent_usage(stdout);
		return 0;
	}
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			agent_usage(stdout);
			return 0;
		case OPT_LISTEN:
			if (parse_listen(optarg, addr, sizeof(addr), &port))
				return cli_bad_args(cli, "agent: invalid --listen '%s': [ADDR:]PORT", optarg);
			break;
		case OPT_KEY:
			key_file = optarg;
			break;
		case OPT_ONCE:
			once = true;
			break;
		case OPT_IDLE:
			if (cli_parse_double(optarg, 0.1, 86400, &o.idle_s))
				return cli_bad_args(cli, "agent: invalid --idle '%s': seconds, 0.1 to 86400", optarg);
			break;
		default:
			fprintf(stderr, "%s: agent: %s '%s'\n", cli->prog,
				c == ':' ? "missing value of option" : "unknown option", argv[optind - 1]);
			agent_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s: agent: unexpected argument '%s'\n", cli->prog, argv[optind]);
		agent_usage(stderr);
		return EXIT_USAGE;
	}
	if (once && key_file)
		return cli_bad_args(cli, "agent: --once makes its own token; no --key-file");
	if (key_file) {
		size_t len;

		rc = rck_key_load(key_file, key, sizeof(key), &len, err, sizeof(err));
		if (rc) {
			fprintf(stderr, "%s: agent: %s\n", cli->prog, err);
			return EXIT_FAIL;
		}
		o.key = key;
		o.key_len = len;
	}
	if (once) {
		uint8_t raw[16];

		if (getrandom(raw, sizeof(raw), 0) != sizeof(raw))
			return cli_fail(cli, -errno, "agent: no random bytes for a token");
		for (size_t i = 0; i < sizeof(raw); i++)
			snprintf(token + 2 * i, 3, "%02x", raw[i]);
		o.key = (const uint8_t *)token;
		o.key_len = strlen(token);
		port = 0;
	}
	o.bind_addr = addr[0] ? addr : NULL;
	o.port = (unsigned int)port;
	rc = rck_agent_new(cli->ctx, &o, &a);
	memset(key, 0, sizeof(key));
	if (rc)
		return cli_fail(cli, rc, "agent: cannot listen");
	running_agent = a;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (once) {
		printf("%u %s\n", rck_agent_port(a), token);
		fflush(stdout);
		/* Exit when the session ends, or when nobody came within the idle time. */
		do
			rc = rck_agent_serve(a, (int)(o.idle_s * 1000));
		while (rc == -EACCES);
	} else {
		fprintf(stderr, "%s: agent: listening on port %u\n", cli->prog, rck_agent_port(a));
		do
			rc = rck_agent_serve(a, -1);
		while (rc == 0 || rc == -EACCES);
	}
	rck_agent_free(a);
	if (rc == -EINTR || rc == 0 || (once && rc == -ETIMEDOUT))
		return rc == -ETIMEDOUT ? EXIT_UNREACHABLE : 0;
	return cli_fail(cli, rc, "agent");
}
