/* The report's findings on the heatmap's grid: slow links on their cells,
 * degraded NICs and hosts on their rows and columns, a list for the legend. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heatmap_int.h"

/* Position of NIC "device/port" of host @host; -1 when the result lacks it. */
static long find_pos(const struct hm_grid *g, const struct rck_mesh *m, const char *host,
		     const char *nic)
{
	unsigned int h, k;

	if (!host || !nic || rck_mesh_find_host(m, host, &h))
		return -1;
	k = rck_mesh_host_nic_count(m, h);
	for (unsigned int i = 0; i < k; i++) {
		struct rck_mesh_nic x = {.size = sizeof(x)};
		unsigned int id;
		char buf[300];

		if (rck_mesh_host_nic(m, h, i, &id) || rck_mesh_get_nic(m, id, &x, NULL))
			continue;
		snprintf(buf, sizeof(buf), "%s/%u", x.device, x.port);
		if (!strcmp(buf, nic))
			return g->pos[id];
	}
	return -1;
}

/* Which test a NIC or host finding is about, from its numbers' units:
 * -1 when it does not say. */
static int finding_test(const struct rck_finding *f)
{
	for (unsigned int i = 0; i < rck_finding_value_count(f); i++) {
		const char *key;
		double v;
		size_t n;

		if (rck_finding_value(f, i, &key, &v))
			continue;
		n = strlen(key);
		if (n > 3 && !strcmp(key + n - 3, "_us"))
			return RCK_MESH_TEST_LAT;
		if (n > 5 && !strcmp(key + n - 5, "_gbps"))
			return RCK_MESH_TEST_BW;
	}
	return -1;
}

static int list_add(struct hm_grid *g, uint8_t mark, const char *fmt, ...) RCK_PRINTF(3, 4);
static int list_add(struct hm_grid *g, uint8_t mark, const char *fmt, ...)
{
	struct hm_entity *n = realloc(g->list, (g->n_list + 1) * sizeof(*n));
	char *raw;
	va_list ap;
	int len;

	if (!n)
		return -ENOMEM;
	g->list = n;
	va_start(ap, fmt);
	len = vasprintf(&raw, fmt, ap);
	va_end(ap);
	if (len < 0)
		return -ENOMEM;
	n[g->n_list].text = hm_clean(raw, 90);
	n[g->n_list].mark = mark;
	free(raw);
	if (!n[g->n_list].text)
		return -ENOMEM;
	g->n_list++;
	return 0;
}

static const char *value_text(const struct rck_finding *f, const char *key, enum rck_mesh_test test,
			      char *buf, size_t len)
{
	for (unsigned int i = 0; i < rck_finding_value_count(f); i++) {
		const char *k;
		double v;

		if (!rck_finding_value(f, i, &k, &v) && !strcmp(k, key)) {
			char num[32];

			hm_value_text(num, sizeof(num), test, v);
			snprintf(buf, len, ": %s", num);
			return buf;
		}
	}
	return "";
}

static int mark_link(struct hm_grid *g, const struct rck_mesh *m, const struct rck_finding *f,
		     uint8_t mark)
{
	long s = find_pos(g, m, rck_finding_host(f), rck_finding_nic(f));
	long d = find_pos(g, m, rck_finding_peer_host(f), rck_finding_peer_nic(f));
	bool bw = g->test == RCK_MESH_TEST_BW;
	struct hm_cell *c;
	char v[64];

	if (s < 0 || d < 0)
		return 0;
	c = &g->agg[(size_t)s / g->block * g->nb + (size_t)d / g->block];
	if (c->mark < mark)
		c->mark = mark;
	g->links_marked++;
	return list_add(g, mark, "%slink %s \xe2\x86\x92 %s%s", mark == HM_MARK_WARN ? "suspect " : "",
			g->full[s], g->full[d],
			value_text(f, bw ? "gbps" : "p50_us", g->test, v, sizeof(v)));
}

/* @key's value in @f; NAN when it has none. */
static double value_of(const struct rck_finding *f, const char *key)
{
	for (unsigned int i = 0; i < rck_finding_value_count(f); i++) {
		const char *k;
		double v;

		if (!rck_finding_value(f, i, &k, &v) && !strcmp(k, key))
			return v;
	}
	return NAN;
}

