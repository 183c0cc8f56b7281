/* Command-line plumbing: global options pulled out wherever they stand,
 * exact-word dispatch, per-command option parsing, usage and error lines. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>

#include "cli.h"

enum { GOPT_SYSFS_ROOT = 256, GOPT_DUMP_OPTIONS, GOPT_COMPLETION };

const struct cli_opt cli_std_globals[] = {
	{ 'j', 'j', "json", NULL, "JSON output" },
	{ 'p', 'p', "pretty", NULL, "indented JSON (implies -j)" },
	{ 'v', 'v', "verbose", NULL, "warnings and details on stderr (twice: debug)" },
	{ GOPT_SYSFS_ROOT, 0, "sysfs-root", "DIR", "read a recorded sysfs tree instead of /sys" },
	{ 't', 't', "timeout", "MS", "deadline for each blocking step (default 10000)" },
	{ 'V', 'V', "version", NULL, "print the version" },
	{ 'h', 'h', "help", NULL, "this help" },
	{ 0 }
};

/* Hidden: for the tests and packaging, not in the usage. */
const struct cli_opt cli_hidden_globals[] = {
	{ GOPT_DUMP_OPTIONS, 0, "dump-options", NULL, NULL },
	{ GOPT_COMPLETION, 0, "completion", "SHELL", NULL },
	{ 0 }
};

/* ------------------------------------------------------------ messages */

static void vmsg(const struct cli *cli, const char *fmt, va_list ap, const char *tail)
	__attribute__((format(printf, 2, 0)));
static void vmsg(const struct cli *cli, const char *fmt, va_list ap, const char *tail)
{
	fprintf(stderr, "%s: ", cli->prog);
	if (cli->cmd && cli->cmd != cli->tool->single)
		fprintf(stderr, "%s: ", cli->cmd->name);
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "%s\n", tail ? tail : "");
}

void cli_msg(const struct cli *cli, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(cli, fmt, ap, NULL);
	va_end(ap);
}

int cli_bad_args(const struct cli *cli, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(cli, fmt, ap, NULL);
	va_end(ap);
	return EXIT_USAGE;
}

int cli_usage_err(const struct cli *cli, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(cli, fmt, ap, NULL);
	va_end(ap);
	cli_usage(cli, stderr);
	return EXIT_USAGE;
}

int cli_fail(const struct cli *cli, int err, const char *fmt, ...)
{
	char tail[128];
	va_list ap;

	snprintf(tail, sizeof(tail), ": %s", strerror(err < 0 ? -err : err));
	va_start(ap, fmt);
	vmsg(cli, fmt, ap, tail);
	va_end(ap);
	return EXIT_FAIL;
}

/* The library's log lines come out in the same style. */
static void log_stderr(void *data, int prio, const char *msg)
{
	const struct cli *cli = data;

	if (prio <= LOG_ERR || prio == LOG_NOTICE)
		cli_msg(cli, "%s", msg);
	else if (prio == LOG_WARNING)
		cli_msg(cli, "warning: %s", msg);
	else
		cli_msg(cli, "info: %s", msg);
}

const char *cli_config_file(const char *given)
{
	const char *env = getenv("ROCECHECK_CONFIG");

	return given ? given : env && *env ? env : NULL;
}

/* ------------------------------------------------------------ numbers */

