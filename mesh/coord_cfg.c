/* Sweep configuration: hosts with their agents' addresses and keys, the
 * plan's pattern and rails, the probes, limits and callbacks. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#include "coord.h"
#include "grow.h"
#include "strset.h"

RCK_EXPORT int rck_mesh_config_new(struct rck_mesh_config **out)
{
	struct rck_mesh_config *c;

	if (!out)
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->tests = 1u << RCK_MESH_TEST_BW;
	c->transport = RCK_PROBE_TRANSPORT_RDMA;
	c->iters = 1000;
	c->pattern = strdup("full");
	c->rails = strdup("same");
	if (!c->pattern || !c->rails) {
		rck_mesh_config_free(c);
		return -ENOMEM;
	}
	*out = c;
	return 0;
}

RCK_EXPORT void rck_mesh_config_free(struct rck_mesh_config *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n_hosts; i++) {
		free(c->hosts[i].name);
		free(c->hosts[i].addr);
		if (c->hosts[i].token)
			memset(c->hosts[i].token, 0, c->hosts[i].token_len);
		free(c->hosts[i].token);
		free(c->hosts[i].down);
	}
	free(c->hosts);
	strset_free(&c->names);
	memset(c->key, 0, sizeof(c->key));
	free(c->pattern);
	free(c->rails);
	free(c->pairs);
	free(c->pairs_name);
	free(c->device);
	free(c);
}

RCK_EXPORT int rck_mesh_config_add_host(struct rck_mesh_config *c, const char *name, const char *addr,
				       unsigned int port, const uint8_t *token, size_t token_len)
{
	struct coord_host *h;
	unsigned int idx;
	char *key;
	int rc;

	if (!c || !name || !*name || port > 65535 ||
	    (token && (token_len < 1 || token_len > RCK_KEY_MAX)))
		return -EINVAL;
	if (!strset_find(&c->names, name, &idx))
		return -EEXIST;
	if (mesh_grow((void **)&c->hosts, &c->cap_hosts, c->n_hosts + 1, sizeof(*c->hosts)))
		return -ENOMEM;
	h = &c->hosts[c->n_hosts];
	memset(h, 0, sizeof(*h));
	h->name = strdup(name);
	h->addr = strdup(addr ? addr : name);
	h->port = port ? port : RCK_AGENT_DEFAULT_PORT;
	if (token && (h->token = malloc(token_len)))
		memcpy(h->token, token, token_len);
	h->token_len = token_len;
	if (!h->name || !h->addr || (token && !h->token)) {
		free(h->name);
		free(h->addr);
		free(h->token);
		return -ENOMEM;
	}
	/* The set's index is the host's: both grow by one here. */
	key = strdup(name);
	rc = key ? strset_add(&c->names, key, &idx) : -ENOMEM;
	if (rc) {
		free(key); /* not taken on failure */
		free(h->name);
		free(h->addr);
		free(h->token);
		return rc;
	}
	c->n_hosts++;
	return 0;
}

RCK_EXPORT int rck_mesh_config_host_down(struct rck_mesh_config *c, const char *name, const char *reason)
{
	unsigned int i;
	char *copy;

	if (!c || !name || !reason || !*reason)
		return -EINVAL;
	if (strset_find(&c->names, name, &i))
		return -ENOENT;
	copy = strdup(reason);
	if (!copy)
		return -ENOMEM;
	free(c->hosts[i].down);
	c->hosts[i].down = copy;
	return 0;
}

RCK_EXPORT int rck_mesh_config_add_agent(struct rck_mesh_config *c, const char *name)
{
	const char *colon = name ? strchr(name, ':') : NULL;
	char addr[RCK_HOST_NAME_MAX + 1], *end;
	unsigned long port;

	if (colon && !strchr(colon + 1, ':') && colon[1] >= '0' && colon[1] <= '9') {
		port = strtoul(colon + 1, &end, 10);
		if (!*end && port >= 1 && port <= 65535 && (size_t)(colon - name) < sizeof(addr)) {
			snprintf(addr, sizeof(addr), "%.*s", (int)(colon - name), name);
			return rck_mesh_config_add_host(c, name, addr, (unsigned int)port, NULL, 0);
		}
	}
	return rck_mesh_config_add_host(c, name, NULL, 0, NULL, 0);
}

static const struct rck_mesh_limits limits = {
	.size_max = 1u << 30,
	.iters_max = 100000000,
	.iters_default = 1000,
	.duration_min_s = 0.001,
	.duration_max_s = 3600,
	.deadline_min_s = 0.001,
	.deadline_max_s = 1e6,
	.retest_passes_max = 16,
};

RCK_EXPORT const struct rck_mesh_limits *rck_mesh_limits(void)
{
	return &limits;
}

RCK_EXPORT int rck_mesh_config_set_key(struct rck_mesh_config *c, const uint8_t *key, size_t len)
{
	if (!c || (key && (len < RCK_KEY_MIN || len > RCK_KEY_MAX)))
		return -EINVAL;
	memset(c->key, 0, sizeof(c->key));
	c->key_len = key ? len : 0;
	if (key)
		memcpy(c->key, key, len);
	return 0;
}

