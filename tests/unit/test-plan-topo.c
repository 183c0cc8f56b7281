/* The topo pattern's plan on synthetic two-tier fabrics: every NIC pair
 * under a leaf both ways, every ordered leaf pair, every uplink carrying its
 * whole leaf out and in, no NIC twice in a step. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../mesh/plan.h"
#include "../../mesh/retest.h"
#include "rocecheck/mesh.h"
#include "rocecheck/topology.h"
#include "topo-synth.h"

static struct rck_mesh *make_mesh(unsigned int n, unsigned int rails)
{
	struct rck_mesh *m;

	assert_int_equal(rck_mesh_new(&m), 0);
	for (unsigned int h = 0; h < n; h++) {
		char name[32], dev[32];

		snprintf(name, sizeof(name), "h%05u", h);
		assert_int_equal(rck_mesh_add_host(m, name, NULL), 0);
		for (unsigned int r = 0; r < rails; r++) {
			struct rck_mesh_nic nic = {.size = sizeof(nic), .device = dev, .port = 1, .rail = (int)r,
						   .gid_index = 3};

			snprintf(dev, sizeof(dev), "mlx5_%u", r);
			assert_int_equal(rck_mesh_add_nic(m, h, &nic, NULL), 0);
		}
	}
	return m;
}

static struct rck_topology *make_topo(const struct tsyn *f)
{
	struct tsyn_cable *c = tsyn_cables(f);
	struct rck_topology *t;
	char err[256], *text;
	size_t len;

	assert_non_null(c);
	text = tsyn_json(f, c, true, &len);
	assert_non_null(text);
	assert_int_equal(rck_topology_new(&t), 0);
	if (rck_topology_add_json(t, text, len, "synth.json", err, sizeof(err)))
		fail_msg("%s", err);
	free(text);
	free(c);
	return t;
}

/* NIC i of the mesh is host i / rails, rail i % rails; its leaf group. */
static unsigned int leaf_of(const struct tsyn *f, unsigned int hosts_in_topo, uint32_t nic)
{
	unsigned int h = nic / f->rails, r = nic % f->rails;

	if (h >= hosts_in_topo)
		return 100000 + r; /* on no known leaf: a group of its own per rail */
	return r * 1000 + h / f->per_leaf;
}

/* Retest rounds over every task of the plan (a sweep that failed
 * everything): no NIC in two probes of one round, even across rounds
 * past the 64 the bitmap packs. */
static void check_retest(const struct mesh_plan *p)
{
	uint32_t *tasks = malloc((p->n_tasks + 1) * sizeof(*tasks)), *round = malloc((p->n_tasks + 1) * sizeof(*round));
	long nr;

	assert_non_null(tasks);
	assert_non_null(round);
	for (size_t t = 0; t < p->n_tasks; t++)
		tasks[t] = (uint32_t)t;
	nr = mesh_retest_rounds(p, tasks, p->n_tasks, round);
	assert_true(nr > 0);
	for (long r = 0; r < nr; r++) {
		uint8_t *used = calloc(p->n_nics + 1, 1);

		assert_non_null(used);
		for (size_t t = 0; t < p->n_tasks; t++) {
			if (round[t] != (uint32_t)r)
				continue;
			if (used[p->tasks[t].src] || used[p->tasks[t].dst])
				fail_msg("retest round %ld: a NIC of %u -> %u twice", r, p->tasks[t].src, p->tasks[t].dst);
			used[p->tasks[t].src] = used[p->tasks[t].dst] = 1;
		}
		free(used);
	}
	free(tasks);
	free(round);
}

/* @uplinks: also require every full leaf's uplink loaded both ways (not
 * possible against a smaller leaf: 5+1 has one NIC to receive). */
