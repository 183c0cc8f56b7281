/* The preflight's result: the sweep, the report, a one-line summary, the
 * hosts to drain, timings, and the text and JSON forms. */
#include <errno.h>
#include <stddef.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "preflight_int.h"
#include "units.h"

static bool bad_sev(const struct rck_finding *f)
{
	return rck_finding_severity(f) >= RCK_SEVERITY_DEGRADED;
}

static const char *noun(enum rck_entity e, bool plural)
{
	static const char *const one[] = {"host", "NIC", "link", "fabric finding"};
	static const char *const many[] = {"hosts", "NICs", "links", "fabric findings"};

	return (unsigned int)e < RCK_ENTITY_COUNT ? (plural ? many : one)[e] : "finding";
}

static bool value(const struct rck_finding *f, const char *key, double *v)
{
	for (unsigned int i = 0; i < rck_finding_value_count(f); i++) {
		const char *k;

		if (!rck_finding_value(f, i, &k, v) && !strcmp(k, key))
			return true;
	}
	return false;
}

/* What one finding names, shortly: "n3 -> n7 41.2 Gb/s", "n3 mlx5_0/1 (nic_degraded)". */
static void describe(const struct rck_finding *f, char *buf, size_t len)
{
	const char *h = rck_finding_host(f), *nic = rck_finding_nic(f);
	char rate[32];
	double g;

	switch (rck_finding_entity(f)) {
	case RCK_ENTITY_LINK:
		if (rck_finding_code(f) == RCK_FINDING_LINK_SLOW && value(f, "gbps", &g))
			snprintf(buf, len, "%s -> %s %s", h, rck_finding_peer_host(f),
				 units_rate(rate, sizeof(rate), g));
		else
			snprintf(buf, len, "%s -> %s %s", h, rck_finding_peer_host(f),
				 rck_finding_code_name(rck_finding_code(f)));
		return;
	case RCK_ENTITY_NIC:
		snprintf(buf, len, "%s %s (%s)", h, nic ? nic : "", rck_finding_code_name(rck_finding_code(f)));
		return;
	case RCK_ENTITY_HOST:
		snprintf(buf, len, "%s (%s)", h, rck_finding_code_name(rck_finding_code(f)));
		return;
	default:
		snprintf(buf, len, "%s", rck_finding_reason(f));
	}
}

/* The reason of a finding up to its first "; " (the evidence follows). */
static void short_reason(const struct rck_finding *f, char *buf, size_t len)
{
	const char *why = rck_finding_reason(f) ? rck_finding_reason(f) : "";
	const char *semi = strstr(why, "; "), *paren = strstr(why, " (");
	int n;

	if (paren && (!semi || paren < semi))
		semi = paren;
	n = semi ? (int)(semi - why) : (int)strlen(why);

	snprintf(buf, len, "%.*s", n > 160 ? 160 : n, why);
}

