/* The command-line plumbing (tools/cli.c) on made-up tools: global options
 * anywhere, a command option's value kept, "--", help, errors, one-command tools. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cli.h"

/* What the command saw: "name fmt verbose timeout | opt=val ... | pos ..." */
static char seen[512];

static int rec_opt(struct cli *cli, void *data, int id, const char *arg)
{
	size_t n = strlen(seen);

	snprintf(seen + n, sizeof(seen) - n, " %c=%s", id, arg ? arg : "");
	return 0;
}

static int rec_run(struct cli *cli, int argc, char **argv)
{
	int rc;
	size_t n;

	snprintf(seen, sizeof(seen), "%s fmt%d v%d t%u |", argv[0], (int)cli->fmt, cli->verbose,
		 cli->ctx ? rck_ctx_get_timeout_ms(cli->ctx) : 0);
	rc = cli_parse(cli, argc, argv, rec_opt, NULL);
	if (rc != CLI_CONTINUE)
		return rc;
	n = strlen(seen);
	snprintf(seen + n, sizeof(seen) - n, " |");
	for (int i = 0; i < cli->nargs; i++) {
		n = strlen(seen);
		snprintf(seen + n, sizeof(seen) - n, " %s", cli->args[i]);
	}
	return 0;
}

static const struct cli_opt cmd_opts[] = {
	{ 'f', 'f', "flag", NULL, "a flag" },
	{ 's', 0, "save", "FILE", "a value" },
	{ 'n', 'n', "num", "N", "a value with a short form" },
	{ 0 }
};

static const struct cli_cmd cmds[] = {
	{ "run", rec_run, "[ARG...]", "records what it saw", cmd_opts, .json = true },
	{ "plain", rec_run, "", "no JSON", NULL, .json = false },
	{ 0 }
};

static const struct cli_tool multi = {
	.prog = "tool", .summary = "a test tool", .globals = cli_std_globals, .cmds = cmds,
};

static const struct cli_cmd only = { "cap", rec_run, "[FILTER]", "a tool without command words",
				     cmd_opts, .json = true };
static const struct cli_tool single = {
	.prog = "cap", .summary = "a one-command tool", .globals = cli_std_globals, .single = &only,
};

/* A tool with a global option of its own, next to the standard ones. */
enum { OPT_KEY = 300 };
static char key_file[64];
static int own_global(struct cli *cli, int id, const char *arg)
{
	if (id != OPT_KEY)
		return EXIT_USAGE;
	snprintf(key_file, sizeof(key_file), "%s", arg);
	return 0;
}
static const struct cli_opt own_globals[] = {
	{ 'j', 'j', "json", NULL, "JSON output" },
	{ OPT_KEY, 'k', "key-file", "FILE", "a global of this tool" },
	{ 0 }
};
static const struct cli_tool own = {
	.prog = "agent", .summary = "its own globals", .globals = own_globals, .cmds = cmds,
	.global = own_global,
};

/* Run @tool on the words of @line (split at spaces). */
static int run(const struct cli_tool *tool, const char *line)
{
	char buf[256], *argv[32];
	int argc = 0;

	snprintf(buf, sizeof(buf), "%s", line);
	argv[argc++] = (char *)tool->prog;
	for (char *w = strtok(buf, " "); w && argc < 31; w = strtok(NULL, " "))
		argv[argc++] = w;
	argv[argc] = NULL;
	seen[0] = '\0';
	return cli_main(tool, argc, argv);
}

