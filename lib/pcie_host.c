/* Host-wide facts around the PCIe paths: the IOMMU mode (sysfs, kernel
 * command line), hypervisor, GPU peer memory, RDMA device owners, AER text. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file.h"
#include "internal.h"
#include "pcie.h"
#include "sysfs.h"

static bool word_in(const char *list, const char *w)
{
	size_t n = strlen(w);

	for (const char *p = list; *p;) {
		size_t m = strcspn(p, ",");

		if (m == n && !strncmp(p, w, n))
			return true;
		p += m;
		if (*p == ',')
			p++;
	}
	return false;
}

static bool truthy(const char *v)
{
	return !strcmp(v, "1") || !strcmp(v, "y") || !strcmp(v, "Y") || !strcmp(v, "on");
}

enum rck_iommu_mode pcie_parse_cmdline(const char *cmdline)
{
	enum rck_iommu_mode mode = RCK_IOMMU_UNKNOWN;
	bool off = false, hw_off = false; /* iommu=off; intel_iommu=off or amd_iommu=off */
	char tok[256];

	for (const char *p = cmdline; p && *p;) {
		size_t n, k;
		char *val;

		while (*p && isspace((unsigned char)*p))
			p++;
		n = strcspn(p, " \t\n");
		if (!n)
			break;
		/* Everything after a lone "--" goes to init, not the kernel. */
		if (n == 2 && !strncmp(p, "--", 2))
			break;
		k = 0;
		for (size_t i = 0; i < n && k < sizeof(tok) - 1; i++)
			if (p[i] != '"')
				tok[k++] = p[i];
		tok[k] = '\0';
		p += n;
		val = strchr(tok, '=');
		if (!val)
			continue;
		*val++ = '\0';
		if (!strcmp(tok, "iommu")) {
			if (word_in(val, "off")) {
				off = true;
			} else if (word_in(val, "pt")) {
				mode = RCK_IOMMU_PASSTHROUGH;
				off = false;
			} else if (word_in(val, "nopt") || word_in(val, "force") || word_in(val, "on")) {
				mode = RCK_IOMMU_TRANSLATED;
				off = false;
			}
		} else if (!strcmp(tok, "iommu.passthrough")) {
			mode = truthy(val) ? RCK_IOMMU_PASSTHROUGH : RCK_IOMMU_TRANSLATED;
		} else if (!strcmp(tok, "intel_iommu") || !strcmp(tok, "amd_iommu")) {
			if (word_in(val, "off")) {
				hw_off = true;
			} else if (word_in(val, "on") || word_in(val, "force")) {
				hw_off = false;
				if (mode == RCK_IOMMU_UNKNOWN)
					mode = RCK_IOMMU_TRANSLATED;
			}
		}
	}
	return off || hw_off ? RCK_IOMMU_OFF : mode;
}

int pcie_parse_aer(const char *text, uint64_t *total)
{
	uint64_t sum = 0;
	bool any = false;

	for (const char *p = text; *p;) {
		size_t n = strcspn(p, "\n");
		char line[128], name[96];
		unsigned long long v;
		char extra;

		if (n && n < sizeof(line)) {
			memcpy(line, p, n);
			line[n] = '\0';
			if (sscanf(line, "%95s %llu %c", name, &v, &extra) != 2)
				return -EINVAL;
			if (!strncmp(name, "TOTAL_ERR_", 10)) {
				*total = v;
				return 0;
			}
			sum = sum + v < sum ? UINT64_MAX : sum + v;
			any = true;
		} else if (n) {
			return -EINVAL;
		}
		p += n;
		if (*p)
			p++;
	}
	if (!any)
		return -EINVAL;
	*total = sum;
	return 0;
}

int pcie_parse_release(const char *s, unsigned int *major, unsigned int *minor)
{
	char *end;
	unsigned long a, b;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	a = strtoul(s, &end, 10);
	if (*end != '.' || !isdigit((unsigned char)end[1]))
		return -EINVAL;
	b = strtoul(end + 1, &end, 10);
	if (a > 1000 || b > 1000)
		return -EINVAL;
	*major = (unsigned int)a;
	*minor = (unsigned int)b;
	return 0;
}

enum rck_iommu_mode pcie_parse_group_type(const char *s)
{
	if (!strcmp(s, "identity"))
		return RCK_IOMMU_PASSTHROUGH;
	if (!strcmp(s, "DMA") || !strcmp(s, "DMA-FQ"))
		return RCK_IOMMU_TRANSLATED;
	if (!strcmp(s, "blocked"))
		return RCK_IOMMU_TRANSLATED;
	return RCK_IOMMU_UNKNOWN;
}

