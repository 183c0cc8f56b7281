/* Command-line plumbing: global options, exact-word dispatch through the
 * tool's command table, usage text and error lines. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>

#include "cli.h"

static void log_stderr(void *data, int prio, const char *msg)
{
	const struct cli *cli = data;
	const char *level = prio <= LOG_ERR ? "error" : prio == LOG_WARNING ? "warning" : "info";

	fprintf(stderr, "%s: %s: %s\n", cli->prog, level, msg);
}

void cli_usage(const struct cli *cli, FILE *f)
{
	fprintf(f, "Usage: %s [OPTIONS] COMMAND [ARGS]\n\nCommands:\n", cli->prog);
	for (const struct cli_cmd *c = cli->cmds; c->name; c++) {
		char syn[160];

		snprintf(syn, sizeof(syn), "%s %s", c->name, c->args ? c->args : "");
		if (strlen(syn) > 28)
			fprintf(f, "  %s\n  %-28s %s%s\n", syn, "", c->help, c->json ? "" : " (no JSON)");
		else
			fprintf(f, "  %-28s %s%s\n", syn, c->help, c->json ? "" : " (no JSON)");
	}
	fprintf(f, "\nOptions:\n"
		   "  -j, --json             JSON output\n"
		   "  -p, --pretty           indented JSON (implies -j)\n"
		   "  -v, --verbose          warnings and details on stderr (twice: debug)\n"
		   "      --sysfs-root DIR   read a recorded sysfs tree instead of /sys\n"
		   "  -t, --timeout MS       deadline for each blocking step (default 10000)\n"
		   "  -V, --version          print the version\n"
		   "  -h, --help             this help\n");
}

int cli_bad_args(const struct cli *cli, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", cli->prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return EXIT_USAGE;
}

int cli_fail(const struct cli *cli, int err, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", cli->prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ": %s\n", strerror(err < 0 ? -err : err));
	return EXIT_FAIL;
}

int cli_parse_uint(const char *arg, unsigned long min, unsigned long max, unsigned long *out)
{
	unsigned long v;
	char *end;

	if (!arg || !*arg || *arg == '-' || *arg == '+')
		return -EINVAL;
	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

int cli_parse_double(const char *arg, double min, double max, double *out)
{
	double v;
	char *end;

	if (!arg || !*arg)
		return -EINVAL;
	errno = 0;
	v = strtod(arg, &end);
	if (errno || *end || !isfinite(v) || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

int cli_parse_dev_port(const char *arg, char *dev, size_t len, unsigned int *port)
{
	const char *slash = strchr(arg, '/');
	size_t n = slash ? (size_t)(slash - arg) : strlen(arg);
	unsigned long p = 0;

	if (n == 0 || n >= len || memchr(arg, '.', n) == arg)
		return -EINVAL;
	if (slash && cli_parse_uint(slash + 1, 1, 255, &p))
		return -EINVAL;
	memcpy(dev, arg, n);
	dev[n] = '\0';
	*port = (unsigned int)p;
	return 0;
}

static const struct cli_cmd *find_cmd(const struct cli_cmd *cmds, const char *name)
{
	for (const struct cli_cmd *c = cmds; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

int cli_main(const char *prog, const struct cli_cmd *cmds, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "pretty", no_argument, NULL, 'p' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "sysfs-root", required_argument, NULL, 'S' },
		{ "timeout", required_argument, NULL, 't' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct cli cli = { .prog = prog, .fmt = RCK_FORMAT_TEXT, .cmds = cmds };
	const char *sysfs_root = NULL;
	unsigned long timeout = 0;
	const struct cli_cmd *cmd;
	struct stat st;
	int c, rc;

	/* "+": stop at the first non-option, the command word. */
	while ((c = getopt_long(argc, argv, "+jpvt:Vh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			if (cli.fmt == RCK_FORMAT_TEXT)
				cli.fmt = RCK_FORMAT_JSON;
			break;
		case 'p':
			cli.fmt = RCK_FORMAT_JSON_PRETTY;
			break;
		case 'v':
			cli.verbose++;
			break;
		case 'S':
			sysfs_root = optarg;
			break;
		case 't':
			if (cli_parse_uint(optarg, 1, UINT_MAX, &timeout))
				return cli_bad_args(&cli, "invalid --timeout '%s': milliseconds, 1 or more", optarg);
			break;
		case 'V':
			printf("%s %s\n", prog, rck_version());
			return 0;
		case 'h':
			cli_usage(&cli, stdout);
			return 0;
		default:
			cli_usage(&cli, stderr);
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		cli_usage(&cli, stderr);
		return EXIT_USAGE;
	}
	cmd = find_cmd(cmds, argv[optind]);
	if (!cmd) {
		fprintf(stderr, "%s: unknown command '%s'\n", prog, argv[optind]);
		cli_usage(&cli, stderr);
		return EXIT_USAGE;
	}
	if (cli.fmt != RCK_FORMAT_TEXT && !cmd->json)
		return cli_bad_args(&cli, "'%s' has no JSON output", cmd->name);

	rc = rck_ctx_new(&cli.ctx);
	if (rc)
		return cli_fail(&cli, rc, "cannot create context");
	rck_ctx_set_log_fn(cli.ctx, log_stderr, &cli);
	rck_ctx_set_log_priority(cli.ctx, cli.verbose >= 2 ? LOG_DEBUG : cli.verbose ? LOG_INFO : LOG_ERR);
	if (timeout)
		rck_ctx_set_timeout_ms(cli.ctx, (unsigned int)timeout);
	if (sysfs_root && (stat(sysfs_root, &st) || !S_ISDIR(st.st_mode) ||
			   rck_ctx_set_sysfs_root(cli.ctx, sysfs_root))) {
		rck_ctx_free(cli.ctx);
		return cli_bad_args(&cli, "invalid --sysfs-root '%s': not a directory", sysfs_root);
	}

	argc -= optind;
	argv += optind;
	optind = 0; /* full reset of getopt for the command's own options */
	rc = cmd->run(&cli, argc, argv);
	rck_ctx_free(cli.ctx);
	return rc;
}
