/* Launcher command lines: the built-in launchers' argv, templates split into
 * words with {host} and {cmd} substituted, host names checked. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rocecheck/launch.h"
#include "internal.h"
#include "launch_int.h"

static const char *const default_agent[] = { "rocecheck", "agent", "--once", NULL };
/* Where the launcher passes our pipe on as the agent's standard input (ssh
 * without -n, a local template), the agent exits when we close it or die,
 * even if it never had a session. pdsh does not pass it on (the agent would
 * read end of file at once); srun and mpirun stop their tasks themselves. */
static const char *const lifeline_agent[] = { "rocecheck", "agent", "--once", "--lifeline", NULL };

const char *const *rck_launch_default_agent(void)
{
	return default_agent;
}

bool rck_launch_host_ok(const char *host)
{
	size_t n = host ? strlen(host) : 0;

	if (n == 0 || n > 255 || host[0] == '-')
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = host[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      strchr("._-:@%", c)))
			return false;
	}
	return true;
}

/* A growing NULL-terminated array of owned strings. */
struct words {
	char **v;
	size_t n, cap;
};

static int words_add(struct words *w, char *s)
{
	if (!s)
		return -ENOMEM;
	if (w->n + 2 > w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 16;
		char **v = realloc(w->v, cap * sizeof(*v));
		if (!v) {
			free(s);
			return -ENOMEM;
		}
		w->v = v;
		w->cap = cap;
	}
	w->v[w->n++] = s;
	w->v[w->n] = NULL;
	return 0;
}

static int words_dup(struct words *w, const char *s)
{
	return words_add(w, strdup(s));
}

RCK_EXPORT void rck_launch_argv_free(char **argv)
{
	if (!argv)
		return;
	for (char **p = argv; *p; p++)
		free(*p);
	free(argv);
}

/* True when a remote shell would read @s as one literal word. */
static bool shell_plain(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      strchr("-_./=:,+@%", *s)))
			return false;
	return true;
}

/* @s in single quotes for a POSIX shell ('\'' for each quote inside). */
static char *shell_quote(const char *s)
{
	size_t n = 2;
	for (const char *p = s; *p; p++)
		n += *p == '\'' ? 4 : 1;
	char *q = malloc(n + 1), *o = q;
	if (!q)
		return NULL;
	*o++ = '\'';
	for (const char *p = s; *p; p++) {
		if (*p == '\'') {
			memcpy(o, "'\\''", 4);
			o += 4;
		} else {
			*o++ = *p;
		}
	}
	*o++ = '\'';
	*o = '\0';
	return q;
}

static int add_agent(struct words *w, const char *const *agent, bool remote_shell)
{
	for (; *agent; agent++) {
		int rc = remote_shell && !shell_plain(*agent) ? words_add(w, shell_quote(*agent))
							       : words_dup(w, *agent);
		if (rc)
			return rc;
	}
	return 0;
}

/* @word with every {host} replaced by @host. */
static char *subst_host(const char *word, const char *host, bool *used)
{
	size_t hl = strlen(host), n = 0;
	for (const char *p = word; *p;) {
		if (!strncmp(p, "{host}", 6)) {
			n += hl;
			p += 6;
		} else {
			n++;
			p++;
		}
	}
	char *out = malloc(n + 1), *o = out;
	if (!out)
		return NULL;
	for (const char *p = word; *p;) {
		if (!strncmp(p, "{host}", 6)) {
			memcpy(o, host, hl);
			o += hl;
			p += 6;
			*used = true;
		} else {
			*o++ = *p++;
		}
	}
	*o = '\0';
	return out;
}

/*
 * Splits @t into words: blanks separate, 'single' quotes keep everything,
 * "double" quotes keep everything but \" and \\, a backslash outside
 * single quotes escapes the next character. Returns 0 or -EINVAL/-ENOMEM.
 */
