/* Rounds of retests: which plan tasks probe the cells asked for, and how
 * they share rounds of disjoint NIC pairs. Pure; coord.c runs the rounds. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "retest.h"

static int cmp_u64(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

static uint64_t key(uint32_t src, uint32_t dst)
{
	return (uint64_t)src << 32 | dst;
}

long mesh_retest_tasks(const struct mesh_plan *p, const struct rck_mesh *m, const unsigned int *cells,
		       size_t n, uint32_t *tasks)
{
	uint64_t *want;
	size_t nw = 0;
	long nt = 0;

	if (!n)
		return 0;
	want = malloc(n * sizeof(*want));
	if (!want)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		unsigned int src, dst;

		if (rck_mesh_cell(m, cells[i], NULL, &src, &dst) ||
		    rck_mesh_cell_attempts(m, cells[i]) > RCK_MESH_RETEST_MAX)
			continue;
		want[nw++] = key(src, dst);
	}
	qsort(want, nw, sizeof(*want), cmp_u64);
	/* One pass over the plan: a small sorted list asked per task. */
	for (size_t t = 0; t < p->n_tasks && nw; t++) {
		uint64_t k = key(p->tasks[t].src, p->tasks[t].dst);
		bool full = false;

		if (!bsearch(&k, want, nw, sizeof(*want), cmp_u64))
			continue;
		/* Every test of the task appends an attempt: none may be full. */
		for (unsigned int test = 0; test < RCK_MESH_TEST_COUNT; test++) {
			unsigned int cell;

			if (!rck_mesh_find_cell(m, (enum rck_mesh_test)test, p->tasks[t].src,
						p->tasks[t].dst, &cell) &&
			    rck_mesh_cell_attempts(m, cell) > RCK_MESH_RETEST_MAX)
				full = true;
		}
		if (!full && (size_t)nt < n)
			tasks[nt++] = (uint32_t)t;
	}
	free(want);
	return nt;
}

long mesh_retest_rounds(const struct mesh_plan *p, const uint32_t *tasks, size_t n, uint32_t *round)
{
	/* Per NIC, the first 64 rounds it is taken in as a bitmap; a NIC
	 * whose pair finds none of them free takes a round after the last
	 * overflow round of either NIC (@after, counted from 64). */
	uint64_t *bits = calloc(p->n_nics + 1, sizeof(*bits));
	uint32_t *after = calloc(p->n_nics + 1, sizeof(*after));
	long rounds = 0;

	if (!bits || !after) {
		free(bits);
		free(after);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t a = p->tasks[tasks[i]].src, b = p->tasks[tasks[i]].dst, r;
		uint64_t taken = bits[a] | bits[b];

		if (~taken) {
			r = (uint32_t)__builtin_ctzll(~taken);
			bits[a] |= 1ull << r;
			bits[b] |= 1ull << r;
		} else {
			r = 64 + (after[a] > after[b] ? after[a] : after[b]);
			after[a] = after[b] = r + 1 - 64;
		}
		round[i] = r;
		if ((long)r + 1 > rounds)
			rounds = (long)r + 1;
	}
	free(bits);
	free(after);
	return rounds;
}

/* mate[] from the (src, dst) keys of @tasks sorted with their indices. */
static int find_mates(const struct mesh_plan *p, const uint32_t *tasks, size_t n, long *mate)
{
	uint64_t (*k)[2] = malloc((n ? n : 1) * sizeof(*k));

	if (!k)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		k[i][0] = key(p->tasks[tasks[i]].src, p->tasks[tasks[i]].dst);
		k[i][1] = i;
		mate[i] = -1;
	}
	qsort(k, n, sizeof(*k), cmp_u64);
	for (size_t i = 0; i < n; i++) {
		const struct mesh_task *t = &p->tasks[tasks[i]];
		uint64_t want = key(t->dst, t->src);
		size_t lo = 0, hi = n;

		while (lo < hi) {
			size_t mid = (lo + hi) / 2;

			if (k[mid][0] < want)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (t->src != t->dst && lo < n && k[lo][0] == want)
			mate[i] = (long)k[lo][1];
	}
	/* A plan with one pair twice (a pairs file): pairs only both ways. */
	for (size_t i = 0; i < n; i++)
		if (mate[i] >= 0 && mate[mate[i]] != (long)i)
			mate[i] = -1;
	free(k);
	return 0;
}

long mesh_retest_steps(const struct mesh_plan *p, const uint32_t *tasks, size_t n, bool bidir, long *mate,
		       uint32_t *round)
{
	uint32_t *lead;
	size_t *at, nl = 0;
	long nr;

	for (size_t i = 0; i < n; i++)
		mate[i] = -1;
	if (!bidir)
		return mesh_retest_rounds(p, tasks, n, round);
	lead = calloc(n ? n : 1, sizeof(*lead));
	at = malloc((n ? n : 1) * sizeof(*at));
	if (!lead || !at || find_mates(p, tasks, n, mate)) {
		free(lead);
		free(at);
		return -ENOMEM;
	}
	/* A pair is one unit on both its NICs: packed by its first member. */
	for (size_t i = 0; i < n; i++)
		if (mate[i] < 0 || (size_t)mate[i] > i) {
			at[nl] = i;
			lead[nl++] = tasks[i];
		}
	nr = mesh_retest_rounds(p, lead, nl, round);
	/* round[] of the leads, spread back to every index from the end so
	 * no lead's round is overwritten before it is read. */
	if (nr >= 0) {
		for (size_t l = nl; l-- > 0;)
			round[at[l]] = round[l];
		for (size_t i = 0; i < n; i++)
			if (mate[i] >= 0 && (size_t)mate[i] < i)
				round[i] = round[mate[i]];
	}
	free(lead);
	free(at);
	return nr;
}
