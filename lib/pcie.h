/* PCIe path snapshot as the library sees it (pcie_*.c, analysis/lint_pci.c);
 * public code uses the accessors in rocecheck/pcie.h. */
#ifndef RCK_PCIE_INTERNAL_H
#define RCK_PCIE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rocecheck/pcie.h"

#define PCIE_RDMA_MAX 4

struct rck_pcie_fn {
	char address[16];
	char parent[16];          /* the function above in sysfs, "" at a host bridge */
	char root[24];            /* "pci0000:00": the host bridge it hangs from */
	char driver[32];          /* "" unknown */
	enum rck_pcie_kind kind;
	uint16_t vendor, device;
	uint32_t class_code;
	int numa;                 /* -1 unknown */
	int self;                 /* own index in rck_pcie.fns */
	int up;                   /* index of the next bridge up, -1 none */
	int port_type;            /* -1: no PCIe capability */
	bool has_link;
	double speed, max_speed;  /* GT/s, 0 unknown */
	unsigned int width, max_width;
	bool has_devctl, ro, ns;
	unsigned int mps, mrrs;   /* bytes */
	bool has_acs;
	unsigned int acs_cap, acs_ctl;
	bool has_ats, ats_on;
	bool has_aer;
	uint64_t aer[3];          /* correctable, nonfatal, fatal */
	unsigned int n_rdma;
	char rdma[PCIE_RDMA_MAX][32];
	const char *rdma_ptr[PCIE_RDMA_MAX + 1];
};

struct rck_pcie {
	struct rck_pcie_fn *fns;
	unsigned int n_fns, n_endpoints;
	enum rck_iommu_mode iommu;
	char iommu_source[16];    /* "sysfs", "cmdline", "default" */
	enum rck_tristate virt, peermem, dmabuf;
	char dmabuf_source[16];   /* "kallsyms", "modules" (no RDMA core), "inferred" (kernel release), "" unknown */
};

/* Parsers of what we read ourselves (fuzzed: tests/fuzz/fuzz-pcie.c). */
/* The IOMMU mode the kernel command line asks for; RCK_IOMMU_UNKNOWN when it says nothing. */
enum rck_iommu_mode pcie_parse_cmdline(const char *cmdline);
/* An aer_dev_* file: the TOTAL_ERR_* line, else the sum of the lines. 0 or -EINVAL. */
int pcie_parse_aer(const char *text, uint64_t *total);
/* "6.1.0-18-amd64" -> 6, 1; 0 or -EINVAL. */
int pcie_parse_release(const char *s, unsigned int *major, unsigned int *minor);
/* /proc/kallsyms text (names are listed to every reader, only addresses
 * are hidden): whether the RDMA core's dma-buf MR symbol is there. */
bool pcie_kallsyms_dmabuf(const char *text, size_t len);
/* An iommu group's type file: "identity" passthrough, "DMA"/"DMA-FQ" translated, else unknown. */
enum rck_iommu_mode pcie_parse_group_type(const char *s);

/* Host-wide facts (pcie_host.c): IOMMU, hypervisor, peer memory. @sysdir is
 * the /sys folder, @procdir the /proc one ("" when a recorded tree has none). */
struct rck_ctx;
void pcie_read_host(const struct rck_ctx *ctx, struct rck_pcie *p, const char *sysdir,
		    const char *procdir, bool live);
/* Which PCI function owns each RDMA device of <sysdir>/class/infiniband
 * (its nearest PCI ancestor, through auxiliary devices): *out owned by the
 * caller (free()), *n entries. 0 or -ENOMEM; no class folder is no entry. */
struct pcie_owner {
	char address[16];
	char name[32];
};
int pcie_rdma_owners(const char *sysdir, struct pcie_owner **out, unsigned int *n);
/* "dddd:bb:dd.f" (or a five-digit VMD domain), lower-case hex as the kernel names functions. */
bool pcie_is_bdf(const char *s);
/* True for vendors whose functions exist only under a hypervisor (virtio, Hyper-V, VMware, Xen). */
bool pcie_virtual_vendor(uint16_t vendor);
/* Nearest relation of endpoint @g to any NIC; RCK_PCIE_REL_COUNT without NICs. */
enum rck_pcie_rel pcie_best(const struct rck_pcie *p, unsigned int g);
/* Count of the bridges, index of their lowest common one (-1 none). */
int pcie_common_bridge(const struct rck_pcie *p, int a, int b, unsigned int *switches);

/* What @f's link can train to: the smaller of its own capability and that
 * of the port above it (its slot). False without link capabilities. */
bool pcie_link_allowed(const struct rck_pcie *p, const struct rck_pcie_fn *f, double *speed, unsigned int *width);
/* @f links below its own capability only because the port above cannot do
 * more (a x16 card in a x8 slot, a Gen5 card on a Gen4 port): not trained down. */
bool pcie_slot_limited(const struct rck_pcie *p, const struct rck_pcie_fn *f);
/* pcie_load.c: a snapshot from its JSON (fuzzed): 0, -EINVAL, -ENOMEM. */
int pcie_parse(const char *buf, size_t len, struct rck_pcie **out);
/* pcie_aer.c: a snapshot of AER counts alone (a sweep's state keeps them).
 * Copy @p's (NULL: empty); add one function. 0, -EINVAL, -ENOMEM. */
int pcie_aer_copy(const struct rck_pcie *p, struct rck_pcie **out);
int pcie_aer_add(struct rck_pcie *p, const char *address, const uint64_t aer[3]);
/* pcie_copy.c: the snapshot as its compact rocecheck.topo/1 JSON (*buf
 * owned by the caller, free()), and a deep copy through it. 0 or -errno. */
int pcie_json_text(const struct rck_pcie *p, char **buf, size_t *len);
int pcie_copy(const struct rck_pcie *p, struct rck_pcie **out);

#endif
