/* `rocecheck mesh`: sweep probes between every pair of hosts through their
 * agents, and print or save the sweep result. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"

static struct rck_mesh_config *running_cfg;

static void on_signal(int sig)
{
	(void)sig;
	rck_mesh_cancel(running_cfg);
}

static void mesh_usage(FILE *f)
{
	fprintf(f,
		"Usage: rocecheck mesh --hosts LIST | --hostfile FILE [OPTIONS]\n"
		"  --hosts LIST         host names or a nodelist (node[01-16]); NAME:PORT reaches\n"
		"                       an agent on another port than %u\n"
		"  --hostfile FILE      one nodelist expression per line\n"
		"  --test bw,lat        tests on every pair (default bw)\n"
		"  --pattern P          full (default), quick, incast:K, or pairs (with --pairs)\n"
		"  --pairs FILE         explicit \"SRC DST\" pairs, one per line\n"
		"  --rails same|all     NIC i with NIC i (default), or every NIC with every NIC\n"
		"  -d, --device DEV     only NICs of device DEV\n"
		"  --transport rdma|tcp probe transport (default rdma)\n"
		"  --size BYTES         message size (default per test)\n"
		"  --iters N            messages per probe (default 1000)\n"
		"  --duration S         measure each probe for S seconds instead\n"
		"  --deadline S         give up on what has not run after S seconds\n"
		"  --key-file FILE      shared key of the agents (default $ROCECHECK_KEY_FILE)\n"
		"  --output FILE        also write the JSON result to FILE\n"
		"  -j, --json           JSON output\n",
		RCK_AGENT_DEFAULT_PORT);
}

static void show_progress(void *data, const struct rck_mesh_progress *p)
{
	(void)data;
	fprintf(stderr, "\rmesh: %u/%u probes, %.1f s elapsed", p->done, p->total, p->elapsed_s);
	if (!isnan(p->eta_s))
		fprintf(stderr, ", ETA %.1f s", p->eta_s);
	if (p->hosts_down)
		fprintf(stderr, ", %u hosts down", p->hosts_down);
	fprintf(stderr, "   ");
	if (p->done == p->total)
		fputc('\n', stderr);
}

static int parse_tests(const char *arg, unsigned int *mask)
{
	char buf[64], *save = NULL;

	if (strlen(arg) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, arg);
	*mask = 0;
	for (char *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		if (!strcmp(w, "bw"))
			*mask |= 1u << RCK_MESH_TEST_BW;
		else if (!strcmp(w, "lat"))
			*mask |= 1u << RCK_MESH_TEST_LAT;
		else
			return -EINVAL;
	}
	return *mask ? 0 : -EINVAL;
}

/* "NAME:PORT" (one colon, digits after it) names an agent on another port. */
static int add_host(struct rck_mesh_config *c, const char *name)
{
	const char *colon = strchr(name, ':');
	unsigned long port = 0;
	char addr[RCK_HOST_NAME_MAX + 1];

	if (colon && !strchr(colon + 1, ':') && !cli_parse_uint(colon + 1, 1, 65535, &port)) {
		snprintf(addr, sizeof(addr), "%.*s", (int)(colon - name), name);
		return rck_mesh_config_add_host(c, name, addr, (unsigned int)port, NULL, 0);
	}
	return rck_mesh_config_add_host(c, name, NULL, 0, NULL, 0);
}

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t cap = 0;

	if (!f)
		return NULL;
	*len = 0;
	for (;;) {
		char *n;

		if (*len + 4096 > cap && (cap = cap * 2 + 4096) > (16u << 20))
			break;
		if (!(n = realloc(buf, cap)))
			break;
		buf = n;
		size_t got = fread(buf + *len, 1, cap - *len, f);

		*len += got;
		if (got == 0) {
			fclose(f);
			return buf;
		}
	}
	fclose(f);
	free(buf);
	return NULL;
}

/* Write the JSON result to @path through a temporary file and rename. */
static int save(struct cli *cli, const struct rck_mesh *m, const char *path)
{
	char tmp[4096];
	FILE *f;
	int rc;

	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
	f = fopen(tmp, "w");
	if (!f)
		return cli_fail(cli, -errno, "mesh: cannot write %s", path);
	rc = rck_mesh_write(m, f, cli->fmt == RCK_FORMAT_JSON_PRETTY ? RCK_FORMAT_JSON_PRETTY
								      : RCK_FORMAT_JSON);
	if (fclose(f) && !rc)
		rc = -errno;
	if (!rc && rename(tmp, path))
		rc = -errno;
	if (rc) {
		unlink(tmp);
		return cli_fail(cli, rc, "mesh: cannot write %s", path);
	}
	return 0;
}

