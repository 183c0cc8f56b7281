/* Counter snapshots: every raw value of each port (IB counters, hw_counters,
 * netdev, ethtool, pause), the neutral names on top, and the accessors. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "counters.h"
#include "file.h"
#include "internal.h"
#include "sysfs.h"
#include "sysfs_cache.h"

#define PATH_LEN 4096

static const char *const scalar_names[RCK_CTR_PFC_RX_PAUSE] = {
	[RCK_CTR_RX_BYTES] = "rx_bytes",
	[RCK_CTR_TX_BYTES] = "tx_bytes",
	[RCK_CTR_RX_PACKETS] = "rx_packets",
	[RCK_CTR_TX_PACKETS] = "tx_packets",
	[RCK_CTR_SYMBOL_ERRORS] = "symbol_errors",
	[RCK_CTR_LINK_ERROR_RECOVERY] = "link_error_recovery",
	[RCK_CTR_LINK_DOWNED] = "link_downed",
	[RCK_CTR_RX_ERRORS] = "rx_errors",
	[RCK_CTR_TX_DISCARDS] = "tx_discards",
	[RCK_CTR_TX_WAIT] = "tx_wait",
	[RCK_CTR_LOCAL_LINK_INTEGRITY_ERRORS] = "local_link_integrity_errors",
	[RCK_CTR_EXCESSIVE_BUFFER_OVERRUN_ERRORS] = "excessive_buffer_overrun_errors",
	[RCK_CTR_ECN_MARKED_PACKETS] = "ecn_marked_packets",
	[RCK_CTR_CNP_SENT] = "cnp_sent",
	[RCK_CTR_CNP_HANDLED] = "cnp_handled",
	[RCK_CTR_CNP_IGNORED] = "cnp_ignored",
	[RCK_CTR_OUT_OF_SEQUENCE] = "out_of_sequence",
	[RCK_CTR_SEQ_ERR_NAKS] = "seq_err_naks",
	[RCK_CTR_LOCAL_ACK_TIMEOUTS] = "local_ack_timeouts",
	[RCK_CTR_RETRY_EXCEEDED] = "retry_exceeded",
	[RCK_CTR_RNR_NAKS] = "rnr_naks",
	[RCK_CTR_DUPLICATE_REQUESTS] = "duplicate_requests",
	[RCK_CTR_OUT_OF_BUFFER] = "out_of_buffer",
	[RCK_CTR_RX_DISCARDS] = "rx_discards",
	[RCK_CTR_CRC_ERRORS] = "crc_errors",
	[RCK_CTR_PAUSE_STORM_EVENTS] = "pause_storm_events",
};

static const char *const prio_names[] = {
	"pfc_rx_pause", "pfc_tx_pause", "pfc_rx_pause_duration", "pfc_tx_pause_duration",
};

RCK_EXPORT const char *rck_counter_name(enum rck_counter id, int *prio)
{
	unsigned int i = (unsigned int)id;

	if (prio)
		*prio = -1;
	if (i < RCK_CTR_PFC_RX_PAUSE)
		return scalar_names[i];
	if (i >= RCK_CTR_COUNT)
		return NULL;
	i -= RCK_CTR_PFC_RX_PAUSE;
	if (prio)
		*prio = (int)(i % 8);
	return prio_names[i / 8];
}

/* Read every file of one counters folder into "<source>/<name>". */
static int read_dir(const struct rck_ctx *ctx, struct sysfs_cache *fc, struct ctr_port *p,
		    const char *dir, const char *source)
{
	char path[PATH_LEN], key[CTR_KEY_LEN], buf[256];
	char **names;
	int n, rc = 0;

	n = sysfs_cache_list(fc, dir, &names);
	if (n == -ENOENT)
		return 0;
	if (n < 0) {
		if (n == -ENOMEM)
			return n;
		rck_warn(ctx, "%s: %s", dir, strerror(-n));
		return 0;
	}
	for (int i = 0; i < n && !rc; i++) {
		int r;

		/* hw_counters/lifespan is the kernel's refresh interval (ms) of
		 * the cached values, a setting rather than a counter. */
		if (!strcmp(source, "hw_counters") && !strcmp(names[i], "lifespan"))
			continue;
		if (!*sysfs_at(path, sizeof(path), dir, "%s", names[i]))
			continue;
		if ((size_t)snprintf(key, sizeof(key), "%s/%s", source, names[i]) >= sizeof(key)) {
			rck_warn(ctx, "%s: name longer than %d bytes, skipped", path, CTR_KEY_MAX);
			continue;
		}
		if (p->want && !ctr_want_key(p->want, p->vendor, key))
			continue;
		r = sysfs_cache_read_str(fc, path, buf, sizeof(buf));
		if (r == -ENODATA) {
			rck_warn(ctx, "%s: empty", path);
			rc = ctr_raw_add(p, key, RAW_TEXT, 0, "");
		} else if (r) {
			rck_warn(ctx, "%s: %s", path, rck_strerror(r));
			rc = ctr_raw_add(p, key, RAW_UNREADABLE, 0, NULL);
		} else {
			/* e.g. "N/A (no PMA)": the port has no PMA to ask. */
			rc = ctr_raw_add_text(p, key, buf);
			if (!rc && p->raw[p->n_raw - 1].state == RAW_TEXT)
				rck_warn(ctx, "%s: not a number: '%s'", path, buf);
		}
	}
	sysfs_cache_names_free(fc, dir, names);
	return rc;
}

