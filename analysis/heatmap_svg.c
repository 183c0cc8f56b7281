/* The heatmap as SVG, written by hand: every string drawn goes through one
 * escaping helper (host names are input), numbers never through the locale. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "heatmap_int.h"

struct svg {
	struct hm_canvas c; /* first: the canvas callbacks get this */
	FILE *f;
};

/* @s is clean UTF-8 (hm_clean): only XML's five specials need entities. */
static void esc(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '\'': fputs("&apos;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
	}
}

/* A coordinate: one decimal, none when whole. */
static const char *num(char *buf, double v)
{
	size_t n;

	hm_num(buf, 32, v, 1);
	n = strlen(buf);
	if (n > 2 && buf[n - 2] == '.' && buf[n - 1] == '0')
		buf[n - 2] = 0;
	return buf;
}

static void paint(FILE *f, const char *attr, uint32_t rgb)
{
	if (rgb == HM_NONE)
		fprintf(f, " %s='none'", attr);
	else
		fprintf(f, " %s='#%06x'", attr, (unsigned int)rgb);
}

static void rect(struct hm_canvas *c, double x, double y, double w, double h, uint32_t fill,
		 uint32_t stroke, double sw, bool dashed, const char *tip)
{
	FILE *f = ((struct svg *)c)->f;
	char a[32], b[32], d[32], e[32];

	fprintf(f, "<rect x='%s' y='%s' width='%s' height='%s'", num(a, x), num(b, y), num(d, w),
		num(e, h));
	paint(f, "fill", fill);
	if (stroke != HM_NONE) {
		paint(f, "stroke", stroke);
		fprintf(f, " stroke-width='%s'%s", num(a, sw), dashed ? " stroke-dasharray='4 3'" : "");
	}
	if (!tip) {
		fputs("/>\n", f);
		return;
	}
	fputs("><title>", f);
	esc(f, tip);
	fputs("</title></rect>\n", f);
}

static void line(struct hm_canvas *c, double x1, double y1, double x2, double y2, uint32_t rgb,
		 double w)
{
	FILE *f = ((struct svg *)c)->f;
	char a[32], b[32], d[32], e[32], s[32];

	fprintf(f, "<line x1='%s' y1='%s' x2='%s' y2='%s' stroke-width='%s'", num(a, x1), num(b, y1),
		num(d, x2), num(e, y2), num(s, w));
	paint(f, "stroke", rgb);
	fputs("/>\n", f);
}

static void tri(struct hm_canvas *c, const double xy[6], uint32_t fill)
{
	FILE *f = ((struct svg *)c)->f;
	char a[32], b[32];

	fputs("<path d='", f);
	for (int i = 0; i < 3; i++)
		fprintf(f, "%s%s %s ", i ? "L" : "M", num(a, xy[2 * i]), num(b, xy[2 * i + 1]));
	fputs("Z'", f);
	paint(f, "fill", fill);
	fputs("/>\n", f);
}

static void text(struct hm_canvas *c, double x, double y, double size, enum hm_anchor an,
		 bool vertical, bool bold, uint32_t rgb, const char *s)
{
	static const char *const anchor[] = {"start", "middle", "end"};
	FILE *f = ((struct svg *)c)->f;
	char a[32], b[32], d[32];

	fprintf(f, "<text x='%s' y='%s' font-size='%s'", num(a, x), num(b, y), num(d, size));
	if (an != HM_START)
		fprintf(f, " text-anchor='%s'", anchor[an]);
	if (bold)
		fputs(" font-weight='bold'", f);
	if (rgb != HM_RGB(0x22, 0x22, 0x22))
		paint(f, "fill", rgb);
	if (vertical)
		fprintf(f, " transform='rotate(-90 %s %s)'", a, b);
	fputc('>', f);
	esc(f, s);
	fputs("</text>\n", f);
}

int hm_write_svg(const struct hm_grid *g, FILE *out)
{
	struct svg s = {.c = {.rect = rect, .line = line, .tri = tri, .text = text}, .f = out};
	double w, h;
	char a[32], b[32];

	hm_layout_size(g, &w, &h);
	fprintf(out, "<?xml version='1.0' encoding='UTF-8'?>\n"
		     "<svg xmlns='http://www.w3.org/2000/svg' version='1.1' width='%s' height='%s' "
		     "viewBox='0 0 %s %s' font-family='DejaVu Sans, Verdana, sans-serif' "
		     "fill='#222222' shape-rendering='crispEdges'>\n",
		num(a, w), num(b, h), a, b);
	hm_draw(g, &s.c);
	fputs("</svg>\n", out);
	if (s.c.err)
		return s.c.err;
	return fflush(out) || ferror(out) ? -EIO : 0;
}
