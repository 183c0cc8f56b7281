/* Localisation's findings: one per chosen part (switch, uplink, NIC and its
 * cable), and the host findings a switch-side part explains demoted. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "localise.h"
#include "rocecheck/topology.h"

static const char *const why_name[LC_WHYS] = {"failed", "slow", "lossy", "latency"};

/* "12 failed, 30 slow" of a part's bad probes. */
static void why_text(const struct lc_comp *c, char *buf, size_t n)
{
	size_t o = 0;

	buf[0] = 0;
	for (int w = 0; w < LC_WHYS; w++)
		if (c->why[w] && o < n)
			o += (size_t)snprintf(buf + o, n - o, "%s%u %s", o ? ", " : "", c->why[w], why_name[w]);
}

static void values(struct rck_finding *f, const struct lc_comp *c)
{
	static const char *const keys[LC_WHYS] = {"probes_failed", "probes_slow", "probes_lossy",
						  "probes_latency"};

	if (!f)
		return;
	an_value(f, "probes", c->all);
	an_value(f, "probes_bad", c->all_bad);
	for (int w = 0; w < LC_WHYS; w++)
		if (c->why[w])
			an_value(f, keys[w], c->why[w]);
	if (c->n_ratio)
		an_value(f, "slow_ratio", c->ratio_sum / c->n_ratio);
}

static const char *port_name(const struct lc *l, int32_t port)
{
	const char *name = NULL;

	if (port < 0 || rck_topology_port(l->t, (unsigned int)port, NULL, &name, NULL))
		return NULL;
	return name;
}

/* A failing part is down; otherwise degraded. */
static bool down(const struct lc_comp *c)
{
	return c->why[LC_FAIL] * 2 >= c->all_bad;
}

/* Hosts behind switch @s (NICs cabled to it): how many, and the first few. */
static unsigned int behind(const struct lc *l, uint32_t s, char *buf, size_t n)
{
	unsigned int hosts = 0, last = UINT32_MAX;
	size_t o = 0;

	buf[0] = 0;
	for (uint32_t i = 0; i < l->n_nics; i++) {
		const struct nic_key *k = &l->keys[i];
		unsigned int h = l->a->nics[k->nic].host;

		if (l->nic_sw[k->nic] != (int32_t)s || h == last)
			continue;
		last = h;
		if (hosts < 4 && o < n)
			o += (size_t)snprintf(buf + o, n - o, "%s%s", hosts ? ", " : "", k->host);
		else if (hosts == 4 && o < n)
			o += (size_t)snprintf(buf + o, n - o, ", ...");
		hosts++;
	}
	return hosts;
}

static void switch_finding(const struct lc *l, struct rck_report *r, uint32_t c)
{
	const struct lc_comp *x = &l->c[c];
	uint32_t s = lc_index(l, c);
	const char *name = rck_topology_switch_name(l->t, s);
	bool spine = rck_topology_switch_tier(l->t, s) == RCK_SWITCH_TIER_SPINE;
	char ev[128], hosts[256];
	unsigned int nh = spine ? 0 : behind(l, s, hosts, sizeof(hosts));
	struct rck_finding *f;

	why_text(x, ev, sizeof(ev));
	if (down(x))
		f = an_add(r, RCK_FINDING_SWITCH_DOWN, RCK_SEVERITY_CRITICAL, RCK_ENTITY_SWITCH, name, NULL,
			   NULL, NULL, "%s %s down: %u of the %u probes through it bad (%s); %u hosts behind it%s%s%s, not drained",
			   spine ? "spine" : "leaf", name, x->all_bad, x->all, ev, nh, nh ? " (" : "", nh ? hosts : "", nh ? ")" : "");
	else
		f = an_add(r, RCK_FINDING_SWITCH_DEGRADED, RCK_SEVERITY_DEGRADED, RCK_ENTITY_SWITCH, name,
			   NULL, NULL, NULL, "%s %s degraded: %u of the %u probes through it bad (%s); %u hosts behind it%s%s%s, not drained",
			   spine ? "spine" : "leaf", name, x->all_bad, x->all, ev, nh, nh ? " (" : "", nh ? hosts : "", nh ? ")" : "");
	values(f, x);
	if (f)
		an_value(f, "hosts_behind", nh);
}