/* The netdev's ethtool and pause statistics: the kernel's on the live
 * system, the recorded text files (rocecheck/ethtool/IF,
 * rocecheck/pause/IF) in a recorded tree. */
static int read_ethernet(const struct rck_ctx *ctx, struct ctr_port *p)
{
	static const char *const sources[] = { "ethtool", "pause" };
	char path[PATH_LEN];
	int rc;

	if (!rck_ctx_is_recorded(ctx)) {
		rc = ctr_ethtool_read(ctx, p->netdev, p);
		if (rc == -ENOMEM)
			return rc;
		return ctr_pause_read(ctx, p->netdev, p);
	}
	for (size_t i = 0; i < RCK_ARRAY_SIZE(sources); i++) {
		if (sysfs_path(ctx, path, sizeof(path), "rocecheck/%s/%s", sources[i], p->netdev))
			continue;
		rc = ctr_sidecar_read(ctx, path, sources[i], p);
		if (rc == -ENOMEM)
			return rc;
		if (rc && rc != -ENOENT)
			rck_warn(ctx, "%s: %s", path, rc == -EFBIG ? "larger than 4 MiB, skipped" : rck_strerror(rc));
	}
	return 0;
}

static int read_port(const struct rck_ctx *ctx, struct sysfs_cache *fc, const struct rck_device *dev,
		     const struct rck_port *port, const struct ctr_want *want, struct ctr_port *p)
{
	static const char *const ib_dirs[] = { "counters", "counters_ext", "hw_counters" };
	char dir[PATH_LEN];
	int rc = 0;

	p->want = want;
	p->vendor = rck_device_vendor(dev);

	p->dev = strdup(dev->name);
	p->port = port->num;
	p->netdev = port->netdev ? strdup(port->netdev) : NULL;
	if (!p->dev || (port->netdev && !p->netdev))
		return -ENOMEM;
	for (size_t i = 0; i < RCK_ARRAY_SIZE(ib_dirs) && !rc; i++)
		if (!sysfs_path(ctx, dir, sizeof(dir), "class/infiniband/%s/ports/%u/%s", dev->name,
				port->num, ib_dirs[i]))
			rc = read_dir(ctx, fc, p, dir, ib_dirs[i]);
	if (!rc && p->netdev &&
	    !sysfs_path(ctx, dir, sizeof(dir), "class/net/%s/statistics", p->netdev))
		rc = read_dir(ctx, fc, p, dir, "netdev");
	if (!rc && p->netdev)
		rc = read_ethernet(ctx, p);
	p->want = NULL;
	if (rc)
		return rc;
	ctr_raw_finish(p);
	return ctr_map_neutral(p, rck_device_vendor(dev));
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int take(struct rck_ctx *ctx, struct sysfs_cache *fc, const struct rck_inventory *inv,
		const struct ctr_want *want, const char *devname, unsigned int portnum, struct rck_snapshot *snap)
{
	unsigned int total = 0;
	bool found_dev = false, found_port = false;

	for (unsigned int d = 0; d < inv->n_devs; d++)
		total += inv->devs[d].n_ports;
	snap->ports = calloc(total ? total : 1, sizeof(*snap->ports));
	if (!snap->ports)
		return -ENOMEM;
	snap->time_ns = clock_ns(CLOCK_REALTIME);
	snap->mono_ns = clock_ns(CLOCK_MONOTONIC);
	for (unsigned int d = 0; d < inv->n_devs; d++) {
		const struct rck_device *dev = &inv->devs[d];

		if (devname && strcmp(dev->name, devname))
			continue;
		found_dev = true;
		for (unsigned int i = 0; i < dev->n_ports; i++) {
			int rc;

			if (portnum && dev->ports[i].num != portnum)
				continue;
			found_port = true;
			rc = read_port(ctx, fc, dev, &dev->ports[i], want, &snap->ports[snap->n_ports]);
			snap->n_ports++;
			if (rc)
				return rc;
		}
	}
	if (devname && !found_dev) {
		rck_info(ctx, "no RDMA device '%s'", devname);
		return -ENODEV;
	}
	if (portnum && !found_port) {
		rck_info(ctx, "%s has no port %u", devname, portnum);
		return -ENODEV;
	}
	return 0;
}

int ctr_snapshot_cached(struct rck_ctx *ctx, struct sysfs_cache *fc, const struct rck_inventory *inv,
			const struct ctr_want *want, struct rck_snapshot **out)
{
	struct rck_snapshot *snap;
	int rc;

	if (!ctx || !inv || !out)
		return -EINVAL;
	snap = calloc(1, sizeof(*snap));
	rc = snap ? take(ctx, fc, inv, want, NULL, 0, snap) : -ENOMEM;
	if (rc) {
		rck_snapshot_free(snap);
		return rc;
	}
	*out = snap;
	return 0;
}

RCK_EXPORT int rck_snapshot_new(struct rck_ctx *ctx, const struct rck_inventory *inv,
				const char *dev, unsigned int port, struct rck_snapshot **out)
{
	struct rck_inventory *own = NULL;
	struct rck_snapshot *snap;
	int rc;

	if (!ctx || !out || (!dev && port))
		return -EINVAL;
	if (!inv) {
		rc = rck_inventory_new(ctx, &own);
		if (rc)
			return rc;
		inv = own;
	}
	snap = calloc(1, sizeof(*snap));
	rc = snap ? take(ctx, NULL, inv, NULL, dev, port, snap) : -ENOMEM;
	rck_inventory_free(own);
	if (rc) {
		rck_snapshot_free(snap);
		return rc;
	}
	*out = snap;
	return 0;
}

RCK_EXPORT void rck_snapshot_free(struct rck_snapshot *snap)
{
	if (!snap)
		return;
	for (unsigned int i = 0; i < snap->n_ports; i++)
		ctr_port_clear(&snap->ports[i]);
	free(snap->ports);
	free(snap->host);
	free(snap);
}

RCK_EXPORT uint64_t rck_snapshot_time_ns(const struct rck_snapshot *snap)
{
	return snap->time_ns;
}

RCK_EXPORT unsigned int rck_snapshot_port_count(const struct rck_snapshot *snap)
{
	return snap->n_ports;
}

RCK_EXPORT bool rck_snapshot_port(const struct rck_snapshot *snap, unsigned int i, const char **dev,
				  unsigned int *port)
{
	if (i >= snap->n_ports)
		return false;
	if (dev)
		*dev = snap->ports[i].dev;
	if (port)
		*port = snap->ports[i].port;
	return true;
}

RCK_EXPORT int rck_snapshot_get(const struct rck_snapshot *snap, unsigned int i,
				enum rck_counter id, uint64_t *val)
{
	const struct ctr_port *p;

	if (i >= snap->n_ports || (unsigned int)id >= RCK_CTR_COUNT)
		return -EINVAL;
	p = &snap->ports[i];
	if (!p->has[id])
		return -ENOENT;
	if (val)
		*val = p->val[id];
	return 0;
}

RCK_EXPORT int rck_snapshot_get_raw(const struct rck_snapshot *snap, unsigned int i,
				    const char *key, uint64_t *val)
{
	const struct ctr_raw *r;

	if (i >= snap->n_ports || !key)
		return -EINVAL;
	r = ctr_raw_find(&snap->ports[i], key);
	if (!r || r->state != RAW_OK)
		return -ENOENT;
	if (val)
		*val = r->val;
	return 0;
}
