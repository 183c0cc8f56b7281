/* Flow and address-pair tables of rocecap: open addressing over indices,
 * grown by doubling up to opts->max_flows entries. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cap_int.h"

static uint32_t hash_key(const struct cap_key *k)
{
	const uint8_t *b = (const uint8_t *)k;
	uint64_t h = 0xcbf29ce484222325ull;

	/* FNV-1a over the key, 8 bytes a step, then a final mix. */
	for (size_t i = 0; i + 8 <= sizeof(*k); i += 8) {
		uint64_t w;

		memcpy(&w, b + i, 8);
		h = (h ^ w) * 0x100000001b3ull;
		h ^= h >> 29;
	}
	h ^= h >> 32;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return (uint32_t)h;
}

/* Slot of @k (its value, or the empty slot where it would go). */
static uint32_t *lookup(const struct cap_hash *h, const struct cap_key *k, const void *arr,
			size_t stride)
{
	uint32_t i = hash_key(k) & h->mask;

	for (;; i = (i + 1) & h->mask) {
		uint32_t v = h->slot[i];

		if (!v || !memcmp((const char *)arr + (size_t)(v - 1) * stride, k, sizeof(*k)))
			return &h->slot[i];
	}
}

/* Rebuild @h over the @n entries of @arr, with room for @room entries at
 * most half full. */
static int rehash(struct cap_hash *h, uint32_t n, uint32_t room, const void *arr, size_t stride)
{
	struct cap_hash nh;
	uint32_t slots = 16;

	while (slots < 2 * room)
		slots *= 2;
	nh.slot = calloc(slots, sizeof(*nh.slot));
	if (!nh.slot)
		return -ENOMEM;
	nh.mask = slots - 1;
	for (uint32_t i = 0; i < n; i++)
		*lookup(&nh, (const struct cap_key *)((const char *)arr + (size_t)i * stride), arr, stride) = i + 1;
	free(h->slot);
	*h = nh;
	return 0;
}

/* Room for one more entry in @arr (of @stride bytes, @n used, @alloc
 * allocated) and its hash; -ENOSPC at @max. */
static int grow(void **arr, uint32_t n, uint32_t *alloc, size_t stride, struct cap_hash *h,
		uint32_t max)
{
	if (n >= max)
		return -ENOSPC;
	if (n == *alloc) {
		uint32_t na = *alloc ? *alloc * 2 : 64;
		void *p;

		if (na > max)
			na = max;
		p = realloc(*arr, (size_t)na * stride);
		if (!p)
			return -ENOMEM;
		*arr = p;
		*alloc = na;
	}
	if (!h->slot || 2 * (n + 1) > h->mask + 1)
		return rehash(h, n, n + 1, *arr, stride);
	return 0;
}

/* Index of the flow @k, created when new. -ENOSPC beyond max_flows. */
int cap_flow_get(struct rck_cap *cap, const struct cap_key *k, uint32_t *idx)
{
	uint32_t *s;
	int rc;

	if (cap->fh.slot) {
		s = lookup(&cap->fh, k, cap->flows, sizeof(*cap->flows));
		if (*s) {
			*idx = *s - 1;
			return 0;
		}
	}
	rc = grow((void **)&cap->flows, cap->nflows, &cap->flows_alloc, sizeof(*cap->flows), &cap->fh,
		  cap->o.max_flows);
	if (rc)
		return rc;
	memset(&cap->flows[cap->nflows], 0, sizeof(*cap->flows));
	cap->flows[cap->nflows].key = *k;
	*lookup(&cap->fh, k, cap->flows, sizeof(*cap->flows)) = cap->nflows + 1;
	*idx = cap->nflows++;
	return 0;
}

struct cap_pair *cap_pair_find(const struct rck_cap *cap, const struct cap_key *k)
{
	uint32_t *s;

	if (!cap->ph.slot)
		return NULL;
	s = lookup(&cap->ph, k, cap->pairs, sizeof(*cap->pairs));
	return *s ? &cap->pairs[*s - 1] : NULL;
}

/* There are never more pairs than flows. */
int cap_pair_get(struct rck_cap *cap, const struct cap_key *k, struct cap_pair **out)
{
	struct cap_pair *p = cap_pair_find(cap, k);
	int rc;

	if (p) {
		*out = p;
		return 0;
	}
	rc = grow((void **)&cap->pairs, cap->npairs, &cap->pairs_alloc, sizeof(*cap->pairs), &cap->ph,
		  cap->o.max_flows);
	if (rc)
		return rc;
	p = &cap->pairs[cap->npairs];
	memset(p, 0, sizeof(*p));
	p->key = *k;
	*lookup(&cap->ph, k, cap->pairs, sizeof(*cap->pairs)) = ++cap->npairs;
	*out = p;
	return 0;
}

static uint64_t trouble(const struct rck_cap_flow *f)
{
	return f->st[RCK_CAP_FLOW_NAK_PSN_SEQ_ERR] + f->st[RCK_CAP_FLOW_NAK_RNR] +
	       f->st[RCK_CAP_FLOW_NAK_OTHER] + f->st[RCK_CAP_FLOW_RETRANSMISSIONS] +
	       f->st[RCK_CAP_FLOW_PSN_GAPS];
}

static uint64_t congestion(const struct rck_cap_flow *f)
{
	return f->st[RCK_CAP_FLOW_CE_MARKED] + f->st[RCK_CAP_FLOW_CNPS];
}

static int cmp_u64_desc(uint64_t a, uint64_t b)
{
	return a < b ? 1 : a > b ? -1 : 0;
}

/* Worst first: loss evidence, then congestion marks, then volume. */
static int cmp_flow(const void *a, const void *b, void *arg)
{
	const struct rck_cap_flow *fl = arg;
	const struct rck_cap_flow *x = &fl[*(const uint32_t *)a], *y = &fl[*(const uint32_t *)b];
	int c = cmp_u64_desc(trouble(x), trouble(y));

	if (!c)
		c = cmp_u64_desc(congestion(x), congestion(y));
	if (!c)
		c = cmp_u64_desc(x->st[RCK_CAP_FLOW_PACKETS], y->st[RCK_CAP_FLOW_PACKETS]);
	if (!c)
		c = memcmp(&x->key, &y->key, sizeof(x->key));
	return c;
}

int cap_flows_sort(struct rck_cap *cap)
{
	uint32_t *o = realloc(cap->order, (cap->nflows ? cap->nflows : 1) * sizeof(*o));

	if (!o)
		return -ENOMEM;
	cap->order = o;
	for (uint32_t i = 0; i < cap->nflows; i++)
		o[i] = i;
	qsort_r(o, cap->nflows, sizeof(*o), cmp_flow, cap->flows);
	return 0;
}

void cap_flows_free(struct rck_cap *cap)
{
	free(cap->flows);
	free(cap->fh.slot);
	free(cap->pairs);
	free(cap->ph.slot);
	free(cap->order);
}
