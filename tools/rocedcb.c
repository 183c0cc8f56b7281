/* rocedcb: read, check and tune DCB for lossless RoCE. This file holds the
 * command table and the option parsing the commands share. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "rdcb.h"

static int cmd_help(struct cli *cli, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	cli_usage(cli, stdout);
	return 0;
}

static const struct cli_cmd commands[] = {
	{ "show", rdcb_show, "[IF|DEV]...", "DCB state of ports (all RDMA ports by default)", true },
	{ "check", rdcb_check, "PROFILE [IF...] [--peer [--timeout S]]",
	  "compare ports with a profile: exit 0 match, 1 drift, 2 error", true },
	{ "apply", rdcb_apply, "PROFILE [IF...] [--dry-run] [--state-dir DIR]",
	  "bring ports to a profile, undone on any failure", false },
	{ "restore", rdcb_restore, "[IF...] [--state-dir DIR]",
	  "return ports to the state saved by apply", false },
	{ "peer", rdcb_peer, "IF [--timeout S]",
	  "the switch's DCBX settings from its LLDP (chassis, port, ETS, PFC, APP)", true },
	{ "help", cmd_help, "", "this help", false },
	{ 0 }
};

void rdcb_cmd_usage(const struct cli *cli, const char *cmd, FILE *f)
{
	for (const struct cli_cmd *c = cli->cmds; c->name; c++)
		if (!strcmp(c->name, cmd)) {
			fprintf(f, "Usage: %s %s %s\n  %s\n", cli->prog, c->name, c->args, c->help);
			if (c->json)
				fprintf(f, "  -j, --json    JSON output (-p: indented)\n");
		}
	fprintf(f, "See rocedcb(8).\n");
}

int rdcb_parse(struct cli *cli, int argc, char **argv, unsigned int allowed, struct rdcb_opts *o)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "pretty", no_argument, NULL, 'p' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "state-dir", required_argument, NULL, 'd' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "peer", no_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *cmd = argv[0];
	int c, li;

	memset(o, 0, sizeof(*o));
	o->state_dir = RDCB_STATE_DIR;
	o->timeout_s = 35;
	opterr = 0;
	while ((li = -1, c = getopt_long(argc, argv, ":jph", opts, &li)) != -1) {
		switch (c) {
		case 'j':
			if (cli->fmt == RCK_FORMAT_TEXT)
				cli->fmt = RCK_FORMAT_JSON;
			break;
		case 'p':
			cli->fmt = RCK_FORMAT_JSON_PRETTY;
			break;
		case 'n':
			if (!(allowed & RDCB_OPT_DRY_RUN))
				goto unknown;
			o->dry_run = true;
			break;
		case 'd':
			if (!(allowed & RDCB_OPT_STATE_DIR))
				goto unknown;
			if (!*optarg)
				goto bad;
			o->state_dir = optarg;
			break;
		case 'T':
			if (!(allowed & RDCB_OPT_TIMEOUT))
				goto unknown;
			if (cli_parse_uint(optarg, 1, 3600, &o->timeout_s)) {
				fprintf(stderr, "%s: %s: invalid --timeout '%s': seconds, 1-3600\n",
					cli->prog, cmd, optarg);
				goto usage;
			}
			break;
		case 'P':
			if (!(allowed & RDCB_OPT_PEER))
				goto unknown;
			o->peer = true;
			break;
		case 'h':
			rdcb_cmd_usage(cli, cmd, stdout);
			return 1000;
		case ':':
			fprintf(stderr, "%s: %s: option '%s' needs a value\n", cli->prog, cmd, argv[optind - 1]);
			goto usage;
		default:
			goto unknown;
		}
	}
	if (optind < argc && !strcmp(argv[optind], "help")) {
		rdcb_cmd_usage(cli, cmd, stdout);
		return 1000;
	}
	o->words = argv + optind;
	o->n_words = argc - optind;
	if (cli->fmt != RCK_FORMAT_TEXT) {
		for (const struct cli_cmd *k = cli->cmds; k->name; k++)
			if (!strcmp(k->name, cmd) && !k->json) {
				fprintf(stderr, "%s: %s: no JSON output\n", cli->prog, cmd);
				goto usage;
			}
	}
	return 0;
unknown:
	/* A known option this command does not take: name it, not its value. */
	if (li >= 0)
		fprintf(stderr, "%s: %s: unknown option '--%s'\n", cli->prog, cmd, opts[li].name);
	else if (optopt)
		fprintf(stderr, "%s: %s: unknown option '-%c'\n", cli->prog, cmd, optopt);
	else
		fprintf(stderr, "%s: %s: unknown option '%s'\n", cli->prog, cmd, argv[optind - 1]);
	goto usage;
bad:
	fprintf(stderr, "%s: %s: empty value for '%s'\n", cli->prog, cmd, argv[optind - 1]);
usage:
	rdcb_cmd_usage(cli, cmd, stderr);
	return 1000 + EXIT_USAGE;
}

void rdcb_ifnames_free(char **names)
{
	for (size_t i = 0; names && names[i]; i++)
		free(names[i]);
	free(names);
}

static int add_name(char ***v, size_t *n, const char *name)
{
	char **nv;

	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*v)[i], name))
			return 0;
	nv = realloc(*v, (*n + 2) * sizeof(char *));
	if (!nv)
		return -ENOMEM;
	*v = nv;
	nv[*n] = strdup(name);
	if (!nv[*n])
		return -ENOMEM;
	nv[++*n] = NULL;
	return 0;
}

int rdcb_ifnames(struct cli *cli, struct rdcb_opts *o, char ***out, size_t *n)
{
	struct rck_inventory *inv;
	char **v = NULL;
	int rc = 0;

	*n = 0;
	for (int i = 0; i < o->n_words && !rc; i++)
		rc = add_name(&v, n, o->words[i]);
	if (!rc && !o->n_words) {
		rc = rck_inventory_new(cli->ctx, &inv);
		if (rc)
			return rc;
		for (unsigned int i = 0; i < rck_inventory_device_count(inv) && !rc; i++) {
			const struct rck_device *d = rck_inventory_device(inv, i);

			for (unsigned int j = 0; j < rck_device_port_count(d) && !rc; j++) {
				const char *nd = rck_port_netdev(rck_device_port(d, j));

				if (nd)
					rc = add_name(&v, n, nd);
			}
		}
		rck_inventory_free(inv);
	}
	if (!rc && !*n)
		rc = -ENOENT;
	if (rc) {
		rdcb_ifnames_free(v);
		return rc;
	}
	*out = v;
	return 0;
}

int main(int argc, char **argv)
{
	return cli_main("rocedcb", commands, argc, argv);
}