static bool str_eq(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* Do @f and @g name the same host, NIC or link? */
static bool same_entity(const struct rck_finding *f, const struct rck_finding *g)
{
	return rck_finding_entity(f) == rck_finding_entity(g) && str_eq(rck_finding_host(f), rck_finding_host(g)) &&
	       str_eq(rck_finding_nic(f), rck_finding_nic(g)) &&
	       str_eq(rck_finding_peer_host(f), rck_finding_peer_host(g)) &&
	       str_eq(rck_finding_peer_nic(f), rck_finding_peer_nic(g));
}

/* The first finding that a drained host rests on. */
static const struct rck_finding *drain_finding(const struct rck_report *r, const char *host)
{
	for (unsigned int i = 0; i < rck_report_finding_count(r); i++) {
		const struct rck_finding *f = rck_report_finding(r, i);
		enum rck_entity e = rck_finding_entity(f);

		if (bad_sev(f) && !rck_finding_suspect(f) && (e == RCK_ENTITY_HOST || e == RCK_ENTITY_NIC) &&
		    str_eq(rck_finding_host(f), host))
			return f;
	}
	return NULL;
}

/* Why nothing could be judged: hosts that the launcher could not start or
 * whose agent did not answer are named as such. */
static void could_not(const struct rck_mesh *m, const struct rck_report *r, char *buf, size_t len)
{
	unsigned int down = 0, n = rck_mesh_host_count(m);
	const char *first = NULL, *why = NULL;

	for (unsigned int h = 0; h < n; h++)
		if (rck_mesh_host_unreachable(m, h)) {
			if (!down++) {
				first = rck_mesh_host_name(m, h);
				why = rck_mesh_host_unreachable(m, h);
			}
		}
	if (down && why && !strncmp(why, "launcher", 8))
		snprintf(buf, len, "could not run: the launcher failed on %u of %u hosts (%s: %s)", down, n,
			 first, why);
	else if (down)
		snprintf(buf, len, "could not run: no agent answered on %u of %u hosts (%s: %s)", down, n,
			 first, why ? why : "unreachable");
	else
		snprintf(buf, len, "could not judge: %s", rck_report_error(r) ? rck_report_error(r) : "no result");
}

static char *summary(const struct rck_mesh *m, const struct rck_report *r,
		     const struct rck_preflight_timings *t)
{
	struct rck_report_links st = {.size = sizeof(st)};
	const struct rck_finding *top = NULL, *sus = NULL;
	unsigned int n = 0, findings = 0, suspects = 0, named = 1;
	bool same = true;
	char what[700], median[64] = "", *out = NULL, rate[32], hosts[48];

	rck_report_links(r, &st);
	if (st.centre_gbps > 0)
		snprintf(median, sizeof(median), ", fabric median %s", units_rate(rate, sizeof(rate), st.centre_gbps));
	for (unsigned int i = 0; i < rck_report_finding_count(r); i++) {
		const struct rck_finding *f = rck_report_finding(r, i);

		suspects += rck_finding_suspect(f);
		if (!sus && rck_finding_suspect(f))
			sus = f;
		if (!bad_sev(f))
			continue;
		if (!top)
			top = f;
		same &= rck_finding_entity(f) == rck_finding_entity(top);
		findings++;
		/* Count parts, not findings: a slow NIC that also lost packets is
		 * one degraded NIC. */
		bool seen = false;

		for (unsigned int j = 0; j < i && !seen; j++) {
			const struct rck_finding *g = rck_report_finding(r, j);

			seen = bad_sev(g) && same_entity(f, g);
		}
		n += !seen;
	}
	if (rck_report_verdict(r) == RCK_VERDICT_ERROR) {
		could_not(m, r, what, sizeof(what));
	} else if (rck_report_verdict(r) == RCK_VERDICT_INCONCLUSIVE) {
		snprintf(what, sizeof(what), "inconclusive, nothing drained: %s",
			 rck_report_error(r) ? rck_report_error(r) : "too noisy");
		if (t->noise_sweeps)
			snprintf(what + strlen(what), sizeof(what) - strlen(what),
				 " (after %u more %s with longer probes)", t->noise_sweeps,
				 t->noise_sweeps == 1 ? "sweep" : "sweeps");
	} else if (!top) {
		if (sus) {
			char one[400];

			describe(sus, one, sizeof(one));
			snprintf(what, sizeof(what), "healthy, %u unconfirmed %s not drained: %s", suspects,
				 suspects == 1 ? "suspect" : "suspects", one);
		}
		else
			snprintf(what, sizeof(what), "healthy");
	} else {
		const struct rck_finding *act = NULL;
		const char *host = NULL;
		char one[400];

		/* What will be acted on first: the host to drain and why. */
		if (rck_report_drain_count(r) && !rck_report_drain(r, 0, &host, NULL))
			act = drain_finding(r, host);
		if (act) {
			short_reason(act, one, sizeof(one));
			snprintf(what, sizeof(what), "drain %s (%s%s%s: %s)", host,
				 rck_finding_code_name(rck_finding_code(act)), rck_finding_nic(act) ? " " : "",
				 rck_finding_nic(act) ? rck_finding_nic(act) : "", one);
		} else if (rck_report_held_count(r)) {
			unsigned int held = rck_report_held_count(r);

			snprintf(what, sizeof(what), "%u hosts held by the circuit breaker, none drained:", held);
			for (unsigned int i = 0; i < held && i < 3; i++) {
				rck_report_held(r, i, &host, NULL);
				snprintf(what + strlen(what), sizeof(what) - strlen(what), "%s %s",
					 i ? "," : "", host);
			}
			/* The held hosts and the breaker's own finding are named. */
			named = (held < 3 ? held : 3) + 1;
		} else {
			describe(top, one, sizeof(one));
			snprintf(what, sizeof(what), "%u degraded %s: %s", n,
				 same ? noun(rck_finding_entity(top), n > 1) : (n > 1 ? "findings" : "finding"), one);
		}
		if (n > named)
			snprintf(what + strlen(what), sizeof(what) - strlen(what), " and %u more", n - named);
		else if (findings > named)
			snprintf(what + strlen(what), sizeof(what) - strlen(what), " and %u more %s",
				 findings - named, findings - named == 1 ? "finding" : "findings");
	}
	if (asprintf(&out, "%s, %u %s in %.*f s, %s%s",
		     units_count(hosts, sizeof(hosts), rck_mesh_host_count(m), "host", "hosts"), t->probes,
		     t->probes == 1 ? "probe" : "probes", t->total_s < 10 ? 1 : 0, t->total_s, what, median) < 0)
		return NULL;
	return out;
}

static int add_bad(struct rck_preflight *p, const char *host, const char *reason)
{
	struct pf_bad *b = realloc(p->bad, (p->n_bad + 1) * sizeof(*b));

	if (!b)
		return -ENOMEM;
	p->bad = b;
	b = &p->bad[p->n_bad];
	b->host = strdup(host);
	b->reason = strdup(reason);
	if (!b->host || !b->reason) {
		free(b->host);
		free(b->reason);
		return -ENOMEM;
	}
	p->n_bad++;
	return 0;
}

/* Is @name named by a degraded or critical finding (host, or either end of a link)? */
static bool named_bad(const struct rck_report *r, const char *name)
{
	for (unsigned int i = 0; i < rck_report_finding_count(r); i++) {
		const struct rck_finding *f = rck_report_finding(r, i);
		const char *h = rck_finding_host(f), *peer = rck_finding_peer_host(f);

		if (bad_sev(f) && ((h && !strcmp(h, name)) || (peer && !strcmp(peer, name))))
			return true;
	}
	return false;
}

static bool hostlist_has(const struct rck_hostlist *hl, const char *host)
{
	for (unsigned int i = 0; i < rck_hostlist_count(hl); i++)
		if (!strcmp(rck_hostlist_get(hl, i), host))
			return true;
	return false;
}

static bool is_spare(const struct rck_preflight *p, const char *host)
{
	for (unsigned int i = 0; i < p->n_spares; i++)
		if (!strcmp(p->spares[i].host, host))
			return true;
	return false;
}

/* The spares the sweep judged, then a healthy one for each bad host. */
static int plan_spares(struct rck_preflight *p, const struct rck_mesh *m, const struct rck_report *r,
		       const struct rck_hostlist *spares)
{
	unsigned int n = spares ? rck_hostlist_count(spares) : 0, next = 0;

	p->spares = calloc(n + 1, sizeof(*p->spares));
	p->swaps = calloc(p->n_bad + 1, sizeof(*p->swaps));
	if (!p->spares || !p->swaps)
		return -ENOMEM;
	for (unsigned int i = 0; i < n; i++) {
		const char *s = rck_hostlist_get(spares, i);
		unsigned int h;

		/* A spare the sweep never saw (a recorded one without it) is not judged. */
		if (rck_mesh_find_host(m, s, &h) || is_spare(p, s))
			continue;
		if (!(p->spares[p->n_spares].host = strdup(s)))
			return -ENOMEM;
		p->spares[p->n_spares++].healthy = !rck_mesh_host_unreachable(m, h) && !named_bad(r, s);
	}
	for (unsigned int i = 0; i < p->n_bad; i++) {
		if (is_spare(p, p->bad[i].host))
			continue;
		while (next < p->n_spares && !p->spares[next].healthy)
			next++;
		if (next == p->n_spares)
			break;
		p->swaps[p->n_swaps].host = p->bad[i].host;
		p->swaps[p->n_swaps++].spare = p->spares[next++].host;
	}
	return 0;
}

int pf_result(struct rck_mesh *m, struct rck_report *r, const struct rck_preflight_timings *t,
	      const struct rck_hostlist *spares, struct rck_preflight **out)
{
	struct rck_preflight *p = calloc(1, sizeof(*p));
	int rc = 0;

	if (!p)
		return -ENOMEM;
	p->t = *t;
	/* The report's drains (one rule for library and tool: confirmed host
	 * and NIC findings, circuit breaker applied, none after an error or an
	 * inconclusive verdict), less the spares: a spare is never drained. */
	for (unsigned int i = 0; !rc && i < rck_report_drain_count(r); i++) {
		const char *host, *reason;

		rck_report_drain(r, i, &host, &reason);
		if (!(spares && hostlist_has(spares, host)))
			rc = add_bad(p, host, reason);
	}
	if (!rc)
		rc = plan_spares(p, m, r, spares);
	if (!rc && !(p->summary = summary(m, r, t)))
		rc = -ENOMEM;
	if (rc) {
		p->m = NULL;
		p->r = NULL;
		rck_preflight_free(p);
		return rc;
	}
	p->m = m;
	p->r = r;
	*out = p;
	return 0;
}

RCK_EXPORT void rck_preflight_free(struct rck_preflight *p)
{
	if (!p)
		return;
	for (unsigned int i = 0; i < p->n_bad; i++) {
		free(p->bad[i].host);
		free(p->bad[i].reason);
	}
	free(p->bad);
	for (unsigned int i = 0; i < p->n_spares; i++)
		free(p->spares[i].host);
	free(p->spares);
	free(p->swaps);
	free(p->summary);
	rck_report_free(p->r);
	rck_mesh_free(p->m);
	free(p);
}

RCK_EXPORT enum rck_verdict rck_preflight_verdict(const struct rck_preflight *p)
{
	return p ? rck_report_verdict(p->r) : RCK_VERDICT_ERROR;
}

RCK_EXPORT const struct rck_report *rck_preflight_report(const struct rck_preflight *p)
{
	return p ? p->r : NULL;
}

RCK_EXPORT const struct rck_mesh *rck_preflight_mesh(const struct rck_preflight *p)
{
	return p ? p->m : NULL;
}

RCK_EXPORT const char *rck_preflight_summary(const struct rck_preflight *p)
{
	return p ? p->summary : NULL;
}

RCK_EXPORT int rck_preflight_timings(const struct rck_preflight *p, struct rck_preflight_timings *t)
{
	size_t size;

	if (!p || !t || t->size < offsetof(struct rck_preflight_timings, noise_sweeps))
		return -EINVAL;
	size = t->size < sizeof(*t) ? t->size : sizeof(*t);
	memcpy((char *)t + sizeof(size_t), (const char *)&p->t + sizeof(size_t), size - sizeof(size_t));
	return 0;
}

RCK_EXPORT unsigned int rck_preflight_bad_host_count(const struct rck_preflight *p)
{
	return p ? p->n_bad : 0;
}

RCK_EXPORT int rck_preflight_bad_host(const struct rck_preflight *p, unsigned int i, const char **host,
				      const char **reason)
{
	if (!p || i >= p->n_bad)
		return -EINVAL;
	if (host)
		*host = p->bad[i].host;
	if (reason)
		*reason = p->bad[i].reason;
	return 0;
}

RCK_EXPORT unsigned int rck_preflight_replacement_count(const struct rck_preflight *p)
{
	return p ? p->n_swaps : 0;
}

RCK_EXPORT int rck_preflight_replacement(const struct rck_preflight *p, unsigned int i, const char **host,
					 const char **spare)
{
	if (!p || i >= p->n_swaps)
		return -EINVAL;
	if (host)
		*host = p->swaps[i].host;
	if (spare)
		*spare = p->swaps[i].spare;
	return 0;
}

/* @write's JSON output, parsed back to embed it. */
static json_t *as_json(const void *obj, int (*write)(const void *, FILE *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	json_t *j = NULL;

	if (!f)
		return NULL;
	if (!write(obj, f) && !fflush(f))
		j = json_loadb(buf, len, 0, NULL);
	fclose(f);
	free(buf);
	return j;
}

static int write_report(const void *r, FILE *f)
{
	return rck_report_write(r, f, RCK_FORMAT_JSON);
}

static int write_mesh(const void *m, FILE *f)
{
	return rck_mesh_write(m, f, RCK_FORMAT_JSON);
}

static int write_json(const struct rck_preflight *p, FILE *out, bool pretty)
{
	json_t *root = json_object(), *t = json_object(), *bad = json_array();
	json_t *spares = json_array(), *swaps = json_array();
	json_t *rep = as_json(p->r, write_report), *mesh = as_json(p->m, write_mesh);
	int rc = -ENOMEM;

	if (!root || !t || !bad || !rep || !mesh || !spares || !swaps)
		goto out;
	for (unsigned int i = 0; i < p->n_spares; i++)
		json_array_append_new(spares, json_pack("{s:s,s:b}", "host", p->spares[i].host, "healthy",
							p->spares[i].healthy));
	for (unsigned int i = 0; i < p->n_swaps; i++)
		json_array_append_new(swaps, json_pack("{s:s,s:s}", "host", p->swaps[i].host, "spare",
						       p->swaps[i].spare));
	json_object_set_new(t, "launch_s", json_real(p->t.launch_s));
	json_object_set_new(t, "sweep_s", json_real(p->t.sweep_s));
	json_object_set_new(t, "analysis_s", json_real(p->t.analysis_s));
	json_object_set_new(t, "total_s", json_real(p->t.total_s));
	json_object_set_new(t, "hosts", json_integer(p->t.hosts));
	json_object_set_new(t, "probes", json_integer(p->t.probes));
	json_object_set_new(t, "retests", json_integer(p->t.retests));
	json_object_set_new(t, "passes", json_integer(p->t.passes));
	json_object_set_new(t, "noise_sweeps", json_integer(p->t.noise_sweeps));
	for (unsigned int i = 0; i < p->n_bad; i++)
		json_array_append_new(bad, json_pack("{s:s,s:s}", "host", p->bad[i].host, "reason",
						     p->bad[i].reason));
	json_object_set_new(root, "schema", json_string("rocecheck.preflight/1"));
	json_object_set_new(root, "verdict", json_string(rck_verdict_name(rck_preflight_verdict(p))));
	json_object_set_new(root, "summary", json_string(p->summary));
	json_object_set_new(root, "timings", t);
	json_object_set_new(root, "bad_hosts", bad);
	json_object_set_new(root, "spares", spares);
	json_object_set_new(root, "replacements", swaps);
	json_object_set_new(root, "report", rep);
	json_object_set_new(root, "mesh", mesh);
	t = bad = rep = mesh = spares = swaps = NULL;
	rc = json_dumpf(root, out, JSON_PRESERVE_ORDER | (pretty ? JSON_INDENT(2) : JSON_COMPACT)) ||
			     fputc('\n', out) == EOF
		     ? -EIO
		     : 0;
out:
	json_decref(root);
	json_decref(t);
	json_decref(bad);
	json_decref(rep);
	json_decref(mesh);
	json_decref(spares);
	json_decref(swaps);
	return rc;
}

RCK_EXPORT int rck_preflight_write(const struct rck_preflight *p, FILE *out, enum rck_format fmt)
{
	int rc;

	if (!p || !out)
		return -EINVAL;
	if (fmt == RCK_FORMAT_JSON || fmt == RCK_FORMAT_JSON_PRETTY)
		return write_json(p, out, fmt == RCK_FORMAT_JSON_PRETTY);
	if (fmt != RCK_FORMAT_TEXT)
		return -EINVAL;
	if (fprintf(out, "%s\n", p->summary) < 0)
		return -EIO;
	rc = rck_report_write(p->r, out, RCK_FORMAT_TEXT);
	for (unsigned int i = 0; !rc && i < p->n_bad; i++)
		if (fprintf(out, "drain %s: %s\n", p->bad[i].host, p->bad[i].reason) < 0)
			rc = -EIO;
	for (unsigned int i = 0; !rc && i < p->n_spares; i++)
		if (!p->spares[i].healthy && fprintf(out, "spare %s: degraded, not proposed\n", p->spares[i].host) < 0)
			rc = -EIO;
	for (unsigned int i = 0; !rc && i < p->n_swaps; i++)
		if (fprintf(out, "replace %s with %s\n", p->swaps[i].host, p->swaps[i].spare) < 0)
			rc = -EIO;
	return rc;
}

static int save_fn(FILE *f, const void *p)
{
	return rck_preflight_write(p, f, RCK_FORMAT_JSON_PRETTY);
}

RCK_EXPORT int rck_preflight_save(const struct rck_preflight *p, const char *path)
{
	if (!p || !path || !*path)
		return -EINVAL;
	return rck_write_atomic(path, save_fn, p);
}
