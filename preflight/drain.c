/* Drain commands: a template split as launcher templates are, {host} and
 * {reason} substituted inside words; the caller runs the argv (no shell). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../launch/launch_int.h"
#include "preflight_int.h"

/* @w with every {host} and {reason} replaced; NULL on -ENOMEM. */
static char *subst(const char *w, const char *host, const char *reason)
{
	size_t hl = strlen(host), rl = strlen(reason), n = 0;
	char *out, *o;

	for (const char *p = w; *p;) {
		if (!strncmp(p, "{host}", 6))
			n += hl, p += 6;
		else if (!strncmp(p, "{reason}", 8))
			n += rl, p += 8;
		else
			n++, p++;
	}
	out = o = malloc(n + 1);
	if (!out)
		return NULL;
	for (const char *p = w; *p;) {
		if (!strncmp(p, "{host}", 6)) {
			memcpy(o, host, hl);
			o += hl;
			p += 6;
		} else if (!strncmp(p, "{reason}", 8)) {
			memcpy(o, reason, rl);
			o += rl;
			p += 8;
		} else {
			*o++ = *p++;
		}
	}
	*o = '\0';
	return out;
}

RCK_EXPORT int rck_preflight_drain_argv(const char *tmpl, const char *host, const char *reason, char ***out)
{
	char **w;
	int rc;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!tmpl || !reason || !rck_launch_host_ok(host))
		return -EINVAL;
	rc = rck_launch_split(tmpl, &w);
	if (rc)
		return rc;
	for (char **p = w; *p; p++) {
		char *s = subst(*p, host, reason);

		if (!s) {
			rck_launch_argv_free(w);
			return -ENOMEM;
		}
		free(*p);
		*p = s;
	}
	*out = w;
	return 0;
}
