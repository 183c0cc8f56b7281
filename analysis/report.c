/* The report: findings built by the checks, sorted most severe first, the
 * verdict, the retest list, and the public accessors of all three. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_int.h"

static const char *const code_names[RCK_FINDING_CODE_COUNT] = {
	[RCK_FINDING_LINK_SLOW] = "link_slow",
	[RCK_FINDING_LINK_LATENCY] = "link_latency",
	[RCK_FINDING_NIC_DEGRADED] = "nic_degraded",
	[RCK_FINDING_HOST_DEGRADED] = "host_degraded",
	[RCK_FINDING_FABRIC_SLOW] = "fabric_slow",
	[RCK_FINDING_PORT_DOWN] = "port_down",
	[RCK_FINDING_PORT_RATE] = "port_rate",
	[RCK_FINDING_PCIE_DEGRADED] = "pcie_degraded",
	[RCK_FINDING_NO_ROCE_V2_GID] = "no_roce_v2_gid",
	[RCK_FINDING_MTU_MISMATCH] = "mtu_mismatch",
	[RCK_FINDING_ERROR_COUNTER] = "error_counter",
	[RCK_FINDING_PAUSE_STORM] = "pause_storm",
	[RCK_FINDING_CONFIG_MISMATCH] = "config_mismatch",
	[RCK_FINDING_LOSS_ON_LOSSLESS] = "loss_on_lossless",
	[RCK_FINDING_PFC_WRONG_PRIORITY] = "pfc_wrong_priority",
	[RCK_FINDING_ECN_NO_CNP] = "ecn_no_cnp",
	[RCK_FINDING_CNP_NO_ECN] = "cnp_no_ecn",
	[RCK_FINDING_LOSSLESS_UNPROVEN] = "lossless_unproven",
	[RCK_FINDING_PROBE_FAILED] = "probe_failed",
	[RCK_FINDING_HOST_UNREACHABLE] = "host_unreachable",
	[RCK_FINDING_PORT_MISSING] = "port_missing",
	[RCK_FINDING_COUNTER_RESET] = "counter_reset",
	[RCK_FINDING_DCB_UNSUPPORTED] = "dcb_unsupported",
	[RCK_FINDING_RAIL_CROSSED] = "rail_crossed",
	[RCK_FINDING_CABLE_SWAPPED] = "cable_swapped",
	[RCK_FINDING_NIC_NO_SWITCH] = "nic_no_switch",
	[RCK_FINDING_SWITCH_PORT_SPEED] = "switch_port_speed",
	[RCK_FINDING_TOPOLOGY_CONFLICT] = "topology_conflict",
	[RCK_FINDING_PCIE_ACS_REDIRECT] = "pcie_acs_redirect",
	[RCK_FINDING_PCIE_RELAXED_ORDERING] = "pcie_relaxed_ordering",
	[RCK_FINDING_PCIE_MAX_READ_REQ] = "pcie_max_read_req",
	[RCK_FINDING_PCIE_AER] = "pcie_aer",
	[RCK_FINDING_GPU_NIC_FAR] = "gpu_nic_far",
	[RCK_FINDING_IOMMU_TRANSLATED] = "iommu_translated",
	[RCK_FINDING_GPU_PEERMEM] = "gpu_peermem",
	[RCK_FINDING_DRAIN_HELD] = "drain_held",
	[RCK_FINDING_PCIE_SLOT_LIMITED] = "pcie_slot_limited",
	[RCK_FINDING_UPLINK_DEGRADED] = "uplink_degraded",
	[RCK_FINDING_SWITCH_DOWN] = "switch_down",
	[RCK_FINDING_SWITCH_DEGRADED] = "switch_degraded",
	[RCK_FINDING_CABLE_BAD] = "cable_bad",
};

RCK_EXPORT const char *rck_finding_code_name(enum rck_finding_code code)
{
	return (unsigned int)code < RCK_FINDING_CODE_COUNT ? code_names[code] : NULL;
}

RCK_EXPORT const char *rck_severity_name(enum rck_severity sev)
{
	static const char *const n[] = {"info", "warning", "degraded", "critical"};

	return (unsigned int)sev < RCK_SEVERITY_COUNT ? n[sev] : NULL;
}

RCK_EXPORT const char *rck_entity_name(enum rck_entity ent)
{
	static const char *const n[] = {"host", "nic", "link", "fabric", "switch"};

	return (unsigned int)ent < RCK_ENTITY_COUNT ? n[ent] : NULL;
}

RCK_EXPORT const char *rck_verdict_name(enum rck_verdict v)
{
	static const char *const n[] = {"healthy", "degraded", "error", "inconclusive"};

	return (unsigned int)v <= RCK_VERDICT_INCONCLUSIVE ? n[v] : NULL;
}

static char *dup_or_null(struct rck_report *r, const char *s)
{
	char *d;

	if (!s)
		return NULL;
	d = strdup(s);
	if (!d)
		r->err = -ENOMEM;
	return d;
}

static struct rck_finding *vadd(struct rck_report *r, enum rck_finding_code code,
				enum rck_severity sev, enum rck_entity ent, const char *host,
				const char *nic, const char *peer_host, const char *peer_nic,
				const char *fmt, va_list ap) RCK_PRINTF(9, 0);
static struct rck_finding *vadd(struct rck_report *r, enum rck_finding_code code,
				enum rck_severity sev, enum rck_entity ent, const char *host,
				const char *nic, const char *peer_host, const char *peer_nic,
				const char *fmt, va_list ap)
{
	struct rck_finding *f;
	char buf[512];

	if (r->n_findings == r->cap_findings) {
		unsigned int nc = r->cap_findings ? r->cap_findings * 2 : 16;
		struct rck_finding *p = realloc(r->findings, nc * sizeof(*p));

		if (!p) {
			r->err = -ENOMEM;
			return NULL;
		}
		r->findings = p;
		r->cap_findings = nc;
	}
	vsnprintf(buf, sizeof(buf), fmt, ap);
	f = &r->findings[r->n_findings++];
	memset(f, 0, sizeof(*f));
	f->code = code;
	f->sev = sev;
	f->entity = ent;
	f->host = dup_or_null(r, host);
	f->nic = dup_or_null(r, nic);
	f->peer_host = dup_or_null(r, peer_host);
	f->peer_nic = dup_or_null(r, peer_nic);
	f->reason = dup_or_null(r, buf);
	return f;
}

struct rck_finding *an_add(struct rck_report *r, enum rck_finding_code code, enum rck_severity sev,
			   enum rck_entity ent, const char *host, const char *nic,
			   const char *peer_host, const char *peer_nic, const char *fmt, ...)
{
	struct rck_finding *f;
	va_list ap;

	va_start(ap, fmt);
	f = vadd(r, code, sev, ent, host, nic, peer_host, peer_nic, fmt, ap);
	va_end(ap);
	return f;
}

struct rck_finding *an_add_nic(struct rck_report *r, const struct rck_analysis *a, unsigned int nic,
			       enum rck_finding_code code, enum rck_severity sev, const char *fmt, ...)
{
	const struct an_nic *n = &a->nics[nic];
	struct rck_finding *f;
	va_list ap;

	va_start(ap, fmt);
	f = vadd(r, code, sev, RCK_ENTITY_NIC, a->hosts[n->host].name, n->label, NULL, NULL, fmt, ap);
	va_end(ap);
	return f;
}

struct rck_finding *an_add_link(struct rck_report *r, const struct rck_analysis *a,
				const struct an_link *l, enum rck_finding_code code,
				enum rck_severity sev, const char *fmt, ...)
{
	const struct an_nic *s = &a->nics[l->src], *d = &a->nics[l->dst];
	struct rck_finding *f;
	va_list ap;

	va_start(ap, fmt);
	f = vadd(r, code, sev, RCK_ENTITY_LINK, a->hosts[s->host].name, s->label,
		 a->hosts[d->host].name, d->label, fmt, ap);
	va_end(ap);
	return f;
}

void an_value(struct rck_finding *f, const char *key, double v)
{
	/* JSON has no NaN or infinity: an unknown number is left out. */
	if (f && f->n_values < AN_VALUES_MAX && isfinite(v)) {
		f->keys[f->n_values] = key;
		f->values[f->n_values++] = v;
	}
}

