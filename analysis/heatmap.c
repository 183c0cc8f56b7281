/* The heatmap's public calls: the format a file name asks for, and one
 * picture of a sweep test with a report's marks. */
#include <errno.h>
#include <string.h>
#include <strings.h>

#include "heatmap_int.h"

RCK_EXPORT int rck_heatmap_format_from_path(const char *path, enum rck_heatmap_format *fmt)
{
	size_t n;

	if (!path || !fmt || (n = strlen(path)) < 4)
		return -EINVAL;
	if (!strcasecmp(path + n - 4, ".svg"))
		*fmt = RCK_HEATMAP_SVG;
	else if (!strcasecmp(path + n - 4, ".png"))
		*fmt = RCK_HEATMAP_PNG;
	else
		return -EINVAL;
	return 0;
}

RCK_EXPORT int rck_heatmap_write(const struct rck_mesh *m, enum rck_mesh_test test,
				 const struct rck_report *r, enum rck_heatmap_format fmt, FILE *out)
{
	return rck_heatmap_write_topology(m, test, r, NULL, NULL, fmt, out);
}

RCK_EXPORT int rck_heatmap_write_titled(const struct rck_mesh *m, enum rck_mesh_test test,
					const struct rck_report *r, const char *title,
					enum rck_heatmap_format fmt, FILE *out)
{
	return rck_heatmap_write_topology(m, test, r, NULL, title, fmt, out);
}

RCK_EXPORT int rck_heatmap_write_topology(const struct rck_mesh *m, enum rck_mesh_test test,
					  const struct rck_report *r, const struct rck_topology *t,
					  const char *title, enum rck_heatmap_format fmt, FILE *out)
{
	struct hm_grid g;
	int rc;

	if (!m || !out || (test != RCK_MESH_TEST_BW && test != RCK_MESH_TEST_LAT) ||
	    (fmt != RCK_HEATMAP_SVG && fmt != RCK_HEATMAP_PNG))
		return -EINVAL;
	rc = hm_grid_build_topo(&g, m, test, r, t);
	if (rc)
		return rc;
	if (title && *title)
		g.title = title; /* drawn through the text layer, escaped there */
	rc = fmt == RCK_HEATMAP_SVG ? hm_write_svg(&g, out) : hm_write_png(&g, out);
	hm_grid_free(&g);
	return rc;
}
