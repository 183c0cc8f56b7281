/* The monitor's configuration: host name, pinglist, responder address,
 * thresholds, windows and hysteresis, outputs, duration. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "monitor_int.h"

RCK_EXPORT int rck_monitor_config_new(struct rck_monitor_config **out)
{
	struct rck_monitor_config *c;

	if (!out)
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->port = 18515;
	c->window_s = RCK_MONITOR_WINDOW_S;
	c->hold_k = RCK_MONITOR_HOLD_K;
	c->hold_n = RCK_MONITOR_HOLD_N;
	c->counters = true;
	*out = c;
	return 0;
}

RCK_EXPORT void rck_monitor_config_free(struct rck_monitor_config *c)
{
	if (!c)
		return;
	free(c->host);
	free(c->listen);
	free(c->textfile);
	free(c->npd);
	rck_pinglist_free(c->pl);
	rck_thresholds_free(c->th);
	free(c);
}

static int set_str(char **dst, const char *v, size_t max)
{
	char *s = NULL;

	if (v && (!*v || strlen(v) > max))
		return -EINVAL;
	if (v && !(s = strdup(v)))
		return -ENOMEM;
	free(*dst);
	*dst = s;
	return 0;
}

RCK_EXPORT int rck_monitor_config_set_host(struct rck_monitor_config *c, const char *host)
{
	return c && host ? set_str(&c->host, host, 255) : -EINVAL;
}

RCK_EXPORT int rck_monitor_config_set_pinglist(struct rck_monitor_config *c, const struct rck_pinglist *pl)
{
	struct rck_pinglist *copy;
	int rc;

	if (!c || !pl)
		return -EINVAL;
	if ((rc = rck_pinglist_new(&copy)))
		return rc;
	for (unsigned int i = 0; i < pl->n && !rc; i++)
		rc = rck_pinglist_add(copy, pl->peers[i].name, pl->peers[i].addr, pl->peers[i].rate_hz,
				      pl->peers[i].leaf);
	if (rc) {
		rck_pinglist_free(copy);
		return rc;
	}
	rck_pinglist_free(c->pl);
	c->pl = copy;
	return 0;
}

RCK_EXPORT int rck_monitor_config_set_listen(struct rck_monitor_config *c, const char *addr, unsigned int port)
{
	int rc;

	if (!c || port > 65535)
		return -EINVAL;
	if ((rc = set_str(&c->listen, addr, 63)))
		return rc;
	c->port = port;
	return 0;
}

RCK_EXPORT int rck_monitor_config_set_thresholds(struct rck_monitor_config *c, const struct rck_thresholds *th)
{
	struct rck_thresholds *copy = NULL;
	double v;
	int rc;

	if (!c)
		return -EINVAL;
	if (th) {
		if ((rc = rck_thresholds_new(&copy)))
			return rc;
		for (unsigned int i = 0; rck_thresholds_key(i); i++)
			if (!rck_thresholds_get(th, rck_thresholds_key(i), &v))
				rck_thresholds_set(copy, rck_thresholds_key(i), v);
	}
	rck_thresholds_free(c->th);
	c->th = copy;
	return 0;
}

RCK_EXPORT int rck_monitor_config_set_window(struct rck_monitor_config *c, unsigned int seconds,
					     unsigned int hold_k, unsigned int hold_n)
{
	if (!c || seconds < 1 || seconds > 3600 || hold_k < 1 || hold_k > hold_n || hold_n > 32)
		return -EINVAL;
	c->window_s = seconds;
	c->hold_k = hold_k;
	c->hold_n = hold_n;
	return 0;
}

RCK_EXPORT int rck_monitor_config_set_textfile(struct rck_monitor_config *c, const char *path)
{
	return c ? set_str(&c->textfile, path, 4095) : -EINVAL;
}

RCK_EXPORT int rck_monitor_config_set_npd(struct rck_monitor_config *c, const char *path)
{
	return c ? set_str(&c->npd, path, 4095) : -EINVAL;
}

RCK_EXPORT int rck_monitor_config_set_events(struct rck_monitor_config *c, FILE *out)
{
	if (!c)
		return -EINVAL;
	c->events = out;
	return 0;
}

RCK_EXPORT int rck_monitor_config_set_duration(struct rck_monitor_config *c, double seconds)
{
	if (!c || !isfinite(seconds) || seconds < 0 || seconds > 1e9)
		return -EINVAL;
	c->duration = seconds;
	return 0;
}

RCK_EXPORT int rck_monitor_config_set_counters(struct rck_monitor_config *c, bool on)
{
	if (!c)
		return -EINVAL;
	c->counters = on;
	return 0;
}

RCK_EXPORT int rck_monitor_config_set_transport(struct rck_monitor_config *c, enum rck_monitor_transport t)
{
	if (!c || (t != RCK_MONITOR_TRANSPORT_AUTO && t != RCK_MONITOR_TRANSPORT_UDP &&
		   t != RCK_MONITOR_TRANSPORT_RDMA))
		return -EINVAL;
	c->transport = t;
	return 0;
}