static const struct {
	const struct cli_tool *tool;
	const char *line;
	int rc;
	const char *want; /* what the command saw; "" when it did not run */
} cases[] = {
	/* Global options anywhere, in any spelling. */
	{ &multi, "-v run --save x -j pos -t 50", 0, "run fmt1 v1 t50 | s=x | pos" },
	{ &multi, "run pos -p -vv --timeout=70", 0, "run fmt2 v2 t70 | | pos" },
	{ &multi, "-jt 80 run -f", 0, "run fmt1 v0 t80 | f= |" },
	/* A command option's value is the command's, whatever it looks like. */
	{ &multi, "run --save -j", 0, "run fmt0 v0 t10000 | s=-j |" },
	{ &multi, "run -n -v -n7 --num=8", 0, "run fmt0 v0 t10000 | n=-v n=7 n=8 |" },
	/* After "--" every word is an argument. */
	{ &multi, "run -- -j --x", 0, "run fmt0 v0 t10000 | | -j --x" },
	{ &multi, "run -fn 3 a", 0, "run fmt0 v0 t10000 | f= n=3 | a" },
	/* Errors: exit 2, the command runs only as far as its parsing. */
	{ &multi, "", 2, "" },
	{ &multi, "nope", 2, "" },
	/* Unambiguous prefixes of long options, as getopt_long. */
	{ &multi, "--js run", 0, "run fmt1 v0 t10000 | |" },
	{ &multi, "run --sav x --ti 50", 0, "run fmt0 v0 t50 | s=x |" },
	{ &multi, "run --sa=y --fl", 0, "run fmt0 v0 t10000 | s=y f= |" },
	{ &multi, "run --s=y", 2, "" },  /* --save or the global --sysfs-root */
	{ &multi, "--ver run", 2, "" },  /* --verbose or --version */
	{ &multi, "run --", 0, "run fmt0 v0 t10000 | |" },
	{ &multi, "run --flag=1", 2, "run fmt0 v0 t10000 |" },
	{ &multi, "run --save", 2, "run fmt0 v0 t10000 |" },
	{ &multi, "run -t", 2, "" },
	{ &multi, "run -t 0", 2, "" },
	{ &multi, "-j plain", 2, "" },
	/* Help inside a command: its usage, exit 0, before anything is checked. */
	{ &multi, "run --help --sysfs-root /nonexistent", 0, "run fmt0 v0 t0 |" },
	{ &multi, "run -h", 0, "run fmt0 v0 t0 |" },
	{ &multi, "run help", 0, "run fmt0 v0 t10000 |" },
	{ &multi, "--help", 0, "" },
	{ &multi, "-V", 0, "" },
	/* A tool without command words. */
	{ &single, "-j --save f tcp", 0, "cap fmt1 v0 t10000 | s=f | tcp" },
	{ &single, "tcp port 4791 -v", 0, "cap fmt0 v1 t10000 | | tcp port 4791" },
	{ &single, "-h", 0, "cap fmt0 v0 t0 |" },
	{ &single, "--bogus", 2, "cap fmt0 v0 t10000 |" },
	/* Global flags in front of a command's letters in one word. */
	{ &single, "-jn 3 tcp", 0, "cap fmt1 v0 t10000 | n=3 | tcp" },
	{ &single, "-vjf -jn4", 0, "cap fmt1 v1 t10000 | f= n=4 |" },
	{ &single, "-jx", 2, "cap fmt1 v0 t10000 |" },
	{ &single, "-jh", 0, "cap fmt1 v0 t0 |" },
	{ &multi, "run -fjh", 0, "run fmt1 v0 t0 |" },
	/* ... and behind them, with a value from the word or the next one. */
	{ &multi, "run -fvj", 0, "run fmt1 v1 t10000 | f= |" },
	{ &multi, "run -ft 60 -fjt70", 0, "run fmt1 v0 t70 | f= f= |" },
	{ &multi, "run -ft", 2, "" },
	{ &multi, "run -fx", 2, "run fmt0 v0 t10000 | f=" },
	{ &multi, "run -fV", 0, "" },
	/* The hidden options of a tool without command words. */
	{ &single, "--dump-options", 0, "" },
	{ &single, "tcp --completion bash", 0, "" },
	/* A tool with a global of its own and without -v. */
	{ &own, "-v run", 2, "" },
};

static void test_cases(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int got = run(cases[i].tool, cases[i].line);

		if (got != cases[i].rc || strcmp(seen, cases[i].want))
			fail_msg("%s '%s': exit %d (want %d), saw '%s' (want '%s')", cases[i].tool->prog,
				 cases[i].line, got, cases[i].rc, seen, cases[i].want);
	}
}

static void test_tool_globals(void **state)
{
	(void)state;
	assert_int_equal(run(&own, "run -k secret a"), 0);
	assert_string_equal(seen, "run fmt0 v0 t10000 | | a");
	assert_string_equal(key_file, "secret");
	assert_int_equal(run(&own, "--key-file=other run -j"), 0);
	assert_string_equal(key_file, "other");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cases),
		cmocka_unit_test(test_tool_globals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
