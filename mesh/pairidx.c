/* Pair index: open addressing on the unordered NIC pair, then the units of
 * each pair laid out contiguously in plan order (a counting sort). */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "pairidx.h"

static uint64_t key_of(uint32_t a, uint32_t b)
{
	return (a < b ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a) + 1;
}

static uint32_t slot_of(const struct pairidx *x, uint64_t key)
{
	uint64_t h = key * 0x9e3779b97f4a7c15ULL;
	uint32_t i = (uint32_t)(h >> 32) & x->mask;

	while (x->keys[i] && x->keys[i] != key)
		i = (i + 1) & x->mask;
	return i;
}

static bool two_nics(const struct mesh_plan *p, size_t u)
{
	return p->units[u].n_nics == 2;
}

int pairidx_build(struct pairidx *x, const struct mesh_plan *p)
{
	size_t n = 0, slots = 16;
	uint32_t sum = 0;

	memset(x, 0, sizeof(*x));
	for (size_t u = 0; u < p->n_units; u++)
		n += two_nics(p, u);
	while (slots < 2 * n)
		slots *= 2;
	x->keys = calloc(slots, sizeof(*x->keys));
	x->first = calloc(slots, sizeof(*x->first));
	x->count = calloc(slots, sizeof(*x->count));
	x->units = malloc((n + 1) * sizeof(*x->units));
	if (!x->keys || !x->first || !x->count || !x->units) {
		pairidx_free(x);
		return -ENOMEM;
	}
	x->mask = (uint32_t)(slots - 1);
	for (size_t u = 0; u < p->n_units; u++) {
		const uint32_t *nic = p->unit_nics + p->units[u].first_nic;
		uint64_t k;
		uint32_t i;

		if (!two_nics(p, u))
			continue;
		k = key_of(nic[0], nic[1]);
		i = slot_of(x, k);
		x->keys[i] = k;
		x->count[i]++;
	}
	for (size_t i = 0; i < slots; i++) {
		x->first[i] = sum;
		sum += x->count[i];
		x->count[i] = 0;
	}
	for (size_t u = 0; u < p->n_units; u++) {
		const uint32_t *nic = p->unit_nics + p->units[u].first_nic;
		uint32_t i;

		if (!two_nics(p, u))
			continue;
		i = slot_of(x, key_of(nic[0], nic[1]));
		x->units[x->first[i] + x->count[i]++] = (uint32_t)u;
	}
	return 0;
}

const uint32_t *pairidx_get(const struct pairidx *x, uint32_t a, uint32_t b, uint32_t *n)
{
	uint32_t i = slot_of(x, key_of(a, b));

	*n = x->keys[i] ? x->count[i] : 0;
	return x->units + x->first[i];
}

void pairidx_free(struct pairidx *x)
{
	free(x->keys);
	free(x->first);
	free(x->count);
	free(x->units);
	memset(x, 0, sizeof(*x));
}
