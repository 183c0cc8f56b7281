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

int hm_grid_blocks(struct hm_grid *g)
{
	g->block = (g->n + HM_FULL_MAX - 1) / HM_FULL_MAX;
	g->nb = (g->n + g->block - 1) / g->block;
	g->agg = calloc((size_t)g->nb * g->nb, sizeof(*g->agg));
	return g->agg ? 0 : -ENOMEM;
}

void hm_grid_add(struct hm_grid *g, unsigned int row, unsigned int col, const struct hm_cell *c)
{
	merge(&g->agg[(size_t)(row / g->block) * g->nb + col / g->block], c, g->test);
}