/* Parts with the very bad probes of part @c: no probe tells them apart
 * (two leaves under one spine: every probe across crosses both uplinks). */
static bool same_evidence(const struct lc *l, uint32_t c, uint32_t d)
{
	uint32_t n = l->bstart[c + 1] - l->bstart[c];

	return d != c && l->c[d].all == l->c[c].all && n == l->bstart[d + 1] - l->bstart[d] &&
	       !memcmp(l->bidx + l->bstart[c], l->bidx + l->bstart[d], n * sizeof(*l->bidx));
}

/* "; the probes cannot tell it from the uplinks of leaf2 and spine": the
 * other uplinks and switches with the same evidence, named in @buf. */
static unsigned int alternatives(const struct lc *l, uint32_t c, char *buf, size_t n)
{
	unsigned int k = 0;
	size_t o = 0;

	buf[0] = 0;
	for (uint32_t s = 0; s < l->n_sw; s++) {
		uint32_t up = lc_comp(l, lc_kind_of(l, c), s), sw = lc_comp(l, LC_SWITCH, s);
		const char *name = rck_topology_switch_name(l->t, s);
		bool u = s != lc_index(l, c) && l->sw_n_up[s] && same_evidence(l, c, up);
		bool w = same_evidence(l, c, sw);

		if ((u || w) && o < n)
			o += (size_t)snprintf(buf + o, n - o, "%s%s%s", k ? ", " : "; the probes cannot tell it from ",
					      u ? "the uplink of " : "switch ", name);
		k += u || w;
	}
	return k;
}

static void uplink_finding(const struct lc *l, struct rck_report *r, uint32_t c, const char *dir)
{
	const struct lc_comp *x = &l->c[c];
	uint32_t s = lc_index(l, c);
	const char *name = rck_topology_switch_name(l->t, s), *port = NULL, *up = NULL, *up_port = NULL;
	struct rck_topology_uplink u = {.size = sizeof(u)};
	char ev[128], hosts[256], what[512], alt[256];
	unsigned int nh = behind(l, s, hosts, sizeof(hosts)), na = alternatives(l, c, alt, sizeof(alt));
	struct rck_finding *f;

	/* One uplink: named down to its ports; several: the switch's group. */
	if (l->sw_n_up[s] == 1 && !rck_topology_uplink(l->t, (unsigned int)l->sw_uplink[s], &u)) {
		port = port_name(l, u.lower_port);
		up = rck_topology_switch_name(l->t, u.upper);
		up_port = port_name(l, u.upper_port);
	} else if (l->sw_spine[s] >= 0) {
		up = rck_topology_switch_name(l->t, (unsigned int)l->sw_spine[s]);
	}
	why_text(x, ev, sizeof(ev));
	snprintf(what, sizeof(what), "%s of %s%s%s%s%s%s%s", l->sw_n_up[s] == 1 ? "uplink" : "uplinks", name,
		 port ? " " : "", port ? port : "", up ? " to " : "", up ? up : "", up_port ? " " : "",
		 up_port ? up_port : "");
	f = an_add(r, RCK_FINDING_UPLINK_DEGRADED, down(x) ? RCK_SEVERITY_CRITICAL : RCK_SEVERITY_DEGRADED,
		   RCK_ENTITY_SWITCH, name, port, up, up_port,
		   "%s %s (%s): %u of the %u probes across it bad (%s); the %u hosts under it not drained%s",
		   what, down(x) ? "down" : "degraded", dir, x->all_bad, x->all, ev, nh, alt);
	values(f, x);
	if (f) {
		an_value(f, "uplinks", l->sw_n_up[s]);
		an_value(f, "alternatives", na);
	}
}