void an_retest_add(struct rck_report *r, enum rck_link_test test, unsigned int src, unsigned int dst)
{
	if (r->n_retests == r->cap_retests) {
		unsigned int nc = r->cap_retests ? r->cap_retests * 2 : 64;
		struct an_retest *p = realloc(r->retests, nc * sizeof(*p));

		if (!p) {
			r->err = -ENOMEM;
			return;
		}
		r->retests = p;
		r->cap_retests = nc;
	}
	r->retests[r->n_retests++] = (struct an_retest){test, src, dst};
}

static int cmp_str(const char *a, const char *b)
{
	if (!a || !b)
		return (a != NULL) - (b != NULL);
	return strcmp(a, b);
}

static int cmp_finding(const void *pa, const void *pb)
{
	const struct rck_finding *a = pa, *b = pb;
	int c;

	if (a->sev != b->sev)
		return a->sev > b->sev ? -1 : 1;
	if (a->code != b->code)
		return a->code < b->code ? -1 : 1;
	if (a->entity != b->entity)
		return a->entity < b->entity ? -1 : 1;
	if ((c = cmp_str(a->host, b->host)) || (c = cmp_str(a->nic, b->nic)) ||
	    (c = cmp_str(a->peer_host, b->peer_host)) || (c = cmp_str(a->peer_nic, b->peer_nic)))
		return c;
	return cmp_str(a->reason, b->reason);
}

