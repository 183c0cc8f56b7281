/* One poll of the host's ports: link state, neutral counters, carrier
 * changes, slow restarts and the RDMA state compared after a flap. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "monitor_int.h"
#include "rocecheck/dcb.h"
#include "rocecheck/inventory.h"
#include "counters.h"
#include "sysfs.h"
#include "sysfs_cache.h"

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 1099511628211ull;
	}
	return h;
}

/* The GID table as index, address and type; the RoCE v2 IPv4 GID's index. */
static void gid_state(const struct rck_port *port, struct ms_state *st)
{
	uint64_t h = 1469598103934665603ull;

	st->gid_index = -1;
	for (unsigned int g = 0; g < rck_port_gid_count(port); g++) {
		const struct rck_gid *gid = rck_port_gid(port, g);
		unsigned int idx = rck_gid_index(gid);
		const char *s = rck_gid_str(gid), *t = rck_gid_type_str(gid);

		h = fnv(h, &idx, sizeof(idx));
		h = fnv(h, s ? s : "", s ? strlen(s) + 1 : 1);
		h = fnv(h, t ? t : "", t ? strlen(t) + 1 : 1);
		if (st->gid_index < 0 && rck_gid_type(gid) == RCK_GID_TYPE_ROCE_V2 && rck_gid_ipv4(gid))
			st->gid_index = (int)idx;
	}
	st->gid_hash = h | 1; /* never 0 (unknown) */
}

/* DSCP trust, PFC priorities and the DSCP -> priority map of @netdev. */
static void dcb_state(struct rck_ctx *ctx, const char *netdev, struct ms_state *st)
{
	struct rck_dcb *dcb = NULL;
	uint64_t h = 1469598103934665603ull;
	const char *trust;
	uint8_t en = 0;
	bool any = false;

	if (rck_dcb_read(ctx, netdev, &dcb))
		return;
	if ((trust = rck_dcb_trust(dcb, NULL)))
		st->dscp_trust = !strcmp(trust, "dscp");
	if (!rck_dcb_pfc(dcb, &en, NULL, NULL, NULL))
		st->pfc_mask = en;
	for (size_t i = 0; i < rck_dcb_app_count(dcb); i++) {
		uint8_t sel, prio;
		uint16_t proto;

		if (rck_dcb_app(dcb, i, &sel, &proto, &prio) || sel != RCK_DCB_SEL_DSCP)
			continue;
		h = fnv(h, &proto, sizeof(proto));
		h = fnv(h, &prio, sizeof(prio));
		any = true;
	}
	if (any || !rck_dcb_supported(dcb, RCK_DCB_APP))
		st->dscp_map_hash = h | 1;
	rck_dcb_free(dcb);
}

/* What the rules (rules.c) and the metrics (prom.c) read: the rest of a
 * port's ~90 counter files is not read each second. */
static const char *const ms_raw[] = { "hw_counters/roce_slow_restart" };
const struct ctr_want ms_want = {
	.ids = {
		[RCK_CTR_SYMBOL_ERRORS] = true,
		[RCK_CTR_LINK_ERROR_RECOVERY] = true,
		[RCK_CTR_LINK_DOWNED] = true,
		[RCK_CTR_TX_DISCARDS] = true,
		[RCK_CTR_ECN_MARKED_PACKETS] = true,
		[RCK_CTR_CNP_SENT] = true,
		[RCK_CTR_PAUSE_STORM_EVENTS] = true,
		[RCK_CTR_PFC_RX_PAUSE_DURATION ... RCK_CTR_PFC_RX_PAUSE_DURATION + 7] = true,
		[RCK_CTR_PFC_TX_PAUSE_DURATION ... RCK_CTR_PFC_TX_PAUSE_DURATION + 7] = true,
	},
	.raw = ms_raw,
	.n_raw = RCK_ARRAY_SIZE(ms_raw),
};

