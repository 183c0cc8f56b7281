/* Reading a port's DCB state (dcbnl, rdma_cm configfs, vendor sysfs knobs),
 * the trust mode derived from it, and the public accessors. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dcb_internal.h"
#include "nlsock.h"
#include "rocecheck/inventory.h"
#include "sysfs.h"

struct rck_dcb *dcb_alloc(const char *ifname)
{
	struct rck_dcb *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	snprintf(d->ifname, sizeof(d->ifname), "%.*s", IF_NAMESIZE - 1, ifname);
	for (size_t f = 0; f < RCK_ARRAY_SIZE(d->err); f++)
		d->err[f] = -EOPNOTSUPP;
	return d;
}

RCK_EXPORT void rck_dcb_free(struct rck_dcb *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->n_vendor; i++) {
		free(d->vendor[i].name);
		free(d->vendor[i].value);
	}
	free(d->vendor);
	free(d->apps);
	free(d->rdma_dev);
	free(d);
}

int dcb_app_push(struct rck_dcb *d, uint8_t selector, uint16_t protocol, uint8_t priority)
{
	struct dcb_app_ent *n;

	if (d->n_apps >= DCB_MAX_APPS)
		return -E2BIG;
	n = realloc(d->apps, (d->n_apps + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	d->apps = n;
	n[d->n_apps++] = (struct dcb_app_ent){ selector, priority, protocol };
	return 0;
}

int dcb_vendor_push(struct rck_dcb *d, const char *name, const char *value)
{
	struct dcb_vendor *n = realloc(d->vendor, (d->n_vendor + 1) * sizeof(*n));

	if (!n)
		return -ENOMEM;
	d->vendor = n;
	n[d->n_vendor].name = strdup(name);
	n[d->n_vendor].value = strdup(value);
	if (!n[d->n_vendor].name || !n[d->n_vendor].value) {
		free(n[d->n_vendor].name);
		free(n[d->n_vendor].value);
		return -ENOMEM;
	}
	d->n_vendor++;
	return 0;
}

bool dcb_app_has(const struct rck_dcb *d, uint8_t sel, uint16_t proto, uint8_t prio)
{
	for (size_t i = 0; i < d->n_apps; i++)
		if (d->apps[i].selector == sel && d->apps[i].protocol == proto &&
		    d->apps[i].priority == prio)
			return true;
	return false;
}

struct rck_dcb *dcb_dup(const struct rck_dcb *s)
{
	struct rck_dcb *d = dcb_alloc(s->ifname);

	if (!d)
		return NULL;
	memcpy(d->err, s->err, sizeof(d->err));
	d->pfc = s->pfc;
	d->ets = s->ets;
	d->maxrate = s->maxrate;
	d->buffer = s->buffer;
	d->dcbx = s->dcbx;
	d->rdma_port = s->rdma_port;
	d->roce_tos = s->roce_tos;
	memcpy(d->roce_mode, s->roce_mode, sizeof(d->roce_mode));
	if (s->rdma_dev && !(d->rdma_dev = strdup(s->rdma_dev)))
		goto fail;
	for (size_t i = 0; i < s->n_apps; i++)
		if (dcb_app_push(d, s->apps[i].selector, s->apps[i].protocol, s->apps[i].priority))
			goto fail;
	for (size_t i = 0; i < s->n_vendor; i++)
		if (dcb_vendor_push(d, s->vendor[i].name, s->vendor[i].value))
			goto fail;
	if (s->trust && dcb_set_trust(d, s->trust, s->trust_from ? s->trust_from : ""))
		goto fail;
	return d;
fail:
	rck_dcb_free(d);
	return NULL;
}

void dcb_set_clear(struct dcb_set *s)
{
	for (size_t i = 0; i < s->n; i++)
		rck_dcb_free(s->ports[i]);
	free(s->ports);
	free(s->error);
	memset(s, 0, sizeof(*s));
}

int dcb_set_assign(struct dcb_set *s, const struct rck_dcb *const *ports, size_t n, const char *error)
{
	struct dcb_set ns = { .has = true };

	if (n && (!ports || error))
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (!ports[i])
			return -EINVAL;
	if ((error && !(ns.error = strdup(error))) || (n && !(ns.ports = calloc(n, sizeof(*ns.ports)))))
		goto nomem;
	for (; ns.n < n; ns.n++)
		if (!(ns.ports[ns.n] = dcb_dup(ports[ns.n])))
			goto nomem;
	dcb_set_clear(s);
	*s = ns;
	return 0;
nomem:
	dcb_set_clear(&ns);
	return -ENOMEM;
}

int dcb_set_trust(struct rck_dcb *d, const char *mode, const char *from)
{
	static const char *const modes[] = { "dscp", "pcp", "unknown" };

	for (size_t i = 0; i < RCK_ARRAY_SIZE(modes); i++) {
		if (strcmp(mode, modes[i]))
			continue;
		d->trust = modes[i];
		snprintf(d->trust_buf, sizeof(d->trust_buf), "%s", from);
		d->trust_from = d->trust_buf;
		return 0;
	}
	return -EINVAL;
}

void dcb_derive_trust(struct rck_dcb *d)
{
	size_t dscp = 0;

	for (size_t i = 0; i < d->n_vendor; i++) {
		if (strcmp(d->vendor[i].name, "qos/trust"))
			continue;
		/* The vendor driver prints "Priority trust state: dscp" or just "dscp". */
		d->trust = strstr(d->vendor[i].value, "dscp") ? "dscp" : "pcp";
		d->trust_from = "the vendor driver's qos/trust file";
		return;
	}
	if (d->err[RCK_DCB_APP]) {
		d->trust = "unknown";
		d->trust_from = d->err[RCK_DCB_APP] == -ENODATA ? "no APP table in a recorded tree" :
				"no dcbnl APP table on this interface";
		return;
	}
	for (size_t i = 0; i < d->n_apps; i++)
		dscp += d->apps[i].selector == RCK_DCB_SEL_DSCP;
	/* mlx5 upstream switches to DSCP trust with the first DSCP APP entry
	 * and back to PCP when the last one goes. */
	d->trust = dscp ? "dscp" : "pcp";
	if (dscp)
		snprintf(d->trust_buf, sizeof(d->trust_buf),
			 "%zu DSCP APP entr%s present (DSCP APP entries mean DSCP trust, as mlx5 does)",
			 dscp, dscp == 1 ? "y" : "ies");
	else
		snprintf(d->trust_buf, sizeof(d->trust_buf),
			 "no DSCP APP entries (PCP trust, the default)");
	d->trust_from = d->trust_buf;
}

