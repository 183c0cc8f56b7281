/* K-of-N hysteresis over monitor windows, as the host sweep holds its runs:
 * a finding counts once present in K of the last N windows, clears once absent in K. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "monitor_int.h"

void mh_init(struct mh *h, unsigned int k, unsigned int n)
{
	memset(h, 0, sizeof(*h));
	h->n = n < 1 ? 1 : n > 32 ? 32 : n;
	h->k = k < 1 ? 1 : k > h->n ? h->n : k;
}

void mh_free(struct mh *h)
{
	for (unsigned int i = 0; i < h->cnt; i++)
		free(h->v[i].key);
	free(h->v);
	memset(h, 0, sizeof(*h));
}

static int lookup(const struct mh *h, const char *key)
{
	for (unsigned int i = 0; i < h->cnt; i++)
		if (!strcmp(h->v[i].key, key))
			return (int)i;
	return -1;
}

static unsigned int ones(uint32_t v, unsigned int n)
{
	return (unsigned int)__builtin_popcount(n >= 32 ? v : v & ((1u << n) - 1));
}

int mh_window(struct mh *h, const struct mf_list *now, unsigned int *changed, unsigned int max)
{
	char key[MF_STR * 2 + 64];
	unsigned int n_changed = 0, out = 0;

	/* shift every known key: absent unless listed below */
	for (unsigned int i = 0; i < h->cnt; i++) {
		h->v[i].bits <<= 1;
		if (h->v[i].age < h->n)
			h->v[i].age++;
	}
	for (unsigned int j = 0; j < now->n; j++) {
		int i;

		mf_key(&now->v[j], key, sizeof(key));
		if ((i = lookup(h, key)) < 0) {
			if (h->cnt == h->cap) {
				unsigned int cap = h->cap ? 2 * h->cap : 16;
				struct mh_entry *v = realloc(h->v, cap * sizeof(*v));

				if (!v)
					return -ENOMEM;
				h->v = v;
				h->cap = cap;
			}
			memset(&h->v[h->cnt], 0, sizeof(h->v[h->cnt]));
			if (!(h->v[h->cnt].key = strdup(key)))
				return -ENOMEM;
			h->v[h->cnt].age = 1;
			i = (int)h->cnt++;
		}
		h->v[i].bits |= 1;
		h->v[i].last = now->v[j];
	}
	for (unsigned int i = 0; i < h->cnt; i++) {
		struct mh_entry *e = &h->v[i];
		unsigned int present = ones(e->bits, h->n);
		bool counts;

		/* absences are counted among the windows seen since the key
		 * appeared: a flap counted at once is not cleared by the empty
		 * history before it */
		if (e->counts)
			counts = e->age - ones(e->bits, e->age) < h->k || (e->last.immediate && (e->bits & 1));
		else
			counts = present >= h->k || (e->last.immediate && (e->bits & 1));
		if (counts != e->counts) {
			e->counts = counts;
			if (changed && n_changed < max)
				changed[n_changed] = i;
			n_changed++;
		}
	}
	/* forget keys absent N windows that no longer count (indices stay valid
	 * for the caller: compact only entries that did not change) */
	for (unsigned int i = 0; i < h->cnt; i++) {
		struct mh_entry *e = &h->v[i];
		bool listed = false;

		for (unsigned int c = 0; changed && c < n_changed && c < max; c++)
			listed |= changed[c] == i;
		if (!listed && !e->counts && !ones(e->bits, h->n)) {
			free(e->key);
			continue;
		}
		if (out != i) {
			h->v[out] = *e;
			for (unsigned int c = 0; changed && c < n_changed && c < max; c++)
				if (changed[c] == i)
					changed[c] = out;
		}
		out++;
	}
	h->cnt = out;
	return (int)(n_changed < max || !changed ? n_changed : max);
}