struct mesh_args {
	struct rck_hostlist *hl;
	struct rck_mesh_config *c;
	const char *key_file, *output, *pairs, *pattern;
	enum rck_probe_transport transport;
	unsigned long size, iters;
	double duration, deadline;
};

static int parse_arg(struct cli *cli, struct mesh_args *a, int c, const char *arg)
{
	char err[300];
	unsigned int mask;
	int rc;

	switch (c) {
	case 'H':
	case 'F':
		rc = c == 'H' ? rck_hostlist_add(a->hl, arg, err, sizeof(err))
			      : rck_hostlist_add_file(a->hl, arg, err, sizeof(err));
		if (rc)
			return cli_bad_args(cli, "mesh: invalid %s '%s': %s",
					    c == 'H' ? "--hosts" : "--hostfile", arg,
					    rc == -EINVAL || rc == -E2BIG ? err : strerror(-rc));
		return 0;
	case 'T':
		if (parse_tests(arg, &mask) || rck_mesh_config_set_tests(a->c, mask))
			return cli_bad_args(cli, "mesh: invalid --test '%s': bw, lat or bw,lat", arg);
		return 0;
	case 'P':
		a->pattern = arg;
		return 0;
	case 'R':
		if (strcmp(arg, "same") && strcmp(arg, "all"))
			return cli_bad_args(cli, "mesh: invalid --rails '%s': same or all", arg);
		rck_mesh_config_set_rails(a->c, arg);
		return 0;
	case 'd':
		snprintf(err, sizeof(err), "device:%s", arg);
		if (!*arg || rck_mesh_config_set_rails(a->c, err))
			return cli_bad_args(cli, "mesh: invalid --device '%s'", arg);
		return 0;
	case 'X':
		if (strcmp(arg, "rdma") && strcmp(arg, "tcp"))
			return cli_bad_args(cli, "mesh: invalid --transport '%s': rdma or tcp", arg);
		a->transport = strcmp(arg, "tcp") ? RCK_PROBE_TRANSPORT_RDMA : RCK_PROBE_TRANSPORT_TCP;
		return 0;
	case 'S':
		if (cli_parse_uint(arg, 1, 1u << 30, &a->size))
			return cli_bad_args(cli, "mesh: invalid --size '%s': bytes, 1 to 2^30", arg);
		return 0;
	case 'I':
		if (cli_parse_uint(arg, 1, 100000000, &a->iters))
			return cli_bad_args(cli, "mesh: invalid --iters '%s': 1 to 100000000", arg);
		return 0;
	case 'D':
		if (cli_parse_double(arg, 0.001, 3600, &a->duration))
			return cli_bad_args(cli, "mesh: invalid --duration '%s': seconds, up to 3600", arg);
		return 0;
	case 'L':
		if (cli_parse_double(arg, 0.001, 1e6, &a->deadline))
			return cli_bad_args(cli, "mesh: invalid --deadline '%s': seconds", arg);
		return 0;
	case 'K':
		a->key_file = arg;
		return 0;
	case 'o':
		a->output = arg;
		return 0;
	case 'A':
		a->pairs = arg;
		return 0;
	case 'j':
		if (cli->fmt == RCK_FORMAT_TEXT)
			cli->fmt = RCK_FORMAT_JSON;
		return 0;
	case 'p':
		cli->fmt = RCK_FORMAT_JSON_PRETTY;
		return 0;
	default:
		return -1;
	}
}

/* Pattern, key and probe settings once all options are in. */
static int finish_config(struct cli *cli, struct mesh_args *a)
{
	const char *pattern = a->pattern ? a->pattern : a->pairs ? "pairs" : "full";
	uint8_t key[RCK_KEY_MAX];
	char err[300];
	size_t len = 0;
	char *text = NULL;
	int rc;

	if (!strcmp(pattern, "pairs") != !!a->pairs)
		return cli_bad_args(cli, "mesh: --pattern pairs and --pairs FILE go together");
	if (a->pairs && !(text = read_file(a->pairs, &len)))
		return cli_fail(cli, -errno, "mesh: cannot read --pairs '%s'", a->pairs);
	rc = rck_mesh_config_set_pattern(a->c, pattern, text, len, a->pairs);
	free(text);
	if (rc)
		return cli_bad_args(cli, "mesh: invalid --pattern '%s': full, quick, incast:K or pairs",
				    pattern);
	if (rck_mesh_config_set_probe(a->c, a->transport, (uint32_t)a->size,
				      a->iters ? a->iters : 1000, a->duration) ||
	    rck_mesh_config_set_deadline(a->c, a->deadline))
		return cli_bad_args(cli, "mesh: invalid probe settings");
	if (a->key_file) {
		rc = rck_key_load(a->key_file, key, sizeof(key), &len, err, sizeof(err));
		if (rc) {
			fprintf(stderr, "%s: mesh: %s\n", cli->prog, err);
			return EXIT_FAIL;
		}
		rck_mesh_config_set_key(a->c, key, len);
		memset(key, 0, sizeof(key));
	}
	for (unsigned int i = 0; i < rck_hostlist_count(a->hl); i++)
		if (add_host(a->c, rck_hostlist_get(a->hl, i)))
			return cli_bad_args(cli, "mesh: invalid host '%s'", rck_hostlist_get(a->hl, i));
	return 0;
}