/* Vendor knobs: whatever the driver exposes under these sysfs folders. */
static int read_vendor(const struct rck_ctx *ctx, struct rck_dcb *d)
{
	static const char *const dirs[] = { "qos", "ecn/roce_np/enable", "ecn/roce_rp/enable" };
	int rc = 0;

	for (size_t k = 0; k < RCK_ARRAY_SIZE(dirs) && !rc; k++) {
		char dir[512], path[768], val[256];
		char **names = NULL;
		int n;

		if (sysfs_path(ctx, dir, sizeof(dir), "class/net/%s/%s", d->ifname, dirs[k]))
			continue;
		n = sysfs_list(dir, &names);
		for (int i = 0; i < n && !rc; i++) {
			char key[128];

			if (sysfs_read_str(sysfs_at(path, sizeof(path), dir, "%s", names[i]), val,
					   sizeof(val)))
				continue;
			snprintf(key, sizeof(key), "%s/%s", dirs[k], names[i]);
			rc = dcb_vendor_push(d, key, val);
		}
		if (n >= 0)
			sysfs_names_free(names);
	}
	return rc;
}

/* The RDMA device whose port sits on @ifname, or the netdev of device @name. */
static int find_rdma(struct rck_ctx *ctx, const char *name, struct rck_dcb *d, char *ifname,
		     size_t len)
{
	struct rck_inventory *inv = NULL;
	int rc = rck_inventory_new(ctx, &inv);

	/* No RDMA stack at all is a port without rdma_cm defaults, not an error. */
	if (rc) {
		rck_dbg(ctx, "%s: no RDMA inventory: %s", name, strerror(-rc));
		return rc == -ENOMEM ? rc : 0;
	}
	for (unsigned int i = 0; i < rck_inventory_device_count(inv) && !d->rdma_dev; i++) {
		const struct rck_device *dev = rck_inventory_device(inv, i);

		for (unsigned int j = 0; j < rck_device_port_count(dev); j++) {
			const struct rck_port *p = rck_device_port(dev, j);
			const char *nd = rck_port_netdev(p);

			if (!nd || (strcmp(nd, name) && strcmp(rck_device_name(dev), name)))
				continue;
			d->rdma_dev = strdup(rck_device_name(dev));
			d->rdma_port = rck_port_num(p);
			snprintf(ifname, len, "%s", nd);
			rc = d->rdma_dev ? 0 : -ENOMEM;
			break;
		}
	}
	rck_inventory_free(inv);
	return rc;
}

