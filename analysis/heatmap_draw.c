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
#define LIST_W_MAX 700.0 /* the legend's list of degraded entities, widest */
#define LIST_MAX 14
#define TIPS_BUDGET (2.5 * 1024 * 1024)
#define NAME_CHARS 26     /* degraded NICs named beside an aggregated grid */
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
	bool tips;       /* tooltips on cells: only while they fit the size budget */
};

/* Width of clean UTF-8 @s at font size @fs, estimated on the wide side
 * (DejaVu Sans: Latin about 0.62 em, bold 0.68; other scripts wider, CJK
 * and symbols a full em and more), so labels never run off the page. */
static double text_width(const char *s, double fs, bool bold)
{
	const unsigned char *p = (const unsigned char *)s;
	double em = 0;

	while (*p) {
		unsigned int n = *p < 0x80 ? 1 : *p < 0xe0 ? 2 : *p < 0xf0 ? 3 : 4;

		/* 1 byte: ASCII; 2: Latin to Arabic; 3 and 4: the rest. */
		em += n == 1 ? (bold ? 0.68 : 0.62) : n == 2 ? 0.8 : 1.2;
		for (unsigned int k = 0; k < n && *p; k++)
			p++;
	}
	return em * fs;
}

static double widest(char *const *s, unsigned int n, double fs, bool bold)
{
	double max = 0;

	for (unsigned int i = 0; i < n; i++)
		max = fmax(max, text_width(s[i], fs, bold));
	return max;
}

/* @s shortened until it fits @w at size @fs (an ellipsis at its end);
 * NULL on ENOMEM. */
static char *fit(const char *s, double fs, double w)
{
	char *out = hm_clean(s, 200);

	for (unsigned int max = 196; out && max >= 8 && text_width(out, fs, false) > w; max -= 4) {
		free(out);
		out = hm_clean(s, max);
	}
	return out;
}

/* Width of a degraded NIC's name beside an aggregated grid. */
static double mark_name_width(const struct hm_grid *g)
{
	double max = 0;

	for (unsigned int p = 0; g->block > 1 && p < g->n; p++)
		if (g->nic_mark[p]) {
			char *name = hm_clean(g->full[p], NAME_CHARS);

			max = fmax(max, name ? text_width(name, 10, true) : 0);
			free(name);
		}
	return max;
}

static double list_width(const struct hm_grid *g)
{
	double max = 0;

	for (unsigned int i = 0; i < g->n_list && i < LIST_MAX; i++)
		max = fmax(max, text_width(g->list[i].text, 10, false));
	return max;
}

/* Bytes of the longest of @s[0..n) once escaped for XML. */
static size_t longest_escaped(char *const *s, unsigned int n)
{
	size_t max = 0;

	for (unsigned int i = 0; i < n; i++) {
		size_t len = 0;

		for (const char *p = s[i]; *p; p++)
			len += strchr("&<>'\"", *p) ? 6 : 1;
		max = len > max ? len : max;
	}
	return max;
}

/* Tooltips name two NICs a cell (two ranges of labels a block): with long
 * or escaped names on 128 x 128 cells they alone could pass 5 MB, so they
 * are left out past TIPS_BUDGET bytes. */
static bool tips_fit(const struct hm_grid *g)
{
	size_t each = g->block == 1 ? 2 * longest_escaped(g->full, g->n)
				    : 4 * longest_escaped(g->label, g->n);

	return (double)g->nb * g->nb * (each + 60) <= TIPS_BUDGET;
}

static void layout(const struct hm_grid *g, struct page *pg)
{
	double lw, marks;

	pg->cs = floor(GRID_BUDGET / g->nb);
	pg->cs = pg->cs > 40 ? 40 : pg->cs < 5 ? 5 : pg->cs;
	pg->fs = g->block > 1 ? 10 : fmin(12, fmax(7, floor(pg->cs * 0.75)));
	pg->step = (unsigned int)ceil((pg->fs + 3) / pg->cs);
	pg->grid = pg->cs * g->nb;
	lw = fmax(widest(g->label, g->n, pg->fs, true), 4 * pg->fs) + 12;
	pg->gx = round(14 + lw);
	pg->gy = round(TITLE_H + lw + 8);
	/* Aggregated, the degraded NICs are named beside their marks. */
	marks = 18 + mark_name_width(g) + 4;
	pg->mx = pg->gx + pg->grid + 4;
	pg->lx = round(pg->mx + marks + 12);
	pg->w = pg->lx + fmax(LEGEND_W, fmin(LIST_W_MAX, list_width(g)) + 12);
	pg->h = fmax(pg->gy + pg->grid + 24, TITLE_H + 420 + (LIST_MAX + 2) * 15);
	pg->tips = tips_fit(g);
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

	snprintf(buf, sizeof(buf), "%s: %s%s%s", g->title, bw ? "bandwidth" : "latency p50",
		 g->verdict ? ", verdict " : "", g->verdict ? g->verdict : "");
	c->text(c, 14, 24, 17, HM_START, false, true, INK, buf);
	snprintf(buf, sizeof(buf),
		 "%u hosts, %u NICs; %u probes: %u ok, %u failed, %u unreachable, %u skipped",
		 g->hosts, g->n, g->count[HM_OK] + g->count[HM_FAILED] + g->count[HM_UNREACHABLE] +
		 g->count[HM_SKIPPED], g->count[HM_OK], g->count[HM_FAILED], g->count[HM_UNREACHABLE],
		 g->count[HM_SKIPPED]);
	c->text(c, 14, 42, 12, HM_START, false, false, INK, buf);
	hm_value_text(med, sizeof(med), g->test, g->median);
	if (!g->verdict) {
		snprintf(buf, sizeof(buf), "no analysis report: nothing marked; median of the cells %s",
			 g->median > 0 ? med : "n/a");
		c->text(c, 14, 58, 12, HM_START, false, false, INK, buf);
		return;
	}
	snprintf(buf, sizeof(buf), "degraded: %u link%s, %u NIC%s, %u host%s%s; drained: %u host%s; fabric median %s",
		 g->links_marked, g->links_marked == 1 ? "" : "s", g->nics_marked,
		 g->nics_marked == 1 ? "" : "s", g->hosts_marked, g->hosts_marked == 1 ? "" : "s",
		 g->fabric_slow ? "; the whole fabric is slow" : "", g->hosts_drained,
		 g->hosts_drained == 1 ? "" : "s", g->median > 0 ? med : "n/a");
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

	hm_value_text(v, sizeof(v), g->test, b->value);
	snprintf(buf, len, "%s \xe2\x86\x92 %s: %s", g->full[r], g->full[col],
		 b->state == HM_OK ? v : what[b->state]);
}

