/* GPUDirect readiness of one host's PCIe paths: ACS redirect, relaxed
 * ordering, MaxReadReq, links below both ends, AER rising, far NICs, IOMMU. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/pcie.h"
#include "lint_pci.h"
#include "units.h"

RCK_EXPORT int rck_analysis_set_host_pcie(struct rck_analysis *a, unsigned int host, const struct rck_pcie *now,
					  const struct rck_pcie *before)
{
	if (!a || host >= a->n_hosts || !now)
		return -EINVAL;
	a->hosts[host].pcie = now;
	a->hosts[host].pcie_before = before;
	return 0;
}

const char *lp_label(const struct rck_pcie_fn *f)
{
	return f->n_rdma ? f->rdma[0] : f->address;
}

static const char *acs_on(unsigned int ctl)
{
	if ((ctl & RCK_ACS_RR) && (ctl & RCK_ACS_CR))
		return "request and completion redirect";
	return ctl & RCK_ACS_RR ? "request redirect" : "completion redirect";
}

/* ACS on a bridge between GPU @g and NIC @n below their shared bridge: the
 * switch sends their peer traffic up to the root complex. @seen: bridges named. */
static void check_acs(struct rck_report *r, const char *host, const struct rck_pcie *p, int g, int n,
		      uint8_t *seen)
{
	unsigned int sw;
	int lca = pcie_common_bridge(p, g, n, &sw);

	if (lca < 0 || p->fns[lca].port_type == 4)
		return;
	for (int side = 0; side < 2; side++) {
		int hops = 0;

		for (int j = p->fns[side ? n : g].up; j >= 0 && j != lca && hops < 64; j = p->fns[j].up, hops++) {
			const struct rck_pcie_fn *b = &p->fns[j];
			struct rck_finding *f;

			if (!b->has_acs || !(b->acs_ctl & (RCK_ACS_RR | RCK_ACS_CR)) || seen[j])
				continue;
			seen[j] = 1;
			f = an_add(r, RCK_FINDING_PCIE_ACS_REDIRECT, RCK_SEVERITY_DEGRADED, RCK_ENTITY_NIC, host,
				   b->address, NULL, NULL,
				   "ACS %s on bridge %s between GPU %s and NIC %s (%s): peer-to-peer goes "
				   "up to the root complex",
				   acs_on(b->acs_ctl), b->address, p->fns[g].address, p->fns[n].address,
				   lp_label(&p->fns[n]));
			an_value(f, "acs_ctl", b->acs_ctl);
		}
	}
}

static void check_far(struct rck_report *r, const char *host, const struct rck_analysis *a, const struct rck_pcie *p,
		      unsigned int g, enum rck_pcie_rel best)
{
	struct rck_finding *f;

	if (best == RCK_PCIE_REL_COUNT || (double)best <= an_th(a, TH_PCIE_GPU_NIC_MAX))
		return;
	f = an_add(r, RCK_FINDING_GPU_NIC_FAR, best == RCK_PCIE_REL_SYS ? RCK_SEVERITY_DEGRADED : RCK_SEVERITY_WARNING,
		   RCK_ENTITY_NIC, host, p->fns[g].address, NULL, NULL,
		   "GPU %s: its nearest NIC is %s away (%s): GPUDirect traffic crosses %s", p->fns[g].address,
		   rck_pcie_rel_name(best), best == RCK_PCIE_REL_SYS ? "other socket" : "other host bridge",
		   best == RCK_PCIE_REL_SYS ? "the socket interconnect" : "the CPU");
	an_value(f, "relation", best);
}

/* The link above @f is below what both its ends can do (the upstream port's
 * capability bounds it: a Gen5 root port over a Gen4 switch is not degraded). */
static void check_link(struct rck_report *r, const char *host, const struct rck_pcie *p, const struct rck_pcie_fn *f)
{
	double cap_speed;
	unsigned int cap_width;
	struct rck_finding *fd;
	char link[128];

	if (!pcie_link_allowed(p, f, &cap_speed, &cap_width) || (f->speed >= cap_speed && f->width >= cap_width))
		return;
	fd = an_add(r, RCK_FINDING_PCIE_DEGRADED, RCK_SEVERITY_DEGRADED, RCK_ENTITY_NIC, host, f->address, NULL, NULL,
		    "PCIe %s %s: bandwidth capped", f->kind == RCK_PCIE_GPU ? "GPU" : "switch",
		    units_pcie_link(link, sizeof(link), f->address, f->speed, f->width, cap_speed, cap_width));
	an_value(fd, "speed_gts", f->speed);
	an_value(fd, "width", f->width);
	an_value(fd, "max_speed_gts", cap_speed);
	an_value(fd, "max_width", cap_width);
	an_value(fd, "on_path", 1); /* the path lint's: reported, never drained (verdict.c) */
}

