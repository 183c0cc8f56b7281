/* The topo pattern: every NIC pair under one leaf (per rail) both ways, then
 * cross steps where whole leaves send to other leaves, covering every
 * ordered leaf pair and loading every uplink in both directions. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "plan_topo.h"
#include "result.h"
#include "../topology/place.h"

/* A group: the NICs of one rail under one leaf (or on none). */
struct group {
	int32_t leaf;           /* switch index, -1 none */
	int rail;
	uint32_t *nics;
	uint32_t n, cap;
};

struct tb {
	const struct rck_mesh *m;
	struct mesh_plan *p;
	size_t cap_tasks, cap_units, cap_nics, cap_steps;
	struct group *g;
	size_t n_g, cap_g;
	uint32_t *order;        /* groups by rail bucket, then leaf */
};

static int step(struct tb *b)
{
	struct mesh_plan *p = b->p;
	int rc;

	if (p->n_steps && p->step_first_unit[p->n_steps - 1] == p->n_units)
		return 0; /* the previous step is empty: reuse it */
	rc = mesh_grow((void **)&p->step_first_unit, &b->cap_steps, p->n_steps + 1, sizeof(uint32_t));
	if (rc)
		return rc;
	p->step_first_unit[p->n_steps++] = (uint32_t)p->n_units;
	return 0;
}

static int task(struct tb *b, uint32_t src, uint32_t dst)
{
	struct mesh_plan *p = b->p;
	int rc;

	if (p->n_tasks >= MESH_PLAN_MAX_TASKS)
		return -E2BIG;
	if ((rc = mesh_grow((void **)&p->tasks, &b->cap_tasks, p->n_tasks + 1, sizeof(*p->tasks))) ||
	    (rc = mesh_grow((void **)&p->units, &b->cap_units, p->n_units + 1, sizeof(*p->units))) ||
	    (rc = mesh_grow((void **)&p->unit_nics, &b->cap_nics, p->n_unit_nics + 2, sizeof(*p->unit_nics))))
		return rc;
	p->units[p->n_units] = (struct mesh_unit){(uint32_t)p->n_tasks, 1, (uint32_t)p->n_unit_nics, 2};
	p->tasks[p->n_tasks++] = (struct mesh_task){src, dst};
	p->unit_nics[p->n_unit_nics++] = src;
	p->unit_nics[p->n_unit_nics++] = dst;
	p->n_units++;
	return 0;
}

static int add_to_group(struct tb *b, int32_t leaf, int rail, uint32_t nic)
{
	struct group *g = NULL;
	int rc;

	/* Groups are few and NICs come host by host: look from the end. */
	for (size_t i = b->n_g; i-- > 0 && !g;)
		if (b->g[i].leaf == leaf && b->g[i].rail == rail)
			g = &b->g[i];
	if (!g) {
		if ((rc = mesh_grow((void **)&b->g, &b->cap_g, b->n_g + 1, sizeof(*b->g))))
			return rc;
		g = &b->g[b->n_g++];
		*g = (struct group){.leaf = leaf, .rail = rail};
	}
	if (g->n == g->cap) {
		size_t cap = g->cap;

		if ((rc = mesh_grow((void **)&g->nics, &cap, g->n + 1, sizeof(*g->nics))))
			return rc;
		g->cap = (uint32_t)cap;
	}
	g->nics[g->n++] = nic;
	return 0;
}

static int groups(struct tb *b, const struct mesh_plan_opts *o, uint32_t *const *hnics, const unsigned int *hn)
{
	struct tp_place *pl;
	int rc = tp_place_new(o->topo, &pl);

	for (unsigned int h = 0; h < b->p->n_hosts && !rc; h++)
		for (unsigned int i = 0; i < hn[h] && !rc; i++) {
			uint32_t nic = hnics[h][i];
			const struct mesh_nic *x = &b->m->nics[nic];
			int rail = o->rails == MESH_RAILS_SAME ? x->rail : 0;

			rc = add_to_group(b, tp_place_find(pl, b->m->names.names[h], x->device, x->port, x->netdev,
							   x->rail, NULL), rail, nic);
		}
	tp_place_free(pl);
	return rc;
}

