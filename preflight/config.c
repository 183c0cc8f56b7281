/* The preflight's configuration: hosts, how agents are reached, probe and
 * analysis settings, callbacks, and cancellation. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "preflight_int.h"

RCK_EXPORT int rck_preflight_config_new(struct rck_preflight_config **out)
{
	struct rck_preflight_config *c;

	if (!out)
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->launcher = strdup("none");
	c->rails = strdup("same");
	if (!c->launcher || !c->rails || rck_hostlist_new(&c->hl) || rck_hostlist_new(&c->spares)) {
		rck_preflight_config_free(c);
		return -ENOMEM;
	}
	c->tests = 1u << RCK_MESH_TEST_BW;
	c->transport = RCK_PROBE_TRANSPORT_RDMA;
	c->iters = 1000;
	c->passes = RCK_PREFLIGHT_RETEST_PASSES;
	atomic_init(&c->cancel, 0);
	atomic_init(&c->running, NULL);
	*out = c;
	return 0;
}

static void free_argv(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

RCK_EXPORT void rck_preflight_config_free(struct rck_preflight_config *c)
{
	if (!c)
		return;
	rck_hostlist_free(c->hl);
	rck_hostlist_free(c->spares);
	free(c->launcher);
	free(c->ssh_config);
	free_argv(c->extra);
	rck_thresholds_free(c->th);
	free(c->rails);
	memset(c->key, 0, sizeof(c->key));
	free(c);
}

RCK_EXPORT int rck_preflight_config_add_hosts(struct rck_preflight_config *c, const char *list, char *err,
					      size_t errlen)
{
	if (!c || !list)
		return -EINVAL;
	return rck_hostlist_add(c->hl, list, err, errlen);
}

RCK_EXPORT int rck_preflight_config_add_spares(struct rck_preflight_config *c, const char *list, char *err,
					       size_t errlen)
{
	if (!c || !list)
		return -EINVAL;
	return rck_hostlist_add(c->spares, list, err, errlen);
}

RCK_EXPORT int rck_preflight_config_add_hostfile(struct rck_preflight_config *c, const char *path,
						 char *err, size_t errlen)
{
	if (!c || !path)
		return -EINVAL;
	return rck_hostlist_add_file(c->hl, path, err, errlen);
}

RCK_EXPORT int rck_preflight_config_set_launcher(struct rck_preflight_config *c, const char *launcher,
						 const char *const *extra_args)
{
	char *l, **extra = NULL;
	size_t n = 0;

	if (!c || !launcher || !*launcher)
		return -EINVAL;
	while (extra_args && extra_args[n])
		n++;
	if (extra_args && !(extra = calloc(n + 1, sizeof(*extra))))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (!(extra[i] = strdup(extra_args[i]))) {
			free_argv(extra);
			return -ENOMEM;
		}
	if (!(l = strdup(launcher))) {
		free_argv(extra);
		return -ENOMEM;
	}
	free(c->launcher);
	free_argv(c->extra);
	c->launcher = l;
	c->extra = extra;
	return 0;
}

RCK_EXPORT int rck_preflight_config_set_ssh_config(struct rck_preflight_config *c, const char *path)
{
	char *p = NULL;

	if (!c)
		return -EINVAL;
	if (path && *path && !(p = strdup(path)))
		return -ENOMEM;
	free(c->ssh_config);
	c->ssh_config = p;
	return 0;
}

RCK_EXPORT int rck_preflight_config_set_key(struct rck_preflight_config *c, const uint8_t *key, size_t len)
{
	if (!c || (len && !key) || len > sizeof(c->key))
		return -EINVAL;
	memset(c->key, 0, sizeof(c->key));
	if (len)
		memcpy(c->key, key, len);
	c->key_len = len;
	return 0;
}

RCK_EXPORT int rck_preflight_config_set_thresholds(struct rck_preflight_config *c,
						   const struct rck_thresholds *th)
{
	struct rck_thresholds *copy = NULL;

	if (!c)
		return -EINVAL;
	if (th) {
		if (rck_thresholds_new(&copy))
			return -ENOMEM;
		for (unsigned int i = 0; rck_thresholds_key(i); i++) {
			double v;

			if (!rck_thresholds_get(th, rck_thresholds_key(i), &v))
				rck_thresholds_set(copy, rck_thresholds_key(i), v);
		}
	}
	rck_thresholds_free(c->th);
	c->th = copy;
	return 0;
}

RCK_EXPORT int rck_preflight_config_set_tests(struct rck_preflight_config *c, unsigned int mask)
{
	if (!c || !mask || mask >= 1u << RCK_MESH_TEST_COUNT)
		return -EINVAL;
	c->tests = mask;
	return 0;
}

RCK_EXPORT int rck_preflight_config_set_schedule(struct rck_preflight_config *c,
						 enum rck_mesh_schedule schedule)
{
	if (!c || (schedule != RCK_MESH_SCHEDULE_COORDINATOR && schedule != RCK_MESH_SCHEDULE_AGENTS))
		return -EINVAL;
	c->schedule = schedule;
	return 0;
}

RCK_EXPORT int rck_preflight_config_set_rails(struct rck_preflight_config *c, const char *rails)
{
	char *r;

	if (!c || !rails || (strcmp(rails, "same") && strcmp(rails, "all") &&
			     (strncmp(rails, "device:", 7) || !rails[7])))
		return -EINVAL;
	if (!(r = strdup(rails)))
		return -ENOMEM;
	free(c->rails);
	c->rails = r;
	return 0;
}

RCK_EXPORT int rck_preflight_config_set_probe(struct rck_preflight_config *c,
					      enum rck_probe_transport transport, uint32_t size,
					      uint64_t iters, double duration_s)
{
	if (!c || (transport != RCK_PROBE_TRANSPORT_RDMA && transport != RCK_PROBE_TRANSPORT_TCP) ||
	    !(duration_s >= 0) || (!iters && duration_s == 0))
		return -EINVAL;
	c->transport = transport;
	c->size = size;
	c->iters = iters;
	c->duration_s = duration_s;
	return 0;
}

RCK_EXPORT void rck_preflight_config_set_quick(struct rck_preflight_config *c, bool quick)
{
	if (c)
		c->quick = quick;
}

RCK_EXPORT int rck_preflight_config_set_expect_rate(struct rck_preflight_config *c, double gbps)
{
	if (!c || !(gbps >= 0) || !isfinite(gbps))
		return -EINVAL;
	c->expect_rate = gbps;
	return 0;
}

RCK_EXPORT int rck_preflight_config_set_retest_passes(struct rck_preflight_config *c, unsigned int passes)
{
	if (!c || passes > rck_mesh_limits()->retest_passes_max)
		return -EINVAL;
	c->passes = passes;
	return 0;
}

RCK_EXPORT int rck_preflight_config_set_deadline(struct rck_preflight_config *c, double seconds)
{
	if (!c || !(seconds >= 0) || !isfinite(seconds))
		return -EINVAL;
	c->deadline_s = seconds;
	return 0;
}

RCK_EXPORT void rck_preflight_config_set_progress(struct rck_preflight_config *c,
						  rck_preflight_progress_fn fn, void *data)
{
	if (!c)
		return;
	c->progress = fn;
	c->progress_data = data;
}

RCK_EXPORT void rck_preflight_cancel(struct rck_preflight_config *c)
{
	struct rck_mesh_config *m;

	if (!c)
		return;
	atomic_store(&c->cancel, 1);
	m = atomic_load(&c->running);
	if (m)
		rck_mesh_cancel(m);
}
