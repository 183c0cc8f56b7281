/* The PCIe snapshot written out: JSON ("rocecheck.topo/1") or text (a table
 * of functions, each endpoint's path, the GPU x NIC matrix as nvidia-smi's). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "emit.h"
#include "internal.h"
#include "pcie.h"

#define TOPO_SCHEMA "rocecheck.topo/1"

static const char *kind_name(enum rck_pcie_kind k)
{
	return k == RCK_PCIE_NIC ? "nic" : k == RCK_PCIE_GPU ? "gpu" : "bridge";
}

static const char *port_name(int t)
{
	switch (t) {
	case 0:
		return "endpoint";
	case 1:
		return "legacy endpoint";
	case 4:
		return "root port";
	case 5:
		return "switch upstream";
	case 6:
		return "switch downstream";
	case 7:
		return "pcie-to-pci";
	case 8:
		return "pci-to-pcie";
	case 9:
		return "root complex endpoint";
	case 10:
		return "event collector";
	default:
		return NULL;
	}
}

static void tri(struct emit *e, const char *key, const char *tfmt, enum rck_tristate t)
{
	if (t == RCK_UNKNOWN)
		emit_null(e, key, tfmt);
	else
		emit_bool(e, key, tfmt, t == RCK_YES);
}

/* A link speed; 0 (a code lspci calls unknown) is null. */
static void gts(struct emit *e, const char *key, double v)
{
	if (v > 0)
		emit_double(e, key, NULL, 1, v);
	else
		emit_null(e, key, NULL);
}

static const char *const acs_keys[7] = { "sv", "tb", "rr", "cr", "uf", "ec", "dt" };

static void acs_obj(struct emit *e, const char *key, unsigned int bits)
{
	emit_obj_open(e, key);
	for (unsigned int i = 0; i < 7; i++)
		emit_bool(e, acs_keys[i], NULL, bits & (1u << i));
	emit_obj_close(e);
}

/* "SV+ RR- CR- UF+" as in the text table. */
static void acs_text(char *buf, size_t len, unsigned int bits)
{
	static const char *const names[5] = { "SV", "RR", "CR", "UF", "TB" };
	static const unsigned int mask[5] = { RCK_ACS_SV, RCK_ACS_RR, RCK_ACS_CR, RCK_ACS_UF, RCK_ACS_TB };
	size_t o = 0;

	buf[0] = '\0';
	for (int i = 0; i < 4 && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s%c", i ? " " : "", names[i],
				      bits & mask[i] ? '+' : '-');
}

static void write_fn_json(struct emit *e, const struct rck_pcie *p, const struct rck_pcie_fn *f)
{
	char buf[16];

	emit_obj_open(e, NULL);
	emit_str(e, "address", NULL, f->address);
	emit_str(e, "kind", NULL, kind_name(f->kind));
	snprintf(buf, sizeof(buf), "%04x", f->vendor);
	emit_str(e, "vendor", NULL, buf);
	snprintf(buf, sizeof(buf), "%04x", f->device);
	emit_str(e, "device", NULL, buf);
	snprintf(buf, sizeof(buf), "%06x", f->class_code);
	emit_str(e, "class", NULL, buf);
	emit_str(e, "driver", NULL, f->driver[0] ? f->driver : NULL);
	emit_arr_open(e, "rdma");
	for (unsigned int i = 0; i < f->n_rdma; i++)
		emit_str(e, NULL, NULL, f->rdma[i]);
	emit_arr_close(e);
	if (f->numa >= 0)
		emit_i64(e, "numa_node", NULL, f->numa);
	else
		emit_null(e, "numa_node", NULL);
	emit_str(e, "root", NULL, f->root[0] ? f->root : NULL);
	emit_str(e, "upstream", NULL, f->up >= 0 ? p->fns[f->up].address : NULL);
	emit_str(e, "port_type", NULL, port_name(f->port_type));
	if (f->has_link) {
		emit_obj_open(e, "link");
		gts(e, "speed_gts", f->speed);
		emit_u64(e, "width", NULL, f->width);
		gts(e, "max_speed_gts", f->max_speed);
		emit_u64(e, "max_width", NULL, f->max_width);
		emit_bool(e, "degraded", NULL, f->speed < f->max_speed || f->width < f->max_width);
		emit_bool(e, "slot_limited", NULL, pcie_slot_limited(p, f));
		emit_obj_close(e);
	} else {
		emit_null(e, "link", NULL);
	}
	if (f->has_devctl) {
		emit_bool(e, "relaxed_ordering", NULL, f->ro);
		emit_bool(e, "no_snoop", NULL, f->ns);
		emit_u64(e, "max_payload", NULL, f->mps);
		emit_u64(e, "max_read_req", NULL, f->mrrs);
	} else {
		emit_null(e, "relaxed_ordering", NULL);
		emit_null(e, "no_snoop", NULL);
		emit_null(e, "max_payload", NULL);
		emit_null(e, "max_read_req", NULL);
	}
	if (f->has_acs) {
		emit_obj_open(e, "acs");
		acs_obj(e, "cap", f->acs_cap);
		acs_obj(e, "ctl", f->acs_ctl);
		emit_obj_close(e);
	} else {
		emit_null(e, "acs", NULL);
	}
	if (f->has_ats)
		emit_bool(e, "ats_enabled", NULL, f->ats_on);
	else
		emit_null(e, "ats_enabled", NULL);
	if (f->has_aer) {
		emit_obj_open(e, "aer");
		emit_u64(e, "correctable", NULL, f->aer[0]);
		emit_u64(e, "nonfatal", NULL, f->aer[1]);
		emit_u64(e, "fatal", NULL, f->aer[2]);
		emit_obj_close(e);
	} else {
		emit_null(e, "aer", NULL);
	}
	emit_obj_close(e);
}

