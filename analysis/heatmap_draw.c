/* The heatmap's page: title, labelled grid, marks on cells and axes, and a
 * legend with the scale, the states and the degraded entities, drawn on
 * either format's canvas. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heatmap_int.h"

#define GRID_BUDGET 900.0 /* px the grid may take */
#define TITLE_H 64.0
#define LEGEND_W 330.0
#define LIST_MAX 14
#define INK HM_RGB(0x22, 0x22, 0x22)
#define RED HM_RGB(0xd0, 0x00, 0x1c)
#define GREY HM_RGB(0x88, 0x88, 0x88)

struct page {
	double cs;       /* block (cell) size */
	double fs;       /* label font size */
	unsigned int step; /* label every step-th block */
	double gx, gy;   /* grid origin */
	double grid;     /* grid side */
	double mx;       /* right of the grid: NIC marks (and names when aggregated) */
	double lx;       /* legend's left */
	double w, h;
};

static unsigned int label_chars(const struct hm_grid *g)
{
	unsigned int max = 4;

	for (unsigned int p = 0; p < g->n; p++) {
		unsigned int n = 0;

		for (const unsigned char *s = (const unsigned char *)g->label[p]; *s; s++)
			n += (*s & 0xc0) != 0x80;
		max = n > max ? n : max;
	}
	return max;
}

static void layout(const struct hm_grid *g, struct page *pg)
{
	double lw, marks;

	pg->cs = floor(GRID_BUDGET / g->nb);
	pg->cs = pg->cs > 40 ? 40 : pg->cs < 5 ? 5 : pg->cs;
	pg->fs = g->block > 1 ? 10 : fmin(12, fmax(7, floor(pg->cs * 0.75)));
	pg->step = (unsigned int)ceil((pg->fs + 3) / pg->cs);
	pg->grid = pg->cs * g->nb;
	lw = label_chars(g) * pg->fs * 0.62 + 12;
	pg->gx = round(14 + lw);
	pg->gy = round(TITLE_H + lw + 8);
	/* Aggregated, the degraded NICs are named beside their marks. */
	marks = 18 + (g->block > 1 ? 26 * 0.62 * 10 : 0);
	pg->mx = pg->gx + pg->grid + 4;
	pg->lx = round(pg->mx + marks + 12);
	pg->w = pg->lx + LEGEND_W;
	pg->h = fmax(pg->gy + pg->grid + 24, TITLE_H + 420 + (LIST_MAX + 2) * 15);
}

void hm_layout_size(const struct hm_grid *g, double *w, double *h)
{
	struct page pg;

	layout(g, &pg);
	*w = ceil(pg.w);
	*h = ceil(pg.h);
}

void hm_layout_grid(const struct hm_grid *g, double *x, double *y, double *cs)
{
	struct page pg;

	layout(g, &pg);
	*x = pg.gx;
	*y = pg.gy;
	*cs = pg.cs;
}

static void title(const struct hm_grid *g, struct hm_canvas *c)
{
	bool bw = g->test == RCK_MESH_TEST_BW;
	char buf[400], med[32];

	snprintf(buf, sizeof(buf), "rocecheck mesh: %s%s%s", bw ? "bandwidth, Gb/s" : "latency p50, \xc2\xb5s",
		 g->verdict ? ", verdict " : "", g->verdict ? g->verdict : "");
	c->text(c, 14, 24, 17, HM_START, false, true, INK, buf);
	snprintf(buf, sizeof(buf),
		 "%u hosts, %u NICs; %u probes: %u ok, %u failed, %u unreachable, %u skipped",
		 g->hosts, g->n, g->count[HM_OK] + g->count[HM_FAILED] + g->count[HM_UNREACHABLE] +
		 g->count[HM_SKIPPED], g->count[HM_OK], g->count[HM_FAILED], g->count[HM_UNREACHABLE],
		 g->count[HM_SKIPPED]);
	c->text(c, 14, 42, 12, HM_START, false, false, INK, buf);
	hm_num(med, sizeof(med), g->median, g->median < 10 ? 2 : 1);
	if (!g->verdict) {
		snprintf(buf, sizeof(buf), "no analysis report: nothing marked; median of the cells %s %s",
			 g->median > 0 ? med : "n/a", bw ? "Gb/s" : "\xc2\xb5s");
		c->text(c, 14, 58, 12, HM_START, false, false, INK, buf);
		return;
	}
	snprintf(buf, sizeof(buf), "degraded: %u link%s, %u NIC%s, %u host%s%s; fabric median %s %s",
		 g->links_marked, g->links_marked == 1 ? "" : "s", g->nics_marked,
		 g->nics_marked == 1 ? "" : "s", g->hosts_marked, g->hosts_marked == 1 ? "" : "s",
		 g->fabric_slow ? "; the whole fabric is slow" : "", g->median > 0 ? med : "n/a",
		 bw ? "Gb/s" : "\xc2\xb5s");
	c->text(c, 14, 58, 12, HM_START, false, g->links_marked + g->nics_marked + g->hosts_marked > 0,
		g->links_marked + g->nics_marked + g->hosts_marked ? RED : INK, buf);
}