bool lp_nic_slot_limited(const struct rck_pcie *p, const char *address)
{
	const struct rck_pcie_fn *f = p && address ? rck_pcie_find(p, address) : NULL;

	return f && f->kind == RCK_PCIE_NIC && pcie_slot_limited(p, f);
}

/* A NIC's link: trained below what it and its slot allow (pcie_degraded;
 * left to the inventory's check, hosts.c, when the host has one), or at the
 * slot's capability but below the NIC's own (pcie_slot_limited: a x16 NIC in
 * a x8 slot, a Gen5 NIC on a Gen4 port; placement, not a fault). */
static void check_nic_link(struct rck_report *r, const char *host, bool has_inv, const struct rck_pcie *p,
			   const struct rck_pcie_fn *f)
{
	const struct rck_pcie_fn *up = f->up >= 0 ? &p->fns[f->up] : NULL;
	double speed;
	unsigned int width;
	struct rck_finding *fd;

	if (!pcie_link_allowed(p, f, &speed, &width))
		return;
	if (f->speed < speed || f->width < width) {
		if (has_inv)
			return;
		fd = an_add(r, RCK_FINDING_PCIE_DEGRADED, RCK_SEVERITY_DEGRADED, RCK_ENTITY_NIC, host, lp_label(f),
			    NULL, NULL, "PCIe NIC %s at %g GT/s x%u, it and its slot allow %g GT/s x%u: trained down",
			    f->address, f->speed, f->width, speed, width);
	} else if (pcie_slot_limited(p, f)) {
		fd = an_add(r, RCK_FINDING_PCIE_SLOT_LIMITED, RCK_SEVERITY_WARNING, RCK_ENTITY_NIC, host, lp_label(f),
			    NULL, NULL,
			    "PCIe NIC %s at %g GT/s x%u, all its slot (port %s) allows; the NIC can do %g GT/s x%u",
			    f->address, f->speed, f->width, up ? up->address : "above", f->max_speed, f->max_width);
	} else {
		return;
	}
	an_value(fd, "speed_gts", f->speed);
	an_value(fd, "width", f->width);
	an_value(fd, "max_speed_gts", f->max_speed);
	an_value(fd, "max_width", f->max_width);
	an_value(fd, "slot_speed_gts", up && up->has_link ? up->max_speed : 0);
	an_value(fd, "slot_width", up && up->has_link ? up->max_width : 0);
	an_value(fd, "on_path", 1);
}

static void check_aer(struct rck_report *r, const char *host, const struct rck_analysis *a, const struct rck_pcie *now,
		      const struct rck_pcie *before)
{
	static const char *const kinds[3] = { "correctable", "non-fatal", "fatal" };
	static const char *const keys[3] = { "correctable", "nonfatal", "fatal" };

	for (unsigned int i = 0; before && i < now->n_fns; i++) {
		const struct rck_pcie_fn *f = &now->fns[i], *b = rck_pcie_find(before, f->address);

		if (!f->has_aer || !b || !b->has_aer)
			continue;
		for (int k = 2; k >= 0; k--) {
			uint64_t d = f->aer[k] - b->aer[k];
			struct rck_finding *fd;

			/* Fewer than before: the counts were reset (reboot, reload); nothing to compare. */
			if (f->aer[k] < b->aer[k] || !d || (k == 0 && (double)d < an_th(a, TH_PCIE_AER_MIN)))
				continue;
			fd = an_add(r, RCK_FINDING_PCIE_AER, k ? RCK_SEVERITY_DEGRADED : RCK_SEVERITY_WARNING,
				    RCK_ENTITY_NIC, host, lp_label(f), NULL, NULL,
				    "PCIe %s: %llu new %s AER errors since the last sweep (%llu in all)", f->address,
				    (unsigned long long)d, kinds[k], (unsigned long long)f->aer[k]);
			an_value(fd, keys[k], (double)d);
			break;
		}
	}
}