static void write_fn_text(struct emit *e, const struct rck_pcie *p, const struct rck_pcie_fn *f)
{
	char link[96] = "n/a", acs[32] = "-", aer[72] = "-", ids[16], dev[16] = "";

	snprintf(ids, sizeof(ids), "%04x:%04x", f->vendor, f->device);
	if (f->has_link)
		snprintf(link, sizeof(link), "%gGT/s x%u / %gGT/s x%u%s", f->speed, f->width, f->max_speed,
			 f->max_width, pcie_slot_limited(p, f) ? " SLOT" :
			 f->speed < f->max_speed || f->width < f->max_width ? " DEGRADED" : "");
	if (f->has_acs)
		acs_text(acs, sizeof(acs), f->acs_ctl);
	if (f->has_aer)
		snprintf(aer, sizeof(aer), "%llu/%llu/%llu", (unsigned long long)f->aer[0],
			 (unsigned long long)f->aer[1], (unsigned long long)f->aer[2]);
	if (f->numa >= 0)
		snprintf(dev, sizeof(dev), "%d", f->numa);
	emit_text(e, "%-12s  %-6s  %-9s  %-4s  %-36s  ", f->address, kind_name(f->kind), ids,
		  dev[0] ? dev : "n/a", link);
	if (f->has_devctl)
		emit_text(e, "RO%c NS%c  %4u  %4u  ", f->ro ? '+' : '-', f->ns ? '+' : '-', f->mps, f->mrrs);
	else
		emit_text(e, "%-7s  %4s  %4s  ", "n/a", "n/a", "n/a");
	emit_text(e, "%-15s  %-3s  %-11s  ", acs, f->has_ats ? (f->ats_on ? "on" : "off") : "-", aer);
	emit_label(e, "", f->driver[0] ? f->driver : "-", 0);
	for (unsigned int i = 0; i < f->n_rdma; i++)
		emit_label(e, "", f->rdma[i], 0);
	emit_text(e, "\n");
	(void)p;
}

static void write_paths_text(struct emit *e, const struct rck_pcie *p)
{
	emit_text(e, "\nPaths (endpoint <- bridges up to the root port):\n");
	for (unsigned int i = 0; i < p->n_endpoints; i++) {
		const struct rck_pcie_fn *f = &p->fns[i];
		int hops = 0;

		emit_text(e, "%s", f->address);
		for (int j = f->up; j >= 0 && hops < 64; j = p->fns[j].up, hops++)
			emit_text(e, " <- %s", p->fns[j].address);
		emit_label(e, "  ", f->root[0] ? f->root : "", 0);
		emit_text(e, "\n");
	}
}

static void write_matrix_text(struct emit *e, const struct rck_pcie *p)
{
	unsigned int ng = 0, nn = 0;

	for (unsigned int i = 0; i < p->n_endpoints; i++) {
		ng += p->fns[i].kind == RCK_PCIE_GPU;
		nn += p->fns[i].kind == RCK_PCIE_NIC;
	}
	emit_text(e, "\nGPU x NIC (as nvidia-smi topo -m):\n%-6s", "");
	for (unsigned int i = 0, k = 0; i < p->n_endpoints; i++)
		if (p->fns[i].kind == RCK_PCIE_NIC)
			emit_text(e, "  NIC%-3u", k++);
	emit_text(e, "%s\n", ng && nn ? "  best" : "");
	for (unsigned int i = 0, g = 0; i < p->n_endpoints; i++) {
		if (p->fns[i].kind != RCK_PCIE_GPU)
			continue;
		emit_text(e, "GPU%-3u", g++);
		for (unsigned int n = 0; n < p->n_endpoints; n++)
			if (p->fns[n].kind == RCK_PCIE_NIC)
				emit_text(e, "  %-6s", rck_pcie_rel_name(rck_pcie_relation(p, &p->fns[i], &p->fns[n])));
		if (nn)
			emit_text(e, "  %s", rck_pcie_rel_name(pcie_best(p, i)));
		emit_text(e, "\n");
	}
	emit_text(e, "\nLegend:\n");
	for (unsigned int i = 0, g = 0, k = 0; i < p->n_endpoints; i++) {
		const struct rck_pcie_fn *f = &p->fns[i];

		if (f->kind == RCK_PCIE_GPU)
			emit_text(e, "  GPU%u: %s\n", g++, f->address);
		else
			emit_text(e, "  NIC%u: %s%s", k++, f->address, f->n_rdma ? " " : "\n");
		for (unsigned int r = 0; f->kind == RCK_PCIE_NIC && r < f->n_rdma; r++) {
			emit_label(e, "", f->rdma[r], 0);
			if (r + 1 == f->n_rdma)
				emit_text(e, "\n");
		}
	}
}