static void check(const struct tsyn *f, unsigned int mesh_hosts, bool uplinks)
{
	struct rck_mesh *m = make_mesh(mesh_hosts, f->rails);
	struct rck_topology *t = make_topo(f);
	struct mesh_plan_opts o = {.pattern = MESH_PATTERN_TOPO, .rails = MESH_RAILS_SAME, .topo = t};
	struct mesh_plan *p = NULL;
	unsigned int nn = mesh_hosts * f->rails;
	uint8_t *pair = calloc((size_t)nn * nn, 1), *seen = calloc(nn, 1);
	unsigned int *leaf_pair = calloc(200000, sizeof(*leaf_pair));
	char err[256];

	assert_non_null(pair);
	assert_non_null(seen);
	if (mesh_plan_build(m, &o, &p, err, sizeof(err)))
		fail_msg("plan: %s", err);
	assert_true(p->n_steps > 0);
	for (size_t s = 0; s < p->n_steps; s++) {
		size_t u0 = p->step_first_unit[s], u1 = s + 1 < p->n_steps ? p->step_first_unit[s + 1] : p->n_units;
		uint8_t *out = calloc(nn, 1), *in = calloc(nn, 1);

		memset(seen, 0, nn);
		for (size_t u = u0; u < u1; u++)
			for (uint32_t k = 0; k < p->units[u].n_tasks; k++) {
				const struct mesh_task *x = &p->tasks[p->units[u].first_task + k];
				unsigned int ls = leaf_of(f, f->hosts, x->src), ld = leaf_of(f, f->hosts, x->dst);

				if (x->src == x->dst)
					fail_msg("step %zu: NIC %u probes itself", s, x->src);
				/* The topo plan is one way per probe (no bidir units): a
				 * NIC neither sends nor receives twice, nor does both. */
				if (seen[x->src] || seen[x->dst])
					fail_msg("step %zu: NIC %u or %u in two probes (%u hosts, %u a leaf, %u rails)", s,
						 x->src, x->dst, f->hosts, f->per_leaf, f->rails);
				seen[x->src] = seen[x->dst] = 1;
				assert_int_equal(x->src % f->rails, x->dst % f->rails);
				pair[(size_t)x->src * nn + x->dst] = 1;
				if (ls != ld && ls < 100000 && ld < 100000) {
					out[x->src] = in[x->dst] = 1;
				}
			}
		/* Mark the leaves whose every NIC sent (received) across this step. */
		for (unsigned int g = 0; g < tsyn_groups(f); g++)
			for (unsigned int r = 0; r < f->rails; r++) {
				bool all_out = true, all_in = true;
				unsigned int lo = g * f->per_leaf, hi = lo + f->per_leaf;

				if (hi > f->hosts)
					hi = f->hosts;
				for (unsigned int h = lo; h < hi; h++) {
					all_out &= out[h * f->rails + r];
					all_in &= in[h * f->rails + r];
				}
				leaf_pair[190000 + r * 1000 + g] |= all_out ? 1 : 0;
				leaf_pair[190000 + r * 1000 + g] |= all_in ? 2 : 0;
			}
		free(out);
		free(in);
	}
	/* Every ordered pair under one leaf, and every ordered leaf pair. */
	for (uint32_t a = 0; a < nn; a++)
		for (uint32_t b = 0; b < nn; b++) {
			unsigned int la = leaf_of(f, f->hosts, a), lb = leaf_of(f, f->hosts, b);

			if (a == b || a % f->rails != b % f->rails)
				continue;
			if (la == lb && !pair[(size_t)a * nn + b])
				fail_msg("NICs %u -> %u under one leaf not probed", a, b);
		}
	for (unsigned int r = 0; r < f->rails; r++)
		for (unsigned int ga = 0; ga < tsyn_groups(f); ga++)
			for (unsigned int gb = 0; gb < tsyn_groups(f); gb++) {
				bool any = false;

				if (ga == gb)
					continue;
				for (unsigned int ha = ga * f->per_leaf; ha < (ga + 1) * f->per_leaf && ha < f->hosts && !any; ha++)
					for (unsigned int hb = gb * f->per_leaf; hb < (gb + 1) * f->per_leaf && hb < f->hosts && !any; hb++)
						any = pair[(size_t)(ha * f->rails + r) * nn + hb * f->rails + r];
				if (!any)
					fail_msg("leaf r%u-g%u -> r%u-g%u never probed (%u hosts, %u a leaf)", r, ga, r, gb,
						 f->hosts, f->per_leaf);
			}
	/* Full leaves (per_leaf NICs) carry their whole rate out and in. */
	for (unsigned int r = 0; r < f->rails && uplinks; r++)
		for (unsigned int g = 0; g < f->hosts / f->per_leaf; g++)
			if (leaf_pair[190000 + r * 1000 + g] != 3)
				fail_msg("leaf r%u-g%u: uplink not loaded both ways (%u)", r, g,
					 leaf_pair[190000 + r * 1000 + g]);
	/* Hosts outside the topology are probed among themselves. */
	for (uint32_t a = f->hosts * f->rails; a < nn; a++)
		for (uint32_t b = f->hosts * f->rails; b < nn; b++)
			if (a != b && a % f->rails == b % f->rails && !pair[(size_t)a * nn + b])
				fail_msg("unplaced NICs %u -> %u not probed", a, b);
	check_retest(p);
	free(pair);
	free(seen);
	free(leaf_pair);
	mesh_plan_free(p);
	rck_topology_free(t);
	rck_mesh_free(m);
}

