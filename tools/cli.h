/* Command-line plumbing shared by the rocecheck tools: the command table,
 * global options, exit codes and the log sink for -v. */
#ifndef RCK_TOOLS_CLI_H
#define RCK_TOOLS_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include <rocecheck/rocecheck.h>

/* Exit codes a script can act on (documented in rocecheck(8)). */
enum {
	EXIT_MEASURED = 0,
	EXIT_FAIL = 1,        /* the command ran and failed (I/O, system error) */
	EXIT_USAGE = 2,       /* bad arguments */
	EXIT_UNREACHABLE = 3, /* peer unreachable or timed out */
	EXIT_RDMA = 4,        /* RDMA error, named on stderr */
};

struct cli {
	const char *prog;
	struct rck_ctx *ctx;
	enum rck_format fmt;
	int verbose;
	const struct cli_cmd *cmds;
};

struct cli_cmd {
	const char *name;
	int (*run)(struct cli *cli, int argc, char **argv); /* argv[0] is the command */
	const char *args;   /* synopsis of the command's own arguments */
	const char *help;   /* one line */
	bool json;          /* honours -j */
};

/* Parse global options, then run the command named by the first word
 * (exact match only). Returns the process exit code. */
int cli_main(const char *prog, const struct cli_cmd *cmds, int argc, char **argv);
void cli_usage(const struct cli *cli, FILE *f);
/* One-line error "prog: what" on stderr; returns EXIT_USAGE for convenience. */
int cli_bad_args(const struct cli *cli, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "prog: what: strerror(-err)"; returns EXIT_FAIL. */
int cli_fail(const struct cli *cli, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Parse "DEV" or "DEV/PORT"; *port 0 when not given. Returns 0 or -EINVAL. */
int cli_parse_dev_port(const char *arg, char *dev, size_t len, unsigned int *port);
/* Parse a positive number within [min, max]; returns 0 or -EINVAL. */
int cli_parse_uint(const char *arg, unsigned long min, unsigned long max, unsigned long *out);
int cli_parse_double(const char *arg, double min, double max, double *out);

#endif
