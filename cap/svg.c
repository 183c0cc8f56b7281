/* The rocecap timeline as an SVG plot: share of each interval paused per
 * priority (lines, top); CE-marked and retransmitted packets per interval
 * (bars side by side, bottom, on one scale). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "cap_int.h"

#define W 900.0
#define H 420.0
#define L 70.0        /* left margin */
#define R 150.0       /* right margin (legend) */
#define TOP_Y 40.0
#define TOP_H 200.0
#define BOT_Y 290.0
#define BOT_H 90.0

static const char *const colors[CAP_NPAUSE] = {
	"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f",
};

static double xpos(double i, double n)
{
	return L + (W - L - R) * (n > 0 ? i / n : 0);
}

static void axes(FILE *f, double span_s, uint64_t bar_max)
{
	fprintf(f, "<text x='%g' y='24' font-size='15'>rocecap timeline</text>\n", L);
	fprintf(f, "<text x='12' y='%g' font-size='11' transform='rotate(-90 12 %g)'>paused %% of interval</text>\n",
		TOP_Y + TOP_H, TOP_Y + TOP_H);
	fprintf(f, "<text x='12' y='%g' font-size='11' transform='rotate(-90 12 %g)'>packets</text>\n",
		BOT_Y + BOT_H, BOT_Y + BOT_H);
	fprintf(f, "<rect x='%g' y='%g' width='%g' height='%g' fill='none' stroke='#444'/>\n", L, TOP_Y,
		W - L - R, TOP_H);
	fprintf(f, "<rect x='%g' y='%g' width='%g' height='%g' fill='none' stroke='#444'/>\n", L, BOT_Y,
		W - L - R, BOT_H);
	for (int i = 0; i <= 4; i++) {
		double y = TOP_Y + TOP_H - TOP_H * i / 4, x = L + (W - L - R) * i / 4;

		fprintf(f, "<line x1='%g' y1='%g' x2='%g' y2='%g' stroke='#ddd'/>\n", L, y, W - R, y);
		fprintf(f, "<text x='%g' y='%g' font-size='10' text-anchor='end'>%d</text>\n", L - 4, y + 3, i * 25);
		fprintf(f, "<text x='%g' y='%g' font-size='10' text-anchor='middle'>%.3g s</text>\n", x,
			BOT_Y + BOT_H + 14, span_s * i / 4);
	}
	if (bar_max)
		fprintf(f, "<text x='%g' y='%g' font-size='10' text-anchor='end'>%" PRIu64 "</text>\n", L - 4,
			BOT_Y + 8, bar_max);
	else
		fprintf(f, "<text x='%g' y='%g' font-size='12' fill='#666'>no CE-marked or retransmitted packets</text>\n",
			L + 10, BOT_Y + 20);
	fprintf(f, "<text x='%g' y='%g' font-size='10' text-anchor='end'>0</text>\n", L - 4, BOT_Y + BOT_H);
	fprintf(f, "<rect x='%g' y='%g' width='12' height='8' fill='#d62728'/>"
		   "<text x='%g' y='%g' font-size='11'>CE marked</text>\n", W - R + 10, BOT_Y, W - R + 26, BOT_Y + 8);
	fprintf(f, "<rect x='%g' y='%g' width='12' height='8' fill='#ff9f1c'/>"
		   "<text x='%g' y='%g' font-size='11'>retransmitted</text>\n", W - R + 10, BOT_Y + 16, W - R + 26,
		BOT_Y + 24);
}

static void bar(FILE *f, double x, double w, double share, const char *color)
{
	double h = BOT_H * share;

	if (h > 0)
		fprintf(f, "<rect x='%.2f' y='%.1f' width='%.2f' height='%.1f' fill='%s'/>\n", x, BOT_Y + BOT_H - h, w,
			h, color);
}

RCK_EXPORT int rck_cap_write_svg(const struct rck_cap *cap, FILE *f)
{
	size_t n = rck_cap_bucket_count(cap);
	double iv_us = (double)cap->interval_ns / 1000.0;
	uint64_t bar_max = 0;
	int legend = 0;

	for (size_t i = 0; i < n; i++) {
		if (cap->buckets[i].ce > bar_max)
			bar_max = cap->buckets[i].ce;
		if (cap->buckets[i].retrans > bar_max)
			bar_max = cap->buckets[i].retrans;
	}
	fprintf(f, "<?xml version='1.0' encoding='UTF-8'?>\n"
		   "<svg xmlns='http://www.w3.org/2000/svg' width='%g' height='%g' viewBox='0 0 %g %g' "
		   "font-family='sans-serif'>\n<rect width='100%%' height='100%%' fill='white'/>\n",
		W, H, W, H);
	axes(f, (double)n * iv_us / 1e6, bar_max);
	for (unsigned int p = 0; p < CAP_NPAUSE; p++) {
		if (!cap->pause[p].st[RCK_CAP_PAUSE_FRAMES])
			continue;
		fprintf(f, "<polyline fill='none' stroke='%s' stroke-width='1.5' points='", colors[p]);
		for (size_t i = 0; i < n; i++) {
			double share = cap->buckets[i].pause_us[p] / iv_us;
			double y = TOP_Y + TOP_H - TOP_H * (share > 1 ? 1 : share);

			fprintf(f, "%.1f,%.1f %.1f,%.1f ", xpos((double)i, (double)n), y,
				xpos((double)i + 1, (double)n), y);
		}
		fprintf(f, "'/>\n");
		fprintf(f, "<rect x='%g' y='%d' width='12' height='4' fill='%s'/>"
			   "<text x='%g' y='%d' font-size='11'>",
			W - R + 10, (int)TOP_Y + 16 * legend, colors[p], W - R + 26, (int)TOP_Y + 5 + 16 * legend);
		if (p == RCK_CAP_PAUSE_LEGACY)
			fprintf(f, "PAUSE</text>\n");
		else
			fprintf(f, "priority %u</text>\n", p);
		legend++;
	}
	if (!legend)
		fprintf(f, "<text x='%g' y='%g' font-size='12' fill='#666'>no PFC or PAUSE frames</text>\n",
			L + 10, TOP_Y + 20);
	for (size_t i = 0; i < n && bar_max; i++) {
		const struct cap_bucket *b = &cap->buckets[i];
		double x0 = xpos((double)i, (double)n), x1 = xpos((double)i + 1, (double)n);
		double w = (x1 - x0) / 2 > 0.75 ? (x1 - x0) / 2 - 0.25 : 0.5;

		bar(f, x0, w, (double)b->ce / (double)bar_max, "#d62728");
		bar(f, x0 + w, w, (double)b->retrans / (double)bar_max, "#ff9f1c");
	}
	fprintf(f, "</svg>\n");
	return fflush(f) || ferror(f) ? -EIO : 0;
}
