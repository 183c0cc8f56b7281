/* --heatmap of `rocecheck mesh` and `rocecheck preflight`: one matrix of a
 * sweep drawn to a file, atomically, or one line saying why not. */
#ifndef RCK_TOOLS_HEATMAP_SAVE_H
#define RCK_TOOLS_HEATMAP_SAVE_H

#include <rocecheck/rocecheck.h>

#include "cli.h"

/*
 * Draw the bandwidth matrix of @m (the latency one when no bandwidth was
 * measured), with the findings of @r (may be NULL) marked, to @path as
 * SVG or PNG by its ending. Returns 0, or a negative errno after printing
 * one line (a PNG without libcairo.so.2 names the package to install).
 */
int heatmap_save(struct cli *cli, const struct rck_mesh *m, const struct rck_report *r,
		 const char *path);
/* Group the pictures heatmap_save() draws by leaf switch of @t (NULL: by
 * host); @t must outlive them. */
struct rck_topology;
void heatmap_set_topology(const struct rck_topology *t);

#endif
