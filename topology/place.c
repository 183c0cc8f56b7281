/* Host NICs placed on their switches (place.h): a sorted copy of the cables
 * (host, NIC, switch) searched by binary search. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "place.h"

struct ckey {
	const char *host, *nic;
	int32_t sw, port;
};

struct tp_place {
	struct ckey *k;
	size_t n;
};

static int ckey_cmp(const void *x, const void *y)
{
	const struct ckey *a = x, *b = y;
	int c = strcmp(a->host, b->host);

	if (c)
		return c;
	if (!a->nic && !b->nic)
		return (a->sw > b->sw) - (a->sw < b->sw);
	if (!a->nic || !b->nic)
		return !a->nic - !b->nic;
	return strcmp(a->nic, b->nic);
}

/* Host-level cables of one host, whatever their switch. */
static int host_nul_cmp(const void *x, const void *y)
{
	const struct ckey *a = x, *b = y;
	int c = strcmp(a->host, b->host);

	return c ? c : !a->nic - !b->nic;
}

int tp_place_new(const struct rck_topology *t, struct tp_place **out)
{
	unsigned int nc = rck_topology_cable_count(t);
	struct tp_place *p = calloc(1, sizeof(*p));

	if (!p || !(p->k = malloc((nc ? nc : 1) * sizeof(*p->k)))) {
		free(p);
		return -ENOMEM;
	}
	for (unsigned int i = 0; i < nc; i++) {
		struct rck_topology_cable c = {.size = sizeof(c)};

		if (!rck_topology_cable(t, i, &c) && c.host && c.sw >= 0)
			p->k[p->n++] = (struct ckey){c.host, c.nic, c.sw, c.port};
	}
	qsort(p->k, p->n, sizeof(*p->k), ckey_cmp);
	*out = p;
	return 0;
}

void tp_place_free(struct tp_place *p)
{
	if (p)
		free(p->k);
	free(p);
}

int32_t tp_place_find(const struct tp_place *p, const char *host, const char *device, unsigned int port,
		      const char *netdev, int rail, int32_t *port_idx)
{
	char label[256];
	struct ckey k = {host, label, -1, -1};
	const struct ckey *hit, *lo, *hi;

	if (port_idx)
		*port_idx = -1;
	snprintf(label, sizeof(label), "%s/%u", device, port);
	hit = bsearch(&k, p->k, p->n, sizeof(*p->k), ckey_cmp);
	if (!hit) {
		k.nic = device;
		hit = bsearch(&k, p->k, p->n, sizeof(*p->k), ckey_cmp);
	}
	if (!hit && netdev) {
		k.nic = netdev;
		hit = bsearch(&k, p->k, p->n, sizeof(*p->k), ckey_cmp);
	}
	if (hit) {
		if (port_idx)
			*port_idx = hit->port;
		return hit->sw;
	}
	/* The host as a whole (Slurm), under one leaf per rail. */
	k.nic = NULL;
	lo = bsearch(&k, p->k, p->n, sizeof(*p->k), host_nul_cmp);
	if (!lo)
		return -1;
	for (hi = lo; hi < p->k + p->n && !host_nul_cmp(&k, hi); hi++)
		;
	while (lo > p->k && !host_nul_cmp(&k, lo - 1))
		lo--;
	return lo[(rail > 0 ? (size_t)rail : 0) % (size_t)(hi - lo)].sw;
}