static bool probe_code(enum rck_finding_code c);

/* Did the link analysis (first pass and retests) confirm a finding on NIC
 * @label of @host, at either end of a link? */
static bool nic_confirmed(const struct rck_report *r, const char *host, const char *label)
{
	for (unsigned int i = 0; i < r->n_findings; i++) {
		const struct rck_finding *f = &r->findings[i];

		if (!probe_code(f->code) || f->suspect || f->sev < RCK_SEVERITY_DEGRADED)
			continue;
		if ((f->host && !strcmp(f->host, host) && (!f->nic || !strcmp(f->nic, label))) ||
		    (f->peer_host && !strcmp(f->peer_host, host) && f->peer_nic && !strcmp(f->peer_nic, label)))
			return true;
	}
	return false;
}

static void nic_finding(const struct lc *l, struct rck_report *r, uint32_t n, int32_t other)
{
	const struct lc_comp *x = &l->c[n];
	const struct an_nic *nic = &l->a->nics[n];
	const char *host = l->a->hosts[nic->host].name;
	const char *sw = l->nic_sw[n] >= 0 ? rck_topology_switch_name(l->t, (unsigned int)l->nic_sw[n]) : NULL;
	const char *port = port_name(l, l->nic_port[n]);
	char ev[128];
	struct rck_finding *f;

	why_text(x, ev, sizeof(ev));
	if (other >= 0) {
		const struct an_nic *o = &l->a->nics[other];
		const char *osw = l->nic_sw[other] >= 0 ? rck_topology_switch_name(l->t, (unsigned int)l->nic_sw[other]) : "?";
		const char *oport = port_name(l, l->nic_port[other]);

		f = an_add(r, RCK_FINDING_RAIL_CROSSED, RCK_SEVERITY_DEGRADED, RCK_ENTITY_LINK, host, nic->label,
			   sw, port, "rails crossed on %s: %s (meant for %s %s) and %s (meant for %s %s) reach their peers "
			   "through the wrong switches: %u and %u of their probes bad (%s)", host, nic->label,
			   sw ? sw : "?", port ? port : "?", o->label, osw, oport ? oport : "?", x->all_bad,
			   l->c[other].all_bad, ev);
		values(f, x);
		return;
	}
	if (!x->why[LC_FAIL] && !x->why[LC_LOSS] && !nic_confirmed(r, host, nic->label)) {
		/* Slow or late first measurements alone: on a loaded host the
		 * sweep's own contention makes them (a healthy TCG lab named a
		 * cable so). The retests decide a NIC's links; none agreed. */
		f = an_add(r, RCK_FINDING_CABLE_BAD, RCK_SEVERITY_WARNING, RCK_ENTITY_LINK, host, nic->label, sw,
			   port, "suspect: %s %s or its cable to %s %s: %u of the %u probes through it bad (%s) in the "
			   "first pass, not confirmed by its retests; not acted on",
			   host, nic->label, sw ? sw : "(no known switch)", port ? port : "", x->all_bad, x->all, ev);
		if (f)
			f->suspect = true;
		values(f, x);
		return;
	}
	f = an_add(r, RCK_FINDING_CABLE_BAD, RCK_SEVERITY_DEGRADED, RCK_ENTITY_LINK, host, nic->label, sw,
		   port, "%s %s or its cable to %s %s: %u of the %u probes through it bad (%s), its leaf's other paths good",
		   host, nic->label, sw ? sw : "(no known switch)", port ? port : "", x->all_bad, x->all, ev);
	values(f, x);
}

/* Two chosen NICs of one host, failing or slow on latency rather than
 * bandwidth: their cables are on each other's switches. */
