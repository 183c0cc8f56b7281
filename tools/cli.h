/* Command-line plumbing shared by the rocecheck tools: one table per tool
 * drives global options, dispatch, usage, help, errors and completion. */
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

/* cli_parse() went through every option: the command carries on. */
#define CLI_CONTINUE (-1)

/* One option, global or a command's own. @id is what the handler gets:
 * the short letter when there is one, else a value >= 256. */
struct cli_opt {
	int id;
	char short_name;    /* 0: long form only */
	const char *name;   /* long name without "--" */
	const char *arg;    /* the value's name in the usage ("S", "FILE"); NULL: a flag */
	const char *help;   /* one line */
};

struct cli;

struct cli_cmd {
	const char *name;   /* an exact word */
	/* argv[0] is the command word; calls cli_parse() before it uses cli->ctx
	 * (NULL when the command was asked for its help). */
	int (*run)(struct cli *cli, int argc, char **argv);
	const char *args;   /* synopsis of the positional arguments ("" for none) */
	const char *help;   /* one line */
	const struct cli_opt *opts; /* the command's own options; NULL or {0}-terminated */
	bool json;          /* honours -j */
	bool no_ctx;        /* runs without a library context (help) */
	/* Told when a global option refused the run before it started (a bad
	 * --sysfs-root), with the one-line why: a command whose output a
	 * monitor reads (sweep --format npd) still writes its line. NULL: none. */
	void (*refused)(struct cli *cli, int argc, char **argv, const char *why);
};

/* A tool: its name, its global options and its commands; or, for a tool
 * without command words (rocecap -r FILE ...), its one command in @single,
 * whose options stand beside the global ones. */
struct cli_tool {
	const char *prog;
	const char *summary;          /* one line for the usage */
	const char *man;              /* "rocecheck(8)" */
	const struct cli_opt *globals;/* {0}-terminated */
	const struct cli_cmd *cmds;   /* {0}-terminated; NULL with @single */
	const struct cli_cmd *single; /* the tool's only command, or NULL */
	/* Global options of the tool's own (beyond cli_std_globals' ids):
	 * returns 0 or an exit code. NULL when there are none. */
	int (*global)(struct cli *cli, int id, const char *arg);
};

struct cli {
	const struct cli_tool *tool;
	const char *prog;
	const struct cli_cmd *cmd;    /* the running command, NULL before dispatch */
	struct rck_ctx *ctx;
	enum rck_format fmt;
	int verbose;
	const char *opt;              /* in a cli_opt_fn: the option's long name (an alias as typed) */
	char **args;                  /* positional arguments left by cli_parse() */
	int nargs;
};

/* The global options every rocecheck tool shares: -j -p -v --sysfs-root -t -V -h. */
extern const struct cli_opt cli_std_globals[];
/* Options for tests and packaging, left out of the usage: --dump-options,
 * --completion bash. */
extern const struct cli_opt cli_hidden_globals[];

/* Pull the global options out of argv wherever they stand, dispatch the
 * command word and run it. Returns the process exit code. */
int cli_main(const struct cli_tool *tool, int argc, char **argv);

/* The running command's (or the tool's) usage on @f. */
void cli_usage(const struct cli *cli, FILE *f);
void cli_cmd_usage(const struct cli *cli, const struct cli_cmd *cmd, FILE *f);

/* Parse the running command's options from its table: @fn gets each
 * option's id and value (NULL for a flag) and returns 0 or an exit code.
 * "-h", "--help" or a first positional "help" print the usage.
 * Positional arguments are left in cli->args / cli->nargs. Returns
 * CLI_CONTINUE, or the exit code to return (0 after help). */
typedef int (*cli_opt_fn)(struct cli *cli, void *data, int id, const char *arg);
int cli_parse(struct cli *cli, int argc, char **argv, cli_opt_fn fn, void *data);

/* The `help [COMMAND]` command of a tool's table: the tool's usage, or
 * that command's. */
int cli_cmd_help(struct cli *cli, int argc, char **argv);

/* Every message goes out as one line "prog: CMD: what" on stderr. */
void cli_msg(const struct cli *cli, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A bad value: one line; returns EXIT_USAGE. */
int cli_bad_args(const struct cli *cli, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* An unknown word or option: one line plus the usage; returns EXIT_USAGE. */
int cli_usage_err(const struct cli *cli, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "prog: CMD: what: strerror(-err)"; returns EXIT_FAIL. */
int cli_fail(const struct cli *cli, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Parse "DEV" or "DEV/PORT"; *port 0 when not given. Returns 0 or -EINVAL. */
int cli_parse_dev_port(const char *arg, char *dev, size_t len, unsigned int *port);
/* Parse a decimal number within [min, max]; returns 0 or -EINVAL. */
int cli_parse_uint(const char *arg, unsigned long min, unsigned long max, unsigned long *out);
int cli_parse_double(const char *arg, double min, double max, double *out);
/* The thresholds file: @given (--config), else $ROCECHECK_CONFIG when set
 * and not empty (rocelab host points it at thresholds fit for emulated
 * links), else NULL (the built-in defaults). */
const char *cli_config_file(const char *given);

/* Generated from the table: the bash completion script, and the option
 * list the man-page test compares with (one "SCOPE OPTION" a line). */
void cli_print_completion(const struct cli_tool *tool, FILE *f);
void cli_print_options(const struct cli_tool *tool, FILE *f);

#endif
