/* --heatmap of `rocecheck mesh` and `rocecheck preflight`: the picture
 * written whole or not at all; a PNG needs cairo at run time. */
#include <errno.h>
#include <string.h>

#include "heatmap_save.h"

struct heat {
	const struct rck_mesh *m;
	const struct rck_report *r;
	enum rck_mesh_test test;
	enum rck_heatmap_format fmt;
	const char *title;
};

/* --topology: the picture grouped by leaf switch (one command, one file). */
static const struct rck_topology *heat_topo;

void heatmap_set_topology(const struct rck_topology *t)
{
	heat_topo = t;
}

static int write_heat(FILE *f, const void *arg)
{
	const struct heat *h = arg;

	return rck_heatmap_write_topology(h->m, h->test, h->r, heat_topo, h->title, h->fmt, f);
}

int heatmap_save(struct cli *cli, const struct rck_mesh *m, const struct rck_report *r,
		 const char *path)
{
	/* The picture is titled by the command that drew it. */
	struct heat h = {.m = m, .r = r, .test = RCK_MESH_TEST_LAT,
			 .title = cli->cmd && !strcmp(cli->cmd->name, "preflight") ? "rocecheck preflight" : NULL};
	int rc;

	if (!rck_mesh_nic_count(m)) {
		cli_msg(cli, "no NIC in the result: --heatmap '%s' not written", path);
		return -ENOENT;
	}
	rck_heatmap_format_from_path(path, &h.fmt);
	for (unsigned int i = 0; i < rck_mesh_cell_count(m) && h.test != RCK_MESH_TEST_BW; i++)
		rck_mesh_cell(m, i, &h.test, NULL, NULL);
	rc = rck_write_file_atomic(path, write_heat, &h);
	/* librocecheck loads libcairo.so.2 only for a PNG (dlopen). */
	if (rc == -ENOTSUP && h.fmt == RCK_HEATMAP_PNG)
		cli_msg(cli, "cannot write --heatmap '%s': PNG heatmap needs libcairo.so.2: not found "
			"or incomplete (install libcairo2, or draw an .svg)", path);
	else if (rc)
		cli_msg(cli, "cannot write --heatmap '%s': %s", path, strerror(-rc));
	return rc;
}
