/* The PCIe checks' shared helpers (lint_pci.c) and the cross-host lint of
 * PCIe settings (lint_pci_hosts.c). */
#ifndef RCK_ANALYSIS_LINT_PCI_H
#define RCK_ANALYSIS_LINT_PCI_H

#include "analysis_int.h"
#include "rocecheck/pcie.h"

/* A function's name in findings: its first RDMA device, else its address. */
const char *lp_label(const struct rck_pcie_fn *f);
/* True when NIC @address of @p (NULL: none) links below its own maximum
 * only because its slot (the port above) cannot do more: not trained down. */
bool lp_nic_slot_limited(const struct rck_pcie *p, const char *address);
/* The odd host out across hosts with PCIe paths. */
void an_lint_pcie(const struct rck_analysis *a, struct rck_report *r);

#endif