static int run(struct cli *cli, struct mesh_args *a)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct rck_mesh *m = NULL;
	unsigned int down = 0;
	int rc;

	if (isatty(STDERR_FILENO))
		rck_mesh_config_set_progress(a->c, show_progress, NULL);
	running_cfg = a->c;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	rc = rck_mesh_run(cli->ctx, a->c, &m);
	if (rc == -EINVAL)
		return EXIT_USAGE;
	if (rc)
		return cli_fail(cli, rc, "mesh");
	for (unsigned int h = 0; h < rck_mesh_host_count(m); h++)
		down += rck_mesh_host_unreachable(m, h) != NULL;
	rc = a->output ? save(cli, m, a->output) : 0;
	if (!rc && (rc = rck_mesh_write(m, stdout, cli->fmt)))
		rc = cli_fail(cli, rc, "mesh: cannot write the result");
	rck_mesh_free(m);
	return rc ? rc : down ? EXIT_UNREACHABLE : 0;
}

int cmd_mesh(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "hosts", required_argument, NULL, 'H' },
		{ "hostfile", required_argument, NULL, 'F' },
		{ "test", required_argument, NULL, 'T' },
		{ "pattern", required_argument, NULL, 'P' },
		{ "pairs", required_argument, NULL, 'A' },
		{ "rails", required_argument, NULL, 'R' },
		{ "device", required_argument, NULL, 'd' },
		{ "transport", required_argument, NULL, 'X' },
		{ "size", required_argument, NULL, 'S' },
		{ "iters", required_argument, NULL, 'I' },
		{ "duration", required_argument, NULL, 'D' },
		{ "deadline", required_argument, NULL, 'L' },
		{ "key-file", required_argument, NULL, 'K' },
		{ "output", required_argument, NULL, 'o' },
		{ "json", no_argument, NULL, 'j' },
		{ "pretty", no_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct mesh_args a = { .transport = RCK_PROBE_TRANSPORT_RDMA };
	int c, rc = 0;

	if (argc > 1 && !strcmp(argv[1], "help")) {
		mesh_usage(stdout);
		return 0;
	}
	if (rck_hostlist_new(&a.hl) || rck_mesh_config_new(&a.c)) {
		rck_hostlist_free(a.hl);
		return cli_fail(cli, -ENOMEM, "mesh");
	}
	opterr = 0;
	while (!rc && (c = getopt_long(argc, argv, ":d:o:jph", opts, NULL)) != -1) {
		if (c == 'h') {
			mesh_usage(stdout);
			goto out;
		}
		rc = parse_arg(cli, &a, c, optarg);
		if (rc < 0) {
			fprintf(stderr, "%s: mesh: %s '%s'\n", cli->prog,
				c == ':' ? "missing value of option" : "unknown option", argv[optind - 1]);
			mesh_usage(stderr);
			rc = EXIT_USAGE;
		}
	}
	if (!rc && optind < argc) {
		fprintf(stderr, "%s: mesh: unexpected argument '%s'\n", cli->prog, argv[optind]);
		mesh_usage(stderr);
		rc = EXIT_USAGE;
	}
	if (!rc && rck_hostlist_count(a.hl) < 2)
		rc = cli_bad_args(cli, "mesh: give at least 2 hosts (--hosts or --hostfile)");
	if (!rc && !a.key_file)
		a.key_file = getenv("ROCECHECK_KEY_FILE");
	if (!rc)
		rc = finish_config(cli, &a);
	if (!rc)
		rc = run(cli, &a);
out:
	rck_mesh_config_free(a.c);
	rck_hostlist_free(a.hl);
	return rc;
}
