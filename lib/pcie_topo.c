/* The PCIe snapshot's accessors and the GPU-NIC relation, named as
 * `nvidia-smi topo -m` names it, from the lowest bridge two paths share. */
#include <errno.h>
#include <string.h>

#include "internal.h"
#include "pcie.h"

#define PATH_MAX_HOPS 64

/* Indices of the bridges above @i, nearest first (bounded: a recorded tree could loop). */
static unsigned int chain(const struct rck_pcie *p, int i, int *out)
{
	unsigned int n = 0;

	for (int j = p->fns[i].up; j >= 0 && n < PATH_MAX_HOPS; j = p->fns[j].up)
		out[n++] = j;
	return n;
}

int pcie_common_bridge(const struct rck_pcie *p, int a, int b, unsigned int *switches)
{
	int ca[PATH_MAX_HOPS], cb[PATH_MAX_HOPS];
	unsigned int na = chain(p, a, ca), nb = chain(p, b, cb);

	*switches = 0;
	for (unsigned int i = 0; i < na; i++)
		for (unsigned int j = 0; j < nb; j++) {
			if (ca[i] != cb[j])
				continue;
			/* Switches crossed below the shared bridge: their upstream ports. */
			for (unsigned int k = 0; k < i; k++)
				*switches += p->fns[ca[k]].port_type == 5;
			for (unsigned int k = 0; k < j; k++)
				*switches += p->fns[cb[k]].port_type == 5;
			return ca[i];
		}
	return -1;
}

enum rck_pcie_rel pcie_best(const struct rck_pcie *p, unsigned int g)
{
	enum rck_pcie_rel best = RCK_PCIE_REL_COUNT;

	for (unsigned int n = 0; n < p->n_endpoints; n++)
		if (p->fns[n].kind == RCK_PCIE_NIC) {
			enum rck_pcie_rel r = rck_pcie_relation(p, &p->fns[g], &p->fns[n]);

			if (r < best)
				best = r;
		}
	return best;
}

static int index_of(const struct rck_pcie *p, const struct rck_pcie_fn *fn)
{
	if (!p || !fn || fn < p->fns || fn >= p->fns + p->n_fns)
		return -1;
	return (int)(fn - p->fns);
}

RCK_EXPORT enum rck_pcie_rel rck_pcie_relation(const struct rck_pcie *p, const struct rck_pcie_fn *a,
					       const struct rck_pcie_fn *b)
{
	int ia = index_of(p, a), ib = index_of(p, b), lca;
	unsigned int sw;

	if (ia < 0 || ib < 0)
		return RCK_PCIE_REL_COUNT;
	lca = pcie_common_bridge(p, ia, ib, &sw);
	if (lca >= 0) {
		/* Through a root port, peer traffic turns in the root complex. */
		if (p->fns[lca].port_type == 4)
			return RCK_PCIE_REL_PHB;
		return sw ? RCK_PCIE_REL_PXB : RCK_PCIE_REL_PIX;
	}
	if (a->root[0] && !strcmp(a->root, b->root))
		return RCK_PCIE_REL_PHB;
	if (a->numa >= 0 && b->numa >= 0 && a->numa != b->numa)
		return RCK_PCIE_REL_SYS;
	return RCK_PCIE_REL_NODE;
}

RCK_EXPORT const char *rck_pcie_rel_name(enum rck_pcie_rel r)
{
	static const char *const names[RCK_PCIE_REL_COUNT] = { "PIX", "PXB", "PHB", "NODE", "SYS" };

	return (unsigned int)r < RCK_PCIE_REL_COUNT ? names[r] : NULL;
}

RCK_EXPORT const char *rck_iommu_mode_name(enum rck_iommu_mode m)
{
	switch (m) {
	case RCK_IOMMU_OFF:
		return "off";
	case RCK_IOMMU_PASSTHROUGH:
		return "passthrough";
	case RCK_IOMMU_TRANSLATED:
		return "translated";
	default:
		return "unknown";
	}
}

RCK_EXPORT unsigned int rck_pcie_fn_count(const struct rck_pcie *p)
{
	return p ? p->n_fns : 0;
}

RCK_EXPORT const struct rck_pcie_fn *rck_pcie_fn(const struct rck_pcie *p, unsigned int i)
{
	return p && i < p->n_fns ? &p->fns[i] : NULL;
}

RCK_EXPORT const struct rck_pcie_fn *rck_pcie_find(const struct rck_pcie *p, const char *address)
{
	for (unsigned int i = 0; p && address && i < p->n_fns; i++)
		if (!strcmp(p->fns[i].address, address))
			return &p->fns[i];
	return NULL;
}

RCK_EXPORT enum rck_iommu_mode rck_pcie_iommu(const struct rck_pcie *p)
{
	return p->iommu;
}

RCK_EXPORT enum rck_tristate rck_pcie_virtual(const struct rck_pcie *p)
{
	return p->virt;
}

RCK_EXPORT enum rck_tristate rck_pcie_peermem(const struct rck_pcie *p)
{
	return p->peermem;
}