static int by_rail(const void *x, const void *y, void *arg)
{
	const struct group *g = arg;
	const struct group *a = &g[*(const uint32_t *)x], *c = &g[*(const uint32_t *)y];

	if (a->rail != c->rail)
		return a->rail < c->rail ? -1 : 1;
	return a->leaf < c->leaf ? -1 : a->leaf > c->leaf;
}

/* Intra-leaf steps: the circle method in every group at once, each round
 * one way then the other; a group with fewer rounds idles. */
static int intra(struct tb *b)
{
	uint32_t mmax = 0;
	int rc = 0;

	for (size_t i = 0; i < b->n_g; i++)
		if (b->g[i].n + (b->g[i].n & 1) > mmax)
			mmax = b->g[i].n + (b->g[i].n & 1);
	for (uint32_t r = 0; r + 1 < mmax && !rc; r++)
		for (int dir = 0; dir < 2 && !rc; dir++) {
			rc = step(b);
			for (size_t i = 0; i < b->n_g && !rc; i++) {
				const struct group *g = &b->g[i];
				uint32_t m = g->n + (g->n & 1);

				if (r + 1 >= m)
					continue;
				for (uint32_t s = 0; s < m / 2 && !rc; s++) {
					unsigned int x, y;

					mesh_circle_pair(g->n, r, s, &x, &y);
					if (x < g->n && y < g->n)
						rc = dir ? task(b, g->nics[y], g->nics[x]) : task(b, g->nics[x], g->nics[y]);
				}
			}
		}
	return rc;
}

/* Chunk @q of @nq of group @g: its NICs [lo, hi). */
static void chunk(const struct group *g, uint32_t q, uint32_t nq, uint32_t *lo, uint32_t *hi)
{
	*lo = (uint32_t)((uint64_t)g->n * q / nq);
	*hi = (uint32_t)((uint64_t)g->n * (q + 1) / nq);
}

/*
 * Cross steps of one level: the groups of a bucket whose indexes agree
 * below bit @bit are sets; in each, groups with that bit @pol send (every
 * NIC), the others receive. Sender i's chunk q goes to receiver
 * (i + off) mod M, off = s * Q + q, so each receiver chunk has one sender
 * and every sender-receiver pair comes once. Returns the steps it needed.
 */
struct cross {
	const uint32_t *idx;    /* the bucket's groups */
	uint32_t n, bit, pol, q;
};

static uint32_t set_steps(const struct cross *c, uint32_t low)
{
	uint32_t ns = 0, nr = 0;

	for (uint32_t i = 0; i < c->n; i++)
		if ((i & ((1u << c->bit) - 1)) == low) {
			if (((i >> c->bit) & 1) == c->pol)
				ns++;
			else
				nr++;
		}
	if (!ns || !nr)
		return 0;
	return ((ns > nr ? ns : nr) + c->q - 1) / c->q;
}

static int cross_step(struct tb *b, const struct cross *c, uint32_t low, uint32_t s)
{
	uint32_t snd[1024], rcv[1024], ns = 0, nr = 0, big;
	uint32_t *S = snd, *R = rcv;
	int rc = 0;

	if (c->n > 1024) {
		S = malloc(c->n * sizeof(*S));
		R = malloc(c->n * sizeof(*R));
		if (!S || !R) {
			rc = -ENOMEM;
			goto out;
		}
	}
	for (uint32_t i = 0; i < c->n; i++)
		if ((i & ((1u << c->bit) - 1)) == low) {
			if (((i >> c->bit) & 1) == c->pol)
				S[ns++] = c->idx[i];
			else
				R[nr++] = c->idx[i];
		}
	big = ns > nr ? ns : nr;
	for (uint32_t i = 0; i < ns && !rc; i++)
		for (uint32_t q = 0; q < c->q && !rc; q++) {
			uint32_t off = s * c->q + q, j, slo, shi, rlo, rhi;

			if (off >= big || (j = (i + off) % big) >= nr)
				continue;
			chunk(&b->g[S[i]], q, c->q, &slo, &shi);
			chunk(&b->g[R[j]], q, c->q, &rlo, &rhi);
			for (uint32_t x = 0; slo + x < shi && rlo + x < rhi && !rc; x++)
				rc = task(b, b->g[S[i]].nics[slo + x], b->g[R[j]].nics[rlo + x]);
		}
out:
	if (S != snd) {
		free(S);
		free(R);
	}
	return rc;
}

