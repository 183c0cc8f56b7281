/* The heatmap grouped by switch: positions ordered by leaf (NICs on no known
 * leaf last), the first label of each leaf naming it, for a topology. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../topology/place.h"
#include "heatmap_int.h"
#include "rocecheck/mesh.h"

struct spos {
	int32_t leaf;
	unsigned int p; /* position before */
};

static int spos_cmp(const void *x, const void *y)
{
	const struct spos *a = x, *b = y;
	uint32_t la = (uint32_t)a->leaf, lb = (uint32_t)b->leaf; /* -1 sorts last */

	if (la != lb)
		return la < lb ? -1 : 1;
	return (a->p > b->p) - (a->p < b->p);
}

int hm_grid_topology(struct hm_grid *g, const struct rck_mesh *m, const struct rck_topology *t)
{
	struct spos *s = malloc((g->n ? g->n : 1) * sizeof(*s));
	unsigned int *order = malloc((g->n ? g->n : 1) * sizeof(*order));
	char **label = malloc((g->n ? g->n : 1) * sizeof(*label)), **full = malloc((g->n ? g->n : 1) * sizeof(*full));
	struct tp_place *pl = NULL;
	int rc = -ENOMEM;

	if (!s || !order || !label || !full || tp_place_new(t, &pl))
		goto out;
	for (unsigned int p = 0; p < g->n; p++) {
		struct rck_mesh_nic nic = {.size = sizeof(nic)};
		unsigned int h = 0;

		rc = rck_mesh_get_nic(m, g->order[p], &nic, &h);
		if (rc)
			goto out;
		s[p] = (struct spos){tp_place_find(pl, rck_mesh_host_name(m, h), nic.device, nic.port, nic.netdev,
						   nic.rail, NULL), p};
	}
	qsort(s, g->n, sizeof(*s), spos_cmp);
	for (unsigned int q = 0; q < g->n; q++) {
		order[q] = g->order[s[q].p];
		label[q] = g->label[s[q].p];
		full[q] = g->full[s[q].p];
		g->pos[order[q]] = q;
	}
	memcpy(g->order, order, g->n * sizeof(*order));
	memcpy(g->label, label, g->n * sizeof(*label));
	memcpy(g->full, full, g->n * sizeof(*full));
	/* The switch's name on the axis where its NICs begin. */
	rc = 0;
	for (unsigned int q = 0; q < g->n && !rc; q++) {
		const char *sw = s[q].leaf >= 0 ? rck_topology_switch_name(t, (unsigned int)s[q].leaf) : "(no switch)";
		char *l = NULL, *c;

		if (q && s[q].leaf == s[q - 1].leaf)
			continue;
		c = hm_clean(sw, 24);
		if (!c || asprintf(&l, "%s \xe2\x96\xb8 %s", c, g->label[q]) < 0)
			rc = -ENOMEM;
		free(c);
		if (!rc) {
			free(g->label[q]);
			g->label[q] = l;
		}
	}
out:
	tp_place_free(pl);
	free(s);
	free(order);
	free(label);
	free(full);
	return rc;
}