int cli_parse_uint(const char *arg, unsigned long min, unsigned long max, unsigned long *out)
{
	unsigned long v;
	char *end;

	if (!arg || !*arg || *arg == '-' || *arg == '+' || *arg == ' ')
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

/* ------------------------------------------------------------ tables */

/* What find_long() returns for a prefix of several options. */
static const struct cli_opt ambiguous = { -1, 0, "", NULL, NULL };

static const struct cli_opt *find_exact(const struct cli_opt *t, const char *name, size_t n)
{
	for (; t && t->id; t++)
		if (strlen(t->name) == n && !strncmp(t->name, name, n))
			return t;
	return NULL;
}

/* --@name (@n bytes) in @t as getopt_long reads it: an exact name, else
 * the one option it is a prefix of (aliases of one option count once);
 * &ambiguous when it starts several. NULL: none. */
static const struct cli_opt *find_long(const struct cli_opt *t, const char *name, size_t n)
{
	const struct cli_opt *hit = find_exact(t, name, n);

	if (hit || !n)
		return hit;
	for (; t && t->id; t++) {
		if (strncmp(t->name, name, n))
			continue;
		if (hit && (hit->id != t->id || !hit->arg != !t->arg))
			return &ambiguous;
		hit = hit ? hit : t;
	}
	return hit;
}

/* ", --a, --b": the options of @t that --@name (@n bytes) starts, appended. */
static void candidates(const struct cli_opt *t, const char *name, size_t n, char *buf, size_t len)
{
	for (; t && t->id; t++) {
		size_t at = strlen(buf);

		if (!strncmp(t->name, name, n) && at + 1 < len)
			snprintf(buf + at, len - at, "%s--%s", *buf ? ", " : "", t->name);
	}
}

static const struct cli_opt *find_short(const struct cli_opt *t, char c)
{
	for (; t && t->id; t++)
		if (t->short_name && t->short_name == c)
			return t;
	return NULL;
}

static const struct cli_cmd *find_cmd(const struct cli_cmd *cmds, const char *name)
{
	for (const struct cli_cmd *c = cmds; c && c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

/* "-j, --json" or "    --sysfs-root DIR" */
static void opt_label(const struct cli_opt *o, char *buf, size_t len)
{
	if (o->short_name)
		snprintf(buf, len, "-%c, --%s%s%s", o->short_name, o->name, o->arg ? " " : "",
			 o->arg ? o->arg : "");
	else
		snprintf(buf, len, "    --%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
}

static void print_opts(const struct cli_opt *t, FILE *f)
{
	for (; t && t->id; t++) {
		char label[64];

		if (!t->help)
			continue;
		opt_label(t, label, sizeof(label));
		if (strlen(label) > 24)
			fprintf(f, "  %s\n  %-24s %s\n", label, "", t->help);
		else
			fprintf(f, "  %-24s %s\n", label, t->help);
	}
}

void cli_cmd_usage(const struct cli *cli, const struct cli_cmd *cmd, FILE *f)
{
	const struct cli_tool *tool = cli->tool;
	bool has_opts = cmd->opts && cmd->opts->id;

	bool single = cmd == tool->single;

	fprintf(f, "Usage: %s%s%s%s%s%s\n%s\n", tool->prog, single ? "" : " ", single ? "" : cmd->name,
		has_opts || single ? " [OPTIONS]" : "", cmd->args && *cmd->args ? " " : "",
		cmd->args ? cmd->args : "", cmd->help);
	if (has_opts) {
		fprintf(f, "\nOptions:\n");
		print_opts(cmd->opts, f);
	}
	fprintf(f, single ? "\nGeneral options:\n" : "\nGlobal options (before or after the command):\n");
	print_opts(tool->globals, f);
	if (!cmd->json)
		fprintf(f, "(no JSON output)\n");
	if (tool->man)
		fprintf(f, "See %s.\n", tool->man);
}

void cli_usage(const struct cli *cli, FILE *f)
{
	const struct cli_tool *tool = cli->tool;

	if (cli->cmd) {
		cli_cmd_usage(cli, cli->cmd, f);
		return;
	}
	fprintf(f, "Usage: %s [OPTIONS] COMMAND [ARGS]\n%s\n\nCommands:\n", tool->prog, tool->summary);
	for (const struct cli_cmd *c = tool->cmds; c && c->name; c++)
		fprintf(f, "  %-12s %s%s\n", c->name, c->help, c->json ? "" : " (no JSON)");
	fprintf(f, "\nOptions (before or after the command):\n");
	print_opts(tool->globals, f);
	fprintf(f, "\n'%s COMMAND --help' shows a command's own options.%s%s%s\n", tool->prog,
		tool->man ? " See " : "", tool->man ? tool->man : "", tool->man ? "." : "");
}

/* ------------------------------------------------------------ parsing */

/* One option token: "--name", "--name=value", or one letter of "-abc".
 * Finds it in @tab and its value (next word when needed); *i and *ci
 * advance past what it used. Returns the option, or NULL with a message
 * in @err (unknown, missing or unexpected value). */
static const struct cli_opt *next_opt(const struct cli_opt *tab, int argc, char **argv, int *i, int *ci,
				      const char **val, char *err, size_t errlen)
{
	const char *a = argv[*i];
	const struct cli_opt *o;

	*val = NULL;
	if (a[1] == '-') {
		const char *eq = strchr(a + 2, '=');
		size_t n = eq ? (size_t)(eq - a - 2) : strlen(a + 2);

		o = find_long(tab, a + 2, n);
		if (!o) {
			snprintf(err, errlen, "unknown option '%.*s'", (int)n + 2, a);
			return NULL;
		}
		if (o == &ambiguous) {
			char names[256] = "";

			candidates(tab, a + 2, n, names, sizeof(names));
			snprintf(err, errlen, "option '%.*s' is ambiguous: %s", (int)n + 2, a, names);
			return NULL;
		}
		if (!o->arg && eq) {
			snprintf(err, errlen, "option '--%s' takes no value", o->name);
			return NULL;
		}
		if (o->arg && eq) {
			*val = eq + 1;
		} else if (o->arg) {
			if (*i + 1 >= argc) {
				snprintf(err, errlen, "option '--%s' needs a value (%s)", o->name, o->arg);
				return NULL;
			}
			*val = argv[++*i];
		}
		(*i)++;
		return o;
	}
	o = find_short(tab, a[*ci]);
	if (!o) {
		snprintf(err, errlen, "unknown option '-%c'", a[*ci]);
		return NULL;
	}
	(*ci)++;
	if (o->arg) {
		if (a[*ci]) {
			*val = a + *ci;
		} else if (*i + 1 < argc) {
			*val = argv[++*i];
		} else {
			snprintf(err, errlen, "option '-%c' needs a value (%s)", o->short_name, o->arg);
			return NULL;
		}
		*ci = 1;
		(*i)++;
	} else if (!a[*ci]) {
		*ci = 1;
		(*i)++;
	}
	return o;
}

/* An unknown option comes with the usage, a missing value is one line. */
static int opt_err(const struct cli *cli, const char *err)
{
	if (!strncmp(err, "unknown", 7))
		return cli_usage_err(cli, "%s", err);
	return cli_bad_args(cli, "%s", err);
}

static bool is_opt(const char *a)
{
	return a[0] == '-' && a[1] && strcmp(a, "--");
}

/* Does option word @a (of @tab) take the next word as its value? */
static bool takes_next(const struct cli_opt *tab, const char *a)
{
	const struct cli_opt *o = NULL;

	if (a[1] == '-') {
		if (!strchr(a, '='))
			o = find_long(tab, a + 2, strlen(a + 2));
	} else {
		for (const char *p = a + 1; *p; p++) {
			o = find_short(tab, *p);
			if (!o || o->arg) {
				if (o && p[1])
					o = NULL;
				break;
			}
		}
	}
	return o && o != &ambiguous && o->arg;
}

int cli_parse(struct cli *cli, int argc, char **argv, cli_opt_fn fn, void *data)
{
	const struct cli_opt *tab = cli->cmd->opts;
	char err[160];
	int i = 1, ci = 1, rc;

	cli->args = argv + 1;
	cli->nargs = 0;
	while (i < argc) {
		const struct cli_opt *o;
		const char *val;

		if (ci == 1 && !strcmp(argv[i], "--")) {
			for (i++; i < argc; i++)
				cli->args[cli->nargs++] = argv[i];
			break;
		}
		if (ci == 1 && !is_opt(argv[i])) {
			/* Positionals are gathered at the front, in order. */
			cli->args[cli->nargs++] = argv[i++];
			continue;
		}
		/* -h and --help belong to every command, without a table entry. */
		if (ci == 1 && (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))) {
			cli_usage(cli, stdout);
			return 0;
		}
		o = next_opt(tab, argc, argv, &i, &ci, &val, err, sizeof(err));
		if (!o)
			return opt_err(cli, err);
		cli->opt = o->name;
		rc = fn(cli, data, o->id, val);
		cli->opt = NULL;
		if (rc)
			return rc;
	}
	if (cli->nargs && !strcmp(cli->args[0], "help")) {
		cli_usage(cli, stdout);
		return 0;
	}
	return CLI_CONTINUE;
}

struct globals {
	bool help;            /* the command's -h/--help: answered before anything is checked */
	const char *sysfs_root;
	unsigned long timeout;
};

static int apply_global(struct cli *cli, struct globals *g, const struct cli_opt *o, const char *val)
{
	int rc;

	switch (o->id) {
	case 'j':
		if (cli->fmt == RCK_FORMAT_TEXT)
			cli->fmt = RCK_FORMAT_JSON;
		return CLI_CONTINUE;
	case 'p':
		cli->fmt = RCK_FORMAT_JSON_PRETTY;
		return CLI_CONTINUE;
	case 'v':
		cli->verbose++;
		return CLI_CONTINUE;
	case GOPT_SYSFS_ROOT:
		g->sysfs_root = val;
		return CLI_CONTINUE;
	case 't':
		if (cli_parse_uint(val, 1, UINT_MAX, &g->timeout))
			return cli_bad_args(cli, "invalid --timeout '%s': milliseconds, 1 or more", val);
		return CLI_CONTINUE;
	case 'V':
		printf("%s %s\n", cli->prog, rck_version());
		return 0;
	case 'h':
		cli_usage(cli, stdout);
		return 0;
	case GOPT_DUMP_OPTIONS:
		cli_print_options(cli->tool, stdout);
		return 0;
	case GOPT_COMPLETION:
		if (strcmp(val, "bash"))
			return cli_bad_args(cli, "invalid --completion '%s': bash", val);
		cli_print_completion(cli->tool, stdout);
		return 0;
	default:
		if (!cli->tool->global)
			return cli_bad_args(cli, "option '--%s' is not handled", o->name);
		rc = cli->tool->global(cli, o->id, val);
		return rc ? rc : CLI_CONTINUE;
	}
}

/* A word of short options inside a command ("-jb", "-bV", "-jr FILE",
 * "-bt500"): its global letters are applied here and taken out of the
 * word in place; what is left ("-b", "-r") is the command's, ending with
 * the value of a command option that takes one. *i moves past a global
 * option's value taken from the next word; *keep says whether anything
 * is left for the command. Returns CLI_CONTINUE or the exit code. */
static int split_short(struct cli *cli, struct globals *g, int argc, char **argv, int *i, bool *keep)
{
	char *a = argv[*i];
	int w = 1;

	*keep = false;
	for (int k = 1; a[k]; k++) {
		const struct cli_opt *c = find_short(cli->cmd->opts, a[k]);
		const struct cli_opt *o = c ? NULL : find_short(cli->tool->globals, a[k]);
		const char *val = NULL;
		int rc;

		if (!o) {
			/* The command's, or unknown: the command says so. */
			a[w++] = a[k];
			if (c && c->arg) {
				memmove(a + w, a + k + 1, strlen(a + k + 1) + 1);
				*keep = true;
				return CLI_CONTINUE;
			}
			continue;
		}
		if (o->id == 'h') {
			/* Help wins: the command gets "-h" alone. */
			g->help = true;
			strcpy(a, "-h");
			*keep = true;
			return CLI_CONTINUE;
		}
		if (o->arg) {
			if (a[k + 1])
				val = a + k + 1;
			else if (*i + 1 < argc)
				val = argv[++*i];
			else
				return cli_bad_args(cli, "option '-%c' needs a value (%s)", o->short_name, o->arg);
		}
		rc = apply_global(cli, g, o, val);
		if (rc != CLI_CONTINUE)
			return rc;
		if (o->arg)
			break;
	}
	a[w] = '\0';
	*keep = w > 1;
	return CLI_CONTINUE;
}

/* Walk argv: global options (anywhere) are applied and dropped, the first
 * other word picks the command, the rest is left in @out for the command.
 * A command option's value is skipped over, so "--save -j" saves to "-j". */
static int split_globals(struct cli *cli, struct globals *g, int argc, char **argv, char **out, int *nout)
{
	const struct cli_opt *gt = cli->tool->globals;
	char err[160];
	int i = 1, rc;

	*nout = 0;
	while (i < argc) {
		const char *a = argv[i];

		if (!strcmp(a, "--") && cli->cmd) {
			while (i < argc)
				out[(*nout)++] = argv[i++];
			break;
		}
		if (!is_opt(a)) {
			if (!cli->cmd) {
				cli->cmd = find_cmd(cli->tool->cmds, a);
				if (!cli->cmd)
					return cli_usage_err(cli, "unknown command '%s'", a);
			}
			out[(*nout)++] = argv[i++];
			continue;
		}
		/* Inside a command, its own options (and help) come first. */
		if (cli->cmd) {
			bool global = true;

			if (a[1] == '-') {
				const char *eq = strchr(a + 2, '=');
				size_t n = eq ? (size_t)(eq - a - 2) : strlen(a + 2);

				const struct cli_opt *go = find_long(gt, a + 2, n), *co = find_long(cli->cmd->opts, a + 2, n);
				bool exact_g = find_exact(gt, a + 2, n), exact_c = find_exact(cli->cmd->opts, a + 2, n);

				/* A prefix of a global option and of the command's. */
				if (go && co && !exact_g && !exact_c) {
					char names[256] = "";

					candidates(cli->cmd->opts, a + 2, n, names, sizeof(names));
					candidates(gt, a + 2, n, names, sizeof(names));
					return cli_bad_args(cli, "option '%.*s' is ambiguous: %s", (int)n + 2, a, names);
				}
				global = go && (!co || (exact_g && !exact_c));
				/* A tool without command words answers the hidden ones too. */
				if (!global && cli->cmd == cli->tool->single)
					global = find_exact(cli_hidden_globals, a + 2, n) != NULL;
			} else {
				int at = i;
				bool keep;

				rc = split_short(cli, g, argc, argv, &i, &keep);
				if (rc != CLI_CONTINUE)
					return rc;
				i++;
				if (keep) {
					out[(*nout)++] = argv[at];
					if (i < argc && takes_next(cli->cmd->opts, argv[at]))
						out[(*nout)++] = argv[i++];
				}
				continue;
			}
			if (global && (!strcmp(a, "-h") || !strcmp(a, "--help"))) {
				global = false;
				g->help = true;
			}
			if (!global) {
				out[(*nout)++] = argv[i++];
				if (i < argc && takes_next(cli->cmd->opts, a))
					out[(*nout)++] = argv[i++];
				continue;
			}
		}
		for (int ci = 1, start = i; i == start;) {
			const char *val;
			const struct cli_opt *o = next_opt(gt, argc, argv, &i, &ci, &val, err, sizeof(err));

			if (!o && (!cli->cmd || cli->cmd == cli->tool->single) && a[1] == '-' &&
			    !strncmp(err, "unknown", 7))
				o = next_opt(cli_hidden_globals, argc, argv, &i, &ci, &val, err, sizeof(err));
			if (!o)
				return opt_err(cli, err);
			if (o->id == GOPT_DUMP_OPTIONS || o->id == GOPT_COMPLETION || o->id == 'V' ||
			    (o->id == 'h' && !cli->cmd)) {
				/* Answered at once, whatever else is on the line. */
				return apply_global(cli, g, o, val);
			}
			rc = apply_global(cli, g, o, val);
			if (rc != CLI_CONTINUE)
				return rc;
		}
	}
	return CLI_CONTINUE;
}

/* A copy of argv to parse: splitting "-vj" rewrites words, and the
 * process's own argv is what ps and /proc/PID/cmdline show (an agent's
 * command line must read as typed). NULL when out of memory. */
static char **copy_argv(int argc, char **argv)
{
	char **v = calloc((size_t)argc + 1, sizeof(*v));

	for (int i = 0; v && i < argc; i++)
		if (!(v[i] = strdup(argv[i]))) {
			while (i-- > 0)
				free(v[i]);
			free(v);
			return NULL;
		}
	return v;
}

static void free_argv(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

int cli_main(const struct cli_tool *tool, int argc, char **argv_in)
{
	struct cli cli = { .tool = tool, .prog = tool->prog, .fmt = RCK_FORMAT_TEXT };
	struct globals g = { 0 };
	struct stat st;
	char **rest, **argv = copy_argv(argc, argv_in);
	int nrest, rc;

	rest = argv ? calloc((size_t)argc + 2, sizeof(*rest)) : NULL;
	if (!rest) {
		free_argv(argv);
		return cli_fail(&cli, -ENOMEM, "cannot parse the arguments");
	}
	if (tool->single) {
		/* Every word is the one command's; its argv[0] is the program. */
		cli.cmd = tool->single;
		rest[0] = (char *)tool->prog;
	}
	rc = split_globals(&cli, &g, argc, argv, rest + !!tool->single, &nrest);
	nrest += !!tool->single;
	if (rc != CLI_CONTINUE)
		goto out;
	if (!cli.cmd) {
		rc = cli_usage_err(&cli, "no command given");
		goto out;
	}
	if (g.help) {
		rc = cli.cmd->run(&cli, nrest, rest);
		goto out;
	}
	if (cli.fmt != RCK_FORMAT_TEXT && !cli.cmd->json) {
		rc = cli_bad_args(&cli, "no JSON output");
		goto out;
	}
	if (g.sysfs_root && (stat(g.sysfs_root, &st) || !S_ISDIR(st.st_mode))) {
		rc = cli_bad_args(&cli, "invalid --sysfs-root '%s': not a directory", g.sysfs_root);
		if (cli.cmd->refused)
			cli.cmd->refused(&cli, nrest, rest, "--sysfs-root is not a directory");
		goto out;
	}
	if (!cli.cmd->no_ctx) {
		rc = rck_ctx_new(&cli.ctx);
		if (rc) {
			rc = cli_fail(&cli, rc, "cannot create a library context");
			goto out;
		}
		rck_ctx_set_log_fn(cli.ctx, log_stderr, &cli);
		rck_ctx_set_log_priority(cli.ctx, cli.verbose >= 2 ? LOG_DEBUG : cli.verbose ? LOG_INFO : LOG_ERR);
		if (g.timeout)
			rck_ctx_set_timeout_ms(cli.ctx, (unsigned int)g.timeout);
		if (g.sysfs_root && (rc = rck_ctx_set_sysfs_root(cli.ctx, g.sysfs_root))) {
			rc = cli_fail(&cli, rc, "cannot use --sysfs-root '%s'", g.sysfs_root);
			if (cli.cmd->refused)
				cli.cmd->refused(&cli, nrest, rest, "cannot use --sysfs-root");
			goto out;
		}
	}
	rc = cli.cmd->run(&cli, nrest, rest);
out:
	rck_ctx_free(cli.ctx);
	free(rest);
	free_argv(argv);
	return rc;
}

static int help_no_opts(struct cli *cli, void *data, int id, const char *arg)
{
	return EXIT_USAGE;
}

int cli_cmd_help(struct cli *cli, int argc, char **argv)
{
	int rc = cli_parse(cli, argc, argv, help_no_opts, NULL);

	if (rc != CLI_CONTINUE)
		return rc;
	if (cli->nargs > 1)
		return cli_usage_err(cli, "unexpected argument '%s'", cli->args[1]);
	if (cli->nargs == 1) {
		const struct cli_cmd *c = find_cmd(cli->tool->cmds, cli->args[0]);

		if (!c)
			return cli_usage_err(cli, "unknown command '%s'", cli->args[0]);
		cli_cmd_usage(cli, c, stdout);
		return 0;
	}
	cli->cmd = NULL;
	cli_usage(cli, stdout);
	return 0;
}