RCK_EXPORT int rck_dcb_read(struct rck_ctx *ctx, const char *name, struct rck_dcb **out)
{
	char ifname[IF_NAMESIZE] = "", path[512];
	struct nl_sock *sk = NULL;
	struct rck_dcb *d;
	struct stat st;
	int rc;

	*out = NULL;
	if (!ctx || !name || !*name || strlen(name) >= IF_NAMESIZE + 32)
		return -EINVAL;
	d = dcb_alloc(name);
	if (!d)
		return -ENOMEM;
	rc = find_rdma(ctx, name, d, ifname, sizeof(ifname));
	if (rc)
		goto fail;
	if (ifname[0])
		snprintf(d->ifname, sizeof(d->ifname), "%.*s", IF_NAMESIZE - 1, ifname);
	if (sysfs_path(ctx, path, sizeof(path), "class/net/%s", d->ifname) || stat(path, &st)) {
		rc = -ENODEV;
		goto fail;
	}
	if (rck_ctx_is_recorded(ctx)) {
		for (size_t f = 0; f < RCK_ARRAY_SIZE(d->err); f++)
			d->err[f] = -ENODATA;
	} else {
		rc = rck_nlsock_open(ctx, NETLINK_ROUTE, &sk);
		if (rc)
			goto fail;
		nl_socket_disable_auto_ack(sk);
		rc = dcbnl_get(ctx, sk, d);
		nl_socket_free(sk);
		if (rc == -ENOMEM || rc == -ETIMEDOUT || rc == -ENODEV)
			goto fail;
		if (d->rdma_dev)
			d->err[RCK_DCB_RDMA_CM] = dcb_cm_read(DCB_CONFIGFS, d->rdma_dev, d->rdma_port,
							      &d->roce_tos, d->roce_mode,
							      sizeof(d->roce_mode));
	}
	rc = read_vendor(ctx, d);
	if (rc)
		goto fail;
	dcb_derive_trust(d);
	*out = d;
	return 0;
fail:
	rck_dcb_free(d);
	return rc;
}

RCK_EXPORT const char *rck_dcb_ifname(const struct rck_dcb *d)
{
	return d->ifname;
}

RCK_EXPORT const char *rck_dcb_rdma_device(const struct rck_dcb *d, unsigned int *port)
{
	if (port)
		*port = d->rdma_port;
	return d->rdma_dev;
}

RCK_EXPORT int rck_dcb_supported(const struct rck_dcb *d, enum rck_dcb_feature f)
{
	if ((unsigned int)f >= RCK_ARRAY_SIZE(d->err))
		return -EINVAL;
	return d->err[f];
}

RCK_EXPORT int rck_dcb_pfc(const struct rck_dcb *d, uint8_t *enabled, uint8_t *cap, bool *mbc, uint16_t *delay)
{
	if (d->err[RCK_DCB_PFC])
		return d->err[RCK_DCB_PFC];
	if (enabled)
		*enabled = d->pfc.pfc_en;
	if (cap)
		*cap = d->pfc.pfc_cap;
	if (mbc)
		*mbc = d->pfc.mbc;
	if (delay)
		*delay = d->pfc.delay;
	return 0;
}

RCK_EXPORT int rck_dcb_pfc_counters(const struct rck_dcb *d, unsigned int prio, uint64_t *requests,
			 uint64_t *indications)
{
	if (prio >= DCB_NPRIO)
		return -EINVAL;
	if (d->err[RCK_DCB_PFC])
		return d->err[RCK_DCB_PFC];
	if (requests)
		*requests = d->pfc.requests[prio];
	if (indications)
		*indications = d->pfc.indications[prio];
	return 0;
}