static uint32_t block_colour(const struct hm_grid *g, const struct hm_cell *b)
{
	return b->state == HM_OK ? hm_value_colour(g->test, b->value, g->median)
				 : hm_state_colour(b->state);
}

static void cell_tip(const struct hm_grid *g, unsigned int r, unsigned int col,
		     const struct hm_cell *b, char *buf, size_t len)
{
	static const char *const what[] = {"not probed", "skipped", "", "unreachable", "failed"};
	char v[32];

	hm_num(v, sizeof(v), b->value, b->value < 10 ? 2 : 1);
	snprintf(buf, len, "%s \xe2\x86\x92 %s: %s%s", g->full[r], g->full[col],
		 b->state == HM_OK ? v : what[b->state],
		 b->state == HM_OK ? (g->test == RCK_MESH_TEST_BW ? " Gb/s" : " \xc2\xb5s") : "");
}

static void cells(const struct hm_grid *g, const struct page *pg, struct hm_canvas *c)
{
	char tip[400];

	c->rect(c, pg->gx, pg->gy, pg->grid, pg->grid, hm_state_colour(HM_EMPTY), HM_NONE, 0, false,
		NULL);
	for (unsigned int r = 0; r < g->nb; r++)
		for (unsigned int k = 0; k < g->nb; k++) {
			const struct hm_cell *b = &g->agg[(size_t)r * g->nb + k];

			if (b->state == HM_EMPTY)
				continue;
			if (g->block == 1)
				cell_tip(g, r, k, b, tip, sizeof(tip));
			c->rect(c, pg->gx + k * pg->cs, pg->gy + r * pg->cs, pg->cs, pg->cs,
				block_colour(g, b), HM_NONE, 0, false, g->block == 1 ? tip : NULL);
		}
	/* Marks last, over every cell; a block's mark ring spills over its
	 * neighbours so a single link stays visible at one pixel a NIC. */
	for (unsigned int r = 0; r < g->nb; r++)
		for (unsigned int k = 0; k < g->nb; k++) {
			const struct hm_cell *b = &g->agg[(size_t)r * g->nb + k];
			double pad = g->block > 1 ? 3 : 0, sw = fmax(2, pg->cs / 10);

			if (b->mark)
				c->rect(c, pg->gx + k * pg->cs - pad + sw / 2,
					pg->gy + r * pg->cs - pad + sw / 2, pg->cs + 2 * pad - sw,
					pg->cs + 2 * pad - sw, HM_NONE, INK, sw, b->mark == HM_MARK_WARN,
					NULL);
		}
	c->rect(c, pg->gx, pg->gy, pg->grid, pg->grid, HM_NONE, GREY, 1, false, NULL);
}

/* Host labels on the left and top; every step-th block when aggregated. */
static void labels(const struct hm_grid *g, const struct page *pg, struct hm_canvas *c)
{
	for (unsigned int b = 0; b < g->nb; b += pg->step) {
		unsigned int p = b * g->block;
		bool bad = g->block == 1 && g->nic_mark[p] != HM_MARK_NONE;
		double mid = b * pg->cs + pg->cs / 2 + pg->fs * 0.35;
		uint32_t col = bad ? RED : g->down[p] ? GREY : INK;

		c->text(c, pg->gx - 6, pg->gy + mid, pg->fs, HM_END, false, bad, col, g->label[p]);
		c->text(c, pg->gx + mid, pg->gy - 6, pg->fs, HM_START, true, bad, col, g->label[p]);
	}
}

/* Triangles right of the rows and below the columns of degraded NICs;
 * aggregated, their names beside them (as many as fit). */
static void nic_marks(const struct hm_grid *g, const struct page *pg, struct hm_canvas *c)
{
	double last_y = -1e9;

	for (unsigned int p = 0; p < g->n; p++) {
		double y, x, t[6];

		if (!g->nic_mark[p])
			continue;
		y = pg->gy + (p / g->block) * pg->cs + pg->cs / 2;
		x = pg->gx + (p / g->block) * pg->cs + pg->cs / 2;
		t[0] = pg->mx; t[1] = y; t[2] = pg->mx + 12; t[3] = y - 6; t[4] = pg->mx + 12; t[5] = y + 6;
		c->tri(c, t, RED);
		t[0] = x; t[1] = pg->gy + pg->grid + 4; t[2] = x - 6; t[3] = t[1] + 12; t[4] = x + 6;
		t[5] = t[3];
		c->tri(c, t, RED);
		if (g->block > 1 && y - last_y >= 12) {
			c->text(c, pg->mx + 16, y + 4, 10, HM_START, false, true, RED, g->full[p]);
			last_y = y;
		}
	}
}

