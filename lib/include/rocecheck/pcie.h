/* librocecheck PCIe paths: every RDMA NIC and GPU with the bridges up to its
 * root port, their link and ordering settings, and the GPU-NIC pairing. */
#ifndef ROCECHECK_PCIE_H
#define ROCECHECK_PCIE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rocecheck/context.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Opaque snapshot of a host's PCIe paths: the RDMA NICs, GPUs and
 * accelerators, every bridge between them and their root ports, the IOMMU
 * mode and the GPU peer-memory modules. Immutable once made: concurrent
 * readers need no lock.
 */
struct rck_pcie;
/** One PCI function of a snapshot (endpoint or bridge); owned by the snapshot. */
struct rck_pcie_fn;

enum rck_pcie_kind {
	RCK_PCIE_BRIDGE = 0, /**< a root port, switch port or other bridge on a path */
	RCK_PCIE_NIC = 1,    /**< an RDMA NIC function */
	RCK_PCIE_GPU = 2,    /**< a GPU or accelerator (NVIDIA, AMD, Intel Gaudi) */
};

/** The relation of two functions as `nvidia-smi topo -m` names it, nearest first. */
enum rck_pcie_rel {
	RCK_PCIE_REL_PIX = 0,  /**< through one PCIe switch (at most its ports) */
	RCK_PCIE_REL_PXB = 1,  /**< through several PCIe switches, not the host bridge */
	RCK_PCIE_REL_PHB = 2,  /**< through a PCIe host bridge (root port or root complex) */
	RCK_PCIE_REL_NODE = 3, /**< between host bridges of one NUMA node */
	RCK_PCIE_REL_SYS = 4,  /**< across the SMP interconnect between NUMA nodes */
	RCK_PCIE_REL_COUNT
};

enum rck_iommu_mode {
	RCK_IOMMU_UNKNOWN = 0,
	RCK_IOMMU_OFF = 1,
	RCK_IOMMU_PASSTHROUGH = 2, /**< identity domains: DMA untranslated */
	RCK_IOMMU_TRANSLATED = 3,  /**< DMA domains: every DMA goes through the IOMMU */
};

/** A yes/no the snapshot may not be able to tell. */
enum rck_tristate { RCK_UNKNOWN = -1, RCK_NO = 0, RCK_YES = 1 };

/** ACS capability and control bits (the PCIe ACS register layout). */
enum {
	RCK_ACS_SV = 1 << 0, /**< source validation */
	RCK_ACS_TB = 1 << 1, /**< translation blocking */
	RCK_ACS_RR = 1 << 2, /**< P2P request redirect */
	RCK_ACS_CR = 1 << 3, /**< P2P completion redirect */
	RCK_ACS_UF = 1 << 4, /**< upstream forwarding */
	RCK_ACS_EC = 1 << 5, /**< P2P egress control */
	RCK_ACS_DT = 1 << 6, /**< direct translated P2P */
};

/**
 * Read the PCIe paths with libpci, from /sys or from the context's recorded
 * tree (a copy of /sys; a folder holding sys/ and proc/ is accepted too).
 * Functions whose config space cannot be read keep their sysfs values only.
 * No NIC or GPU is not an error. The caller owns *out (rck_pcie_free()).
 * Returns 0, -ENOENT when there is no PCI bus to read, -EIO when libpci
 * failed (the reason is logged), -ENOMEM.
 */
int rck_pcie_new(struct rck_ctx *ctx, struct rck_pcie **out);
void rck_pcie_free(struct rck_pcie *p);
/**
 * Read a snapshot back from the JSON rck_pcie_write() wrote (schema
 * "rocecheck.topo/1"; another host's, to compare hosts). Every field the
 * document gives is restored; the caller owns *out. Returns 0, -EINVAL (not
 * such a document, logged naming @path), -errno of the read, -ENOMEM.
 */
int rck_pcie_load(struct rck_ctx *ctx, const char *path, struct rck_pcie **out);

/**
 * Write the snapshot: text (devices with their paths, then the GPU x NIC
 * matrix) or JSON (schema "rocecheck.pcie/1"). Returns 0 or -errno.
 */
int rck_pcie_write(const struct rck_pcie *p, FILE *out, enum rck_format fmt);

/** Functions: endpoints (NICs, GPUs) first in address order, then bridges. */
unsigned int rck_pcie_fn_count(const struct rck_pcie *p);
const struct rck_pcie_fn *rck_pcie_fn(const struct rck_pcie *p, unsigned int i);
/** Function by its address "dddd:bb:dd.f", or NULL. */
const struct rck_pcie_fn *rck_pcie_find(const struct rck_pcie *p, const char *address);

