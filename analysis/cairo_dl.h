/* cairo loaded at run time for the heatmap PNG: librocecheck does not link
 * it, so a program that never writes a PNG (the agent) never maps it. */
#ifndef RCK_CAIRO_DL_H
#define RCK_CAIRO_DL_H

#include <cairo.h>

/* Every cairo function the PNG writer calls (cairo.h gives their types). */
#define CAIRO_DL_FNS(X)                                                                       \
	X(close_path) X(create) X(destroy) X(fill) X(fill_preserve) X(image_surface_create)  \
	X(line_to) X(move_to) X(new_path) X(rectangle) X(restore) X(rotate) X(save)           \
	X(select_font_face) X(set_antialias) X(set_dash) X(set_font_size) X(set_line_width)   \
	X(set_source_rgb) X(show_text) X(status) X(stroke) X(stroke_preserve)                 \
	X(surface_destroy) X(surface_status) X(surface_write_to_png_stream) X(text_extents)   \
	X(translate)

struct cairo_dl {
#define CAIRO_DL_FIELD(name) __typeof__(cairo_##name) *name;
	CAIRO_DL_FNS(CAIRO_DL_FIELD)
#undef CAIRO_DL_FIELD
};

/*
 * The table, filled on the first call (any thread; later calls reuse the
 * result): NULL when libcairo.so.2 cannot be loaded or lacks one of the
 * functions. The library stays loaded for the life of the process.
 */
const struct cairo_dl *cairo_dl(void);

#endif
