/* Analysis input: hosts, NICs and link samples copied into compact arrays,
 * so a million samples cost tens of megabytes. */
#include <errno.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_int.h"

/* Grow *@arr of @size-byte elements to hold @need; 0 or -ENOMEM. */
static int grow(void **arr, size_t *cap, size_t need, size_t size)
{
	size_t nc = *cap ? *cap : 16;
	void *p;

	if (need <= *cap)
		return 0;
	while (nc < need)
		nc *= 2;
	p = realloc(*arr, nc * size);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = nc;
	return 0;
}

RCK_EXPORT int rck_analysis_new(const struct rck_thresholds *th, struct rck_analysis **out)
{
	struct rck_analysis *a = calloc(1, sizeof(*a));
	struct rck_thresholds *def;

	if (!a)
		return -ENOMEM;
	if (th) {
		a->th = *th;
	} else {
		if (rck_thresholds_new(&def)) {
			free(a);
			return -ENOMEM;
		}
		a->th = *def;
		rck_thresholds_free(def);
	}
	*out = a;
	return 0;
}

RCK_EXPORT void rck_analysis_free(struct rck_analysis *a)
{
	if (!a)
		return;
	for (unsigned int i = 0; i < a->n_hosts; i++) {
		free(a->hosts[i].unreachable);
		dcb_set_clear(&a->hosts[i].dcb);
	}
	for (unsigned int i = 0; i < a->n_nics; i++) {
		free(a->nics[i].device);
		free(a->nics[i].label);
		free(a->nics[i].state);
		free(a->nics[i].fw_ver);
		free(a->nics[i].netdev);
	}
	for (size_t i = 0; i < a->n_reasons; i++)
		free(a->reasons[i]);
	free(a->reasons);
	strset_free(&a->host_names);
	free(a->hosts);
	free(a->nics);
	free(a->links);
	free(a->retests);
	free(a->ctrs);
	free(a->pattern);
	free(a);
}

RCK_EXPORT int rck_analysis_add_host(struct rck_analysis *a, const char *name,
				     const struct rck_inventory *inv, const struct rck_delta *delta,
				     unsigned int *idx)
{
	struct an_host *h;
	size_t cap = a->cap_hosts;
	char *copy;
	int rc;

	if (!name || !*name)
		return -EINVAL;
	if (!strset_find(&a->host_names, name, NULL))
		return -EEXIST;
	if (grow((void **)&a->hosts, &cap, a->n_hosts + 1, sizeof(*a->hosts)))
		return -ENOMEM;
	a->cap_hosts = (unsigned int)cap;
	copy = strdup(name);
	if (!copy)
		return -ENOMEM;
	rc = strset_add(&a->host_names, copy, NULL);
	if (rc) {
		free(copy);
		return rc;
	}
	h = &a->hosts[a->n_hosts];
	memset(h, 0, sizeof(*h));
	h->name = copy;
	h->inv = inv;
	h->delta = delta;
	h->first_nic = h->last_nic = AN_NO_NIC;
	if (idx)
		*idx = a->n_hosts;
	a->n_hosts++;
	return 0;
}

RCK_EXPORT int rck_analysis_set_unreachable(struct rck_analysis *a, unsigned int host, const char *reason)
{
	char *r = NULL;

	if (host >= a->n_hosts)
		return -EINVAL;
	if (reason && !(r = strdup(reason)))
		return -ENOMEM;
	free(a->hosts[host].unreachable);
	a->hosts[host].unreachable = r;
	return 0;
}

