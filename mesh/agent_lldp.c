/* The agent's LLDP request: each RDMA netdev's link partner from lldpd's
 * table, else from a bounded capture decoded by dcb/, or from a file. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../dcb/lldp.h"
#include "../topology/topo_int.h"
#include "file.h"
#include "rocecheck/inventory.h"

#include "agent_lldp.h"

#define RECORDED_MAX (1u << 20)
#define LLDPD_MS 2000 /* lldpd answers from memory: a short wait */

/* Append "A: B" to @why ("; " between notes). */
static void note(char *why, size_t len, const char *a, const char *b)
{
	size_t o = strlen(why);

	if (o + 1 < len)
		snprintf(why + o, len - o, "%s%s: %s", o ? "; " : "", a, b);
}

static int push_frame(struct ag_lldp *d, const char *netdev, const struct rck_lldp *l, const char *via)
{
	struct ag_lldp_nb r = { .netdev = (char *)netdev, .via = (char *)via };

	if (l) {
		r.chassis_id = l->chassis_id[0] ? (char *)l->chassis_id : NULL;
		r.port_id = l->port_id[0] ? (char *)l->port_id : NULL;
		r.port_id_subtype = l->port_subtype;
		r.system_name = l->sys_name[0] ? (char *)l->sys_name : NULL;
		r.port_description = l->port_desc[0] ? (char *)l->port_desc : NULL;
	}
	return ag_lldp_push(d, &r);
}

static int hex_frame(const char *h, uint8_t *f, size_t cap, size_t *n)
{
	size_t k = 0;

	for (; h[0] && h[1] && k < cap; h += 2) {
		unsigned int b;

		if (sscanf(h, "%2x", &b) != 1)
			return -EINVAL;
		f[k++] = (uint8_t)b;
	}
	*n = k;
	return *h ? -EINVAL : 0;
}

/* The fixture source: one "NETDEV HEX" line per netdev, the frame its
 * link partner sent as hex ("-": nothing heard), decoded as if captured. */
static int read_recorded(const char *path, struct ag_lldp *d, char *why, size_t len)
{
	char *buf, *line, *save = NULL;
	size_t blen;
	unsigned int ln = 0;
	int rc = rck_file_read(path, false, RECORDED_MAX, &buf, &blen);

	if (rc) {
		snprintf(why, len, "%s: %s", path, rck_strerror(rc));
		return rc;
	}
	for (line = strtok_r(buf, "\n", &save); !rc && line; line = strtok_r(NULL, "\n", &save)) {
		char nd[AG_NAME_MAX], hex[4096];
		uint8_t frame[2048];
		struct rck_lldp l;
		size_t n;

		ln++;
		if (line[0] == '#' || !line[strspn(line, " \t")])
			continue;
		if (sscanf(line, "%63s %4095s", nd, hex) != 2) {
			snprintf(why, len, "%s:%u: not NETDEV HEX", path, ln);
			rc = -EINVAL;
		} else if (!strcmp(hex, "-")) {
			rc = push_frame(d, nd, NULL, "file");
		} else if (hex_frame(hex, frame, sizeof(frame), &n) || lldp_decode(frame, n, &l)) {
			snprintf(why, len, "%s:%u: not an LLDP frame", path, ln);
			rc = -EINVAL;
		} else {
			rc = push_frame(d, nd, &l, "file");
		}
	}
	free(buf);
	return rc;
}

struct capture {
	pthread_t t;
	struct rck_ctx *ctx;
	const char *netdev;
	unsigned int ms;
	struct rck_lldp *l;
	int rc;
	bool started;
};

static void *capture_main(void *arg)
{
	struct capture *c = arg;

	c->rc = rck_lldp_capture(c->ctx, c->netdev, c->ms, &c->l);
	return NULL;
}

/* Each Ethernet RDMA port's netdev once, in inventory order. */
static int rdma_netdevs(struct rck_ctx *ctx, char (*nd)[AG_NAME_MAX], size_t *n)
{
	struct rck_inventory *inv = NULL;
	int rc = rck_inventory_new(ctx, &inv);

	*n = 0;
	if (rc)
		return rc;
	for (unsigned int i = 0; i < rck_inventory_device_count(inv); i++) {
		const struct rck_device *dev = rck_inventory_device(inv, i);

		for (unsigned int p = 0; p < rck_device_port_count(dev); p++) {
			const struct rck_port *port = rck_device_port(dev, p);
			const char *ll = rck_port_link_layer(port), *name = rck_port_netdev(port);
			bool seen = false;

			if (!ll || strcmp(ll, "Ethernet") || !name || strlen(name) >= AG_NAME_MAX || *n >= AG_MAX_LLDP)
				continue;
			for (size_t j = 0; j < *n; j++)
				seen |= !strcmp(nd[j], name);
			if (!seen)
				snprintf(nd[(*n)++], AG_NAME_MAX, "%s", name);
		}
	}
	rck_inventory_free(inv);
	return 0;
}