static bool crossed(const struct lc *l, const unsigned int *per_host, uint32_t a, uint32_t b)
{
	const struct lc_comp *x = &l->c[a], *y = &l->c[b];
	unsigned int h = l->a->nics[a].host;

	return h == l->a->nics[b].host && per_host[h] == 2 && per_host[l->a->n_hosts + h] > 2 &&
	       l->nic_sw[a] != l->nic_sw[b] &&
	       (x->why[LC_LAT] + x->why[LC_FAIL]) * 2 > x->all_bad &&
	       (y->why[LC_LAT] + y->why[LC_FAIL]) * 2 > y->all_bad;
}

/* NICs of a host that are not its own fault: its host is unreachable, or
 * every NIC of it was chosen (the host's, which its own findings say). */
static bool host_wide(const struct lc *l, const unsigned int *per_host, uint32_t n)
{
	unsigned int h = l->a->nics[n].host;

	/* per_host: NICs chosen per host, then (past n_hosts) NICs per host */
	return l->a->hosts[h].unreachable || (per_host[h] >= 2 && per_host[h] >= per_host[l->a->n_hosts + h]);
}

static void findings(const struct lc *l, struct rck_report *r, uint8_t *used, const unsigned int *per_host)
{
	for (uint32_t i = 0; i < l->n_picked; i++) {
		uint32_t c = l->picked[i], s = lc_index(l, c);
		int32_t other = -1;

		switch (lc_kind_of(l, c)) {
		case LC_NIC:
			if (used[i] || host_wide(l, per_host, c))
				break;
			for (uint32_t j = i + 1; j < l->n_picked && other < 0; j++)
				if (!used[j] && lc_kind_of(l, l->picked[j]) == LC_NIC &&
				    crossed(l, per_host, c, l->picked[j])) {
					other = (int32_t)l->picked[j];
					used[j] = 1;
				}
			nic_finding(l, r, c, other);
			break;
		case LC_SWITCH:
			switch_finding(l, r, c);
			break;
		case LC_UP_BOTH:
			uplink_finding(l, r, c, "both directions");
			break;
		case LC_UP_OUT:
		case LC_UP_IN:
			if (l->c[lc_comp(l, LC_UP_OUT, s)].state == 1 && l->c[lc_comp(l, LC_UP_IN, s)].state == 1) {
				if (lc_kind_of(l, c) == LC_UP_OUT)
					uplink_finding(l, r, lc_comp(l, LC_UP_BOTH, s), "both directions");
				break;
			}
			uplink_finding(l, r, c, lc_kind_of(l, c) == LC_UP_OUT ? "towards the spine" : "from the spine");
			break;
		default:
			break;
		}
	}
}

/* Findings a probe's evidence raises on hosts, NICs and links. */
static bool probe_code(enum rck_finding_code c)
{
	return c == RCK_FINDING_LINK_SLOW || c == RCK_FINDING_LINK_LATENCY || c == RCK_FINDING_NIC_DEGRADED ||
	       c == RCK_FINDING_HOST_DEGRADED || c == RCK_FINDING_LOSS_ON_LOSSLESS ||
	       c == RCK_FINDING_PROBE_FAILED || c == RCK_FINDING_HOST_UNREACHABLE;
}

/* The chosen switch-side part on a path, or -1. */
static int64_t switch_side(const struct lc *l, uint32_t src, uint32_t dst)
{
	uint32_t p[LC_PATH_MAX];
	unsigned int n = lc_path_nics(l, src, dst, p);

	if (l->c[src].state == 1 || l->c[dst].state == 1)
		return -1;
	for (unsigned int i = 2; i < n; i++)
		if (l->c[p[i]].state == 1)
			return p[i];
	return -1;
}

