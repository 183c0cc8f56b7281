/* `rocecheck agent`: serve sweep coordinators on this host, with a shared
 * key file or, with --once, a fresh token printed for a launcher. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"

static struct rck_agent *running_agent;
/* The agent the --lifeline thread may stop, NULL once it is being freed:
 * the thread outlives the agent when the session ends first (a --once
 * agent freed it, then saw its launcher's pipe close and wrote into freed
 * memory; under ASan the report deadlocked with the exit's leak check). */
static pthread_mutex_t life_mu = PTHREAD_MUTEX_INITIALIZER;
static struct rck_agent *life_agent;

static void on_signal(int sig)
{
	(void)sig;
	rck_agent_stop(running_agent);
}

/* --lifeline: the launcher holds our standard input open while it wants
 * us; end of file (ssh gone, the coordinator ended or died) stops the
 * agent within its poll slice. Only a pipe or socket is watched: a
 * terminal or /dev/null says nothing about the launcher. */
static void *lifeline(void *arg)
{
	char buf[256];

	(void)arg;
	for (;;) {
		ssize_t n = read(STDIN_FILENO, buf, sizeof(buf));

		if (n == 0 || (n < 0 && errno != EINTR)) {
			pthread_mutex_lock(&life_mu);
			rck_agent_stop(life_agent);
			pthread_mutex_unlock(&life_mu);
			return NULL;
		}
	}
}

static void watch_stdin(struct cli *cli, struct rck_agent *a)
{
	struct stat st;
	pthread_t t;

	if (fstat(STDIN_FILENO, &st) || !(S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))) {
		if (cli->verbose)
			cli_msg(cli, "--lifeline: standard input is no pipe or socket, not watched");
		return;
	}
	pthread_mutex_lock(&life_mu);
	life_agent = a;
	pthread_mutex_unlock(&life_mu);
	if (pthread_create(&t, NULL, lifeline, NULL) || pthread_detach(t))
		cli_msg(cli, "--lifeline: cannot watch standard input; the idle time still ends the agent");
}

enum { OPT_LISTEN = 256, OPT_KEY, OPT_KEY_NEXT, OPT_INSECURE, OPT_ONCE, OPT_IDLE, OPT_DCB_FILE, OPT_LIFELINE,
       OPT_LLDP_FILE, OPT_TEST_DELAY };

const struct cli_opt agent_opts[] = {
	{ OPT_LISTEN, 0, "listen", "[ADDR:]PORT", "listen there (default port 18530, every address)" },
	{ OPT_KEY, 0, "key-file", "FILE", "shared key coordinators must prove (ours, mode 600); twice: either of two keys" },
	{ OPT_KEY_NEXT, 0, "key-file-next", "FILE", "also accept this key while a fleet rolls to it" },
	{ OPT_INSECURE, 0, "insecure", NULL, "serve without a key and without warning: any peer may make this host probe any address" },
	{ OPT_ONCE, 0, "once", NULL, "free port and fresh token: print \"PORT TOKEN\", serve one session" },
	{ OPT_IDLE, 0, "idle", "S", "end a session (--once: exit) after S seconds without a request (default 60)" },
	{ OPT_DCB_FILE, 0, "dcb-file", "FILE", "answer DCB requests with this recorded state (rocedcb show -j), not the netdevs" },
	{ OPT_LLDP_FILE, 0, "lldp-file", "FILE", "answer LLDP requests with these recorded frames (NETDEV HEX per line), not lldpd or a capture" },
	{ OPT_TEST_DELAY, 0, "test-client-delay", "S", "tests only: wait S seconds before each probe of a task list this host runs as the client (a slow pair)" },
	{ OPT_LIFELINE, 0, "lifeline", NULL, "exit when standard input (a pipe from the launcher) is closed" },
	{ 0 }
};

struct agent_args {
	struct rck_agent_opts o;
	const char *key_file, *key_next;
	char addr[256];
	unsigned long port;
	bool once, lifeline, insecure;
};

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