void an_finish(struct rck_report *r)
{
	if (r->n_findings)
		qsort(r->findings, r->n_findings, sizeof(*r->findings), cmp_finding);
	if (r->error) {
		r->verdict = RCK_VERDICT_ERROR;
		return;
	}
	if (r->noisy) {
		r->verdict = RCK_VERDICT_INCONCLUSIVE;
		return;
	}
	r->verdict = RCK_VERDICT_HEALTHY;
	for (unsigned int i = 0; i < r->n_findings; i++)
		if (r->findings[i].sev >= RCK_SEVERITY_DEGRADED)
			r->verdict = RCK_VERDICT_DEGRADED;
	if (r->verdict == RCK_VERDICT_HEALTHY && r->unsure)
		r->verdict = RCK_VERDICT_INCONCLUSIVE;
}

RCK_EXPORT void rck_report_free(struct rck_report *r)
{
	if (!r)
		return;
	for (unsigned int i = 0; i < r->n_findings; i++) {
		struct rck_finding *f = &r->findings[i];

		free(f->host);
		free(f->nic);
		free(f->peer_host);
		free(f->peer_nic);
		free(f->reason);
	}
	free(r->findings);
	free(r->retests);
	free(r->error);
	free(r->noisy);
	free(r->unsure);
	an_drains_free(r);
	free(r);
}

RCK_EXPORT enum rck_verdict rck_report_verdict(const struct rck_report *r) { return r->verdict; }
RCK_EXPORT const char *rck_report_error(const struct rck_report *r)
{
	return r->error ? r->error : r->verdict != RCK_VERDICT_INCONCLUSIVE ? NULL : r->noisy ? r->noisy : r->unsure;
}
RCK_EXPORT unsigned int rck_report_finding_count(const struct rck_report *r) { return r->n_findings; }

RCK_EXPORT const struct rck_finding *rck_report_finding(const struct rck_report *r, unsigned int i)
{
	return i < r->n_findings ? &r->findings[i] : NULL;
}

RCK_EXPORT unsigned int rck_report_severity_count(const struct rck_report *r, enum rck_severity sev)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < r->n_findings; i++)
		n += r->findings[i].sev == sev;
	return n;
}

RCK_EXPORT unsigned int rck_report_code_count(const struct rck_report *r, enum rck_finding_code code)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < r->n_findings; i++)
		n += r->findings[i].code == code;
	return n;
}

RCK_EXPORT int rck_report_links(const struct rck_report *r, struct rck_report_links *out)
{
	size_t size;

	if (!out || out->size < sizeof(size_t))
		return -EINVAL;
	size = out->size < sizeof(*out) ? out->size : sizeof(*out);
	memcpy((char *)out + sizeof(size_t), (const char *)&r->links + sizeof(size_t),
	       size - sizeof(size_t));
	return 0;
}

RCK_EXPORT unsigned int rck_report_retest_count(const struct rck_report *r) { return r->n_retests; }

RCK_EXPORT int rck_report_retest(const struct rck_report *r, unsigned int i, enum rck_link_test *test,
				 unsigned int *src_nic, unsigned int *dst_nic)
{
	if (i >= r->n_retests)
		return -EINVAL;
	if (test)
		*test = r->retests[i].test;
	if (src_nic)
		*src_nic = r->retests[i].src;
	if (dst_nic)
		*dst_nic = r->retests[i].dst;
	return 0;
}

RCK_EXPORT enum rck_finding_code rck_finding_code(const struct rck_finding *f) { return f->code; }
RCK_EXPORT enum rck_severity rck_finding_severity(const struct rck_finding *f) { return f->sev; }
RCK_EXPORT enum rck_entity rck_finding_entity(const struct rck_finding *f) { return f->entity; }
RCK_EXPORT const char *rck_finding_host(const struct rck_finding *f) { return f->host; }
RCK_EXPORT const char *rck_finding_nic(const struct rck_finding *f) { return f->nic; }
RCK_EXPORT const char *rck_finding_peer_host(const struct rck_finding *f) { return f->peer_host; }
RCK_EXPORT const char *rck_finding_peer_nic(const struct rck_finding *f) { return f->peer_nic; }
RCK_EXPORT const char *rck_finding_reason(const struct rck_finding *f) { return f->reason; }
RCK_EXPORT unsigned int rck_finding_value_count(const struct rck_finding *f) { return f->n_values; }

RCK_EXPORT int rck_finding_value(const struct rck_finding *f, unsigned int i, const char **key,
				 double *value)
{
	if (i >= f->n_values)
		return -EINVAL;
	if (key)
		*key = f->keys[i];
	if (value)
		*value = f->values[i];
	return 0;
}

struct rck_report *sw_report_new(void)
{
	struct rck_report *r = calloc(1, sizeof(*r));

	if (r)
		r->links.size = sizeof(r->links);
	return r;
}

struct rck_finding *sw_report_copy(struct rck_report *r, const struct rck_finding *f)
{
	struct rck_finding *c = an_add(r, f->code, f->sev, f->entity, f->host, f->nic, f->peer_host,
				       f->peer_nic, "%s", f->reason ? f->reason : "");

	if (c) {
		c->suspect = f->suspect;
		c->n_values = f->n_values;
		memcpy(c->keys, f->keys, sizeof(c->keys));
		memcpy(c->values, f->values, sizeof(c->values));
	}
	return c;
}
