/* A PCIe snapshot read back from its JSON ("rocecheck.topo/1", as
 * rck_pcie_write() gives it), so paths saved on many hosts can be compared. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "file.h"
#include "internal.h"
#include "pcie.h"

#define TOPO_MAX (8u << 20)
#define TOPO_FNS_MAX 8192

static const char *const port_names[] = { "endpoint", "legacy endpoint", NULL, NULL, "root port",
					   "switch upstream", "switch downstream", "pcie-to-pci", "pci-to-pcie",
					   "root complex endpoint", "event collector" };

static enum rck_tristate tri(const json_t *v)
{
	return json_is_boolean(v) ? (json_is_true(v) ? RCK_YES : RCK_NO) : RCK_UNKNOWN;
}

static bool hex_field(const json_t *o, const char *key, unsigned long max, unsigned long *out)
{
	const char *s = json_string_value(json_object_get(o, key));
	char *end;

	if (!s || !*s)
		return false;
	*out = strtoul(s, &end, 16);
	return !*end && *out <= max;
}

static void str_field(const json_t *o, const char *key, char *buf, size_t len)
{
	const char *s = json_string_value(json_object_get(o, key));

	snprintf(buf, len, "%s", s ? s : "");
}

static unsigned int acs_bits(const json_t *o)
{
	static const char *const keys[7] = { "sv", "tb", "rr", "cr", "uf", "ec", "dt" };
	unsigned int bits = 0;

	for (unsigned int i = 0; i < 7; i++)
		if (json_is_true(json_object_get(o, keys[i])))
			bits |= 1u << i;
	return bits;
}

static uint64_t u64(const json_t *v)
{
	return json_is_integer(v) && json_integer_value(v) > 0 ? (uint64_t)json_integer_value(v) : 0;
}

static int load_fn(const json_t *o, struct rck_pcie_fn *f)
{
	const json_t *link = json_object_get(o, "link"), *acs = json_object_get(o, "acs"),
		     *aer = json_object_get(o, "aer"), *rdma = json_object_get(o, "rdma"),
		     *numa = json_object_get(o, "numa_node");
	const char *kind = json_string_value(json_object_get(o, "kind")),
		   *pt = json_string_value(json_object_get(o, "port_type"));
	unsigned long v;
	size_t i;
	json_t *r;

	str_field(o, "address", f->address, sizeof(f->address));
	if (!pcie_is_bdf(f->address) || !kind)
		return -EINVAL;
	f->kind = !strcmp(kind, "gpu") ? RCK_PCIE_GPU : !strcmp(kind, "nic") ? RCK_PCIE_NIC : RCK_PCIE_BRIDGE;
	if (!hex_field(o, "vendor", 0xffff, &v))
		return -EINVAL;
	f->vendor = (uint16_t)v;
	f->device = hex_field(o, "device", 0xffff, &v) ? (uint16_t)v : 0;
	f->class_code = hex_field(o, "class", 0xffffff, &v) ? (uint32_t)v : 0;
	str_field(o, "driver", f->driver, sizeof(f->driver));
	str_field(o, "root", f->root, sizeof(f->root));
	str_field(o, "upstream", f->parent, sizeof(f->parent));
	f->numa = json_is_integer(numa) && json_integer_value(numa) >= 0 && json_integer_value(numa) < 4096
			  ? (int)json_integer_value(numa) : -1;
	f->port_type = -1;
	for (i = 0; pt && i < RCK_ARRAY_SIZE(port_names); i++)
		if (port_names[i] && !strcmp(pt, port_names[i]))
			f->port_type = (int)i;
	json_array_foreach(rdma, i, r)
		if (json_is_string(r) && f->n_rdma < PCIE_RDMA_MAX)
			snprintf(f->rdma[f->n_rdma++], sizeof(f->rdma[0]), "%s", json_string_value(r));
	if (json_is_object(link)) {
		f->has_link = true;
		f->speed = json_number_value(json_object_get(link, "speed_gts"));
		f->max_speed = json_number_value(json_object_get(link, "max_speed_gts"));
		f->width = (unsigned int)(u64(json_object_get(link, "width")) & 63);
		f->max_width = (unsigned int)(u64(json_object_get(link, "max_width")) & 63);
		if (!(f->speed >= 0 && f->speed <= 1024 && f->max_speed >= 0 && f->max_speed <= 1024))
			return -EINVAL;
	}
	if (json_is_boolean(json_object_get(o, "relaxed_ordering"))) {
		f->has_devctl = true;
		f->ro = json_is_true(json_object_get(o, "relaxed_ordering"));
		f->ns = json_is_true(json_object_get(o, "no_snoop"));
		f->mps = (unsigned int)(u64(json_object_get(o, "max_payload")) & 0xffff);
		f->mrrs = (unsigned int)(u64(json_object_get(o, "max_read_req")) & 0xffff);
	}
	if (json_is_object(acs)) {
		f->has_acs = true;
		f->acs_cap = acs_bits(json_object_get(acs, "cap"));
		f->acs_ctl = acs_bits(json_object_get(acs, "ctl"));
	}
	if (json_is_boolean(json_object_get(o, "ats_enabled"))) {
		f->has_ats = true;
		f->ats_on = json_is_true(json_object_get(o, "ats_enabled"));
	}
	if (json_is_object(aer)) {
		f->has_aer = true;
		f->aer[0] = u64(json_object_get(aer, "correctable"));
		f->aer[1] = u64(json_object_get(aer, "nonfatal"));
		f->aer[2] = u64(json_object_get(aer, "fatal"));
	}
	return 0;
}

static int load_root(const json_t *root, struct rck_pcie *p)
{
	const json_t *fns = json_object_get(root, "functions");
	const char *iommu = json_string_value(json_object_get(root, "iommu"));
	size_t i;
	json_t *o;

	if (!json_is_object(root) || !json_is_string(json_object_get(root, "schema")) ||
	    strcmp(json_string_value(json_object_get(root, "schema")), "rocecheck.topo/1") || !json_is_array(fns) ||
	    json_array_size(fns) > TOPO_FNS_MAX)
		return -EINVAL;
	for (int m = RCK_IOMMU_OFF; iommu && m <= RCK_IOMMU_TRANSLATED; m++)
		if (!strcmp(iommu, rck_iommu_mode_name((enum rck_iommu_mode)m)))
			p->iommu = (enum rck_iommu_mode)m;
	str_field(root, "iommu_source", p->iommu_source, sizeof(p->iommu_source));
	p->virt = tri(json_object_get(root, "virtual"));
	p->peermem = tri(json_object_get(root, "peermem"));
	p->dmabuf = tri(json_object_get(root, "dmabuf"));
	str_field(root, "dmabuf_source", p->dmabuf_source, sizeof(p->dmabuf_source));
	p->fns = calloc(json_array_size(fns) + 1, sizeof(*p->fns));
	if (!p->fns)
		return -ENOMEM;
	json_array_foreach(fns, i, o) {
		struct rck_pcie_fn *f = &p->fns[i];

		if (!json_is_object(o) || load_fn(o, f))
			return -EINVAL;
		/* Endpoints first, as rck_pcie_new() orders them. */
		if (f->kind != RCK_PCIE_BRIDGE && i != p->n_endpoints)
			return -EINVAL;
		p->n_endpoints += f->kind != RCK_PCIE_BRIDGE;
		p->n_fns++;
	}
	/* One function per address: the pairing is keyed by address. */
	for (i = 0; i < p->n_fns; i++)
		for (size_t j = i + 1; j < p->n_fns; j++)
			if (!strcmp(p->fns[i].address, p->fns[j].address))
				return -EINVAL;
	for (i = 0; i < p->n_fns; i++) {
		struct rck_pcie_fn *f = &p->fns[i];

		f->self = (int)i;
		f->up = -1;
		for (unsigned int j = 0; f->parent[0] && j < p->n_fns; j++)
			if (j != i && !strcmp(p->fns[j].address, f->parent))
				f->up = (int)j;
		for (unsigned int k = 0; k < f->n_rdma; k++)
			f->rdma_ptr[k] = f->rdma[k];
		f->rdma_ptr[f->n_rdma] = NULL;
	}
	return 0;
}

int pcie_parse(const char *buf, size_t len, struct rck_pcie **out)
{
	json_t *root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, NULL);
	struct rck_pcie *p;
	int rc;

	if (!root)
		return -EINVAL;
	p = calloc(1, sizeof(*p));
	rc = p ? load_root(root, p) : -ENOMEM;
	json_decref(root);
	if (rc) {
		rck_pcie_free(p);
		return rc;
	}
	*out = p;
	return 0;
}

RCK_EXPORT int rck_pcie_load(struct rck_ctx *ctx, const char *path, struct rck_pcie **out)
{
	size_t len;
	char *buf;
	int rc;

	if (!ctx || !path || !out)
		return -EINVAL;
	rc = rck_file_read(path, false, TOPO_MAX, &buf, &len);
	if (rc) {
		rck_err(ctx, "%s: %s", path, rck_strerror(rc));
		return rc;
	}
	rc = pcie_parse(buf, len, out);
	free(buf);
	if (rc == -EINVAL)
		rck_err(ctx, "%s: not a rocecheck.topo/1 document", path);
	return rc;
}