bool pcie_is_bdf(const char *s)
{
	/* dddd:bb:dd.f; VMD domains have five hex digits (10000:e1:00.0). */
	size_t dom = strspn(s, "0123456789abcdef");

	if (dom < 4 || dom > 5 || s[dom] != ':')
		return false;
	s += dom + 1;
	return strspn(s, "0123456789abcdef") == 2 && s[2] == ':' && strspn(s + 3, "0123456789abcdef") == 2 &&
	       s[5] == '.' && s[6] >= '0' && s[6] <= '7' && !s[7];
}

bool pcie_virtual_vendor(uint16_t vendor)
{
	return vendor == 0x1af4 || vendor == 0x1414 || vendor == 0x15ad || vendor == 0x5853;
}

static bool exists(const char *dir, const char *name)
{
	char path[PATH_MAX];

	return access(sysfs_at(path, sizeof(path), dir, "%s", name), F_OK) == 0;
}

/* The IOMMU group of a function: a symlink in /sys, an iommu_group.link file in a recording. */
static int group_of(const char *sysdir, const char *addr, char *out, size_t len)
{
	char path[PATH_MAX];

	if (sysfs_link_name(sysfs_at(path, sizeof(path), sysdir, "bus/pci/devices/%s/iommu_group", addr),
			    out, len) == 0)
		return 0;
	return sysfs_read_str(sysfs_at(path, sizeof(path), sysdir, "bus/pci/devices/%s/iommu_group.link", addr),
			      out, len);
}

static void read_iommu(const struct rck_ctx *ctx, struct rck_pcie *p, const char *sysdir, const char *procdir)
{
	enum rck_iommu_mode from_groups = RCK_IOMMU_UNKNOWN, from_cmd = RCK_IOMMU_UNKNOWN;
	char path[PATH_MAX], grp[32], type[32];
	bool grouped = false;
	char *cmd = NULL;
	size_t len;

	for (unsigned int i = 0; i < p->n_fns; i++) {
		enum rck_iommu_mode m;

		if (p->fns[i].kind == RCK_PCIE_BRIDGE || group_of(sysdir, p->fns[i].address, grp, sizeof(grp)))
			continue;
		grouped = true;
		if (sysfs_read_str(sysfs_at(path, sizeof(path), sysdir, "kernel/iommu_groups/%s/type", grp),
				   type, sizeof(type)))
			continue;
		m = pcie_parse_group_type(type);
		/* One translated GPU or NIC is enough to cost GPUDirect. */
		if (m == RCK_IOMMU_TRANSLATED || from_groups == RCK_IOMMU_UNKNOWN)
			from_groups = m;
	}
	if (*procdir && rck_file_read(sysfs_at(path, sizeof(path), procdir, "cmdline"), true, 65536, &cmd, &len) == 0) {
		from_cmd = pcie_parse_cmdline(cmd);
		free(cmd);
	}
	if (from_groups != RCK_IOMMU_UNKNOWN) {
		p->iommu = from_groups;
		snprintf(p->iommu_source, sizeof(p->iommu_source), "sysfs");
	} else if (from_cmd == RCK_IOMMU_OFF || (grouped && from_cmd != RCK_IOMMU_UNKNOWN)) {
		p->iommu = from_cmd;
		snprintf(p->iommu_source, sizeof(p->iommu_source), "cmdline");
	} else if (grouped) {
		/* Groups without a type file: distributions default to DMA domains. */
		p->iommu = RCK_IOMMU_TRANSLATED;
		snprintf(p->iommu_source, sizeof(p->iommu_source), "default");
	} else if (p->n_endpoints) {
		/* No GPU or NIC in an IOMMU group: nothing translates their DMA. */
		p->iommu = RCK_IOMMU_OFF;
		snprintf(p->iommu_source, sizeof(p->iommu_source), "sysfs");
	}
	rck_dbg(ctx, "IOMMU %s (%s)", rck_iommu_mode_name(p->iommu), p->iommu_source);
}

static void read_virt(struct rck_pcie *p, const char *sysdir, const char *procdir, bool live)
{
	static const char *const hv[] = { "QEMU", "Microsoft Corporation", "VMware, Inc.", "Xen",
					  "innotek GmbH", "Parallels", "Red Hat" };
	char path[PATH_MAX], buf[128];
	char *info = NULL;
	size_t len;

	if (p->virt == RCK_YES)
		return;
	if (sysfs_read_str(sysfs_at(path, sizeof(path), sysdir, "class/dmi/id/sys_vendor"), buf, sizeof(buf)) == 0) {
		p->virt = RCK_NO;
		for (size_t i = 0; i < RCK_ARRAY_SIZE(hv); i++)
			if (!strcmp(buf, hv[i]))
				p->virt = RCK_YES;
	}
	if (live && *procdir && rck_file_read(sysfs_at(path, sizeof(path), procdir, "cpuinfo"), true, 1 << 22,
					      &info, &len) == 0) {
		char *flags = strstr(info, "\nflags");

		if (flags) {
			flags[strcspn(flags + 1, "\n") + 1] = '\0';
			p->virt = strstr(flags, " hypervisor") ? RCK_YES : RCK_NO;
		}
		free(info);
	}
}