/* The sides a NIC finding is about: a NIC slow only to it (its links from
 * it within their floor) is marked on its column alone, one slow only
 * from it on its row; both when the finding does not tell. */
static uint8_t finding_sides(const struct rck_finding *f)
{
	double from = value_of(f, "from_ratio_to_limit"), to = value_of(f, "to_ratio_to_limit");

	if (from >= 1 && to < 1)
		return HM_SIDE_COL;
	if (to >= 1 && from < 1)
		return HM_SIDE_ROW;
	return HM_SIDE_ROW | HM_SIDE_COL;
}

static int mark_nics(struct hm_grid *g, const struct rck_mesh *m, const struct rck_finding *f,
		     uint8_t mark)
{
	const char *host = rck_finding_host(f), *nic = rck_finding_nic(f);
	uint8_t sides = finding_sides(f);
	unsigned int h, hit = 0;
	char *name;
	int rc;

	if (!host || rck_mesh_find_host(m, host, &h))
		return 0;
	for (unsigned int i = 0; i < rck_mesh_host_nic_count(m, h); i++) {
		unsigned int id;
		long p;

		if (rck_mesh_host_nic(m, h, i, &id))
			continue;
		p = g->pos[id];
		if (nic && find_pos(g, m, host, nic) != p)
			continue;
		if (g->nic_mark[p] < mark)
			g->nic_mark[p] = mark;
		g->nic_side[p] |= sides;
		hit++;
	}
	if (!hit)
		return 0;
	if (nic)
		g->nics_marked++;
	else
		g->hosts_marked++;
	if (!(name = hm_clean(host, 60)))
		return -ENOMEM;
	rc = list_add(g, mark, "%s %s%s%s degraded%s", nic ? "NIC" : "host", name, nic ? " " : "",
		      nic ? nic : "", sides == HM_SIDE_COL ? " (to it)" : sides == HM_SIDE_ROW ? " (from it)" : "");
	free(name);
	return rc;
}

/* The hosts the report drains: every NIC of theirs, and the legend. */
static int mark_drains(struct hm_grid *g, const struct rck_mesh *m, const struct rck_report *r)
{
	int rc = 0;

	for (unsigned int i = 0; !rc && i < rck_report_drain_count(r); i++) {
		const char *host = NULL;
		unsigned int h, id;
		char *name;

		if (rck_report_drain(r, i, &host, NULL) || !host || rck_mesh_find_host(m, host, &h))
			continue;
		for (unsigned int k = 0; k < rck_mesh_host_nic_count(m, h); k++)
			if (!rck_mesh_host_nic(m, h, k, &id))
				g->drained[g->pos[id]] = 1;
		g->hosts_drained++;
		if (!(name = hm_clean(host, 60)))
			return -ENOMEM;
		rc = list_add(g, HM_MARK_BAD, "host %s drained", name);
		free(name);
	}
	return rc;
}

int hm_grid_marks(struct hm_grid *g, const struct rck_mesh *m, const struct rck_report *r)
{
	unsigned int n = rck_report_finding_count(r);
	int rc = mark_drains(g, m, r);

	for (unsigned int i = 0; !rc && i < n; i++) {
		const struct rck_finding *f = rck_report_finding(r, i);
		enum rck_severity sev = rck_finding_severity(f);
		uint8_t mark = sev >= RCK_SEVERITY_DEGRADED ? HM_MARK_BAD : HM_MARK_WARN;
		int t;

		if (sev < RCK_SEVERITY_WARNING)
			continue;
		switch (rck_finding_code(f)) {
		case RCK_FINDING_LINK_SLOW:
			if (g->test == RCK_MESH_TEST_BW)
				rc = mark_link(g, m, f, mark);
			break;
		case RCK_FINDING_LINK_LATENCY:
			if (g->test == RCK_MESH_TEST_LAT)
				rc = mark_link(g, m, f, mark);
			break;
		case RCK_FINDING_NIC_DEGRADED:
		case RCK_FINDING_HOST_DEGRADED:
			t = finding_test(f);
			if (t < 0 || t == (int)g->test)
				rc = mark_nics(g, m, f, mark);
			break;
		case RCK_FINDING_FABRIC_SLOW:
			g->fabric_slow |= g->test == RCK_MESH_TEST_BW;
			break;
		default:
			break;
		}
	}
	return rc;
}
