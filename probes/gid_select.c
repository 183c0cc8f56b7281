/* GID auto-selection: route lookup for the source address, then a walk of
 * the inventory's GID tables for the RoCE v2 entry that carries it. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "gid_select.h"
#include "sock.h"

int gsel_route_source(const struct sockaddr_storage *peer, struct sockaddr_storage *src)
{
	struct sockaddr_storage dst = *peer;
	socklen_t len = dst.ss_family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
	int fd, rc = 0;

	/* A connected UDP socket sends nothing but makes the kernel pick the
	 * route and its source address. */
	if (psock_addr_port(&dst) == 0)
		psock_set_port(&dst, 4791);
	fd = socket(dst.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&dst, len) < 0)
		rc = -errno;
	else
		rc = psock_local(fd, src);
	close(fd);
	return rc;
}

/* The 16 GID bytes an address has in a RoCE v2 GID table. */
static void addr_gid(const struct sockaddr_storage *sa, uint8_t gid[16])
{
	memset(gid, 0, 16);
	if (sa->ss_family == AF_INET) {
		gid[10] = gid[11] = 0xff;
		memcpy(gid + 12, &((const struct sockaddr_in *)sa)->sin_addr, 4);
	} else {
		memcpy(gid, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
	}
}

static bool is_ipv4_gid(const uint8_t *g)
{
	static const uint8_t prefix[12] = { [10] = 0xff, [11] = 0xff };

	return !memcmp(g, prefix, sizeof(prefix));
}

static void fill(struct gsel *out, const struct rck_device *dev, const struct rck_port *port,
		 const struct rck_gid *gid)
{
	snprintf(out->device, sizeof(out->device), "%s", rck_device_name(dev));
	out->port = rck_port_num(port);
	out->gid_index = (int)rck_gid_index(gid);
	memcpy(out->gid, rck_gid_raw(gid), 16);
}

typedef bool (*gid_match)(const struct rck_gid *gid, const void *arg);

/* First GID (devices, ports, indexes in order) that @match accepts. */
static bool find(const struct rck_inventory *inv, const char *device, unsigned int port,
		 gid_match match, const void *arg, struct gsel *out)
{
	for (unsigned int d = 0; d < rck_inventory_device_count(inv); d++) {
		const struct rck_device *dev = rck_inventory_device(inv, d);

		if (device && strcmp(device, rck_device_name(dev)))
			continue;
		for (unsigned int p = 0; p < rck_device_port_count(dev); p++) {
			const struct rck_port *pt = rck_device_port(dev, p);

			if (port && rck_port_num(pt) != port)
				continue;
			for (unsigned int g = 0; g < rck_port_gid_count(pt); g++) {
				const struct rck_gid *gid = rck_port_gid(pt, g);

				if (match(gid, arg)) {
					fill(out, dev, pt, gid);
					return true;
				}
			}
		}
	}
	return false;
}

static bool match_addr(const struct rck_gid *gid, const void *arg)
{
	return rck_gid_type(gid) == RCK_GID_TYPE_ROCE_V2 && !memcmp(rck_gid_raw(gid), arg, 16);
}

static bool match_v4(const struct rck_gid *gid, const void *arg)
{
	(void)arg;
	return rck_gid_type(gid) == RCK_GID_TYPE_ROCE_V2 && is_ipv4_gid(rck_gid_raw(gid));
}

static bool match_index(const struct rck_gid *gid, const void *arg)
{
	return (int)rck_gid_index(gid) == *(const int *)arg;
}

static const char *netdev_of(const struct rck_inventory *inv, const struct gsel *s)
{
	const struct rck_device *dev = rck_inventory_find(inv, s->device);
	const struct rck_port *port = dev ? rck_device_find_port(dev, s->port) : NULL;

	for (unsigned int g = 0; port && g < rck_port_gid_count(port); g++) {
		const struct rck_gid *gid = rck_port_gid(port, g);

		if ((int)rck_gid_index(gid) == s->gid_index && rck_gid_netdev(gid))
			return rck_gid_netdev(gid);
	}
	if (port && rck_port_netdev(port))
		return rck_port_netdev(port);
	return "?";
}

/* A device (and port) for an explicit GID index: the named one, the one
 * whose GID holds the source address, or the only one there is. */
static int pick_by_index(const struct rck_inventory *inv, const char *device, unsigned int port,
			 int gid_index, const uint8_t *want, struct gsel *out, char *err, size_t len)
{
	const struct rck_device *only;
	char found[64];

	if (!device && want && find(inv, NULL, port, match_addr, want, out)) {
		snprintf(found, sizeof(found), "%s", out->device);
		device = found;
		port = out->port;
	}
	if (!device) {
		if (rck_inventory_device_count(inv) != 1) {
			snprintf(err, len, "GID index %d given but no device: name one (--device)", gid_index);
			return -ENODEV;
		}
		only = rck_inventory_device(inv, 0);
		device = rck_device_name(only);
	}
	if (find(inv, device, port, match_index, &gid_index, out)) {
		snprintf(out->why, sizeof(out->why), "GID index %d as asked", gid_index);
		return 0;
	}
	snprintf(err, len, "%s%s%.0u has no GID at index %d", device, port ? "/" : "", port, gid_index);
	return -ENOENT;
}

int gsel_pick(const struct rck_inventory *inv, const char *device, unsigned int port, int gid_index,
	      const struct sockaddr_storage *src, struct gsel *out, char *err, size_t len)
{
	char addr[INET6_ADDRSTRLEN] = "?";
	uint8_t want[16];

	memset(out, 0, sizeof(*out));
	out->gid_index = -1;
	if (device && !rck_inventory_find(inv, device)) {
		snprintf(err, len, "no RDMA device '%s'", device);
		return -ENODEV;
	}
	if (!device && rck_inventory_device_count(inv) == 0) {
		snprintf(err, len, "no RDMA device on this host (the tcp transport needs none)");
		return -ENODEV;
	}
	if (src) {
		addr_gid(src, want);
		psock_addr_str(src, addr, sizeof(addr));
	}
	if (gid_index >= 0)
		return pick_by_index(inv, device, port, gid_index, src ? want : NULL, out, err, len);
	if (src && find(inv, device, port, match_addr, want, out)) {
		snprintf(out->why, sizeof(out->why),
			 "RoCE v2 GID of %s (%s), the source address of the route to the peer", addr,
			 netdev_of(inv, out));
		return 0;
	}
	if (device && find(inv, device, port, match_v4, NULL, out)) {
		snprintf(out->why, sizeof(out->why),
			 "first RoCE v2 IPv4 GID of %s/%u: no GID holds %s, the route's source address",
			 out->device, out->port, addr);
		return 0;
	}
	snprintf(err, len,
		 "no RoCE v2 GID holds %s, the address that reaches the peer: name a device and GID (--device, --gid-index)",
		 addr);
	return -ENOENT;
}
