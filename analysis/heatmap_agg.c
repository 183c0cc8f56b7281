/* Large fabrics drawn in blocks: a block shows its worst cell (failed,
 * unreachable, else the lowest bandwidth or highest latency), never a mean. */
#include <errno.h>
#include <stdlib.h>

#include "heatmap_int.h"

/* Worse of two measurements: lower bandwidth, higher latency. */
static bool worse(enum rck_mesh_test t, float a, float b)
{
	return t == RCK_MESH_TEST_BW ? a < b : a > b;
}

static void merge(struct hm_cell *b, const struct hm_cell *c, enum rck_mesh_test t)
{
	if (c->mark > b->mark)
		b->mark = c->mark;
	if (c->state == HM_OK && (b->state != HM_OK || worse(t, c->value, b->value)) &&
	    b->state <= HM_OK)
		b->value = c->value;
	if (c->state > b->state)
		b->state = c->state;
}

int hm_grid_aggregate(struct hm_grid *g)
{
	if (g->n <= HM_FULL_MAX) {
		g->block = 1;
		g->nb = g->n;
		g->agg = g->cell;
		return 0;
	}
	g->block = (g->n + HM_FULL_MAX - 1) / HM_FULL_MAX;
	g->nb = (g->n + g->block - 1) / g->block;
	g->agg = calloc((size_t)g->nb * g->nb, sizeof(*g->agg));
	if (!g->agg)
		return -ENOMEM;
	for (unsigned int r = 0; r < g->n; r++) {
		const struct hm_cell *row = &g->cell[(size_t)r * g->n];
		struct hm_cell *brow = &g->agg[(size_t)(r / g->block) * g->nb];

		for (unsigned int c = 0; c < g->n; c++)
			merge(&brow[c / g->block], &row[c], g->test);
	}
	return 0;
}