static void test_even(void **state)
{
	const struct tsyn f = {.hosts = 64, .rails = 2, .per_leaf = 8, .spines = 1, .gbps = 400, .slow_uplink = -1};

	(void)state;
	check(&f, 64, true);
}

static void test_uneven(void **state)
{
	/* 7 leaves a rail, the last with 5 hosts; 3 hosts on no known leaf. */
	const struct tsyn f = {.hosts = 53, .rails = 3, .per_leaf = 8, .spines = 2, .gbps = 400, .slow_uplink = -1};

	(void)state;
	check(&f, 56, true);
}

static void test_two_leaves(void **state)
{
	const struct tsyn f = {.hosts = 6, .rails = 1, .per_leaf = 3, .spines = 1, .gbps = 100, .slow_uplink = -1};

	(void)state;
	check(&f, 6, true);
}

/* Small and uneven shapes: 2 and 3 leaves, 3+3, 4+2, 5+1, 4+4+1, 3+3+1,
 * 2+2+1, 1 and 8 rails, some hosts on no leaf. */
static void test_shapes(void **state)
{
	static const unsigned int shape[][4] = {
		/* hosts, per leaf, rails, hosts in the mesh */
		{6, 3, 1, 6}, {6, 4, 1, 6}, {6, 5, 1, 6}, {6, 3, 8, 6}, {6, 4, 8, 6}, {6, 5, 8, 6},
		{9, 3, 1, 9}, {9, 4, 1, 9}, {7, 3, 1, 7}, {5, 2, 1, 5}, {7, 3, 2, 8}, {9, 4, 8, 10},
		{2, 1, 1, 2}, {3, 2, 1, 3}, {4, 2, 1, 4}, {12, 5, 1, 12}, {13, 6, 3, 13}, {11, 4, 1, 13},
		{17, 8, 1, 17}, {20, 8, 2, 20}, {40, 16, 1, 40}, {33, 16, 1, 33}, {24, 9, 1, 24},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(shape) / sizeof(shape[0]); i++) {
		const struct tsyn f = {.hosts = shape[i][0], .per_leaf = shape[i][1], .rails = shape[i][2],
				       .spines = 1, .gbps = 100, .slow_uplink = -1};

		check(&f, shape[i][3], false);
	}
}

static void test_no_topology(void **state)
{
	struct rck_mesh *m = make_mesh(4, 1);
	struct mesh_plan_opts o = {.pattern = MESH_PATTERN_TOPO, .rails = MESH_RAILS_SAME};
	struct mesh_plan *p = NULL;
	char err[256];

	(void)state;
	assert_int_equal(mesh_plan_build(m, &o, &p, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "topology"));
	rck_mesh_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_even),
		cmocka_unit_test(test_uneven),
		cmocka_unit_test(test_two_leaves),
		cmocka_unit_test(test_shapes),
		cmocka_unit_test(test_no_topology),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
