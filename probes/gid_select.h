/* Automatic choice of the RDMA device, port and GID for a probe: the
 * RoCE v2 GID that holds the local address the route to the peer uses. */
#ifndef RCK_PROBE_GID_SELECT_H
#define RCK_PROBE_GID_SELECT_H

#include <stdint.h>
#include <sys/socket.h>

#include "rocecheck/inventory.h"

struct gsel {
	char device[64];
	unsigned int port;
	int gid_index;
	uint8_t gid[16];
	char why[200];          /* how the choice was made, for the result */
};

/* The local address the kernel's routing picks to reach @peer. Returns 0 or -errno. */
int gsel_route_source(const struct sockaddr_storage *peer, struct sockaddr_storage *src);

/*
 * Choose among @inv's GIDs. @device (NULL: any), @port (0: any) and
 * @gid_index (-1: automatic) narrow the choice; @src is the route's source
 * address (NULL when unknown). Automatic means: a RoCE v2 GID equal to
 * @src (IPv4-mapped for IPv4); failing that, on a named device, its first
 * RoCE v2 IPv4 GID. Returns 0, or -ENODEV / -ENOENT with @err (of @len
 * bytes) saying what is missing.
 */
int gsel_pick(const struct rck_inventory *inv, const char *device, unsigned int port, int gid_index,
	      const struct sockaddr_storage *src, struct gsel *out, char *err, size_t len);

#endif
