/* The heatmap's grid: NICs in host order, each (sender, receiver) cell with
 * the probe's last good measurement merged into its block; counts, median. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_int.h"
#include "heatmap_int.h"

/* Display labels: the host alone when every host has one NIC. */
#define LABEL_MAX 22
#define FULL_MAX 80

/* "host device/port" in at most @max code points, the host shortened first. */
static char *host_nic(const char *host, const char *nic, unsigned int max)
{
	size_t n = strlen(nic);
	unsigned int room = n + 1 + 6 < max ? max - (unsigned int)n - 1 : 6;
	char *h = hm_clean(host, room), *d = hm_clean(nic, max), *out = NULL;

	if (h && d && asprintf(&out, "%s %s", h, d) < 0)
		out = NULL;
	free(h);
	free(d);
	return out;
}

static int labels(struct hm_grid *g, const struct rck_mesh *m, bool multi)
{
	for (unsigned int p = 0; p < g->n; p++) {
		struct rck_mesh_nic nic = {.size = sizeof(nic)};
		unsigned int h = 0;
		char *buf;

		if (rck_mesh_get_nic(m, g->order[p], &nic, &h))
			return -EINVAL;
		g->down[p] = rck_mesh_host_unreachable(m, h) != NULL;
		if (asprintf(&buf, "%s/%u", nic.device, nic.port) < 0)
			return -ENOMEM;
		g->full[p] = host_nic(rck_mesh_host_name(m, h), buf, FULL_MAX);
		/* A long host name is shortened, never the NIC that tells rails apart. */
		g->label[p] = multi ? host_nic(rck_mesh_host_name(m, h), buf, LABEL_MAX)
				    : hm_clean(rck_mesh_host_name(m, h), LABEL_MAX);
		free(buf);
		if (!g->full[p] || !g->label[p])
			return -ENOMEM;
	}
	return 0;
}

/* Positions host by host, each host's NICs in its own order. */
static int place(struct hm_grid *g, const struct rck_mesh *m)
{
	unsigned int p = 0;
	bool multi = false;

	for (unsigned int h = 0; h < g->hosts; h++) {
		unsigned int k = rck_mesh_host_nic_count(m, h);

		multi |= k > 1;
		for (unsigned int i = 0; i < k; i++) {
			unsigned int nic;

			if (rck_mesh_host_nic(m, h, i, &nic) || nic >= g->n || p >= g->n)
				return -EINVAL;
			g->order[p] = nic;
			g->pos[nic] = p++;
		}
	}
	return p == g->n ? labels(g, m, multi) : -EINVAL;
}

static enum hm_state state_of(enum rck_mesh_status s)
{
	switch (s) {
	case RCK_MESH_OK:
		return HM_OK;
	case RCK_MESH_FAILED:
		return HM_FAILED;
	case RCK_MESH_UNREACHABLE:
		return HM_UNREACHABLE;
	default:
		return HM_SKIPPED;
	}
}

/* The last attempt that measured; else the outcome of the last one. */
static void fill_cell(struct hm_cell *c, const struct rck_mesh *m, unsigned int cell,
		      enum rck_mesh_test test)
{
	unsigned int n = rck_mesh_cell_attempts(m, cell);

	c->state = HM_SKIPPED;
	for (unsigned int a = n; a-- > 0;) {
		struct rck_mesh_meas x = {.size = sizeof(x)};
		double v;

		if (rck_mesh_cell_meas(m, cell, a, &x))
			continue;
		v = test == RCK_MESH_TEST_BW ? x.gbps : x.lat_p50_us;
		if (x.status == RCK_MESH_OK && isfinite(v) && v >= 0) {
			c->state = HM_OK;
			c->value = (float)v;
			return;
		}
		if (a == n - 1)
			c->state = x.status == RCK_MESH_OK ? HM_FAILED : state_of(x.status);
	}
}

static int cells(struct hm_grid *g, const struct rck_mesh *m)
{
	unsigned int n = rck_mesh_cell_count(m), ok = 0;
	bool median = g->median <= 0;
	double *v = median ? malloc((n ? n : 1) * sizeof(*v)) : NULL;

	if (median && !v)
		return -ENOMEM;
	for (unsigned int i = 0; i < n; i++) {
		struct hm_cell c = {0};
		enum rck_mesh_test t;
		unsigned int s, d;

		if (rck_mesh_cell(m, i, &t, &s, &d) || t != g->test || s >= g->n || d >= g->n)
			continue;
		fill_cell(&c, m, i, g->test);
		g->count[c.state]++;
		if (median && c.state == HM_OK)
			v[ok++] = c.value;
		hm_grid_add(g, g->pos[s], g->pos[d], &c);
	}
	if (median)
		g->median = an_median(v, ok);
	free(v);
	return 0;
}

int hm_grid_build(struct hm_grid *g, const struct rck_mesh *m, enum rck_mesh_test test,
		  const struct rck_report *r)
{
	return hm_grid_build_topo(g, m, test, r, NULL);
}

int hm_grid_build_topo(struct hm_grid *g, const struct rck_mesh *m, enum rck_mesh_test test,
		       const struct rck_report *r, const struct rck_topology *t)
{
	int rc;

	memset(g, 0, sizeof(*g));
	g->test = test;
	g->n = rck_mesh_nic_count(m);
	g->hosts = rck_mesh_host_count(m);
	if (!g->n)
		return -EINVAL;
	if (r) {
		struct rck_report_links l = {.size = sizeof(l)};

		g->verdict = rck_verdict_name(rck_report_verdict(r));
		if (!rck_report_links(r, &l))
			g->median = test == RCK_MESH_TEST_BW ? l.centre_gbps : l.median_lat_us;
	}
	g->pos = calloc(g->n, sizeof(*g->pos));
	g->order = calloc(g->n, sizeof(*g->order));
	g->label = calloc(g->n, sizeof(*g->label));
	g->full = calloc(g->n, sizeof(*g->full));
	g->nic_mark = calloc(g->n, 1);
	g->down = calloc(g->n, 1);
	g->nic_side = calloc(g->n, 1);
	g->drained = calloc(g->n, 1);
	g->title = "rocecheck mesh";
	if (!g->pos || !g->order || !g->label || !g->full || !g->nic_mark || !g->down || !g->nic_side ||
	    !g->drained)
		rc = -ENOMEM;
	else
		rc = hm_grid_blocks(g);
	if (!rc)
		rc = place(g, m);
	if (!rc && t)
		rc = hm_grid_topology(g, m, t);
	if (!rc)
		rc = cells(g, m);
	if (!rc && r)
		rc = hm_grid_marks(g, m, r);
	if (rc)
		hm_grid_free(g);
	return rc;
}

void hm_grid_free(struct hm_grid *g)
{
	for (unsigned int p = 0; g->label && g->full && p < g->n; p++) {
		free(g->label[p]);
		free(g->full[p]);
	}
	for (unsigned int i = 0; i < g->n_list; i++)
		free(g->list[i].text);
	free(g->agg);
	free(g->order);
	free(g->pos);
	free(g->label);
	free(g->full);
	free(g->nic_mark);
	free(g->down);
	free(g->nic_side);
	free(g->drained);
	free(g->list);
	memset(g, 0, sizeof(*g));
}
