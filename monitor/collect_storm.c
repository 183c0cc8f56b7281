/* Across hosts, PFC storms: the port that sends the pauses and the ports on
 * other hosts they pause, as one finding (each monitor sees only its own). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "monitor_int.h"

int mc_add_storm(struct mc_set *s, const char *host, const char *device, unsigned int port, bool sender,
		 bool active)
{
	struct mc_storm *v;

	for (unsigned int i = 0; i < s->n_storms; i++) {
		v = &s->storms[i];
		if (!strcmp(v->host, host) && !strcmp(v->device, device) && v->port == port && v->sender == sender) {
			v->active = active;
			return 0;
		}
	}
	if (!active)
		return 0;
	if (s->n_storms >= MC_PAIRS_MAX)
		return -E2BIG;
	v = realloc(s->storms, (s->n_storms + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	s->storms = v;
	v = &s->storms[s->n_storms++];
	memset(v, 0, sizeof(*v));
	snprintf(v->host, sizeof(v->host), "%s", host);
	snprintf(v->device, sizeof(v->device), "%s", device);
	v->port = port;
	v->sender = sender;
	v->active = true;
	return 0;
}

/* Appends "host:dev/port" of the active paused ports not on @host (NULL:
 * all) to @names; returns how many. */
static unsigned int paused(const struct mc_set *s, const char *host, char *names, size_t size)
{
	unsigned int n = 0;

	for (unsigned int j = 0; j < s->n_storms; j++) {
		const struct mc_storm *p = &s->storms[j];
		size_t at = strlen(names);

		if (!p->active || p->sender || (host && !strcmp(p->host, host)))
			continue;
		if (at < size)
			snprintf(names + at, size - at, "%s%s:%s/%u", n ? ", " : "", p->host, p->device, p->port);
		n++;
	}
	return n;
}

/*
 * A storm spreads: the switch port a NIC pauses fills and pauses its other
 * ports in turn, so hosts far from the sender see pauses arrive. Every
 * paused port is listed with each sender (with two senders at once, which
 * paused which is not known).
 */
int mc_group_storms(const struct mc_set *s, struct mf_list *out)
{
	bool any = false;

	for (unsigned int i = 0; i < s->n_storms; i++) {
		const struct mc_storm *t = &s->storms[i];
		char names[MF_REASON - 60] = "";
		unsigned int n;

		if (!t->active || !t->sender)
			continue;
		any = true;
		n = paused(s, t->host, names, sizeof(names));
		if (!mf_add(out, "pause_storm", RCK_SEVERITY_DEGRADED, t->host, 0, NULL,
			    "%s/%u sends the pauses; paused: %s", t->device, t->port, n ? names : "no port watched"))
			return -ENOMEM;
	}
	if (!any) {
		char names[MF_REASON - 60] = "";
		unsigned int n = paused(s, NULL, names, sizeof(names));

		if (n && !mf_add(out, "pause_storm", RCK_SEVERITY_WARNING, "unwatched", 0, NULL,
				 "%u %s paused by a sender no monitor watches: %s", n, n == 1 ? "port" : "ports",
				 names))
			return -ENOMEM;
	}
	return 0;
}
