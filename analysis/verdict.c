/* What a report says to act on: the hosts to drain (confirmed host and NIC
 * findings only), the circuit breaker that holds them back, suspects. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_int.h"

static bool is_spare(const struct rck_analysis *a, const char *host)
{
	for (unsigned int h = 0; h < a->n_hosts; h++)
		if (a->hosts[h].spare && !strcmp(a->hosts[h].name, host))
			return true;
	return false;
}

/* The PCIe path lint (lint_pci.c) reports configuration: ACS redirect,
 * relaxed ordering, MaxReadReq, a GPU far from its NIC, the IOMMU, peer
 * memory, and links below capability on the path (GPUs lower their link
 * speed when idle). Evidence enough to report, never to drain. The one
 * PCIe fault that drains is uncorrectable AER errors counted on the host's
 * own tree between two sweeps; a NIC's own link trained down
 * (pcie_degraded from its inventory, hosts.c) drains as before. A tree
 * that could not be read gives no finding at all. */
static bool pcie_reported_only(const struct rck_finding *f)
{
	switch (f->code) {
	case RCK_FINDING_PCIE_ACS_REDIRECT:
	case RCK_FINDING_PCIE_RELAXED_ORDERING:
	case RCK_FINDING_PCIE_MAX_READ_REQ:
	case RCK_FINDING_GPU_NIC_FAR:
	case RCK_FINDING_IOMMU_TRANSLATED:
	case RCK_FINDING_GPU_PEERMEM:
		return true;
	case RCK_FINDING_PCIE_DEGRADED:
		for (unsigned int i = 0; i < f->n_values; i++)
			if (!strcmp(f->keys[i], "on_path"))
				return true;
		return false;
	default:
		return false;
	}
}

static bool drainable(const struct rck_analysis *a, const struct rck_finding *f)
{
	return f->sev >= RCK_SEVERITY_DEGRADED && !f->suspect && f->host &&
	       (f->entity == RCK_ENTITY_HOST || f->entity == RCK_ENTITY_NIC) && !is_spare(a, f->host) &&
	       !pcie_reported_only(f);
}

RCK_EXPORT int rck_analysis_set_spare(struct rck_analysis *a, unsigned int host, bool spare)
{
	if (!a || host >= a->n_hosts)
		return -EINVAL;
	a->hosts[host].spare = spare;
	return 0;
}

/* Hosts that may be drained: all but the spares. */
static unsigned int workers(const struct rck_analysis *a)
{
	unsigned int n = 0;

	for (unsigned int h = 0; h < a->n_hosts; h++)
		n += !a->hosts[h].spare;
	return n;
}

/* Append host @f->host (once) to @list with its one-line reason. */
static int add(struct an_drain **list, unsigned int *n, const struct rck_finding *f)
{
	struct an_drain *d;

	for (unsigned int i = 0; i < *n; i++)
		if (!strcmp((*list)[i].host, f->host))
			return 0;
	d = realloc(*list, (*n + 1) * sizeof(*d));
	if (!d)
		return -ENOMEM;
	*list = d;
	d = &d[*n];
	d->host = strdup(f->host);
	d->reason = NULL;
	/* One line: a reason from a probe's error text may hold anything. */
	if (!d->host || asprintf(&d->reason, "rocecheck: %s%s%s %.200s", rck_finding_code_name(f->code),
				 f->nic ? " " : "", f->nic ? f->nic : "", f->reason ? f->reason : "") < 0) {
		free(d->host);
		return -ENOMEM;
	}
	for (char *s = d->reason; *s; s++)
		if (*s == '\n' || *s == '\r' || *s == '\t')
			*s = ' ';
	(*n)++;
	return 0;
}

void an_drains_free(struct rck_report *r)
{
	for (unsigned int i = 0; i < r->n_drains; i++) {
		free(r->drains[i].host);
		free(r->drains[i].reason);
	}
	for (unsigned int i = 0; i < r->n_held; i++) {
		free(r->held[i].host);
		free(r->held[i].reason);
	}
	free(r->drains);
	free(r->held);
	r->drains = r->held = NULL;
	r->n_drains = r->n_held = 0;
}

/* At most this many hosts (spares aside) are drained by one run: a share
 * of them, never fewer than one. */
static unsigned int drain_limit(const struct rck_analysis *a)
{
	double lim = floor(an_th(a, TH_DRAIN_MAX_FRACTION) * workers(a) + 1e-9);

	return lim < 1 ? 1 : (unsigned int)lim;
}

void an_plan_drains(const struct rck_analysis *a, struct rck_report *r)
{
	unsigned int limit = drain_limit(a);
	struct rck_finding *f;

	/* An error or a fabric too noisy to judge drains nothing. */
	if (r->verdict == RCK_VERDICT_ERROR || r->verdict == RCK_VERDICT_INCONCLUSIVE)
		return;
	for (unsigned int i = 0; i < r->n_findings; i++)
		if (drainable(a, &r->findings[i]) && add(&r->drains, &r->n_drains, &r->findings[i])) {
			r->err = -ENOMEM;
			return;
		}
	if (r->n_drains <= limit)
		return;
	/* More hosts look bad than one run may take out: that is the fabric's
	 * (a switch, a shared cause), not theirs. */
	r->held = r->drains;
	r->n_held = r->n_drains;
	r->drains = NULL;
	r->n_drains = 0;
	f = an_add(r, RCK_FINDING_DRAIN_HELD, RCK_SEVERITY_DEGRADED, RCK_ENTITY_FABRIC, NULL, NULL,
		   NULL, NULL,
		   "%u of %u hosts would be drained, more than drain_max_fraction %g allows (%u): "
		   "a fabric-wide cause is likelier, none drained (first: %s)",
		   r->n_held, workers(a), an_th(a, TH_DRAIN_MAX_FRACTION), limit, r->held[0].host);
	an_value(f, "hosts_held", r->n_held);
	an_value(f, "hosts", workers(a));
	an_value(f, "drain_limit", limit);
	an_value(f, "drain_max_fraction", an_th(a, TH_DRAIN_MAX_FRACTION));
	an_finish(r);
}

RCK_EXPORT unsigned int rck_report_drain_count(const struct rck_report *r)
{
	return r ? r->n_drains : 0;
}

static int entry(const struct an_drain *list, unsigned int n, unsigned int i, const char **host,
		 const char **reason)
{
	if (i >= n)
		return -EINVAL;
	if (host)
		*host = list[i].host;
	if (reason)
		*reason = list[i].reason;
	return 0;
}

RCK_EXPORT int rck_report_drain(const struct rck_report *r, unsigned int i, const char **host,
				const char **reason)
{
	return r ? entry(r->drains, r->n_drains, i, host, reason) : -EINVAL;
}

RCK_EXPORT unsigned int rck_report_held_count(const struct rck_report *r)
{
	return r ? r->n_held : 0;
}

RCK_EXPORT int rck_report_held(const struct rck_report *r, unsigned int i, const char **host,
			       const char **reason)
{
	return r ? entry(r->held, r->n_held, i, host, reason) : -EINVAL;
}

RCK_EXPORT bool rck_finding_suspect(const struct rck_finding *f)
{
	return f && f->suspect;
}