static int u32_cmp(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, c = *(const uint32_t *)y;

	return (a > c) - (a < c);
}

static int cross(struct tb *b)
{
	uint32_t qmin = UINT32_MAX, bits = 0, maxn = 0, *sz = malloc((b->n_g + 1) * sizeof(*sz)), med;
	int rc = 0;

	if (!sz)
		return -ENOMEM;
	/* Chunks a leaf is cut into: about MESH_TOPO_CHUNK NICs each in a
	 * leaf of the usual size, and no more than the smallest leaf has NICs
	 * (every chunk of every leaf holds one, so every leaf pair is probed). */
	for (size_t i = 0; i < b->n_g; i++) {
		sz[i] = b->g[i].n;
		if (b->g[i].n < qmin)
			qmin = b->g[i].n;
	}
	qsort(sz, b->n_g, sizeof(*sz), u32_cmp);
	med = b->n_g ? sz[b->n_g / 2] / MESH_TOPO_CHUNK : 1;
	free(sz);
	qmin = med < qmin ? med : qmin;
	if (!qmin)
		qmin = 1;
	/* Buckets (rails) run side by side: their steps are merged. */
	for (size_t i = 0, j; i < b->n_g; i = j) {
		for (j = i; j < b->n_g && b->g[b->order[j]].rail == b->g[b->order[i]].rail; j++)
			;
		if (j - i > maxn)
			maxn = (uint32_t)(j - i);
	}
	while ((1u << bits) < maxn)
		bits++;
	for (uint32_t bit = 0; bit < bits && !rc; bit++)
		for (uint32_t pol = 0; pol < 2 && !rc; pol++) {
			/* Steps of this level: the most any set needs. */
			uint32_t need = 0;

			for (size_t i = 0, j; i < b->n_g; i = j) {
				struct cross c;

				for (j = i; j < b->n_g && b->g[b->order[j]].rail == b->g[b->order[i]].rail; j++)
					;
				c = (struct cross){b->order + i, (uint32_t)(j - i), bit, pol, qmin};
				for (uint32_t low = 0; low < (1u << bit); low++)
					if (set_steps(&c, low) > need)
						need = set_steps(&c, low);
			}
			for (uint32_t s = 0; s < need && !rc; s++) {
				rc = step(b);
				for (size_t i = 0, j; i < b->n_g && !rc; i = j) {
					struct cross c;

					for (j = i; j < b->n_g && b->g[b->order[j]].rail == b->g[b->order[i]].rail; j++)
						;
					c = (struct cross){b->order + i, (uint32_t)(j - i), bit, pol, qmin};
					for (uint32_t low = 0; low < (1u << bit) && !rc; low++)
						if (s < set_steps(&c, low))
							rc = cross_step(b, &c, low, s);
				}
			}
		}
	return rc;
}

int mesh_plan_topo(const struct rck_mesh *m, const struct mesh_plan_opts *o, uint32_t *const *hnics,
		   const unsigned int *hn, struct mesh_plan *p, char *err, size_t errlen)
{
	struct tb b = {.m = m, .p = p};
	int rc;

	if (!o->topo) {
		if (err && errlen)
			snprintf(err, errlen, "the topo pattern needs a topology (--topology FILE)");
		return -EINVAL;
	}
	rc = groups(&b, o, hnics, hn);
	if (!rc && !(b.order = malloc((b.n_g ? b.n_g : 1) * sizeof(*b.order))))
		rc = -ENOMEM;
	if (!rc) {
		for (size_t i = 0; i < b.n_g; i++)
			b.order[i] = (uint32_t)i;
		qsort_r(b.order, b.n_g, sizeof(*b.order), by_rail, b.g);
		rc = intra(&b);
	}
	if (!rc)
		rc = cross(&b);
	if (!rc && p->n_steps && p->step_first_unit[p->n_steps - 1] == p->n_units)
		p->n_steps--;
	if (rc == -E2BIG && err && errlen)
		snprintf(err, errlen, "more than %u probes", MESH_PLAN_MAX_TASKS);
	for (size_t i = 0; i < b.n_g; i++)
		free(b.g[i].nics);
	free(b.g);
	free(b.order);
	return rc;
}
