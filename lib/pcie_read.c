/* The PCIe paths read with libpci (sysfs access, under the context's root):
 * endpoints that matter for GPUDirect and every bridge up to their root ports. */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pci/pci.h>

#include "file.h"
#include "internal.h"
#include "inventory.h"
#include "pcie.h"
#include "sysfs.h"

/* libpci reports a fatal error through a callback that must not return
 * (its default exits the program): it jumps back to the read that called. */
static __thread jmp_buf *pci_jump;
static __thread char pci_errmsg[160];

static void __attribute__((noreturn, format(printf, 1, 2))) pci_fail(char *msg, ...)
{
	va_list ap;

	va_start(ap, msg);
	vsnprintf(pci_errmsg, sizeof(pci_errmsg), msg, ap);
	va_end(ap);
	longjmp(*pci_jump, 1);
}

static void pci_quiet(char *msg, ...)
{
	(void)msg;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The driver's name: a symlink as in /sys, or a recorded tree's driver.link file. */
static void read_driver(const char *devdir, char *out, size_t len)
{
	char path[PATH_MAX];

	out[0] = '\0';
	if (sysfs_link_name(sysfs_at(path, sizeof(path), devdir, "driver"), out, len) == 0)
		return;
	if (sysfs_read_str(sysfs_at(path, sizeof(path), devdir, "driver.link"), out, len) < 0)
		out[0] = '\0';
}

static bool has_attr(const char *devdir, const char *name)
{
	char path[PATH_MAX];

	return access(sysfs_at(path, sizeof(path), devdir, "%s", name), F_OK) == 0;
}

/* Where the function sits: its parent function and host bridge, from the
 * resolved path of bus/pci/devices/<bdf> (.../pci0000:00/0000:00:01.0/<bdf>). */
static void read_place(const char *devdir, struct rck_pcie_fn *fn)
{
	char real[PATH_MAX], *slash, *p;

	if (!realpath(devdir, real))
		return;
	slash = strrchr(real, '/');
	if (!slash)
		return;
	*slash = '\0';
	p = strrchr(real, '/');
	p = p ? p + 1 : real;
	if (pcie_is_bdf(p))
		snprintf(fn->parent, sizeof(fn->parent), "%.15s", p);
	/* The host bridge: the first path element named pciDDDD:BB. */
	for (p = strstr(real, "/pci"); p; p = strstr(p + 1, "/pci")) {
		size_t n = strcspn(p + 1, "/");

		/* pciDDDD:BB, or pciDDDDD:BB behind a VMD controller. */
		if ((n == 10 || n == 11) && p[n - 2] == ':') {
			snprintf(fn->root, sizeof(fn->root), "%.*s", (int)n, p + 1);
			break;
		}
	}
}

static double gen_speed(unsigned int code)
{
	/* Codes past 6 are reserved (lspci says "unknown"): 0, unknown. */
	static const double gts[] = { 0, 2.5, 5, 8, 16, 32, 64 };

	return code < RCK_ARRAY_SIZE(gts) ? gts[code] : 0;
}

static void read_caps(struct pci_dev *d, struct rck_pcie_fn *fn)
{
	struct pci_cap *c = pci_find_cap(d, PCI_CAP_ID_EXP, PCI_CAP_NORMAL);

	fn->port_type = -1;
	if (c) {
		uint16_t flags = pci_read_word(d, c->addr + PCI_EXP_FLAGS);
		uint16_t devctl = pci_read_word(d, c->addr + PCI_EXP_DEVCTL);
		uint32_t lnkcap = pci_read_long(d, c->addr + PCI_EXP_LNKCAP);
		uint16_t lnksta = pci_read_word(d, c->addr + PCI_EXP_LNKSTA);

		fn->port_type = (flags & PCI_EXP_FLAGS_TYPE) >> 4;
		fn->has_devctl = true;
		fn->ro = devctl & PCI_EXP_DEVCTL_RELAXED;
		fn->ns = devctl & PCI_EXP_DEVCTL_NOSNOOP;
		fn->mps = 128u << ((devctl & PCI_EXP_DEVCTL_PAYLOAD) >> 5);
		fn->mrrs = 128u << ((devctl & PCI_EXP_DEVCTL_READRQ) >> 12);
		/* Root complex integrated endpoints and event collectors have no link. */
		if (fn->port_type != PCI_EXP_TYPE_ROOT_INT_EP && fn->port_type != PCI_EXP_TYPE_ROOT_EC) {
			fn->has_link = true;
			fn->max_speed = gen_speed(lnkcap & PCI_EXP_LNKCAP_SPEED);
			fn->max_width = (lnkcap & PCI_EXP_LNKCAP_WIDTH) >> 4;
			fn->speed = gen_speed(lnksta & PCI_EXP_LNKSTA_SPEED);
			fn->width = (lnksta & PCI_EXP_LNKSTA_WIDTH) >> 4;
		}
	}
	c = pci_find_cap(d, PCI_EXT_CAP_ID_ACS, PCI_CAP_EXTENDED);
	if (c) {
		fn->has_acs = true;
		fn->acs_cap = pci_read_word(d, c->addr + PCI_ACS_CAP) & 0x7f;
		fn->acs_ctl = pci_read_word(d, c->addr + PCI_ACS_CTRL) & 0x7f;
	}
	c = pci_find_cap(d, PCI_EXT_CAP_ID_ATS, PCI_CAP_EXTENDED);
	if (c) {
		fn->has_ats = true;
		fn->ats_on = pci_read_word(d, c->addr + PCI_ATS_CTRL) & PCI_ATS_CTRL_ENABLE;
	}
}

/* A function without a readable PCIe capability keeps the kernel's view of its link. */
static void read_sysfs_link(const struct rck_ctx *ctx, const char *devdir, struct rck_pcie_fn *fn)
{
	char path[PATH_MAX], buf[64];
	uint64_t w;

	if (sysfs_read_str(sysfs_at(path, sizeof(path), devdir, "current_link_speed"), buf, sizeof(buf)) ||
	    inv_parse_number(ctx, path, buf, &fn->speed))
		return;
	if (sysfs_read_str(sysfs_at(path, sizeof(path), devdir, "max_link_speed"), buf, sizeof(buf)) == 0)
		inv_parse_number(ctx, path, buf, &fn->max_speed);
	if (sysfs_read_u64(sysfs_at(path, sizeof(path), devdir, "current_link_width"), &w, NULL, 0) == 0 && w < 64)
		fn->width = (unsigned int)w;
	if (sysfs_read_u64(sysfs_at(path, sizeof(path), devdir, "max_link_width"), &w, NULL, 0) == 0 && w < 64)
		fn->max_width = (unsigned int)w;
	fn->has_link = fn->speed > 0 && fn->width > 0;
}

static void read_aer(const char *devdir, struct rck_pcie_fn *fn)
{
	static const char *const files[3] = { "aer_dev_correctable", "aer_dev_nonfatal", "aer_dev_fatal" };
	char path[PATH_MAX], text[2048];
	int fd;

	for (int i = 0; i < 3; i++) {
		ssize_t n;

		fd = rck_file_open(sysfs_at(path, sizeof(path), devdir, "%s", files[i]), true);
		if (fd < 0)
			return;
		n = read(fd, text, sizeof(text) - 1);
		close(fd);
		if (n < 0)
			return;
		text[n] = '\0';
		if (pcie_parse_aer(text, &fn->aer[i]))
			return;
	}
	fn->has_aer = true;
}

static bool is_gpu(uint16_t vendor, uint32_t cls)
{
	unsigned int base = cls >> 16;

	switch (vendor) {
	case 0x10de: /* NVIDIA: VGA or 3D controllers (not its NVSwitch bridges) */
	case 0x1002: /* AMD: GPUs and Instinct processing accelerators */
		return base == 0x03 || base == 0x12;
	case 0x1da3: /* Habana (Intel Gaudi) */
		return base == 0x12 || base == 0x03 || base == 0x0b;
	default:
		return false;
	}
}

static bool is_nic(const char *devdir, uint16_t vendor, uint32_t cls, bool owns_rdma)
{
	if (has_attr(devdir, "physfn") || has_attr(devdir, "physfn.link"))
		return false; /* a virtual function: its PF stands for the port */
	if (owns_rdma || cls >> 8 == 0x0207 || has_attr(devdir, "infiniband"))
		return true;
	/* Mellanox Ethernet functions are RDMA capable, bound to mlx5_core or not. */
	return vendor == 0x15b3 && cls >> 16 == 0x02;
}

struct scan {
	struct rck_pcie_fn *fns;
	unsigned int n, cap;
	struct pcie_owner *owners;
	unsigned int n_owners;
	bool virt;
};

/* The RDMA devices the function owns (class/infiniband, else its own
 * infiniband/ folder, which is all a recording keeps); true when it owns one. */
static bool take_rdma(const struct scan *s, const char *devdir, struct rck_pcie_fn *fn)
{
	char path[PATH_MAX], **names = NULL;
	int n;

	for (unsigned int i = 0; i < s->n_owners; i++)
		if (!strcmp(s->owners[i].address, fn->address)) {
			if (fn->n_rdma < PCIE_RDMA_MAX)
				snprintf(fn->rdma[fn->n_rdma++], sizeof(fn->rdma[0]), "%s", s->owners[i].name);
		}
	if (fn->n_rdma)
		return true;
	n = sysfs_list(sysfs_at(path, sizeof(path), devdir, "infiniband"), &names);
	for (int i = 0; i < n && fn->n_rdma < PCIE_RDMA_MAX; i++)
		snprintf(fn->rdma[fn->n_rdma++], sizeof(fn->rdma[0]), "%s", names[i]);
	if (n > 0)
		sysfs_names_free(names);
	return fn->n_rdma > 0;
}

static int scan_add(struct scan *s)
{
	if (s->n == s->cap) {
		unsigned int cap = s->cap ? s->cap * 2 : 32;
		void *f = realloc(s->fns, cap * sizeof(*s->fns));

		if (!f)
			return -ENOMEM;
		s->fns = f;
		s->cap = cap;
	}
	memset(&s->fns[s->n], 0, sizeof(s->fns[0]));
	return 0;
}

static int scan_bus(const struct rck_ctx *ctx, const char *sysdir, struct scan *s, bool buscentric)
{
	struct pci_access *volatile acc = NULL;
	jmp_buf jb, *volatile saved = pci_jump;
	volatile int rc = 0;
	char busdir[PATH_MAX];

	if (snprintf(busdir, sizeof(busdir), "%s/bus/pci", sysdir) >= (int)sizeof(busdir))
		return -ENAMETOOLONG;
	if (setjmp(jb)) {
		rck_warn(ctx, "%s: libpci: %s", busdir, pci_errmsg);
		rc = -EIO;
		goto out;
	}
	pci_jump = &jb;
	acc = pci_alloc();
	acc->error = pci_fail;
	acc->warning = pci_quiet;
	acc->debug = pci_quiet;
	acc->method = PCI_ACCESS_SYS_BUS_PCI;
	acc->buscentric = buscentric;
	if (pci_set_param(acc, "sysfs.path", busdir)) {
		rc = -EINVAL;
		goto out;
	}
	pci_init(acc);
	pci_scan_bus(acc);
	for (struct pci_dev *d = acc->devices; d; d = d->next) {
		struct rck_pcie_fn *fn;
		char devdir[PATH_MAX], path[PATH_MAX], buf[32];

		if (scan_add(s)) {
			rc = -ENOMEM;
			goto out;
		}
		fn = &s->fns[s->n];
		pci_fill_info(d, PCI_FILL_IDENT | PCI_FILL_CLASS | PCI_FILL_CAPS | PCI_FILL_EXT_CAPS);
		snprintf(fn->address, sizeof(fn->address), "%04x:%02x:%02x.%u", (unsigned int)d->domain,
			 d->bus, d->dev, d->func);
		if (snprintf(devdir, sizeof(devdir), "%.3900s/devices/%s", busdir, fn->address) < 0)
			devdir[0] = '\0';
		fn->vendor = d->vendor_id;
		fn->device = d->device_id;
		fn->class_code = ((uint32_t)pci_read_byte(d, PCI_CLASS_PROG + 2) << 16) |
				 ((uint32_t)pci_read_byte(d, PCI_CLASS_PROG + 1) << 8) |
				 pci_read_byte(d, PCI_CLASS_PROG);
		if (fn->class_code == 0xffffff)
			fn->class_code = (uint32_t)d->device_class << 8;
		fn->numa = -1;
		if (sysfs_read_str(sysfs_at(path, sizeof(path), devdir, "numa_node"), buf, sizeof(buf)) == 0) {
			char *end;
			long v = strtol(buf, &end, 10);

			if (!*end && v >= 0 && v < 4096)
				fn->numa = (int)v;
		}
		read_driver(devdir, fn->driver, sizeof(fn->driver));
		read_place(devdir, fn);
		read_caps(d, fn);
		if (!fn->has_link)
			read_sysfs_link(ctx, devdir, fn);
		read_aer(devdir, fn);
		fn->up = -1;
		if (pcie_virtual_vendor(fn->vendor))
			s->virt = true;
		fn->kind = is_gpu(fn->vendor, fn->class_code) ? RCK_PCIE_GPU
			 : is_nic(devdir, fn->vendor, fn->class_code, take_rdma(s, devdir, fn)) ? RCK_PCIE_NIC
			 : RCK_PCIE_BRIDGE;
		if (fn->kind != RCK_PCIE_NIC)
			fn->n_rdma = 0;
		s->n++;
	}
out:
	if (acc)
		pci_cleanup(acc);
	pci_jump = saved;
	return rc;
}

static int find_addr(const struct rck_pcie_fn *fns, unsigned int n, const char *addr)
{
	for (unsigned int i = 0; i < n; i++)
		if (!strcmp(fns[i].address, addr))
			return (int)i;
	return -1;
}

static int cmp_fn(const void *a, const void *b)
{
	const struct rck_pcie_fn *x = a, *y = b;
	int ex = x->kind != RCK_PCIE_BRIDGE, ey = y->kind != RCK_PCIE_BRIDGE;

	if (ex != ey)
		return ey - ex;
	return strcmp(x->address, y->address);
}

/* Keep the endpoints and the bridges above them; link each to its parent. */
static int keep_paths(struct scan *s, struct rck_pcie *p)
{
	uint8_t *keep = calloc(s->n ? s->n : 1, 1);
	unsigned int n = 0;

	if (!keep)
		return -ENOMEM;
	for (unsigned int i = 0; i < s->n; i++) {
		if (s->fns[i].kind == RCK_PCIE_BRIDGE)
			continue;
		/* Bounded: a recorded tree's links could loop. */
		for (int j = (int)i, hops = 0; j >= 0 && !keep[j] && hops < 64; hops++) {
			keep[j] = 1;
			j = s->fns[j].parent[0] ? find_addr(s->fns, s->n, s->fns[j].parent) : -1;
		}
	}
	p->fns = calloc(s->n ? s->n : 1, sizeof(*p->fns));
	if (!p->fns) {
		free(keep);
		return -ENOMEM;
	}
	for (unsigned int i = 0; i < s->n; i++)
		if (keep[i])
			p->fns[n++] = s->fns[i];
	free(keep);
	qsort(p->fns, n, sizeof(*p->fns), cmp_fn);
	p->n_fns = n;
	for (unsigned int i = 0; i < n; i++) {
		struct rck_pcie_fn *fn = &p->fns[i];

		if (fn->kind != RCK_PCIE_BRIDGE)
			p->n_endpoints++;
		fn->self = (int)i;
		for (unsigned int k = 0; k < fn->n_rdma; k++)
			fn->rdma_ptr[k] = fn->rdma[k];
		fn->rdma_ptr[fn->n_rdma] = NULL;
		fn->up = fn->parent[0] ? find_addr(p->fns, n, fn->parent) : -1;
		if (fn->up == (int)i)
			fn->up = -1;
	}
	return 0;
}

/* The /sys and /proc folders: the live ones, or a recorded tree's (a copy of
 * /sys, with proc/ beside it, or a folder holding both). */
static int find_dirs(const struct rck_ctx *ctx, char *sysdir, char *procdir, size_t len)
{
	char probe[PATH_MAX];
	const char *root = ctx->sysfs_root;

	if (!root) {
		snprintf(sysdir, len, "/sys");
		snprintf(procdir, len, "/proc");
		return 0;
	}
	snprintf(probe, sizeof(probe), "%s/bus/pci/devices", root);
	if (is_dir(probe)) {
		snprintf(sysdir, len, "%s", root);
		snprintf(procdir, len, "%s/../proc", root);
		return 0;
	}
	snprintf(probe, sizeof(probe), "%s/sys/bus/pci/devices", root);
	if (is_dir(probe)) {
		snprintf(sysdir, len, "%s/sys", root);
		snprintf(procdir, len, "%s/proc", root);
		return 0;
	}
	return -ENOENT;
}

RCK_EXPORT int rck_pcie_new(struct rck_ctx *ctx, struct rck_pcie **out)
{
	char sysdir[PATH_MAX], procdir[PATH_MAX];
	struct scan s = { 0 };
	struct rck_pcie *p;
	int rc;

	if (!ctx || !out)
		return -EINVAL;
	rc = find_dirs(ctx, sysdir, procdir, sizeof(sysdir));
	if (rc)
		return rc;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->virt = RCK_UNKNOWN;
	rc = pcie_rdma_owners(sysdir, &s.owners, &s.n_owners);
	if (!rc)
		rc = scan_bus(ctx, sysdir, &s, false);
	/* A function without its vendor, device or class file (a partial
	 * recording) stops libpci's sysfs scan: read the IDs from config space. */
	if (rc == -EIO) {
		s.n = 0;
		s.virt = false;
		rc = scan_bus(ctx, sysdir, &s, true);
	}
	if (!rc)
		rc = keep_paths(&s, p);
	if (s.virt)
		p->virt = RCK_YES;
	free(s.fns);
	free(s.owners);
	if (rc) {
		rck_pcie_free(p);
		return rc;
	}
	pcie_read_host(ctx, p, sysdir, is_dir(procdir) ? procdir : "", !ctx->sysfs_root);
	*out = p;
	return 0;
}

RCK_EXPORT void rck_pcie_free(struct rck_pcie *p)
{
	if (!p)
		return;
	free(p->fns);
	free(p);
}
