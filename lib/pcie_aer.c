/* Snapshots holding only AER counts: what a sweep's state keeps of the PCIe
 * paths to tell the next run which errors are new. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "pcie.h"

int pcie_aer_add(struct rck_pcie *p, const char *address, const uint64_t aer[3])
{
	struct rck_pcie_fn *fns, *f;

	if (!p || !address || strlen(address) >= sizeof(p->fns[0].address))
		return -EINVAL;
	fns = realloc(p->fns, (p->n_fns + 1) * sizeof(*fns));
	if (!fns)
		return -ENOMEM;
	p->fns = fns;
	f = &fns[p->n_fns];
	memset(f, 0, sizeof(*f));
	snprintf(f->address, sizeof(f->address), "%s", address);
	f->self = (int)p->n_fns++;
	f->up = f->port_type = f->numa = -1;
	f->has_aer = true;
	memcpy(f->aer, aer, sizeof(f->aer));
	return 0;
}

int pcie_aer_copy(const struct rck_pcie *p, struct rck_pcie **out)
{
	struct rck_pcie *c = calloc(1, sizeof(*c));

	if (!c)
		return -ENOMEM;
	c->virt = c->peermem = c->dmabuf = RCK_UNKNOWN;
	for (unsigned int i = 0; p && i < p->n_fns; i++) {
		int rc;

		if (!p->fns[i].has_aer)
			continue;
		rc = pcie_aer_add(c, p->fns[i].address, p->fns[i].aer);
		if (rc) {
			rck_pcie_free(c);
			return rc;
		}
	}
	*out = c;
	return 0;
}
