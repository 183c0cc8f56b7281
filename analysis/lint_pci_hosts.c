/* Cross-host lint of the PCIe paths: the GPU-NIC pairing, the IOMMU mode,
 * peer memory and per-function settings, odd host out named as the DCB lint does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/pcie.h"
#include "lint.h"
#include "lint_pci.h"

enum { P_PAIRING, P_IOMMU, P_PEERMEM, P_RO, P_MRRS, P_MPS, P_ACS, P_LINK, P_COUNT };

static const struct what pwhats[P_COUNT] = {
	[P_PAIRING] = {"GPU-NIC pairing (nearest NIC per GPU)", "", RCK_SEVERITY_WARNING},
	[P_IOMMU] = {"IOMMU mode", "", RCK_SEVERITY_WARNING},
	[P_PEERMEM] = {"GPU peer memory", "", RCK_SEVERITY_WARNING},
	[P_RO] = {"NIC relaxed ordering", "", RCK_SEVERITY_WARNING},
	[P_MRRS] = {"NIC MaxReadReq", " bytes", RCK_SEVERITY_WARNING},
	[P_MPS] = {"MaxPayload", " bytes", RCK_SEVERITY_WARNING},
	[P_ACS] = {"switch downstream port ACS redirect", "", RCK_SEVERITY_WARNING},
	[P_LINK] = {"GPU link", "", RCK_SEVERITY_WARNING},
};

static void pairing(struct lint *l, unsigned int h, const struct rck_pcie *p)
{
	char sig[128];
	size_t o = 0;
	unsigned int gpus = 0;

	sig[0] = '\0';
	for (unsigned int g = 0; g < p->n_endpoints && o < sizeof(sig) - 8; g++) {
		if (p->fns[g].kind != RCK_PCIE_GPU)
			continue;
		const char *n = rck_pcie_rel_name(pcie_best(p, g));

		o += (size_t)snprintf(sig + o, sizeof(sig) - o, "%s%s", gpus++ ? " " : "", n ? n : "none");
	}
	if (gpus)
		lint_add(l, "", h, NULL, "%s", sig);
}

static void collect(const struct rck_analysis *a, unsigned int kind, struct lint *l)
{
	for (unsigned int h = 0; h < a->n_hosts; h++) {
		const struct rck_pcie *p = a->hosts[h].pcie;

		if (!p || a->hosts[h].unreachable || !p->n_endpoints)
			continue;
		if (kind == P_PAIRING)
			pairing(l, h, p);
		else if (kind == P_IOMMU && p->iommu != RCK_IOMMU_UNKNOWN)
			lint_add(l, "", h, NULL, "%s", rck_iommu_mode_name(p->iommu));
		else if (kind == P_PEERMEM && p->peermem != RCK_UNKNOWN)
			lint_add(l, "", h, NULL, "%s", p->peermem == RCK_YES ? "nvidia_peermem loaded" : "not loaded");
		for (unsigned int i = 0; i < p->n_fns; i++) {
			const struct rck_pcie_fn *f = &p->fns[i];

			if (kind == P_RO && f->kind == RCK_PCIE_NIC && f->has_devctl)
				lint_add(l, "", h, lp_label(f), "%s", f->ro ? "on" : "off");
			else if (kind == P_MRRS && f->kind == RCK_PCIE_NIC && f->has_devctl)
				lint_add(l, "", h, lp_label(f), "%u", f->mrrs);
			else if (kind == P_MPS && f->kind != RCK_PCIE_BRIDGE && f->has_devctl)
				lint_add(l, f->kind == RCK_PCIE_GPU ? "GPUs" : "NICs", h, lp_label(f), "%u", f->mps);
			else if (kind == P_ACS && f->port_type == 6 && f->has_acs)
				lint_add(l, "", h, f->address, "%s",
					 f->acs_ctl & (RCK_ACS_RR | RCK_ACS_CR) ? "on" : "off");
			else if (kind == P_LINK && f->kind == RCK_PCIE_GPU && f->has_link)
				lint_add(l, "", h, f->address, "%g GT/s x%u", f->speed, f->width);
		}
	}
}

void an_lint_pcie(const struct rck_analysis *a, struct rck_report *r)
{
	struct lint l = { 0 };

	for (unsigned int k = 0; k < P_COUNT; k++) {
		collect(a, k, &l);
		lint_run(a, r, &l, &pwhats[k]);
	}
	free(l.it);
}