int rck_launch_split(const char *t, char ***out)
{
	struct words w = { 0 };
	size_t len = strlen(t);
	char *buf = malloc(len + 1);
	int rc = 0;

	*out = NULL;
	if (!buf)
		return -ENOMEM;
	for (size_t i = 0; i < len && !rc;) {
		if (t[i] == ' ' || t[i] == '\t' || t[i] == '\n') {
			i++;
			continue;
		}
		size_t n = 0;
		char q = 0;
		for (; i < len; i++) {
			char c = t[i];
			if (!q && (c == ' ' || c == '\t' || c == '\n'))
				break;
			if (q == '\'') {
				if (c == '\'')
					q = 0;
				else
					buf[n++] = c;
			} else if (c == '\\') {
				if (i + 1 >= len) {
					rc = -EINVAL;
					break;
				}
				c = t[++i];
				if (q == '"' && c != '"' && c != '\\')
					buf[n++] = '\\';
				buf[n++] = c;
			} else if (q == '"' && c == '"') {
				q = 0;
			} else if (!q && (c == '\'' || c == '"')) {
				q = c;
			} else {
				buf[n++] = c;
			}
		}
		if (!rc && q)
			rc = -EINVAL;
		if (!rc)
			rc = words_add(&w, strndup(buf, n));
	}
	free(buf);
	if (!rc && !w.n)
		rc = -EINVAL;
	if (rc) {
		rck_launch_argv_free(w.v);
		return rc;
	}
	*out = w.v;
	return 0;
}

static int template_argv(const char *tmpl, const char *host, const char *const *agent, struct words *w)
{
	char **tw;
	bool used = false, cmd = false;
	int rc = rck_launch_split(tmpl, &tw);

	if (rc)
		return rc;
	for (char **p = tw; *p && !rc; p++) {
		if (!strcmp(*p, "{cmd}")) {
			cmd = true;
			rc = add_agent(w, agent, false);
		} else {
			rc = words_add(w, subst_host(*p, host, &used));
		}
	}
	rck_launch_argv_free(tw);
	if (!rc && !cmd)
		rc = add_agent(w, agent, false);
	if (!rc && !used)
		rc = -EINVAL;
	return rc;
}

RCK_EXPORT int rck_launch_argv(const char *launcher, const char *host, const char *const *agent,
			       const char *const *extra, char ***out)
{
	static const struct {
		const char *name;
		const char *pre[6]; /* words before the extra ones */
		const char *sep;    /* the word between them and the host */
		bool remote_shell;  /* the agent words reach a shell on the host */
		bool stdin_passed;  /* our pipe reaches the agent's standard input */
	} builtin[] = {
		{ "ssh", { "ssh", "-o", "BatchMode=yes", "-T" }, "--", true, true },
		{ "srun", { "srun", "-N1", "-n1" }, "-w", false, false },
		{ "pdsh", { "pdsh", "-N" }, "-w", true, false },
		{ "mpirun", { "mpirun", "-n", "1" }, "--host", false, false },
	};
	struct words w = { 0 };
	int rc = 0;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!launcher || !rck_launch_host_ok(host))
		return -EINVAL;
	if (agent && !*agent)
		return -EINVAL;
	if (!strcmp(launcher, "none"))
		return 0;
	size_t b = 0;
	while (b < RCK_ARRAY_SIZE(builtin) && strcmp(launcher, builtin[b].name))
		b++;
	if (!agent)
		agent = b == RCK_ARRAY_SIZE(builtin) || builtin[b].stdin_passed ? lifeline_agent : default_agent;
	if (b < RCK_ARRAY_SIZE(builtin)) {
		for (size_t k = 0; !rc && k < RCK_ARRAY_SIZE(builtin[b].pre) && builtin[b].pre[k]; k++)
			rc = words_dup(&w, builtin[b].pre[k]);
		for (size_t k = 0; !rc && extra && extra[k]; k++)
			rc = words_dup(&w, extra[k]);
		if (!rc)
			rc = words_dup(&w, builtin[b].sep);
		if (!rc)
			rc = words_dup(&w, host);
		if (!rc)
			rc = add_agent(&w, agent, builtin[b].remote_shell);
	} else {
		/* Not a built-in name: a template (one word without {host} is a typo). */
		rc = template_argv(launcher, host, agent, &w);
	}
	if (rc) {
		rck_launch_argv_free(w.v);
		return rc;
	}
	*out = w.v;
	return 0;
}