RCK_EXPORT int rck_analysis_add_nic(struct rck_analysis *a, unsigned int host,
				    const struct rck_analysis_nic *nic, unsigned int *idx)
{
	struct an_nic *n;
	size_t cap = a->cap_nics;
	int len;

	/* Callers built before the description fields pass a smaller size. */
	if (host >= a->n_hosts || !nic || nic->size < offsetof(struct rck_analysis_nic, state) || !nic->device ||
	    !*nic->device || !nic->port || !(nic->line_rate_gbps >= 0) ||
	    !isfinite(nic->line_rate_gbps))
		return -EINVAL;
	AN_FOR_HOST_NIC(a, host, i)
		if (a->nics[i].port == nic->port && !strcmp(a->nics[i].device, nic->device))
			return -EEXIST;
	if (grow((void **)&a->nics, &cap, a->n_nics + 1, sizeof(*a->nics)))
		return -ENOMEM;
	a->cap_nics = (unsigned int)cap;
	n = &a->nics[a->n_nics];
	memset(n, 0, sizeof(*n));
	n->host = host;
	n->port = nic->port;
	n->line_rate = nic->line_rate_gbps;
	n->counters = nic->counters;
	n->device = strdup(nic->device);
	len = n->device ? snprintf(NULL, 0, "%s/%u", nic->device, nic->port) : -1;
	n->label = len > 0 ? malloc((size_t)len + 1) : NULL;
	if (nic->size >= offsetof(struct rck_analysis_nic, gid_index) + sizeof(nic->gid_index) && nic->state) {
		n->state = strdup(nic->state);
		n->fw_ver = nic->fw_ver ? strdup(nic->fw_ver) : NULL;
		n->active_mtu = nic->active_mtu;
		n->netdev_mtu = nic->netdev_mtu;
		n->gid_index = nic->gid_index;
	}
	if (nic->size >= offsetof(struct rck_analysis_nic, netdev) + sizeof(nic->netdev) && nic->netdev)
		n->netdev = strdup(nic->netdev);
	if (!n->label || (nic->size >= offsetof(struct rck_analysis_nic, netdev) + sizeof(nic->netdev) &&
			  nic->netdev && !n->netdev) ||
	    (nic->size >= offsetof(struct rck_analysis_nic, gid_index) + sizeof(nic->gid_index) && nic->state &&
	     (!n->state || (nic->fw_ver && !n->fw_ver)))) {
		free(n->netdev);
		free(n->device);
		free(n->label);
		free(n->state);
		free(n->fw_ver);
		return -ENOMEM;
	}
	snprintf(n->label, (size_t)len + 1, "%s/%u", nic->device, nic->port);
	n->next_on_host = AN_NO_NIC;
	if (a->hosts[host].last_nic == AN_NO_NIC)
		a->hosts[host].first_nic = a->n_nics;
	else
		a->nics[a->hosts[host].last_nic].next_on_host = a->n_nics;
	a->hosts[host].last_nic = a->n_nics;
	if (idx)
		*idx = a->n_nics;
	a->n_nics++;
	return 0;
}

RCK_EXPORT int rck_analysis_set_pattern(struct rck_analysis *a, const char *pattern)
{
	unsigned int k = 0;
	char *p, *end;

	if (!pattern)
		return -EINVAL;
	if (!strncmp(pattern, "incast:", 7)) {
		unsigned long v;

		if (pattern[7] < '0' || pattern[7] > '9')
			return -EINVAL;
		errno = 0;
		v = strtoul(pattern + 7, &end, 10);
		if (*end || errno || v < 2 || v > 65536)
			return -EINVAL;
		k = (unsigned int)v;
	} else if (strcmp(pattern, "full") && strcmp(pattern, "quick") && strcmp(pattern, "pairs") &&
		   strcmp(pattern, "topo")) {
		return -EINVAL;
	}
	p = strdup(pattern);
	if (!p)
		return -ENOMEM;
	free(a->pattern);
	a->pattern = p;
	a->incast = k;
	return 0;
}

static bool meas_ok(const struct rck_link_meas *m, enum rck_link_test t)
{
	if ((unsigned int)m->status >= RCK_LINK_STATUS_COUNT)
		return false;
	if (m->status != RCK_LINK_OK)
		return true;
	if (t == RCK_LINK_TEST_BW)
		return isfinite(m->gbps) && m->gbps >= 0;
	return isfinite(m->lat_p50_us) && m->lat_p50_us >= 0;
}

/* Retests past @retest: only a sample of 0.4's size has them. */
static unsigned int more_of(const struct rck_link_sample *s, const struct rck_link_meas **more)
{
	if (s->size < sizeof(*s) || !s->n_more_retests) {
		*more = NULL;
		return 0;
	}
	*more = s->more_retests;
	return s->n_more_retests;
}