RCK_EXPORT enum rck_tristate rck_pcie_dmabuf(const struct rck_pcie *p)
{
	return p->dmabuf;
}

RCK_EXPORT const char *rck_pcie_dmabuf_source(const struct rck_pcie *p)
{
	return p && p->dmabuf_source[0] ? p->dmabuf_source : NULL;
}

RCK_EXPORT const char *rck_pcie_fn_address(const struct rck_pcie_fn *fn)
{
	return fn->address;
}

RCK_EXPORT enum rck_pcie_kind rck_pcie_fn_kind(const struct rck_pcie_fn *fn)
{
	return fn->kind;
}

RCK_EXPORT void rck_pcie_fn_ids(const struct rck_pcie_fn *fn, uint16_t *vendor, uint16_t *device,
				uint32_t *class_code)
{
	if (vendor)
		*vendor = fn->vendor;
	if (device)
		*device = fn->device;
	if (class_code)
		*class_code = fn->class_code;
}

RCK_EXPORT const char *rck_pcie_fn_driver(const struct rck_pcie_fn *fn)
{
	return fn->driver[0] ? fn->driver : NULL;
}

RCK_EXPORT unsigned int rck_pcie_fn_rdma(const struct rck_pcie_fn *fn, const char *const **names)
{
	if (names)
		*names = fn->rdma_ptr;
	return fn->n_rdma;
}

RCK_EXPORT bool rck_pcie_fn_numa(const struct rck_pcie_fn *fn, int *node)
{
	if (fn->numa < 0)
		return false;
	*node = fn->numa;
	return true;
}

RCK_EXPORT const struct rck_pcie_fn *rck_pcie_fn_upstream(const struct rck_pcie_fn *fn)
{
	/* fns is one array: the bridge lies at a known offset from this function. */
	return fn->up >= 0 ? fn - fn->self + fn->up : NULL;
}

RCK_EXPORT int rck_pcie_fn_port_type(const struct rck_pcie_fn *fn)
{
	return fn->port_type;
}

RCK_EXPORT bool rck_pcie_fn_link(const struct rck_pcie_fn *fn, double *speed, unsigned int *width,
				 double *max_speed, unsigned int *max_width)
{
	if (!fn->has_link)
		return false;
	if (speed)
		*speed = fn->speed;
	if (width)
		*width = fn->width;
	if (max_speed)
		*max_speed = fn->max_speed;
	if (max_width)
		*max_width = fn->max_width;
	return true;
}

RCK_EXPORT bool rck_pcie_fn_devctl(const struct rck_pcie_fn *fn, bool *relaxed_ordering, bool *no_snoop,
				   unsigned int *max_payload, unsigned int *max_read_req)
{
	if (!fn->has_devctl)
		return false;
	if (relaxed_ordering)
		*relaxed_ordering = fn->ro;
	if (no_snoop)
		*no_snoop = fn->ns;
	if (max_payload)
		*max_payload = fn->mps;
	if (max_read_req)
		*max_read_req = fn->mrrs;
	return true;
}

RCK_EXPORT bool rck_pcie_fn_acs(const struct rck_pcie_fn *fn, unsigned int *cap, unsigned int *ctl)
{
	if (!fn->has_acs)
		return false;
	if (cap)
		*cap = fn->acs_cap;
	if (ctl)
		*ctl = fn->acs_ctl;
	return true;
}

RCK_EXPORT bool rck_pcie_fn_ats(const struct rck_pcie_fn *fn, bool *enabled)
{
	if (!fn->has_ats)
		return false;
	if (enabled)
		*enabled = fn->ats_on;
	return true;
}

RCK_EXPORT bool rck_pcie_fn_aer(const struct rck_pcie_fn *fn, uint64_t *correctable, uint64_t *nonfatal,
				uint64_t *fatal)
{
	if (!fn->has_aer)
		return false;
	if (correctable)
		*correctable = fn->aer[0];
	if (nonfatal)
		*nonfatal = fn->aer[1];
	if (fatal)
		*fatal = fn->aer[2];
	return true;
}

bool pcie_link_allowed(const struct rck_pcie *p, const struct rck_pcie_fn *f, double *speed, unsigned int *width)
{
	const struct rck_pcie_fn *up = f->up >= 0 ? &p->fns[f->up] : NULL;

	if (!f->has_link || !f->max_speed || !f->max_width)
		return false;
	*speed = f->max_speed;
	*width = f->max_width;
	if (up && up->has_link && up->max_speed && up->max_width) {
		*speed = up->max_speed < *speed ? up->max_speed : *speed;
		*width = up->max_width < *width ? up->max_width : *width;
	}
	return true;
}

bool pcie_slot_limited(const struct rck_pcie *p, const struct rck_pcie_fn *f)
{
	double speed;
	unsigned int width;

	return pcie_link_allowed(p, f, &speed, &width) && f->speed >= speed && f->width >= width &&
	       (f->speed < f->max_speed || f->width < f->max_width);
}