int ms_poll(struct rck_ctx *ctx, bool dcb, struct rck_inventory **cache, struct sysfs_cache **files,
	    bool refresh, struct ms_sample **out, char (**names)[MF_STR], unsigned int **ports,
	    unsigned int *n_out)
{
	struct rck_inventory *inv = *cache;
	struct rck_snapshot *snap = NULL;
	struct timespec ts;
	unsigned int n;
	int rc;

	*n_out = 0;
	if (!inv)
		refresh = true;
	if (refresh) {
		rck_inventory_free(inv);
		*cache = NULL;
		/* files come and go with the devices: opened again with it */
		sysfs_cache_free(*files);
		*files = NULL;
		if ((rc = rck_inventory_new(ctx, &inv)))
			return rc;
		*cache = inv;
		/* without memory for it, each file is opened each poll */
		(void)sysfs_cache_new(files);
	}
	if ((rc = ctr_snapshot_cached(ctx, *files, inv, &ms_want, &snap)))
		return rc;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	n = rck_snapshot_port_count(snap);
	*out = calloc(n ? n : 1, sizeof(**out));
	*names = calloc(n ? n : 1, sizeof(**names));
	*ports = calloc(n ? n : 1, sizeof(**ports));
	if (!*out || !*names || !*ports) {
		free(*out);
		free(*names);
		free(*ports);
		rck_snapshot_free(snap);
		return -ENOMEM;
	}
	for (unsigned int i = 0; i < n; i++) {
		struct ms_sample *s = &(*out)[i];
		const struct rck_device *dev;
		const struct rck_port *port;
		const char *dn = NULL, *nd, *state;
		unsigned int pn = 0;
		char path[512], buf[64];
		uint64_t v;

		double gbps;

		rck_snapshot_port(snap, i, &dn, &pn);
		snprintf((*names)[i], MF_STR, "%s", dn ? dn : "");
		(*ports)[i] = pn;
		s->t_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
		s->st.gid_index = s->st.dscp_trust = s->st.pfc_mask = -1;
		for (unsigned int c = 0; c < RCK_CTR_COUNT; c++)
			s->has[c] = !rck_snapshot_get(snap, i, (enum rck_counter)c, &s->ctr[c]);
		s->has_extra[MS_SLOW_RESTART] =
			!rck_snapshot_get_raw(snap, i, "hw_counters/roce_slow_restart", &s->extra[MS_SLOW_RESTART]);
		dev = dn ? rck_inventory_find(inv, dn) : NULL;
		port = dev ? rck_device_find_port(dev, pn) : NULL;
		if (!port)
			continue;
		/* the state file each poll; the GID table from the inventory, read
		 * again (refresh) after a flap and every few seconds */
		if (!sysfs_path(ctx, path, sizeof(path), "class/infiniband/%s/ports/%u/state", dn, pn) &&
		    !sysfs_cache_read_str(*files, path, buf, sizeof(buf)))
			state = buf;
		else
			state = rck_port_state(port);
		s->link_up = state && strstr(state, "ACTIVE");
		if (refresh)
			gid_state(port, &s->st);
		nd = rck_port_netdev(port);
		if (nd && strlen(nd) < sizeof(s->netdev))
			snprintf(s->netdev, sizeof(s->netdev), "%s", nd);
		if (rck_port_rate_gbps(port, &gbps))
			s->rate_gbps = gbps;
		if (nd && !sysfs_path(ctx, path, sizeof(path), "class/net/%s/carrier_changes", nd) &&
		    !sysfs_cache_read_str(*files, path, buf, sizeof(buf)) && !sysfs_parse_u64(buf, &v)) {
			s->extra[MS_CARRIER_CHANGES] = v;
			s->has_extra[MS_CARRIER_CHANGES] = 1;
		}
		/* netlink reads the live host only: a recorded tree has no DCB here */
		if (dcb && nd && !rck_ctx_is_recorded(ctx))
			dcb_state(ctx, nd, &s->st);
	}
	*n_out = n;
	rck_snapshot_free(snap);
	return 0;
}

/* Any PFC counter at all: a NIC that counts frames but not time makes its
 * pauses in hardware too, where a tap would read a false 0. */
bool ms_has_pfc_counters(const struct ms_sample *s)
{
	for (unsigned int p = 0; p < 8; p++)
		if (s->has[RCK_CTR_PFC_RX_PAUSE_DURATION + p] || s->has[RCK_CTR_PFC_TX_PAUSE_DURATION + p] ||
		    s->has[RCK_CTR_PFC_RX_PAUSE + p] || s->has[RCK_CTR_PFC_TX_PAUSE + p])
			return true;
	return false;
}

int ms_taps_fill(struct ms_taps *t, struct ms_sample *s, bool retry)
{
	uint64_t frames[2][8], us[2][8];
	struct timespec now;
	unsigned int k;

	if (ms_has_pfc_counters(s))
		return 0;
	if (!s->netdev[0])
		return -ENODEV;
	for (k = 0; k < t->n && strcmp(t->v[k].netdev, s->netdev); k++)
		;
	if (k == t->n) {
		if (t->n == MS_TAPS)
			return -ENOSPC;
		t->n++;
		t->err[k] = mt_open(&t->v[k], s->netdev, s->rate_gbps);
		/* the name kept even when the open failed: retried, not added again */
		snprintf(t->v[k].netdev, sizeof(t->v[k].netdev), "%s", s->netdev);
	} else if (t->err[k] && retry) {
		t->err[k] = mt_open(&t->v[k], s->netdev, s->rate_gbps);
		snprintf(t->v[k].netdev, sizeof(t->v[k].netdev), "%s", s->netdev);
	}
	if (t->err[k])
		return t->err[k];
	mt_drain(&t->v[k]);
	clock_gettime(CLOCK_REALTIME, &now);
	mt_read(&t->v[k], (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec, frames, us);
	for (unsigned int d = 0; d < 2; d++) {
		enum rck_counter fr = d ? RCK_CTR_PFC_TX_PAUSE : RCK_CTR_PFC_RX_PAUSE;
		enum rck_counter du = d ? RCK_CTR_PFC_TX_PAUSE_DURATION : RCK_CTR_PFC_RX_PAUSE_DURATION;

		for (unsigned int p = 0; p < 8; p++) {
			s->ctr[fr + p] = frames[d][p];
			s->has[fr + p] = 1;
			s->ctr[du + p] = us[d][p];
			s->has[du + p] = 1;
		}
	}
	s->pause_tapped = true;
	return 1;
}

void ms_taps_drain(struct ms_taps *t)
{
	for (unsigned int k = 0; k < t->n; k++)
		if (!t->err[k])
			mt_drain(&t->v[k]);
}

void ms_taps_close(struct ms_taps *t)
{
	for (unsigned int k = 0; k < t->n; k++)
		if (!t->err[k])
			mt_close(&t->v[k]);
	t->n = 0;
}
