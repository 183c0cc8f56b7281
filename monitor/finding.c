/* The monitor's findings: code (the analysis' names where one exists),
 * severity, device, port, peer and a reason; lists and hysteresis keys. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "monitor_int.h"

struct mf *mf_add(struct mf_list *l, const char *code, enum rck_severity sev,
		  const char *device, unsigned int port, const char *peer, const char *fmt, ...)
{
	struct mf *f;
	va_list ap;

	if (l->n == l->cap) {
		unsigned int cap = l->cap ? 2 * l->cap : 16;
		struct mf *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		l->v = v;
		l->cap = cap;
	}
	f = &l->v[l->n++];
	memset(f, 0, sizeof(*f));
	snprintf(f->code, sizeof(f->code), "%s", code);
	f->sev = sev;
	snprintf(f->device, sizeof(f->device), "%s", device ? device : "");
	snprintf(f->peer, sizeof(f->peer), "%s", peer ? peer : "");
	f->port = port;
	va_start(ap, fmt);
	vsnprintf(f->reason, sizeof(f->reason), fmt, ap);
	va_end(ap);
	return f;
}

void mf_list_clear(struct mf_list *l)
{
	l->n = 0;
}

void mf_list_free(struct mf_list *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}

void mf_key(const struct mf *f, char *buf, size_t len)
{
	snprintf(buf, len, "%s|%s|%u|%s", f->code, f->device, f->port, f->peer);
}