enum rck_iommu_mode rck_pcie_iommu(const struct rck_pcie *p);
/** "off", "passthrough", "translated", "unknown". Static storage. */
const char *rck_iommu_mode_name(enum rck_iommu_mode m);
/** Whether the host runs under a hypervisor (virtual PCI functions, DMI). */
enum rck_tristate rck_pcie_virtual(const struct rck_pcie *p);
/** nvidia_peermem (or the older nv_peer_mem) loaded. */
enum rck_tristate rck_pcie_peermem(const struct rck_pcie *p);
/**
 * The RDMA stack can register dma-buf memory: ib_uverbs loaded and its
 * dma-buf MR code (ib_umem_dmabuf_get) listed in /proc/kallsyms (names are
 * listed to every reader), else inferred from the kernel release (5.12 or
 * later) with ib_core or ib_uverbs loaded; rck_pcie_dmabuf_source() says which.
 */
enum rck_tristate rck_pcie_dmabuf(const struct rck_pcie *p);
/** "kallsyms" (read there), "modules" (no: neither ib_core nor ib_uverbs loaded),
 * "inferred" (from the kernel release), NULL unknown. Owned by @p. */
const char *rck_pcie_dmabuf_source(const struct rck_pcie *p);

/**
 * Relation of two endpoints; RCK_PCIE_REL_COUNT when either is not in @p.
 * Returns the relation with "SYS" when the NUMA nodes differ, "NODE" when
 * they are equal or unknown and no bridge is shared.
 */
enum rck_pcie_rel rck_pcie_relation(const struct rck_pcie *p, const struct rck_pcie_fn *a,
				    const struct rck_pcie_fn *b);
/** "PIX", "PXB", "PHB", "NODE", "SYS"; NULL out of range. Static storage. */
const char *rck_pcie_rel_name(enum rck_pcie_rel r);

/* Function attributes. */
const char *rck_pcie_fn_address(const struct rck_pcie_fn *fn);
enum rck_pcie_kind rck_pcie_fn_kind(const struct rck_pcie_fn *fn);
/** Vendor, device and 24-bit class code. */
void rck_pcie_fn_ids(const struct rck_pcie_fn *fn, uint16_t *vendor, uint16_t *device,
		     uint32_t *class_code);
/** The bound driver's name, or NULL. */
const char *rck_pcie_fn_driver(const struct rck_pcie_fn *fn);
/** RDMA device names of a NIC function ("mlx5_0"), NULL-free array; count returned. */
unsigned int rck_pcie_fn_rdma(const struct rck_pcie_fn *fn, const char *const **names);
/** NUMA node; false when unknown (-1 in sysfs). */
bool rck_pcie_fn_numa(const struct rck_pcie_fn *fn, int *node);
/** The next bridge up, or NULL at the root port (or on a flat bus). */
const struct rck_pcie_fn *rck_pcie_fn_upstream(const struct rck_pcie_fn *fn);
/** PCIe port type of the Express capability (0 endpoint, 4 root port, 5/6 switch up/down); -1 without one. */
int rck_pcie_fn_port_type(const struct rck_pcie_fn *fn);
/** Link now and as capable (GT/s, lanes); false without a PCIe capability. */
bool rck_pcie_fn_link(const struct rck_pcie_fn *fn, double *speed, unsigned int *width,
		      double *max_speed, unsigned int *max_width);
/** Device control: relaxed ordering and no-snoop enables, MaxPayload and MaxReadReq in bytes. */
bool rck_pcie_fn_devctl(const struct rck_pcie_fn *fn, bool *relaxed_ordering, bool *no_snoop,
			unsigned int *max_payload, unsigned int *max_read_req);
/** ACS capability and control (RCK_ACS_* bits); false without an ACS capability. */
bool rck_pcie_fn_acs(const struct rck_pcie_fn *fn, unsigned int *cap, unsigned int *ctl);
/** ATS: false without the capability, else *enabled its enable bit. */
bool rck_pcie_fn_ats(const struct rck_pcie_fn *fn, bool *enabled);
/** AER totals from sysfs (correctable, non-fatal, fatal); false when absent. */
bool rck_pcie_fn_aer(const struct rck_pcie_fn *fn, uint64_t *correctable, uint64_t *nonfatal,
		     uint64_t *fatal);

#ifdef __cplusplus
}
#endif

#endif