/* lldpd's neighbour of @netdev, when it has one with a name or chassis. */
static const struct rck_topology_neighbour *from_lldpd(const struct rck_topology_neighbour *r, size_t n,
							  const char *netdev)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(r[i].nic, netdev) && ((r[i].chassis_id && *r[i].chassis_id) ||
						  (r[i].system_name && *r[i].system_name)))
			return &r[i];
	return NULL;
}

static int read_live(struct rck_ctx *ctx, uint32_t capture_ms, struct ag_lldp *d, char *why, size_t len)
{
	char (*nd)[AG_NAME_MAX] = calloc(AG_MAX_LLDP, AG_NAME_MAX);
	struct capture *cap = calloc(AG_MAX_LLDP, sizeof(*cap));
	struct rck_topology_neighbour *recs = NULL;
	size_t n = 0, n_recs = 0;
	char err[256];
	int rc = nd && cap ? rdma_netdevs(ctx, nd, &n) : -ENOMEM;

	if (rc) {
		snprintf(why, len, "cannot read the inventory: %s", strerror(-rc));
		goto out;
	}
	/* lldpd first: it has listened for longer than any capture can. */
	if (n && tp_lldpd_read("-", NULL, LLDPD_MS, &recs, &n_recs, err, sizeof(err)))
		rck_dbg(ctx, "agent: LLDP: %s; capturing instead", err);
	for (size_t i = 0; !rc && i < n; i++) {
		const struct rck_topology_neighbour *r = from_lldpd(recs, n_recs, nd[i]);

		if (r) {
			rc = ag_lldp_push(d, &(struct ag_lldp_nb){
				.netdev = nd[i], .chassis_id = (char *)r->chassis_id, .port_id = (char *)r->port_id,
				.port_id_subtype = r->port_id_subtype, .system_name = (char *)r->system_name,
				.port_description = (char *)r->port_description, .via = "lldpd" });
			continue;
		}
		if (!capture_ms) {
			note(why, len, nd[i], "lldpd has no neighbour and no capture was asked");
			continue;
		}
		/* Every netdev's capture at once: the request takes one capture's time. */
		cap[i] = (struct capture){ .ctx = ctx, .netdev = nd[i], .ms = capture_ms };
		cap[i].started = !pthread_create(&cap[i].t, NULL, capture_main, &cap[i]);
		if (!cap[i].started)
			note(why, len, nd[i], "cannot start a capture thread");
	}
	for (size_t i = 0; i < n; i++) {
		if (!cap[i].started)
			continue;
		pthread_join(cap[i].t, NULL);
		if (!rc && (cap[i].rc == 0 || cap[i].rc == -ETIMEDOUT))
			rc = push_frame(d, nd[i], cap[i].l, "capture");
		else if (!rc)
			note(why, len, nd[i], strerror(-cap[i].rc));
		rck_lldp_free(cap[i].l);
	}
	if (rc == -ENOMEM)
		snprintf(why, len, "out of memory");
out:
	tp_neighbours_free(recs, n_recs);
	free(cap);
	free(nd);
	return rc;
}

int agent_lldp(struct rck_ctx *ctx, const struct rck_agent_opts *o, uint32_t id, uint32_t capture_ms,
	       uint8_t *buf, size_t cap, size_t *len)
{
	struct ag_lldp d = { .id = id };
	int rc = o->lldp_file ? read_recorded(o->lldp_file, &d, d.error, sizeof(d.error))
			      : read_live(ctx, capture_ms, &d, d.error, sizeof(d.error));

	if (rc) {
		rck_warn(ctx, "agent: LLDP: %s", d.error);
		ag_lldp_clear(&d);
		d.failed = true;
	} else if (d.error[0]) {
		rck_warn(ctx, "agent: LLDP: %s", d.error);
	}
	rc = ag_lldp_encode(&d, buf, cap, len);
	if (rc == -ENOBUFS) {
		ag_lldp_clear(&d);
		d.failed = true;
		snprintf(d.error, sizeof(d.error), "the LLDP neighbours do not fit one reply");
		rc = ag_lldp_encode(&d, buf, cap, len);
	}
	ag_lldp_clear(&d);
	return rc;
}
