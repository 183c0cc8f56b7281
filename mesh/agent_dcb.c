/* The agent's DCB request: the state of every netdev that carries an RDMA
 * port, read with the dcb/ library, or the states recorded in a file. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../dcb/dcb_internal.h"
#include "file.h"
#include "rocecheck/inventory.h"

#include "agent_srv.h"

#define RECORDED_MAX (1u << 20)

static void free_ports(struct rck_dcb **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		rck_dcb_free(v[i]);
	free(v);
}

static int read_recorded(const char *path, struct rck_dcb ***ports, size_t *n, char *why,
			 size_t len)
{
	char *buf;
	size_t blen;
	int rc = rck_file_read(path, false, RECORDED_MAX, &buf, &blen);

	if (rc) {
		snprintf(why, len, "%s: %s", path, rck_strerror(rc));
		return rc;
	}
	rc = dcb_show_parse(buf, blen, ports, n);
	free(buf);
	if (rc)
		snprintf(why, len, "%s: not a DCB state (rocedcb show -j or a state file)", path);
	return rc;
}

/* Each Ethernet port's netdev once, in inventory order. */
static int read_live(struct rck_ctx *ctx, struct rck_dcb ***ports, size_t *n, char *why,
		     size_t len)
{
	struct rck_inventory *inv = NULL;
	struct rck_dcb **v = NULL;
	size_t k = 0;
	int rc = rck_inventory_new(ctx, &inv);

	if (rc) {
		snprintf(why, len, "cannot read the inventory: %s", strerror(-rc));
		return rc;
	}
	for (unsigned int i = 0; !rc && i < rck_inventory_device_count(inv); i++) {
		const struct rck_device *dev = rck_inventory_device(inv, i);

		for (unsigned int p = 0; !rc && p < rck_device_port_count(dev); p++) {
			const struct rck_port *port = rck_device_port(dev, p);
			const char *ll = rck_port_link_layer(port), *nd = rck_port_netdev(port);
			struct rck_dcb **nv;
			bool seen = false;

			if (!ll || strcmp(ll, "Ethernet") || !nd || k >= AG_MAX_DCB_PORTS)
				continue;
			for (size_t j = 0; j < k; j++)
				seen |= !strcmp(v[j]->ifname, nd);
			if (seen)
				continue;
			nv = realloc(v, (k + 1) * sizeof(*nv));
			if (!nv) {
				rc = -ENOMEM;
				break;
			}
			v = nv;
			rc = rck_dcb_read(ctx, nd, &v[k]);
			if (rc == -ENODEV) { /* the netdev went away since the inventory */
				rc = 0;
				continue;
			}
			if (rc)
				snprintf(why, len, "cannot read the DCB state of %s: %s", nd, strerror(-rc));
			else
				k++;
		}
	}
	rck_inventory_free(inv);
	if (rc) {
		free_ports(v, k);
		return rc;
	}
	*ports = v;
	*n = k;
	return 0;
}

int agent_dcb(struct rck_ctx *ctx, const struct rck_agent_opts *o, uint32_t id, uint8_t *buf,
	      size_t cap, size_t *len)
{
	struct rck_dcb **v = NULL;
	char why[AG_TEXT_MAX] = "";
	size_t n = 0;
	int rc = o->dcb_file ? read_recorded(o->dcb_file, &v, &n, why, sizeof(why))
			     : read_live(ctx, &v, &n, why, sizeof(why));

	if (rc) {
		rck_warn(ctx, "agent: DCB state: %s", why);
		return ag_dcb_encode(id, NULL, 0, why, buf, cap, len);
	}
	rc = ag_dcb_encode(id, (const struct rck_dcb *const *)v, n, NULL, buf, cap, len);
	if (rc == -ENOBUFS)
		rc = ag_dcb_encode(id, NULL, 0, "the DCB state does not fit one reply", buf, cap, len);
	free_ports(v, n);
	return rc;
}
