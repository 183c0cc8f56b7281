/* Cabling lint on the topology model: crossed rails, cables swapped
 * between hosts' leaf groups, NICs on no known switch, odd port speeds,
 * and every conflict between sources; one finding each. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../mesh/grow.h"
#include "../topology/topo_int.h"
#include "analysis_int.h"
#include "units.h"

/* Names compared with digit runs as numbers: mlx5_2 before mlx5_10. */
static int natcmp(const char *a, const char *b)
{
	while (*a && *b) {
		if (*a >= '0' && *a <= '9' && *b >= '0' && *b <= '9') {
			const char *x = a, *y = b;

			while (*x == '0')
				x++;
			while (*y == '0')
				y++;
			a = x;
			b = y;
			while (*x >= '0' && *x <= '9')
				x++;
			while (*y >= '0' && *y <= '9')
				y++;
			if (x - a != y - b)
				return x - a < y - b ? -1 : 1;
			for (; a < x; a++, b++)
				if (*a != *b)
					return *a < *b ? -1 : 1;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		a++;
		b++;
	}
	return *a ? 1 : *b ? -1 : 0;
}

struct lc {
	const struct rck_topology *t;
	struct rck_report *r;
	unsigned int nrails;
	int32_t *leaf;               /* [host * nrails + rail]: its NIC's switch, -1 none */
};

static const char *port_name(const struct rck_topology *t, int32_t port)
{
	return port >= 0 ? t->ports[port].name : "?";
}

static struct rck_finding *cable_finding(struct lc *l, const struct tp_cable *c,
					 enum rck_finding_code code, enum rck_severity sev, const char *why)
{
	return an_add(l->r, code, sev, RCK_ENTITY_LINK, tp_host_name(l->t, c->host), c->nic,
		      l->t->sw[c->sw].name, port_name(l->t, c->port), "%s", why);
}

static int by_nic(const void *x, const void *y, void *arg)
{
	const struct rck_topology *t = arg;

	return natcmp(t->cables[*(const uint32_t *)x].nic, t->cables[*(const uint32_t *)y].nic);
}

/* The rail most hosts' NICs of each name reach (at least 3 of them, more
 * than half agreeing), by NIC name: a site's own naming of its rails wins
 * over the place of a NIC in its host. @rail_of[name] gets it or -1. */
static int name_rails(const struct lc *l, struct strset *names, int16_t **rail_of)
{
	const struct rck_topology *t = l->t;
	uint32_t *votes = NULL;
	size_t cap = 0;
	int rc = 0;

	for (size_t i = 0; !rc && i < t->n_cables; i++) {
		const struct tp_cable *c = &t->cables[i];
		unsigned int k;
		char *name;

		if (!c->nic || c->sw < 0 || t->sw[c->sw].rail < 0)
			continue;
		if (strset_find(names, c->nic, &k)) {
			name = strdup(c->nic);
			rc = name ? strset_add(names, name, &k) : -ENOMEM;
			if (rc) {
				free(name);
				break;
			}
			if (mesh_grow((void **)&votes, &cap, (size_t)names->n * l->nrails, sizeof(*votes))) {
				rc = -ENOMEM;
				break;
			}
			memset(votes + (size_t)k * l->nrails, 0, l->nrails * sizeof(*votes));
		}
		votes[(size_t)k * l->nrails + (unsigned int)t->sw[c->sw].rail]++;
	}
	*rail_of = rc ? NULL : malloc((names->n + 1) * sizeof(**rail_of));
	if (!rc && !*rail_of)
		rc = -ENOMEM;
	for (unsigned int k = 0; !rc && k < names->n; k++) {
		uint32_t all = 0, best = 0;
		int r = -1;

		for (unsigned int x = 0; x < l->nrails; x++) {
			uint32_t v = votes[(size_t)k * l->nrails + x];

			all += v;
			if (v > best) {
				best = v;
				r = (int)x;
			}
		}
		(*rail_of)[k] = (int16_t)(all >= 3 && 2 * best > all ? r : -1);
	}
	free(votes);
	return rc;
}

/* NIC r (its rail; else the rail most hosts give its name; else its place
 * among the host's rail NICs) must reach a rail-r switch. Fills l->leaf
 * for NICs that do. */
static int rails(struct lc *l)
{
	const struct rck_topology *t = l->t;
	struct strset names = { 0 };
	int16_t *rail_of = NULL;
	uint32_t *ci = NULL;
	size_t cap = 0;
	int rc = name_rails(l, &names, &rail_of);

	if (rc) {
		strset_free(&names);
		return rc;
	}

	for (uint32_t h = 0; h < t->host_names.n; h++) {
		const struct tp_host *host = &t->hosts[h];
		size_t n = 0;

		if (host->n > cap) {
			uint32_t *m = realloc(ci, host->n * sizeof(*ci));

			if (!m) {
				rc = -ENOMEM;
				break;
			}
			ci = m;
			cap = host->n;
		}
		for (uint32_t i = 0; i < host->n; i++) {
			const struct tp_cable *c = &t->cables[host->cables[i]];

			/* Rail NICs: on a rail switch, or on none (a rail NIC
			 * that lost its link); a frontend NIC's switch has no rail. */
			if (c->nic && (c->sw < 0 || t->sw[c->sw].rail >= 0))
				ci[n++] = host->cables[i];
		}
		if (n)
			qsort_r(ci, n, sizeof(*ci), by_nic, (void *)t);
		for (size_t i = 0; i < n; i++) {
			const struct tp_cable *c = &t->cables[ci[i]];
			int want = c->rail, got;
			const char *by = "";
			unsigned int k;
			char why[600];

			if (c->sw < 0)
				continue;
			if (want < 0 && !strset_find(&names, c->nic, &k) && rail_of[k] >= 0) {
				want = rail_of[k];
				by = " (as on most hosts)";
			} else if (want < 0) {
				want = (int)i;
				by = " (by its place)";
			}
			got = t->sw[c->sw].rail;
			if (want != got) {
				struct rck_finding *f;

				snprintf(why, sizeof(why), "rails crossed: NIC %s is rail %d%s but is cabled to %s port %s, a rail-%d switch",
					 c->nic, want, by, t->sw[c->sw].name,
					 port_name(t, c->port), got);
				f = cable_finding(l, c, RCK_FINDING_RAIL_CROSSED, RCK_SEVERITY_DEGRADED, why);
				if (f) {
					an_value(f, "rail", want);
					an_value(f, "switch_rail", got);
				}
			} else if ((unsigned int)want < l->nrails) {
				int32_t *slot = &l->leaf[(size_t)h * l->nrails + (unsigned int)want];

				/* Two NICs on one rail: the rail says nothing of the group. */
				*slot = *slot == TP_NONE ? c->sw : -2;
			}
		}
	}
	free(ci);
	free(rail_of);
	strset_free(&names);
	return rc;
}

/* The value most of @v hold (more than half of the known ones, at least
 * @min of them), or TP_NONE. */
static int32_t majority(const int32_t *v, size_t n, size_t min)
{
	int32_t cand = TP_NONE;
	size_t cnt = 0, known = 0, hits = 0;

	for (size_t i = 0; i < n; i++) {
		if (v[i] < 0)
			continue;
		known++;
		if (!cnt) {
			cand = v[i];
			cnt = 1;
		} else if (v[i] == cand) {
			cnt++;
		} else {
			cnt--;
		}
	}
	for (size_t i = 0; i < n; i++)
		hits += v[i] == cand;
	return known >= min && 2 * hits > known ? cand : TP_NONE;
}

struct misplaced {
	uint32_t host;
	uint32_t rail;
	int32_t actual, expected;
	bool paired;
};

static int mp_cmp(const void *x, const void *y)
{
	const struct misplaced *a = x, *b = y;

	if (a->rail != b->rail)
		return a->rail < b->rail ? -1 : 1;
	if (a->actual != b->actual)
		return a->actual < b->actual ? -1 : 1;
	if (a->expected != b->expected)
		return a->expected < b->expected ? -1 : 1;
	return a->host < b->host ? -1 : a->host > b->host;
}

static const struct tp_cable *rail_cable(const struct lc *l, uint32_t host, int32_t sw)
{
	const struct tp_host *h = &l->t->hosts[host];

	for (uint32_t i = 0; i < h->n; i++)
		if (l->t->cables[h->cables[i]].nic && l->t->cables[h->cables[i]].sw == sw)
			return &l->t->cables[h->cables[i]];
	return NULL;
}

static void report_misplaced(struct lc *l, struct misplaced *m, size_t n)
{
	const struct rck_topology *t = l->t;

	if (n)
		qsort(m, n, sizeof(*m), mp_cmp);
	for (size_t i = 0; i < n; i++) {
		const struct tp_cable *a = rail_cable(l, m[i].host, m[i].actual), *b = NULL;
		struct misplaced key = { .rail = m[i].rail, .actual = m[i].expected, .expected = m[i].actual };
		struct misplaced *o = NULL;
		char why[900];
		size_t lo = 0, hi = n;

		if (m[i].paired || !a)
			continue;
		/* The partner: on this rail, in our expected leaf, expecting ours. */
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;

			if (mp_cmp(&m[mid], &key) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < n && m[lo].rail == key.rail && m[lo].actual == key.actual &&
		       m[lo].expected == key.expected; lo++)
			if (!m[lo].paired && lo != i) {
				o = &m[lo];
				break;
			}
		if (o)
			b = rail_cable(l, o->host, o->actual);
		if (o && b && o->host < m[i].host) {
			/* The pair named from its first host. */
			const struct tp_cable *x = a;

			a = b;
			b = x;
		}
		if (o && b) {
			o->paired = true;
			snprintf(why, sizeof(why), "cables swapped on rail %u: %s %s is on %s port %s and %s %s on %s port %s; "
				 "their other rails put each in the other's leaf",
				 m[i].rail, tp_host_name(t, a->host), a->nic, t->sw[a->sw].name, port_name(t, a->port),
				 tp_host_name(t, b->host), b->nic, t->sw[b->sw].name, port_name(t, b->port));
		} else {
			snprintf(why, sizeof(why), "cable in the wrong leaf on rail %u: %s %s is on %s port %s, its other rails say %s",
				 m[i].rail, tp_host_name(t, a->host), a->nic, t->sw[a->sw].name, port_name(t, a->port),
				 t->sw[m[i].expected].name);
		}
		m[i].paired = true;
		cable_finding(l, a, RCK_FINDING_CABLE_SWAPPED, RCK_SEVERITY_DEGRADED, why);
	}
}

/* Each leaf's partner on every other rail (where most of its hosts' NICs
 * of that rail go); a host NIC whose leaf is not where its other rails'
 * partners point is misplaced. */
static int groups(struct lc *l)
{
	const struct rck_topology *t = l->t;
	size_t nh = t->host_names.n, R = l->nrails, nm = 0, cm = 0;
	uint32_t *start = calloc(t->n_sw + 1, sizeof(*start)), *fill = NULL, *idx = NULL;
	int32_t *partner = malloc(t->n_sw * R * sizeof(*partner) + 1), *tmp = NULL, *votes = NULL;
	struct misplaced *m = NULL;
	int rc = -ENOMEM;

	if (!start || !partner)
		goto out;
	for (size_t i = 0; i < nh * R; i++)
		if (l->leaf[i] >= 0)
			start[l->leaf[i] + 1]++;
	for (size_t s = 0; s < t->n_sw; s++)
		start[s + 1] += start[s];
	fill = malloc((t->n_sw + 1) * sizeof(*fill));
	idx = malloc((start[t->n_sw] + 1) * sizeof(*idx));
	tmp = malloc((nh + 1) * sizeof(*tmp));
	votes = malloc((R + 1) * sizeof(*votes));
	if (!fill || !idx || !tmp || !votes)
		goto out;
	memcpy(fill, start, (t->n_sw + 1) * sizeof(*fill));
	for (size_t i = 0; i < nh * R; i++)
		if (l->leaf[i] >= 0)
			idx[fill[l->leaf[i]]++] = (uint32_t)(i / R);
	for (size_t s = 0; s < t->n_sw; s++)
		for (size_t r = 0; r < R; r++) {
			size_t n = 0;

			for (uint32_t k = start[s]; k < start[s + 1]; k++)
				tmp[n++] = l->leaf[(size_t)idx[k] * R + r];
			partner[s * R + r] = majority(tmp, n, 2);
		}
	for (size_t h = 0; h < nh; h++)
		for (size_t r = 0; r < R; r++) {
			int32_t have = l->leaf[h * R + r], want;
			size_t n = 0;

			if (have < 0)
				continue;
			for (size_t o = 0; o < R; o++)
				if (o != r && l->leaf[h * R + o] >= 0)
					votes[n++] = partner[(size_t)l->leaf[h * R + o] * R + r];
			want = majority(votes, n, 2);
			if (want < 0 || want == have)
				continue;
			if (nm == cm) {
				size_t c = cm ? 2 * cm : 16;
				struct misplaced *g = realloc(m, c * sizeof(*g));

				if (!g)
					goto out;
				m = g;
				cm = c;
			}
			m[nm++] = (struct misplaced){ (uint32_t)h, (uint32_t)r, have, want, false };
		}
	report_misplaced(l, m, nm);
	rc = 0;
out:
	free(start);
	free(fill);
	free(idx);
	free(partner);
	free(tmp);
	free(votes);
	free(m);
	return rc;
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

/* Ports of one role (host-facing or uplink) on switches of one tier share
 * a speed; the odd one out, against a clear majority of at least 3. */
static int port_speeds(struct lc *l)
{
	const struct rck_topology *t = l->t;
	uint8_t *role = calloc(t->n_ports + 1, 1);   /* 1 host-facing, 2 uplink */
	int32_t *other = malloc((t->n_ports + 1) * sizeof(*other));
	double *v = malloc((t->n_ports + 1) * sizeof(*v));

	if (!role || !other || !v) {
		free(role);
		free(other);
		free(v);
		return -ENOMEM;
	}
	for (size_t p = 0; p < t->n_ports; p++)
		if (t->ports[p].cable >= 0 && t->cables[t->ports[p].cable].nic)
			role[p] = 1;
	for (size_t u = 0; u < t->n_uplinks; u++) {
		const struct tp_uplink *up = &t->uplinks[u];

		if (up->lport >= 0) {
			role[up->lport] = 2;
			other[up->lport] = (int32_t)u;
		}
		if (up->uport >= 0) {
			role[up->uport] = 2;
			other[up->uport] = (int32_t)u;
		}
	}
	for (uint8_t ro = 1; ro <= 2; ro++)
		for (uint8_t tier = 0; tier < 3; tier++) {
			size_t n = 0, best = 0;
			double mode = 0;

			for (size_t p = 0; p < t->n_ports; p++)
				if (role[p] == ro && t->sw[t->ports[p].sw].tier == tier && t->ports[p].gbps > 0)
					v[n++] = t->ports[p].gbps;
			qsort(v, n, sizeof(*v), cmp_double);
			for (size_t i = 0, j; i < n; i = j) {
				for (j = i; j < n && v[j] == v[i]; j++)
					;
				if (j - i > best) {
					best = j - i;
					mode = v[i];
				}
			}
			if (n < 3 || best * 2 <= n)
				continue;
			for (size_t p = 0; p < t->n_ports; p++) {
				const struct tp_port *pt = &t->ports[p];
				struct rck_finding *f;
				char why[600], have[32], want[32];

				if (role[p] != ro || t->sw[pt->sw].tier != tier || !(pt->gbps > 0) || pt->gbps == mode)
					continue;
				if (ro == 1) {
					const struct tp_cable *c = &t->cables[pt->cable];

					snprintf(why, sizeof(why), "switch %s port %s (to %s %s) runs at %s, its peers at %s",
						 t->sw[pt->sw].name, pt->name, tp_host_name(t, c->host), c->nic,
						 units_rate(have, sizeof(have), pt->gbps), units_rate(want, sizeof(want), mode));
					f = an_add(l->r, RCK_FINDING_SWITCH_PORT_SPEED, RCK_SEVERITY_DEGRADED, RCK_ENTITY_LINK,
						   tp_host_name(t, c->host), c->nic, t->sw[pt->sw].name, pt->name, "%s", why);
				} else {
					const struct tp_uplink *u = &t->uplinks[other[p]];

					snprintf(why, sizeof(why), "switch %s port %s (uplink %s to %s) runs at %s, its peers at %s",
						 t->sw[pt->sw].name, pt->name, t->sw[u->lower].name, t->sw[u->upper].name,
						 units_rate(have, sizeof(have), pt->gbps), units_rate(want, sizeof(want), mode));
					f = an_add(l->r, RCK_FINDING_SWITCH_PORT_SPEED, RCK_SEVERITY_DEGRADED, RCK_ENTITY_LINK,
						   t->sw[u->lower].name, port_name(t, u->lport), t->sw[u->upper].name,
						   port_name(t, u->uport), "%s", why);
				}
				if (f) {
					an_value(f, "speed_gbps", pt->gbps);
					an_value(f, "peers_gbps", mode);
				}
			}
		}
	free(role);
	free(other);
	free(v);
	return 0;
}

static void no_switch(struct lc *l)
{
	const struct rck_topology *t = l->t;
	bool declared = false;

	for (size_t s = 0; s < t->n_sw && !declared; s++)
		declared = t->sw[s].declared;
	for (size_t i = 0; i < t->n_cables; i++) {
		const struct tp_cable *c = &t->cables[i];
		char why[600];

		if (!c->nic)
			continue;
		if (c->sw < 0) {
			an_add(l->r, RCK_FINDING_NIC_NO_SWITCH, RCK_SEVERITY_WARNING, RCK_ENTITY_NIC,
			       tp_host_name(t, c->host), c->nic, NULL, NULL,
			       "NIC %s is on no known switch: no LLDP neighbour heard and no source cables it (%s)",
			       c->nic, t->srcs[c->src]);
		} else if (declared && !t->sw[c->sw].declared) {
			snprintf(why, sizeof(why), "NIC %s is on %s port %s, a switch only LLDP names: neither "
				 "Slurm nor the topology file knows it (%s)", c->nic, t->sw[c->sw].name,
				 port_name(t, c->port), t->srcs[c->src]);
			cable_finding(l, c, RCK_FINDING_NIC_NO_SWITCH, RCK_SEVERITY_WARNING, why);
		}
	}
}

RCK_EXPORT int rck_topology_lint(const struct rck_topology *t, struct rck_report **out)
{
	struct lc l = { .t = t };
	int rc;

	if (!t || !out)
		return -EINVAL;
	l.r = sw_report_new();
	if (!l.r)
		return -ENOMEM;
	for (size_t s = 0; s < t->n_sw; s++)
		if (t->sw[s].rail >= 0 && (unsigned int)t->sw[s].rail + 1 > l.nrails)
			l.nrails = (unsigned int)t->sw[s].rail + 1;
	rc = 0;
	if (l.nrails) {
		size_t n = (size_t)t->host_names.n * l.nrails;

		l.leaf = malloc((n ? n : 1) * sizeof(*l.leaf));
		if (!l.leaf)
			rc = -ENOMEM;
		for (size_t i = 0; !rc && i < n; i++)
			l.leaf[i] = TP_NONE;
		if (!rc)
			rc = rails(&l);
		if (!rc && l.nrails > 1)
			rc = groups(&l);
		free(l.leaf);
	}
	if (!rc)
		rc = port_speeds(&l);
	if (!rc)
		no_switch(&l);
	for (size_t i = 0; !rc && i < t->n_conflicts; i++)
		an_add(l.r, RCK_FINDING_TOPOLOGY_CONFLICT, RCK_SEVERITY_WARNING, RCK_ENTITY_FABRIC, NULL, NULL,
		       NULL, NULL, "sources disagree: %s (%s vs %s)", t->conflicts[i].what,
		       t->srcs[t->conflicts[i].a], t->srcs[t->conflicts[i].b]);
	if (!rc && l.r->err)
		rc = l.r->err;
	if (rc) {
		rck_report_free(l.r);
		return rc;
	}
	an_finish(l.r);
	*out = l.r;
	return 0;
}