static int agent_opt(struct cli *cli, void *data, int id, const char *arg)
{
	struct agent_args *a = data;

	switch (id) {
	case OPT_LISTEN:
		if (parse_listen(arg, a->addr, sizeof(a->addr), &a->port))
			return cli_bad_args(cli, "invalid --listen '%s': [ADDR:]PORT", arg);
		return 0;
	case OPT_KEY:
	case OPT_KEY_NEXT:
		if (id == OPT_KEY && !a->key_file) {
			a->key_file = arg;
			return 0;
		}
		if (a->key_next)
			return cli_bad_args(cli, "at most two keys (--key-file twice or --key-file-next)");
		a->key_next = arg;
		return 0;
	case OPT_INSECURE:
		a->insecure = true;
		return 0;
	case OPT_ONCE:
		a->once = true;
		return 0;
	case OPT_LIFELINE:
		a->lifeline = true;
		return 0;
	case OPT_IDLE:
		if (cli_parse_double(arg, 0.1, 86400, &a->o.idle_s))
			return cli_bad_args(cli, "invalid --idle '%s': seconds, 0.1 to 86400", arg);
		return 0;
	case OPT_DCB_FILE:
		if (!*arg || access(arg, R_OK))
			return cli_bad_args(cli, "invalid --dcb-file '%s': %s", arg,
					    *arg ? strerror(errno) : "a file");
		a->o.dcb_file = arg;
		return 0;
	case OPT_LLDP_FILE:
		if (!*arg || access(arg, R_OK))
			return cli_bad_args(cli, "invalid --lldp-file '%s': %s", arg,
					    *arg ? strerror(errno) : "a file");
		a->o.lldp_file = arg;
		return 0;
	case OPT_TEST_DELAY:
		if (cli_parse_double(arg, 0, 600, &a->o.test_client_delay_s))
			return cli_bad_args(cli, "invalid --test-client-delay '%s': seconds, 0 to 600", arg);
		return 0;
	default:
		return EXIT_USAGE;
	}
}

int cmd_agent(struct cli *cli, int argc, char **argv)
{
	struct agent_args aa = { .port = RCK_AGENT_DEFAULT_PORT };
	struct rck_agent_opts o;
	struct rck_agent *a = NULL;
	const char *key_file;
	uint8_t key[RCK_KEY_MAX], key_next[RCK_KEY_MAX];
	char *addr = aa.addr, err[300], token[2 * 16 + 1];
	unsigned long port;
	bool once;
	struct sigaction sa = { .sa_handler = on_signal };
	int rc;

	rck_agent_opts_init(&aa.o);
	rc = cli_parse(cli, argc, argv, agent_opt, &aa);
	if (rc != CLI_CONTINUE)
		return rc;
	/* A daemon's default: notices (failed authentications) without -v. */
	if (!cli->verbose)
		rck_ctx_set_log_priority(cli->ctx, LOG_NOTICE);
	if (cli->nargs)
		return cli_usage_err(cli, "unexpected argument '%s'", cli->args[0]);
	o = aa.o;
	key_file = aa.key_file;
	port = aa.port;
	once = aa.once;
	if (once && (key_file || aa.key_next))
		return cli_bad_args(cli, "--once makes its own token; no --key-file");
	if (aa.key_next && !key_file)
		return cli_bad_args(cli, "--key-file-next needs --key-file (the key in use)");
	if (aa.insecure && key_file)
		return cli_bad_args(cli, "--insecure and --key-file exclude each other");
	if (!once && !key_file && !aa.insecure)
		cli_msg(cli, "warning: no --key-file: any peer that reaches port %lu can make this host probe any address (--insecure: serve without a key, and without this warning)",
			port);
	if (key_file) {
		size_t len;

		rc = rck_key_load(key_file, key, sizeof(key), &len, err, sizeof(err));
		if (!rc && aa.key_next) {
			o.key_next = key_next;
			rc = rck_key_load(aa.key_next, key_next, sizeof(key_next), &o.key_next_len, err,
					  sizeof(err));
		}
		if (rc) {
			memset(key, 0, sizeof(key));
			cli_msg(cli, "%s", err);
			return EXIT_FAIL;
		}
		o.key = key;
		o.key_len = len;
	}
	if (once) {
		uint8_t raw[16];

		if (getrandom(raw, sizeof(raw), 0) != sizeof(raw))
			return cli_fail(cli, -errno, "no random bytes for a token");
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
	memset(key_next, 0, sizeof(key_next));
	if (rc)
		return cli_fail(cli, rc, "cannot listen");
	running_agent = a;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (aa.lifeline)
		watch_stdin(cli, a);
	if (once) {
		printf("%u %s\n", rck_agent_port(a), token);
		fflush(stdout);
		/* Exit when the session ends, or when nobody came within the idle time. */
		do
			rc = rck_agent_serve(a, (int)(o.idle_s * 1000));
		while (rc == -EACCES);
	} else {
		/* As sshd and slurmd: one line when it listens, and (from the
		 * library, rate-limited) one per failed authentication. */
		cli_msg(cli, "listening on port %u at %s (%s)", rck_agent_port(a),
			addr[0] ? addr : "every address",
			key_file ? "peers must prove the key" : "no key");
		do
			rc = rck_agent_serve(a, -1);
		while (rc == 0 || rc == -EACCES);
	}
	/* Nothing may stop the agent once it is freed: a signal from here on
	 * ends the process as it would have. */
	pthread_mutex_lock(&life_mu);
	life_agent = NULL;
	pthread_mutex_unlock(&life_mu);
	sa.sa_handler = SIG_DFL;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	running_agent = NULL;
	rck_agent_free(a);
	if (rc == -EINTR || rc == 0 || (once && rc == -ETIMEDOUT))
		return rc == -ETIMEDOUT ? EXIT_UNREACHABLE : 0;
	return cli_fail(cli, rc, "serving");
}
