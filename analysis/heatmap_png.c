/* The heatmap as PNG: the same page drawn with cairo on an RGB image
 * surface, cells without antialiasing so each keeps its exact colour. */
#include <errno.h>
#include <math.h>
#include <stdio.h>

#include <cairo.h>

#include "heatmap_int.h"

struct png {
	struct hm_canvas c; /* first: the canvas callbacks get this */
	cairo_t *cr;
};

static void colour(cairo_t *cr, uint32_t rgb)
{
	cairo_set_source_rgb(cr, ((rgb >> 16) & 0xff) / 255.0, ((rgb >> 8) & 0xff) / 255.0,
			     (rgb & 0xff) / 255.0);
}

static void rect(struct hm_canvas *c, double x, double y, double w, double h, uint32_t fill,
		 uint32_t stroke, double sw, bool dashed, const char *tip)
{
	cairo_t *cr = ((struct png *)c)->cr;
	static const double dash[] = {4, 3};

	(void)tip;
	cairo_save(cr);
	cairo_set_antialias(cr, CAIRO_ANTIALIAS_NONE);
	cairo_rectangle(cr, x, y, w, h);
	if (fill != HM_NONE) {
		colour(cr, fill);
		cairo_fill_preserve(cr);
	}
	if (stroke != HM_NONE) {
		colour(cr, stroke);
		cairo_set_line_width(cr, sw);
		cairo_set_dash(cr, dash, dashed ? 2 : 0, 0);
		cairo_stroke_preserve(cr);
	}
	cairo_new_path(cr);
	cairo_restore(cr);
}

static void line(struct hm_canvas *c, double x1, double y1, double x2, double y2, uint32_t rgb,
		 double w)
{
	cairo_t *cr = ((struct png *)c)->cr;

	colour(cr, rgb);
	cairo_set_line_width(cr, w);
	cairo_move_to(cr, x1, y1);
	cairo_line_to(cr, x2, y2);
	cairo_stroke(cr);
}

static void tri(struct hm_canvas *c, const double xy[6], uint32_t fill)
{
	cairo_t *cr = ((struct png *)c)->cr;

	colour(cr, fill);
	cairo_move_to(cr, xy[0], xy[1]);
	cairo_line_to(cr, xy[2], xy[3]);
	cairo_line_to(cr, xy[4], xy[5]);
	cairo_close_path(cr);
	cairo_fill(cr);
}

static void text(struct hm_canvas *c, double x, double y, double size, enum hm_anchor an,
		 bool vertical, bool bold, uint32_t rgb, const char *s)
{
	cairo_t *cr = ((struct png *)c)->cr;
	cairo_text_extents_t ext;

	cairo_save(cr);
	cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL,
			       bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(cr, size);
	cairo_text_extents(cr, s, &ext);
	colour(cr, rgb);
	cairo_translate(cr, x, y);
	if (vertical)
		cairo_rotate(cr, -M_PI / 2);
	cairo_move_to(cr, an == HM_START ? 0 : an == HM_MIDDLE ? -ext.x_advance / 2 : -ext.x_advance, 0);
	cairo_show_text(cr, s);
	cairo_restore(cr);
}

static cairo_status_t put(void *closure, const unsigned char *data, unsigned int len)
{
	return fwrite(data, 1, len, closure) == len ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR;
}

int hm_write_png(const struct hm_grid *g, FILE *out)
{
	struct png p = {.c = {.rect = rect, .line = line, .tri = tri, .text = text}};
	cairo_surface_t *sf;
	cairo_status_t st;
	double w, h;
	int rc;

	hm_layout_size(g, &w, &h);
	sf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)w, (int)h);
	if (cairo_surface_status(sf)) {
		cairo_surface_destroy(sf);
		return -ENOMEM;
	}
	p.cr = cairo_create(sf);
	hm_draw(g, &p.c);
	st = cairo_status(p.cr);
	cairo_destroy(p.cr);
	if (st == CAIRO_STATUS_SUCCESS)
		st = cairo_surface_write_to_png_stream(sf, put, out);
	cairo_surface_destroy(sf);
	if (st == CAIRO_STATUS_NO_MEMORY)
		return -ENOMEM;
	rc = st == CAIRO_STATUS_SUCCESS ? 0 : -EIO;
	if (!rc && (fflush(out) || ferror(out)))
		rc = -EIO;
	return rc;
}
