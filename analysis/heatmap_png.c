/* The heatmap as PNG: the same page drawn with cairo (loaded at run time,
 * cairo_dl.c) on an RGB image surface, cells without antialiasing. */
#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "cairo_dl.h"
#include "heatmap_int.h"

struct png {
	struct hm_canvas c; /* first: the canvas callbacks get this */
	const struct cairo_dl *cd;
	cairo_t *cr;
};

static void colour(const struct cairo_dl *cd, cairo_t *cr, uint32_t rgb)
{
	cd->set_source_rgb(cr, ((rgb >> 16) & 0xff) / 255.0, ((rgb >> 8) & 0xff) / 255.0,
			   (rgb & 0xff) / 255.0);
}

static void rect(struct hm_canvas *c, double x, double y, double w, double h, uint32_t fill,
		 uint32_t stroke, double sw, bool dashed, const char *tip)
{
	const struct cairo_dl *cd = ((struct png *)c)->cd;
	cairo_t *cr = ((struct png *)c)->cr;
	static const double dash[] = {4, 3};

	(void)tip;
	cd->save(cr);
	cd->set_antialias(cr, CAIRO_ANTIALIAS_NONE);
	cd->rectangle(cr, x, y, w, h);
	if (fill != HM_NONE) {
		colour(cd, cr, fill);
		cd->fill_preserve(cr);
	}
	if (stroke != HM_NONE) {
		colour(cd, cr, stroke);
		cd->set_line_width(cr, sw);
		cd->set_dash(cr, dash, dashed ? 2 : 0, 0);
		cd->stroke_preserve(cr);
	}
	cd->new_path(cr);
	cd->restore(cr);
}

static void line(struct hm_canvas *c, double x1, double y1, double x2, double y2, uint32_t rgb,
		 double w)
{
	const struct cairo_dl *cd = ((struct png *)c)->cd;
	cairo_t *cr = ((struct png *)c)->cr;

	colour(cd, cr, rgb);
	cd->set_line_width(cr, w);
	cd->move_to(cr, x1, y1);
	cd->line_to(cr, x2, y2);
	cd->stroke(cr);
}

static void tri(struct hm_canvas *c, const double xy[6], uint32_t fill)
{
	const struct cairo_dl *cd = ((struct png *)c)->cd;
	cairo_t *cr = ((struct png *)c)->cr;

	colour(cd, cr, fill);
	cd->move_to(cr, xy[0], xy[1]);
	cd->line_to(cr, xy[2], xy[3]);
	cd->line_to(cr, xy[4], xy[5]);
	cd->close_path(cr);
	cd->fill(cr);
}

static void text(struct hm_canvas *c, double x, double y, double size, enum hm_anchor an,
		 bool vertical, bool bold, uint32_t rgb, const char *s)
{
	const struct cairo_dl *cd = ((struct png *)c)->cd;
	cairo_t *cr = ((struct png *)c)->cr;
	cairo_text_extents_t ext;

	cd->save(cr);
	cd->select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL,
			     bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
	cd->set_font_size(cr, size);
	cd->text_extents(cr, s, &ext);
	colour(cd, cr, rgb);
	cd->translate(cr, x, y);
	if (vertical)
		cd->rotate(cr, -M_PI / 2);
	cd->move_to(cr, an == HM_START ? 0 : an == HM_MIDDLE ? -ext.x_advance / 2 : -ext.x_advance, 0);
	cd->show_text(cr, s);
	cd->restore(cr);
}

static cairo_status_t put(void *closure, const unsigned char *data, unsigned int len)
{
	return fwrite(data, 1, len, closure) == len ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR;
}

int hm_write_png(const struct hm_grid *g, FILE *out)
{
	struct png p = {.c = {.rect = rect, .line = line, .tri = tri, .text = text},
			.cd = cairo_dl()};
	const struct cairo_dl *cd = p.cd;
	cairo_surface_t *sf;
	cairo_status_t st;
	double w, h;
	int rc;

	if (!cd)
		return -ENOTSUP;
	hm_layout_size(g, &w, &h);
	sf = cd->image_surface_create(CAIRO_FORMAT_RGB24, (int)w, (int)h);
	if (cd->surface_status(sf)) {
		cd->surface_destroy(sf);
		return -ENOMEM;
	}
	p.cr = cd->create(sf);
	hm_draw(g, &p.c);
	st = cd->status(p.cr);
	cd->destroy(p.cr);
	if (st == CAIRO_STATUS_SUCCESS)
		st = cd->surface_write_to_png_stream(sf, put, out);
	cd->surface_destroy(sf);
	if (st == CAIRO_STATUS_NO_MEMORY)
		return -ENOMEM;
	rc = st == CAIRO_STATUS_SUCCESS ? 0 : -EIO;
	if (!rc && (fflush(out) || ferror(out)))
		rc = -EIO;
	return rc;
}