static int check_sample(const struct rck_analysis *a, const struct rck_link_sample *s)
{
	const struct rck_link_meas *more;
	unsigned int n_more;

	if (s->size < offsetof(struct rck_link_sample, more_retests) || (unsigned int)s->test >= RCK_LINK_TEST_COUNT ||
	    s->src_nic >= a->n_nics || s->dst_nic >= a->n_nics || s->src_nic == s->dst_nic ||
	    s->n_retests > RCK_LINK_RETEST_MAX || !meas_ok(&s->meas, s->test) ||
	    !isfinite(s->line_rate_gbps) || s->line_rate_gbps < 0 || (s->n_counters && !s->counters))
		return -EINVAL;
	for (unsigned int i = 0; i < s->n_retests; i++)
		if (!meas_ok(&s->retest[i], s->test))
			return -EINVAL;
	n_more = more_of(s, &more);
	if (n_more && (!more || s->n_retests < RCK_LINK_RETEST_MAX ||
		       n_more > RCK_LINK_RETESTS_MOST - RCK_LINK_RETEST_MAX))
		return -EINVAL;
	for (unsigned int i = 0; i < n_more; i++)
		if (!meas_ok(&more[i], s->test))
			return -EINVAL;
	for (unsigned int i = 0; i < s->n_counters; i++)
		if ((unsigned int)s->counters[i].id >= RCK_CTR_COUNT ||
		    (unsigned int)s->counters[i].end > RCK_LINK_DST)
			return -EINVAL;
	return 0;
}

static double line_rate(const struct rck_analysis *a, const struct rck_link_sample *s)
{
	double r1 = a->nics[s->src_nic].line_rate, r2 = a->nics[s->dst_nic].line_rate;

	if (s->line_rate_gbps > 0)
		return s->line_rate_gbps;
	if (r1 > 0 && r2 > 0)
		return r1 < r2 ? r1 : r2;
	return r1 > 0 ? r1 : r2;
}

RCK_EXPORT int rck_analysis_add_links(struct rck_analysis *a, const struct rck_link_sample *samples,
				      size_t n)
{
	size_t nr = 0, nc = 0, nreason = 0;

	if (n && !samples)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		if (check_sample(a, &samples[i]))
			return -EINVAL;
		const struct rck_link_meas *more;

		nr += samples[i].n_retests + more_of(&samples[i], &more);
		nc += samples[i].n_counters;
		nreason += samples[i].reason != NULL;
	}
	if (a->n_links + n > UINT32_MAX || a->n_retests + nr > UINT32_MAX || a->n_ctrs + nc > UINT32_MAX)
		return -EINVAL;
	if (grow((void **)&a->links, &a->cap_links, a->n_links + n, sizeof(*a->links)) ||
	    grow((void **)&a->retests, &a->cap_retests, a->n_retests + nr, sizeof(*a->retests)) ||
	    grow((void **)&a->ctrs, &a->cap_ctrs, a->n_ctrs + nc, sizeof(*a->ctrs)) ||
	    grow((void **)&a->reasons, &a->cap_reasons, a->n_reasons + nreason, sizeof(*a->reasons)))
		return -ENOMEM;
	/* Reasons first: the only step that can still fail. */
	for (size_t i = 0, r = a->n_reasons; i < n; i++) {
		if (!samples[i].reason)
			continue;
		a->reasons[r] = strdup(samples[i].reason);
		if (!a->reasons[r]) {
			while (r > a->n_reasons)
				free(a->reasons[--r]);
			return -ENOMEM;
		}
		r++;
	}
	for (size_t i = 0; i < n; i++) {
		const struct rck_link_sample *s = &samples[i];
		struct an_link *l = &a->links[a->n_links++];
		const struct rck_link_meas *more;
		unsigned int n_more = more_of(s, &more);

		memset(l, 0, sizeof(*l));
		l->src = s->src_nic;
		l->dst = s->dst_nic;
		l->test = (uint8_t)s->test;
		l->status = (uint8_t)s->meas.status;
		l->value = s->test == RCK_LINK_TEST_BW ? s->meas.gbps : s->meas.lat_p50_us;
		l->p99 = s->meas.lat_p99_us;
		l->line_rate = line_rate(a, s);
		l->n_retests = (uint8_t)(s->n_retests + n_more);
		l->retest = (uint32_t)a->n_retests;
		if (s->n_retests)
			memcpy(&a->retests[a->n_retests], s->retest, s->n_retests * sizeof(*s->retest));
		a->n_retests += s->n_retests;
		if (n_more)
			memcpy(&a->retests[a->n_retests], more, n_more * sizeof(*more));
		a->n_retests += n_more;
		l->ctr = (uint32_t)a->n_ctrs;
		l->n_ctr = s->n_counters;
		if (s->n_counters)
			memcpy(&a->ctrs[a->n_ctrs], s->counters, s->n_counters * sizeof(*s->counters));
		a->n_ctrs += s->n_counters;
		if (s->reason)
			l->reason = (uint32_t)++a->n_reasons;
	}
	return 0;
}