static void swatch(struct hm_canvas *c, double x, double y, uint32_t fill, uint32_t stroke,
		   bool dashed, const char *text)
{
	c->rect(c, x, y - 10, 14, 14, fill, stroke, stroke == HM_NONE ? 0 : 2, dashed, NULL);
	c->text(c, x + 22, y + 1, 11, HM_START, false, false, INK, text);
}

static double scale(const struct hm_grid *g, double x, double y, struct hm_canvas *c)
{
	unsigned int n = hm_scale_stops();
	bool bw = g->test == RCK_MESH_TEST_BW;
	const double seg = 30;
	char buf[96], v[32];

	snprintf(buf, sizeof(buf), "%s, against the fabric median", bw ? "Gb/s" : "latency p50, \xc2\xb5s");
	c->text(c, x, y, 12, HM_START, false, true, INK, buf);
	y += 10;
	/* Best at the top; each stop a tick, colours between them interpolated. */
	for (unsigned int i = n; i-- > 0;) {
		double ty = y + (n - 1 - i) * seg;

		for (int k = 0; i > 0 && k < 6; k++) {
			double a = hm_scale_value(g->test, i, 1), b = hm_scale_value(g->test, i - 1, 1);
			double val = a + (b - a) * (k + 0.5) / 6;

			c->rect(c, x, ty + k * seg / 6, 22, seg / 6 + 0.5,
				hm_value_colour(g->test, val, 1), HM_NONE, 0, false, NULL);
		}
		c->line(c, x + 22, ty, x + 27, ty, INK, 1);
		hm_num(v, sizeof(v), hm_scale_value(g->test, i, g->median),
		       hm_scale_value(g->test, i, g->median) < 10 ? 2 : 1);
		snprintf(buf, sizeof(buf), "%s (%u%%)%s", g->median > 0 ? v : "n/a",
			 (unsigned int)lround(100 * hm_scale_value(g->test, i, 1)),
			 i == n - 1 ? " and better" : i == 0 ? " and worse" : "");
		c->text(c, x + 31, ty + 4, 11, HM_START, false, false, INK, buf);
	}
	c->rect(c, x, y, 22, seg * (n - 1), HM_NONE, GREY, 1, false, NULL);
	return y + seg * (n - 1) + 28;
}

static void legend(const struct hm_grid *g, const struct page *pg, struct hm_canvas *c)
{
	double x = pg->lx, y = pg->gy > TITLE_H + 40 ? pg->gy : TITLE_H + 40;
	char buf[160];

	y = scale(g, x, y, c);
	swatch(c, x, y, hm_state_colour(HM_FAILED), HM_NONE, false, "probe failed");
	swatch(c, x, y += 20, hm_state_colour(HM_UNREACHABLE), HM_NONE, false, "host unreachable");
	swatch(c, x, y += 20, hm_state_colour(HM_SKIPPED), HM_NONE, false, "skipped");
	swatch(c, x, y += 20, hm_state_colour(HM_EMPTY), GREY, false, "not probed");
	swatch(c, x, y += 20, HM_NONE, INK, false, "degraded link (report)");
	swatch(c, x, y += 20, HM_NONE, INK, true, "suspect link, unconfirmed");
	y += 20;
	{
		double t[6] = {x + 1, y - 3, x + 13, y - 9, x + 13, y + 3};

		c->tri(c, t, RED);
		c->text(c, x + 22, y + 1, 11, HM_START, false, false, INK, "degraded NIC or host");
	}
	if (g->block > 1) {
		snprintf(buf, sizeof(buf), "each cell: the worst of %u \xc3\x97 %u NIC pairs", g->block,
			 g->block);
		c->text(c, x, y += 24, 11, HM_START, false, true, INK, buf);
	}
	if (!g->n_list)
		return;
	c->text(c, x, y += 26, 12, HM_START, false, true, RED, "Degraded:");
	for (unsigned int i = 0; i < g->n_list && i < LIST_MAX; i++)
		c->text(c, x, y += 15, 10, HM_START, false, false,
			g->list[i].mark == HM_MARK_BAD ? RED : INK, g->list[i].text);
	if (g->n_list > LIST_MAX) {
		snprintf(buf, sizeof(buf), "\xe2\x80\xa6 and %u more (see the report)", g->n_list - LIST_MAX);
		c->text(c, x, y += 15, 10, HM_START, false, false, INK, buf);
	}
}

void hm_draw(const struct hm_grid *g, struct hm_canvas *c)
{
	struct page pg;

	layout(g, &pg);
	c->rect(c, 0, 0, ceil(pg.w), ceil(pg.h), HM_RGB(0xff, 0xff, 0xff), HM_NONE, 0, false, NULL);
	title(g, c);
	cells(g, &pg, c);
	labels(g, &pg, c);
	nic_marks(g, &pg, c);
	legend(g, &pg, c);
}