/* A block's tooltip: its NIC ranges and its worst cell. */
static void block_tip(const struct hm_grid *g, unsigned int r, unsigned int col,
		      const struct hm_cell *b, char *buf, size_t len)
{
	unsigned int r1 = r * g->block, c1 = col * g->block;
	unsigned int r2 = r1 + g->block - 1 < g->n ? r1 + g->block - 1 : g->n - 1;
	unsigned int c2 = c1 + g->block - 1 < g->n ? c1 + g->block - 1 : g->n - 1;
	char v[32];

	hm_value_text(v, sizeof(v), g->test, b->value);
	snprintf(buf, len, "%s\xe2\x80\xa6%s \xe2\x86\x92 %s\xe2\x80\xa6%s: %s%s", g->label[r1],
		 g->label[r2], g->label[c1], g->label[c2],
		 b->state == HM_FAILED ? "a probe failed" : b->state == HM_UNREACHABLE ? "a host unreachable"
		 : b->state == HM_OK ? "worst " : "skipped", b->state == HM_OK ? v : "");
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
			if (pg->tips && g->block == 1)
				cell_tip(g, r, k, b, tip, sizeof(tip));
			else if (pg->tips)
				block_tip(g, r, k, b, tip, sizeof(tip));
			c->rect(c, pg->gx + k * pg->cs, pg->gy + r * pg->cs, pg->cs, pg->cs,
				block_colour(g, b), HM_NONE, 0, false, pg->tips ? tip : NULL);
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
		bool row = bad && g->nic_side[p] & HM_SIDE_ROW, colm = bad && g->nic_side[p] & HM_SIDE_COL;
		bool drain = g->block == 1 && g->drained[p];
		double mid = b * pg->cs + pg->cs / 2 + pg->fs * 0.35;
		uint32_t base = g->down[p] ? GREY : INK;

		/* A drained host's rows: bold red and a red bar left of the label. */
		if (drain)
			c->rect(c, 2, pg->gy + b * pg->cs, 4, pg->cs, RED, HM_NONE, 0, false, NULL);
		c->text(c, pg->gx - 6, pg->gy + mid, pg->fs, HM_END, false, row || drain, row || drain ? RED : base,
			g->label[p]);
		c->text(c, pg->gx + mid, pg->gy - 6, pg->fs, HM_START, true, colm || drain, colm || drain ? RED : base,
			g->label[p]);
	}
	/* What the axes are: the corner left of the column labels. */
	c->text(c, pg->gx - 6, pg->gy - 22, 10, HM_END, false, true, INK, "rows: sender \xe2\x86\x92");
	c->text(c, pg->gx - 6, pg->gy - 8, 10, HM_END, false, true, INK, "columns: receiver \xe2\x86\x93");
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
		if (g->nic_side[p] & HM_SIDE_ROW)
			c->tri(c, t, RED);
		t[0] = x; t[1] = pg->gy + pg->grid + 4; t[2] = x - 6; t[3] = t[1] + 12; t[4] = x + 6;
		t[5] = t[3];
		if (g->nic_side[p] & HM_SIDE_COL)
			c->tri(c, t, RED);
		if (g->block > 1 && y - last_y >= 12) {
			/* Short enough for the room left of the legend. */
			char *name = hm_clean(g->full[p], NAME_CHARS);

			if (name)
				c->text(c, pg->mx + 16, y + 4, 10, HM_START, false, true, RED, name);
			free(name);
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
	char buf[96], v[HM_STOPS_MAX][32];
	const char *unit = "\xc2\xb5s";
	double mul = 1;
	int dec = 0;

	if (bw)
		unit = hm_bw_unit(g->median, &mul);
	/* Ticks in one unit, three significant digits, more when two would
	 * read the same (a slow fabric's ticks are close together). */
	for (bool dup = true; dup && dec <= 3; dec++) {
		dup = false;
		for (unsigned int i = 0; i < n && i < HM_STOPS_MAX; i++) {
			hm_sig3(v[i], sizeof(v[i]), hm_scale_value(g->test, i, g->median) * mul, dec);
			dup |= i > 0 && !strcmp(v[i], v[i - 1]);
		}
	}
	snprintf(buf, sizeof(buf), "%s%s, against the fabric median", bw ? "" : "latency p50, ", unit);
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
		snprintf(buf, sizeof(buf), "%s (%u%%)%s", g->median > 0 && i < HM_STOPS_MAX ? v[i] : "n/a",
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
	for (unsigned int i = 0; i < g->n_list && i < LIST_MAX; i++) {
		char *t = fit(g->list[i].text, 10, LIST_W_MAX);

		y += 15;
		if (t)
			c->text(c, x, y, 10, HM_START, false, false,
				g->list[i].mark == HM_MARK_BAD ? RED : INK, t);
		free(t);
	}
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
