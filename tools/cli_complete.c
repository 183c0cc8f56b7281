/* Output generated from a tool's command table: the bash completion script
 * and the option list the man-page and completion tests compare with. */
#include <string.h>

#include "cli.h"

static void dump_opts(const char *scope, const struct cli_opt *t, FILE *f)
{
	for (; t && t->id; t++) {
		if (!t->help && strcmp(scope, "hidden"))
			continue;
		fprintf(f, "%s --%s%s%s\n", scope, t->name, t->arg ? " " : "", t->arg ? t->arg : "");
		if (t->short_name)
			fprintf(f, "%s -%c%s%s\n", scope, t->short_name, t->arg ? " " : "", t->arg ? t->arg : "");
	}
}

void cli_print_options(const struct cli_tool *tool, FILE *f)
{
	dump_opts("global", tool->globals, f);
	/* A tool without command words: its command's options are the tool's. */
	if (tool->single)
		dump_opts("global", tool->single->opts, f);
	dump_opts("hidden", cli_hidden_globals, f);
	for (const struct cli_cmd *c = tool->cmds; c && c->name; c++) {
		fprintf(f, "command %s\n", c->name);
		dump_opts(c->name, c->opts, f);
	}
}

/* Every spelling of the options of @t, space-separated. */
static void words(const struct cli_opt *t, FILE *f)
{
	for (; t && t->id; t++) {
		if (!t->help)
			continue;
		fprintf(f, " --%s", t->name);
		if (t->short_name)
			fprintf(f, " -%c", t->short_name);
	}
}

/* case arms completing the values of options that take one: a list of
 * words for "a|b|c", files for FILE-like values, nothing otherwise. */
static void value_arms(const struct cli_opt *t, FILE *f)
{
	for (; t && t->id; t++) {
		const char *a = t->arg;

		if (!a || !t->help)
			continue;
		fprintf(f, "\t\t--%s", t->name);
		if (t->short_name)
			fprintf(f, " | -%c", t->short_name);
		if (strchr(a, '|')) {
			fprintf(f, ") COMPREPLY=($(compgen -W \"");
			for (const char *p = a; *p; p++)
				fputc(*p == '|' ? ' ' : *p, f);
			fprintf(f, "\" -- \"$cur\")); return ;;\n");
		} else if (!strcmp(a, "DIR")) {
			fprintf(f, ") COMPREPLY=($(compgen -d -- \"$cur\")); return ;;\n");
		} else if (!strcmp(a, "IF")) {
			fprintf(f, ") COMPREPLY=($(compgen -W \"$(ls /sys/class/net 2>/dev/null)\" -- \"$cur\")); return ;;\n");
		} else if (strstr(a, "FILE") || !strcmp(a, "OLD")) {
			fprintf(f, ") COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n");
		} else {
			fprintf(f, ") return ;;\n");
		}
	}
}

void cli_print_completion(const struct cli_tool *tool, FILE *f)
{
	const char *p = tool->prog;

	fprintf(f, "# bash completion for %s, generated from its command table\n"
		   "# (%s --completion bash); do not edit.\n", p, p);
	fprintf(f, "_%s() {\n"
		   "\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} cmd= i\n"
		   "\tlocal cmds=\"", p);
	for (const struct cli_cmd *c = tool->cmds; c && c->name; c++)
		fprintf(f, "%s%s", c == tool->cmds ? "" : " ", c->name);
	fprintf(f, "\"\n\tlocal opts=\"");
	words(tool->globals, f);
	if (tool->single)
		words(tool->single->opts, f);
	fprintf(f, "\"\n"
		   "\tCOMPREPLY=()\n"
		   "\tfor ((i = 1; i < COMP_CWORD; i++)); do\n"
		   "\t\tcase \" $cmds \" in *\" ${COMP_WORDS[i]} \"*) cmd=${COMP_WORDS[i]}; break ;; esac\n"
		   "\tdone\n"
		   "\tcase $prev in\n");
	value_arms(tool->globals, f);
	if (tool->single)
		value_arms(tool->single->opts, f);
	fprintf(f, "\tesac\n\tcase $cmd in\n");
	for (const struct cli_cmd *c = tool->cmds; c && c->name; c++) {
		fprintf(f, "\t%s)\n\t\topts+=\"", c->name);
		words(c->opts, f);
		fprintf(f, " --help\"\n");
		if (!strcmp(c->name, "help")) {
			fprintf(f, "\t\t[[ $cur == -* ]] || { COMPREPLY=($(compgen -W \"$cmds\" -- \"$cur\")); return; }\n");
		} else if (c->opts && c->opts->id) {
			fprintf(f, "\t\tcase $prev in\n");
			value_arms(c->opts, f);
			fprintf(f, "\t\tesac\n");
		}
		fprintf(f, "\t\t;;\n");
	}
	fprintf(f, "\t'')\n"
		   "\t\t[[ $cur == -* || -z $cmds ]] || { COMPREPLY=($(compgen -W \"$cmds\" -- \"$cur\")); return; }\n"
		   "\t\t[[ $cur == -* ]] || { COMPREPLY=($(compgen -f -- \"$cur\")); return; }\n"
		   "\t\t;;\n"
		   "\tesac\n"
		   "\tCOMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
		   "}\n"
		   "complete -F _%s %s\n", p, p);
}