static void write_pairs_json(struct emit *e, const struct rck_pcie *p)
{
	emit_arr_open(e, "gpus");
	for (unsigned int i = 0; i < p->n_endpoints; i++) {
		const struct rck_pcie_fn *g = &p->fns[i];
		enum rck_pcie_rel best;

		if (g->kind != RCK_PCIE_GPU)
			continue;
		best = pcie_best(p, i);
		emit_obj_open(e, NULL);
		emit_str(e, "address", NULL, g->address);
		emit_str(e, "best_relation", NULL, rck_pcie_rel_name(best));
		emit_arr_open(e, "best_nics");
		for (unsigned int n = 0; n < p->n_endpoints; n++)
			if (p->fns[n].kind == RCK_PCIE_NIC && rck_pcie_relation(p, g, &p->fns[n]) == best)
				emit_str(e, NULL, NULL, p->fns[n].address);
		emit_arr_close(e);
		emit_obj_open(e, "nics");
		for (unsigned int n = 0; n < p->n_endpoints; n++)
			if (p->fns[n].kind == RCK_PCIE_NIC)
				emit_str(e, p->fns[n].address, NULL,
					 rck_pcie_rel_name(rck_pcie_relation(p, g, &p->fns[n])));
		emit_obj_close(e);
		emit_obj_close(e);
	}
	emit_arr_close(e);
}

RCK_EXPORT int rck_pcie_write(const struct rck_pcie *p, FILE *out, enum rck_format fmt)
{
	struct emit *e;
	int rc;

	if (!p || !out)
		return -EINVAL;
	rc = emit_new(fmt, out, &e);
	if (rc)
		return rc;
	emit_obj_open(e, NULL);
	emit_str(e, "schema", NULL, TOPO_SCHEMA);
	emit_str(e, "iommu", "IOMMU: %s", rck_iommu_mode_name(p->iommu));
	emit_str(e, "iommu_source", " (%s)", p->iommu_source[0] ? p->iommu_source : NULL);
	tri(e, "virtual", "  hypervisor: %s", p->virt);
	tri(e, "peermem", "  nvidia_peermem: %s", p->peermem);
	tri(e, "dmabuf", "  dma-buf: %s", p->dmabuf);
	/* How it was told: the kernel's symbols, or inferred from its release. */
	emit_str(e, "dmabuf_source", p->dmabuf_source[0] ? " (%s)\n" : "\n",
		 p->dmabuf_source[0] ? p->dmabuf_source : NULL);
	if (!emit_is_json(e)) {
		emit_text(e, "\n%-12s  %-6s  %-9s  %-4s  %-36s  %-7s  %4s  %4s  %-15s  %-3s  %-11s  %s\n", "FUNCTION",
			  "KIND", "ID", "NUMA", "LINK (NOW / CAPABLE)", "DEVCTL", "MPS", "MRRS", "ACS CTL", "ATS",
			  "AER C/NF/F", "DRIVER RDMA");
		for (unsigned int i = 0; i < p->n_fns; i++)
			write_fn_text(e, p, &p->fns[i]);
		write_paths_text(e, p);
		write_matrix_text(e, p);
	} else {
		emit_arr_open(e, "functions");
		for (unsigned int i = 0; i < p->n_fns; i++)
			write_fn_json(e, p, &p->fns[i]);
		emit_arr_close(e);
		emit_arr_open(e, "paths");
		for (unsigned int i = 0; i < p->n_endpoints; i++) {
			int hops = 0;

			emit_arr_open(e, NULL);
			for (int j = (int)i; j >= 0 && hops < 65; j = p->fns[j].up, hops++)
				emit_str(e, NULL, NULL, p->fns[j].address);
			emit_arr_close(e);
		}
		emit_arr_close(e);
		write_pairs_json(e, p);
	}
	emit_obj_close(e);
	rc = emit_finish(e);
	emit_free(e);
	return rc;
}