static void check_host(const struct rck_analysis *a, struct rck_report *r, unsigned int h)
{
	const struct rck_pcie *p = a->hosts[h].pcie;
	const char *host = a->hosts[h].name;
	uint8_t *seen = calloc(p->n_fns ? 2 * p->n_fns : 1, 1), *used = seen + p->n_fns;
	unsigned int gpus = 0, nics = 0;

	if (!seen) {
		r->err = -ENOMEM;
		return;
	}
	for (unsigned int i = 0; i < p->n_endpoints; i++) {
		gpus += p->fns[i].kind == RCK_PCIE_GPU;
		nics += p->fns[i].kind == RCK_PCIE_NIC;
	}
	for (unsigned int g = 0; g < p->n_endpoints; g++) {
		enum rck_pcie_rel best;

		if (p->fns[g].kind != RCK_PCIE_GPU)
			continue;
		best = pcie_best(p, g);
		check_far(r, host, a, p, g, best);
		for (unsigned int n = 0; n < p->n_endpoints; n++) {
			enum rck_pcie_rel rel;

			if (p->fns[n].kind != RCK_PCIE_NIC)
				continue;
			rel = rck_pcie_relation(p, &p->fns[g], &p->fns[n]);
			if (rel != best)
				continue;
			used[n] = 1;
			if (rel <= RCK_PCIE_REL_PXB)
				check_acs(r, host, p, (int)g, (int)n, seen);
		}
	}
	for (unsigned int i = 0; i < p->n_fns; i++) {
		const struct rck_pcie_fn *f = &p->fns[i];
		struct rck_finding *fd;

		if (f->kind == RCK_PCIE_GPU || f->port_type == 5)
			check_link(r, host, p, f);
		if (f->kind == RCK_PCIE_NIC)
			check_nic_link(r, host, a->hosts[h].inv != NULL, p, f);
		if (f->kind != RCK_PCIE_NIC || !f->has_devctl)
			continue;
		if (used[i] && !f->ro)
			an_add(r, RCK_FINDING_PCIE_RELAXED_ORDERING, RCK_SEVERITY_WARNING, RCK_ENTITY_NIC, host,
			       lp_label(f), NULL, NULL,
			       "relaxed ordering is off on NIC %s, which GPUs use: GPUDirect writes lose bandwidth",
			       f->address);
		if ((double)f->mrrs < an_th(a, TH_PCIE_MIN_READ_REQ)) {
			fd = an_add(r, RCK_FINDING_PCIE_MAX_READ_REQ, RCK_SEVERITY_WARNING, RCK_ENTITY_NIC, host,
				    lp_label(f), NULL, NULL, "NIC %s: MaxReadReq %u bytes, below %g", f->address,
				    f->mrrs, an_th(a, TH_PCIE_MIN_READ_REQ));
			an_value(fd, "max_read_req", f->mrrs);
		}
	}
	free(seen);
	check_aer(r, host, a, p, a->hosts[h].pcie_before);
	if (p->iommu == RCK_IOMMU_TRANSLATED && p->virt == RCK_NO && gpus + nics)
		an_add(r, RCK_FINDING_IOMMU_TRANSLATED, RCK_SEVERITY_WARNING, RCK_ENTITY_HOST, host, NULL, NULL, NULL,
		       "the IOMMU translates DMA on bare metal (%s): GPUDirect pays IOTLB misses; "
		       "iommu=pt keeps isolation without translation", p->iommu_source);
	if (gpus && nics && p->peermem == RCK_NO && p->dmabuf != RCK_YES)
		an_add(r, RCK_FINDING_GPU_PEERMEM, RCK_SEVERITY_WARNING, RCK_ENTITY_HOST, host, NULL, NULL, NULL,
		       "%u GPUs and %u NICs but no GPU peer-memory path (nvidia_peermem not loaded, no dma-buf%s)",
		       gpus, nics, strcmp(p->dmabuf_source, "inferred") ? "" : ": inferred from the kernel release");
}

void an_check_pcie(const struct rck_analysis *a, struct rck_report *r)
{
	for (unsigned int h = 0; h < a->n_hosts; h++)
		if (a->hosts[h].pcie && !a->hosts[h].unreachable)
			check_host(a, r, h);
	an_lint_pcie(a, r);
}