/* The chosen part behind NIC @n: its leaf, or else its uplinks or spine. */
static int64_t nic_behind(const struct lc *l, uint32_t n)
{
	int32_t s = l->nic_sw[n];
	static const enum lc_kind k[] = {LC_SWITCH, LC_UP_BOTH, LC_UP_OUT, LC_UP_IN};

	if (s < 0 || l->c[n].state == 1)
		return -1;
	for (size_t i = 0; i < RCK_ARRAY_SIZE(k); i++)
		if (l->c[lc_comp(l, k[i], (uint32_t)s)].state == 1)
			return lc_comp(l, k[i], (uint32_t)s);
	if (l->sw_spine[s] >= 0 && l->c[lc_comp(l, LC_SWITCH, (uint32_t)l->sw_spine[s])].state == 1)
		return lc_comp(l, LC_SWITCH, (uint32_t)l->sw_spine[s]);
	return -1;
}

/* A host finding is explained when every NIC of the host with bad probes
 * is behind a chosen switch-side part and none is chosen itself. */
static int64_t host_behind(const struct lc *l, const char *host)
{
	int64_t part = -1;

	for (const struct nic_key *p = l->keys; p < l->keys + l->n_nics; p++) {
		int64_t b;

		if (strcmp(p->host, host))
			continue;
		if (l->c[p->nic].state == 1)
			return -1;
		b = nic_behind(l, p->nic);
		if (b >= 0)
			part = b;
		else if (l->c[p->nic].all_bad)
			return -1;
	}
	return part;
}

static const char *part_name(const struct lc *l, int64_t c)
{
	return rck_topology_switch_name(l->t, lc_index(l, (uint32_t)c));
}

static void demote(const struct lc *l, struct rck_report *r)
{
	for (unsigned int i = 0; i < r->n_findings; i++) {
		struct rck_finding *f = &r->findings[i];
		uint32_t a, b;
		int64_t part = -1;
		char *reason;

		if (f->sev < RCK_SEVERITY_DEGRADED || !probe_code(f->code))
			continue;
		if (f->entity == RCK_ENTITY_LINK && !lc_find_nic(l, f->host, f->nic, &a) &&
		    !lc_find_nic(l, f->peer_host, f->peer_nic, &b))
			part = switch_side(l, a, b);
		else if (f->entity == RCK_ENTITY_NIC && !lc_find_nic(l, f->host, f->nic, &a))
			part = nic_behind(l, a);
		else if (f->entity == RCK_ENTITY_HOST && f->host)
			part = host_behind(l, f->host);
		if (part < 0)
			continue;
		if (asprintf(&reason, "behind %s (%s): %s", part_name(l, part),
			     lc_kind_of(l, (uint32_t)part) == LC_SWITCH ? "switch" : "uplink",
			     f->reason ? f->reason : "") < 0) {
			r->err = -ENOMEM;
			return;
		}
		free(f->reason);
		f->reason = reason;
		f->sev = RCK_SEVERITY_WARNING;
		f->suspect = true;
	}
}

void lc_report(const struct lc *l, struct rck_report *r)
{
	uint8_t *used = calloc(l->n_picked + 1, 1);
	unsigned int *per_host = calloc(2 * (size_t)l->a->n_hosts + 1, sizeof(*per_host));

	if (!used || !per_host) {
		free(used);
		free(per_host);
		r->err = -ENOMEM;
		return;
	}
	for (uint32_t i = 0; i < l->n_picked; i++)
		if (lc_kind_of(l, l->picked[i]) == LC_NIC)
			per_host[l->a->nics[l->picked[i]].host]++;
	for (uint32_t i = 0; i < l->a->n_nics; i++)
		per_host[l->a->n_hosts + l->a->nics[i].host]++;
	findings(l, r, used, per_host);
	free(used);
	free(per_host);
	demote(l, r);
}

void an_localise(const struct rck_analysis *a, struct rck_report *r)
{
	struct lc l;

	if (!a->topo)
		return;
	if (lc_run(&l, a)) {
		r->err = -ENOMEM;
		return;
	}
	lc_report(&l, r);
	lc_free(&l);
}