RCK_EXPORT int rck_dcb_ets(const struct rck_dcb *d, unsigned int prio, uint8_t *prio_tc, uint8_t *tc_bw,
		uint8_t *tc_tsa)
{
	if (prio >= DCB_NPRIO)
		return -EINVAL;
	if (d->err[RCK_DCB_ETS])
		return d->err[RCK_DCB_ETS];
	if (prio_tc)
		*prio_tc = d->ets.prio_tc[prio];
	if (tc_bw)
		*tc_bw = d->ets.tc_tx_bw[prio];
	if (tc_tsa)
		*tc_tsa = d->ets.tc_tsa[prio];
	return 0;
}

RCK_EXPORT int rck_dcb_ets_cap(const struct rck_dcb *d, bool *willing, uint8_t *ets_cap)
{
	if (d->err[RCK_DCB_ETS])
		return d->err[RCK_DCB_ETS];
	if (willing)
		*willing = d->ets.willing;
	if (ets_cap)
		*ets_cap = d->ets.ets_cap;
	return 0;
}

RCK_EXPORT size_t rck_dcb_app_count(const struct rck_dcb *d)
{
	return d->err[RCK_DCB_APP] ? 0 : d->n_apps;
}

RCK_EXPORT int rck_dcb_app(const struct rck_dcb *d, size_t i, uint8_t *selector, uint16_t *protocol,
		uint8_t *priority)
{
	if (d->err[RCK_DCB_APP])
		return d->err[RCK_DCB_APP];
	if (i >= d->n_apps)
		return -ERANGE;
	if (selector)
		*selector = d->apps[i].selector;
	if (protocol)
		*protocol = d->apps[i].protocol;
	if (priority)
		*priority = d->apps[i].priority;
	return 0;
}

RCK_EXPORT int rck_dcb_dcbx(const struct rck_dcb *d, uint8_t *mode)
{
	if (d->err[RCK_DCB_DCBX])
		return d->err[RCK_DCB_DCBX];
	*mode = d->dcbx;
	return 0;
}

RCK_EXPORT int rck_dcb_maxrate(const struct rck_dcb *d, unsigned int tc, uint64_t *bps)
{
	if (tc >= DCB_NPRIO)
		return -EINVAL;
	if (d->err[RCK_DCB_MAXRATE])
		return d->err[RCK_DCB_MAXRATE];
	/* dcbnl carries kbit/s. */
	*bps = d->maxrate.tc_maxrate[tc] * 1000ULL;
	return 0;
}

RCK_EXPORT int rck_dcb_buffer(const struct rck_dcb *d, unsigned int prio, uint8_t *prio_buffer,
		   uint32_t *buffer_size, uint32_t *total_size)
{
	if (prio >= DCB_NPRIO)
		return -EINVAL;
	if (d->err[RCK_DCB_BUFFER])
		return d->err[RCK_DCB_BUFFER];
	if (prio_buffer)
		*prio_buffer = d->buffer.prio2buffer[prio];
	if (buffer_size)
		*buffer_size = d->buffer.buffer_size[prio];
	if (total_size)
		*total_size = d->buffer.total_size;
	return 0;
}

RCK_EXPORT int rck_dcb_roce_defaults(const struct rck_dcb *d, unsigned int *tos, const char **mode)
{
	if (d->err[RCK_DCB_RDMA_CM])
		return d->err[RCK_DCB_RDMA_CM];
	if (tos)
		*tos = d->roce_tos;
	if (mode)
		*mode = d->roce_mode;
	return 0;
}

RCK_EXPORT const char *rck_dcb_trust(const struct rck_dcb *d, const char **derived_from)
{
	if (derived_from)
		*derived_from = d->trust_from;
	return d->trust;
}

RCK_EXPORT size_t rck_dcb_vendor_count(const struct rck_dcb *d)
{
	return d->n_vendor;
}

RCK_EXPORT int rck_dcb_vendor(const struct rck_dcb *d, size_t i, const char **name, const char **value)
{
	if (i >= d->n_vendor)
		return -ERANGE;
	*name = d->vendor[i].name;
	*value = d->vendor[i].value;
	return 0;
}