#define KALLSYMS_MAX (64u << 20)

bool pcie_kallsyms_dmabuf(const char *text, size_t len)
{
	static const char sym[] = " ib_umem_dmabuf_get";
	const char *at = text, *end = text + len;

	/* Lines are "ADDR TYPE NAME[\t[MODULE]]": the name ends the line or a tab. */
	while ((at = memmem(at, (size_t)(end - at), sym, sizeof(sym) - 1))) {
		const char *after = at + sizeof(sym) - 1;

		if (after == end || *after == '\n' || *after == '\t')
			return true;
		at = after;
	}
	return false;
}

/* /proc/kallsyms with at least one symbol: yes or no from it, true; else false. */
static bool read_kallsyms(struct rck_pcie *p, const char *procdir)
{
	char path[PATH_MAX], *buf;
	size_t len;

	if (rck_file_read(sysfs_at(path, sizeof(path), procdir, "kallsyms"), false, KALLSYMS_MAX, &buf, &len))
		return false;
	if (!len || !memchr(buf, '\n', len)) {
		free(buf);
		return false;
	}
	p->dmabuf = pcie_kallsyms_dmabuf(buf, len) ? RCK_YES : RCK_NO;
	snprintf(p->dmabuf_source, sizeof(p->dmabuf_source), "kallsyms");
	free(buf);
	return true;
}

static void read_modules(struct rck_pcie *p, const char *sysdir, const char *procdir)
{
	char mods[PATH_MAX], path[PATH_MAX], rel[64];
	unsigned int major, minor;
	struct stat st;

	p->peermem = p->dmabuf = RCK_UNKNOWN;
	if (snprintf(mods, sizeof(mods), "%s/module", sysdir) >= (int)sizeof(mods) || stat(mods, &st) ||
	    !S_ISDIR(st.st_mode))
		return;
	p->peermem = exists(mods, "nvidia_peermem") || exists(mods, "nv_peer_mem") ? RCK_YES : RCK_NO;
	if (!exists(mods, "ib_core") && !exists(mods, "ib_uverbs")) {
		p->dmabuf = RCK_NO; /* no RDMA core loaded: read, not inferred */
		snprintf(p->dmabuf_source, sizeof(p->dmabuf_source), "modules");
		return;
	}
	/* The real signal: ib_uverbs loaded with the RDMA core's dma-buf MR
	 * code (ib_umem_dmabuf_get) in the kernel's symbol table. */
	if (*procdir && exists(mods, "ib_uverbs") && read_kallsyms(p, procdir))
		return;
	/* Else inferred: dma-buf memory regions came to the RDMA core in Linux 5.12. */
	if (*procdir && sysfs_read_str(sysfs_at(path, sizeof(path), procdir, "sys/kernel/osrelease"), rel,
				       sizeof(rel)) == 0 &&
	    pcie_parse_release(rel, &major, &minor) == 0) {
		p->dmabuf = major > 5 || (major == 5 && minor >= 12) ? RCK_YES : RCK_NO;
		snprintf(p->dmabuf_source, sizeof(p->dmabuf_source), "inferred");
	}
}

void pcie_read_host(const struct rck_ctx *ctx, struct rck_pcie *p, const char *sysdir, const char *procdir,
		    bool live)
{
	read_iommu(ctx, p, sysdir, procdir);
	read_virt(p, sysdir, procdir, live);
	read_modules(p, sysdir, procdir);
}

int pcie_rdma_owners(const char *sysdir, struct pcie_owner **out, unsigned int *n)
{
	char dir[PATH_MAX], path[PATH_MAX], real[PATH_MAX];
	struct pcie_owner *o = NULL;
	char **names = NULL;
	int cnt;

	*out = NULL;
	*n = 0;
	snprintf(dir, sizeof(dir), "%s/class/infiniband", sysdir);
	cnt = sysfs_list(dir, &names);
	if (cnt <= 0)
		return 0;
	o = calloc((size_t)cnt, sizeof(*o));
	if (!o) {
		sysfs_names_free(names);
		return -ENOMEM;
	}
	for (int i = 0; i < cnt; i++) {
		char *slash;

		if (!realpath(sysfs_at(path, sizeof(path), dir, "%s", names[i]), real))
			continue;
		/* .../0000:3b:00.0/mlx5_core.rdma.0/infiniband/mlx5_0: the nearest PCI function. */
		while ((slash = strrchr(real, '/'))) {
			if (pcie_is_bdf(slash + 1)) {
				snprintf(o[*n].address, sizeof(o[*n].address), "%s", slash + 1);
				snprintf(o[*n].name, sizeof(o[*n].name), "%s", names[i]);
				(*n)++;
				break;
			}
			*slash = '\0';
		}
	}
	sysfs_names_free(names);
	*out = o;
	return 0;
}