static int set_str(char **dst, const char *s, size_t len)
{
	char *n = strndup(s, len);

	if (!n)
		return -ENOMEM;
	free(*dst);
	*dst = n;
	return 0;
}

RCK_EXPORT int rck_mesh_config_set_bidir(struct rck_mesh_config *c, bool bidir)
{
	if (!c)
		return -EINVAL;
	c->plan.bidir = bidir;
	return 0;
}

RCK_EXPORT int rck_mesh_config_set_pattern(struct rck_mesh_config *c, const char *pattern,
					  const char *pairs, size_t len, const char *name)
{
	unsigned long k = 0;
	char *end;

	if (!c || !pattern)
		return -EINVAL;
	if (!strcmp(pattern, "full")) {
		c->plan.pattern = MESH_PATTERN_FULL;
	} else if (!strcmp(pattern, "quick")) {
		c->plan.pattern = MESH_PATTERN_QUICK;
	} else if (!strncmp(pattern, "incast:", 7)) {
		errno = 0;
		k = strtoul(pattern + 7, &end, 10);
		if (errno || *end || pattern[7] < '1' || pattern[7] > '9' || k > 65535)
			return -EINVAL;
		c->plan.pattern = MESH_PATTERN_INCAST;
		c->plan.incast_k = (unsigned int)k;
	} else if (!strcmp(pattern, "topo")) {
		c->plan.pattern = MESH_PATTERN_TOPO;
	} else if (!strcmp(pattern, "pairs")) {
		if (!pairs || set_str(&c->pairs, pairs, len) ||
		    set_str(&c->pairs_name, name ? name : "pairs", strlen(name ? name : "pairs")))
			return pairs ? -ENOMEM : -EINVAL;
		c->plan.pattern = MESH_PATTERN_PAIRS;
		c->plan.pairs = c->pairs;
		c->plan.pairs_len = len;
		c->plan.pairs_name = c->pairs_name;
	} else {
		return -EINVAL;
	}
	return set_str(&c->pattern, pattern, strlen(pattern));
}

RCK_EXPORT int rck_mesh_config_set_rails(struct rck_mesh_config *c, const char *rails)
{
	if (!c || !rails)
		return -EINVAL;
	if (!strcmp(rails, "same")) {
		c->plan.rails = MESH_RAILS_SAME;
	} else if (!strcmp(rails, "all")) {
		c->plan.rails = MESH_RAILS_ALL;
	} else if (!strncmp(rails, "device:", 7) && rails[7]) {
		if (set_str(&c->device, rails + 7, strlen(rails + 7)))
			return -ENOMEM;
		c->plan.rails = MESH_RAILS_DEVICE;
		c->plan.device = c->device;
	} else {
		return -EINVAL;
	}
	return set_str(&c->rails, rails, strlen(rails));
}

RCK_EXPORT int rck_mesh_config_set_tests(struct rck_mesh_config *c, unsigned int mask)
{
	if (!c || !mask || mask >> RCK_MESH_TEST_COUNT)
		return -EINVAL;
	c->tests = mask;
	return 0;
}

RCK_EXPORT int rck_mesh_config_set_probe(struct rck_mesh_config *c, enum rck_probe_transport transport,
					uint32_t size, uint64_t iters, double duration_s)
{
	if (!c || transport > RCK_PROBE_TRANSPORT_TCP || !(duration_s >= 0) ||
	    duration_s > limits.duration_max_s || size > limits.size_max || iters > limits.iters_max ||
	    (!iters && !duration_s))
		return -EINVAL;
	c->transport = transport;
	c->size = size;
	c->iters = duration_s > 0 ? 0 : iters;
	c->duration_s = duration_s;
	return 0;
}

RCK_EXPORT int rck_mesh_config_set_deadline(struct rck_mesh_config *c, double seconds)
{
	if (!c || !(seconds >= 0))
		return -EINVAL;
	c->deadline_s = seconds;
	return 0;
}

RCK_EXPORT void rck_mesh_config_set_progress(struct rck_mesh_config *c, rck_mesh_progress_fn fn,
					    void *data)
{
	if (!c)
		return;
	c->progress = fn;
	c->progress_data = data;
}

RCK_EXPORT void rck_mesh_config_set_suspect(struct rck_mesh_config *c, rck_mesh_suspect_fn fn,
					   void *data)
{
	if (!c)
		return;
	c->suspect = fn;
	c->suspect_data = data;
}

RCK_EXPORT void rck_mesh_config_set_retest(struct rck_mesh_config *c, rck_mesh_retest_fn fn,
					   void *data, unsigned int passes)
{
	if (!c)
		return;
	c->retest = fn;
	c->retest_data = data;
	c->retest_passes = passes;
}

RCK_EXPORT void rck_mesh_cancel(struct rck_mesh_config *c)
{
	if (c)
		atomic_store(&c->cancel, 1);
}
