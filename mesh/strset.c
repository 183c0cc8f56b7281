/* Ordered string set: an array in insertion order plus an open-addressing
 * index of it, kept at most half full. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "strset.h"

static uint32_t hash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static uint32_t *slot_of(const struct strset *s, const char *name)
{
	uint32_t mask = s->nslots - 1;

	for (uint32_t i = hash(name) & mask;; i = (i + 1) & mask)
		if (!s->slots[i] || !strcmp(s->names[s->slots[i] - 1], name))
			return &s->slots[i];
}

int strset_reserve(struct strset *s, unsigned int n)
{
	uint32_t nslots = 16, *slots;
	char **names;

	if (n > s->cap) {
		names = realloc(s->names, n * sizeof(*names));
		if (!names)
			return -ENOMEM;
		s->names = names;
		s->cap = n;
	}
	while (nslots < 2 * (uint64_t)n)
		nslots *= 2;
	if (nslots <= s->nslots)
		return 0;
	slots = calloc(nslots, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	free(s->slots);
	s->slots = slots;
	s->nslots = nslots;
	for (unsigned int i = 0; i < s->n; i++)
		*slot_of(s, s->names[i]) = i + 1;
	return 0;
}

int strset_add(struct strset *s, char *name, unsigned int *idx)
{
	uint32_t *slot;
	int rc;

	if (s->nslots) {
		slot = slot_of(s, name);
		if (*slot) {
			if (idx)
				*idx = *slot - 1;
			return -EEXIST;
		}
	}
	if (s->n == s->cap || 2 * (uint64_t)(s->n + 1) > s->nslots) {
		rc = strset_reserve(s, s->n < 8 ? 16 : s->n * 2);
		if (rc)
			return rc;
	}
	slot = slot_of(s, name);
	*slot = s->n + 1;
	s->names[s->n] = name;
	if (idx)
		*idx = s->n;
	s->n++;
	return 0;
}

int strset_find(const struct strset *s, const char *name, unsigned int *idx)
{
	const uint32_t *slot;

	if (!s->nslots)
		return -ENOENT;
	slot = slot_of(s, name);
	if (!*slot)
		return -ENOENT;
	if (idx)
		*idx = *slot - 1;
	return 0;
}

void strset_free(struct strset *s)
{
	for (unsigned int i = 0; i < s->n; i++)
		free(s->names[i]);
	free(s->names);
	free(s->slots);
	memset(s, 0, sizeof(*s));
}
